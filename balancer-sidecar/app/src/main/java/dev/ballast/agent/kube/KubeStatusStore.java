package dev.ballast.agent.kube;

import dev.ballast.agent.balancer.StatusStore;
import dev.ballast.contracts.status.BalancerStatus;
import dev.ballast.contracts.status.BalancerStatusJson;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

import java.util.Map;

/**
 * status.balancer on the TrainingJob, written by server-side apply with field manager {@code ballast-balancer} from
 * a fresh object that holds only name, namespace and status.balancer, so the balancer never owns anything else.
 */
public final class KubeStatusStore implements StatusStore {
    public static final String FIELD_MANAGER = "ballast-balancer";
    public static final ResourceDefinitionContext TRAINING_JOBS = new ResourceDefinitionContext.Builder()
            .withGroup("ballast.dev").withVersion("v1alpha1").withKind("TrainingJob").withPlural("trainingjobs")
            .withNamespaced(true).build();

    private final KubernetesClient client;
    private final String namespace;
    private final String job;

    public KubeStatusStore(KubernetesClient client, String namespace, String job) {
        this.client = client;
        this.namespace = namespace;
        this.job = job;
    }

    @Override
    public long loadPlanSequence() {
        GenericKubernetesResource tj = client.genericKubernetesResources(TRAINING_JOBS)
                .inNamespace(namespace).withName(job).get();
        if (tj == null) {
            throw new IllegalStateException("TrainingJob " + namespace + "/" + job + " not found");
        }
        Object status = tj.getAdditionalProperties().get("status");
        return status instanceof Map<?, ?> s && s.get("balancer") instanceof Map<?, ?> b ? BalancerStatusJson.planSequence(b) : 0;
    }

    @Override
    public void write(BalancerStatus s) {
        GenericKubernetesResource patch = new GenericKubernetesResource();
        patch.setApiVersion(TRAINING_JOBS.getGroup() + "/" + TRAINING_JOBS.getVersion());
        patch.setKind(TRAINING_JOBS.getKind());
        patch.setMetadata(new ObjectMetaBuilder().withName(job).withNamespace(namespace).build());
        patch.setAdditionalProperty("status", Map.of("balancer", BalancerStatusJson.fields(s)));
        client.genericKubernetesResources(TRAINING_JOBS).inNamespace(namespace).withName(job)
                .subresource("status").patch(new PatchContext.Builder().withPatchType(PatchType.SERVER_SIDE_APPLY)
                        .withFieldManager(FIELD_MANAGER).withForce(true).build(), patch);
    }
}
