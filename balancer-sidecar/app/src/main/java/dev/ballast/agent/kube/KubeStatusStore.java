package dev.ballast.agent.kube;

import dev.ballast.agent.balancer.BalancerStatus;
import dev.ballast.agent.balancer.StatusStore;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * status.balancer on the TrainingJob, written by server-side apply with field manager {@code ballast-balancer} from
 * a fresh object that holds only name, namespace and status.balancer, so the balancer never owns anything else.
 */
public final class KubeStatusStore implements StatusStore {
    public static final String FIELD_MANAGER = "ballast-balancer";

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
        GenericKubernetesResource tj = client.genericKubernetesResources(KubeSources.TRAINING_JOBS)
                .inNamespace(namespace).withName(job).get();
        if (tj == null) {
            throw new IllegalStateException("TrainingJob " + namespace + "/" + job + " not found");
        }
        Object status = tj.getAdditionalProperties().get("status");
        if (status instanceof Map<?, ?> s && s.get("balancer") instanceof Map<?, ?> b && b.get("planSequence") instanceof Number n) {
            return n.longValue();
        }
        return 0;
    }

    @Override
    public void write(BalancerStatus s) {
        Map<String, Object> balancer = new LinkedHashMap<>();
        balancer.put("planVersion", s.planVersion());
        balancer.put("planSequence", s.planSequence());
        balancer.put("adoptedAtStep", s.adoptedAtStep());
        balancer.put("imbalanceBefore", round4(s.imbalanceBefore()));
        balancer.put("imbalanceAfter", round4(s.imbalanceAfter()));
        balancer.put("predictedSpeedup", round4(s.predictedSpeedup()));
        if (s.heartbeat() != null) {
            balancer.put("lastStepGeneration", s.heartbeat().generation());
            balancer.put("lastStep", s.heartbeat().step());
            balancer.put("lastStepTime", s.heartbeat().at());
        }
        GenericKubernetesResource patch = new GenericKubernetesResource();
        patch.setApiVersion(KubeSources.TRAINING_JOBS.getGroup() + "/" + KubeSources.TRAINING_JOBS.getVersion());
        patch.setKind(KubeSources.TRAINING_JOBS.getKind());
        patch.setMetadata(new ObjectMetaBuilder().withName(job).withNamespace(namespace).build());
        patch.setAdditionalProperty("status", Map.of("balancer", balancer));
        client.genericKubernetesResources(KubeSources.TRAINING_JOBS).inNamespace(namespace).withName(job)
                .subresource("status").patch(new PatchContext.Builder().withPatchType(PatchType.SERVER_SIDE_APPLY)
                        .withFieldManager(FIELD_MANAGER).withForce(true).build(), patch);
    }

    /** Four decimals are plenty for a ratio and keep the applied object stable between writes. */
    private static double round4(double x) {
        return Math.round(x * 10_000) / 10_000.0;
    }
}
