package dev.ballast.agent.kube;

import dev.ballast.agent.sim.TestWorlds;
import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.contracts.world.WorldDocumentJson;
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
 * The balancer's cluster inputs on the fabric8 mock server: the world ConfigMap through an informer (its document
 * carries the spec frozen at commit), and the persisted plan sequence. (Server-side apply of status.balancer needs a
 * real API server: the mock answers 415 to apply patches; the e2e suite covers it.)
 */
@EnableKubernetesMockClient(crud = true)
class KubeSourcesTest {
    static KubernetesClient client;

    static String world(long generation, int replanEverySteps) {
        return WorldDocumentJson.encode(TestWorlds.world("j", generation, 2, TestWorlds.spec(4, 8, 2, 2, 2, replanEverySteps),
                TestWorlds.worker("j", 0, 0, "a", "d", "r")));
    }

    @Test
    void readsTheWorldConfigMapAndThePersistedSequence() {
        client.configMaps().inNamespace("ns").resource(new ConfigMapBuilder().withNewMetadata().withName("j-world")
                .endMetadata().withData(Map.of(WorldDocument.CONFIG_MAP_KEY, world(1, 20))).build()).create();
        GenericKubernetesResource tj = new GenericKubernetesResource();
        tj.setApiVersion("ballast.dev/v1alpha1");
        tj.setKind("TrainingJob");
        tj.setMetadata(new ObjectMetaBuilder().withName("j").withNamespace("ns").build());
        tj.setAdditionalProperty("status", Map.of("balancer", Map.of("planSequence", 128)));
        client.genericKubernetesResources(KubeStatusStore.TRAINING_JOBS).inNamespace("ns").resource(tj).create();

        List<WorldDocument> worlds = new CopyOnWriteArrayList<>();
        try (KubeSources sources = new KubeSources()) {
            sources.start(client, "ns", "j-world", worlds::add);
            await().atMost(20, TimeUnit.SECONDS).until(() -> !worlds.isEmpty());
            assertThat(worlds.get(0).generation()).isEqualTo(1);
            assertThat(worlds.get(0).spec().replanEverySteps()).isEqualTo(20);
            assertThat(worlds.get(0).spec().expertParallel()).isEqualTo(2);

            client.configMaps().inNamespace("ns").withName("j-world").edit(cm -> {
                cm.setData(Map.of(WorldDocument.CONFIG_MAP_KEY, world(2, 30)));
                return cm;
            });
            await().atMost(20, TimeUnit.SECONDS).until(() -> worlds.get(worlds.size() - 1).generation() == 2);
            assertThat(worlds.get(worlds.size() - 1).spec().replanEverySteps()).isEqualTo(30);
        }
        assertThat(new KubeStatusStore(client, "ns", "j").loadPlanSequence()).isEqualTo(128);
    }
}
