package dev.ballast.agent.kube;

import dev.ballast.agent.balancer.JobSpec;
import dev.ballast.agent.wire.World;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The balancer's cluster inputs on the fabric8 mock server: the world ConfigMap and the TrainingJob spec through
 * informers, and the persisted plan sequence. (Server-side apply of status.balancer needs a real API server: the
 * mock answers 415 to apply patches; the e2e suite covers it.)
 */
@EnableKubernetesMockClient(crud = true)
class KubeSourcesTest {
    static KubernetesClient client;

    static String world(long generation) {
        return "{\"job\":\"j\",\"namespace\":\"ns\",\"generation\":" + generation + ",\"gpusPerWorker\":2,\"nodes\":"
                + "[{\"index\":0,\"pod\":\"j-worker-0\",\"nodeRank\":0,\"node\":\"a\",\"domain\":\"d\",\"rack\":\"r\"}]}";
    }

    @Test
    void readsTheWorldConfigMapTheSpecAndThePersistedSequence() {
        client.configMaps().inNamespace("ns").resource(new ConfigMapBuilder().withNewMetadata().withName("j-world")
                .endMetadata().withData(Map.of("world.json", world(1))).build()).create();
        GenericKubernetesResource tj = new GenericKubernetesResource();
        tj.setApiVersion("ballast.dev/v1alpha1");
        tj.setKind("TrainingJob");
        tj.setMetadata(new ObjectMetaBuilder().withName("j").withNamespace("ns").build());
        tj.setAdditionalProperty("spec", Map.of("gpusPerWorker", 2,
                "model", Map.of("moeLayers", 4, "experts", 8, "topK", 2),
                "parallelism", Map.of("expert", 2, "pipeline", 1),
                "balancer", Map.of("mode", "fssdp", "planner", "eplb", "replanEverySteps", 20)));
        tj.setAdditionalProperty("status", Map.of("balancer", Map.of("planSequence", 128)));
        client.genericKubernetesResources(KubeSources.TRAINING_JOBS).inNamespace("ns").resource(tj).create();

        List<World> worlds = new CopyOnWriteArrayList<>();
        List<JobSpec> specs = new CopyOnWriteArrayList<>();
        try (KubeSources sources = new KubeSources()) {
            sources.start(client, "ns", "j", "j-world", worlds::add, specs::add);
            await().atMost(20, TimeUnit.SECONDS).until(() -> !worlds.isEmpty() && !specs.isEmpty());
            assertThat(worlds.get(0).generation()).isEqualTo(1);
            assertThat(specs.get(0).mode()).isEqualTo("fssdp");
            assertThat(specs.get(0).planner()).isEqualTo("eplb");
            assertThat(specs.get(0).expertParallel()).isEqualTo(2);
            assertThat(specs.get(0).replanEverySteps()).isEqualTo(20);

            client.configMaps().inNamespace("ns").withName("j-world").edit(cm -> {
                cm.setData(Map.of("world.json", world(2)));
                return cm;
            });
            await().atMost(20, TimeUnit.SECONDS).until(() -> worlds.get(worlds.size() - 1).generation() == 2);
        }
        assertThat(new KubeStatusStore(client, "ns", "j").loadPlanSequence()).isEqualTo(128);
    }
}
