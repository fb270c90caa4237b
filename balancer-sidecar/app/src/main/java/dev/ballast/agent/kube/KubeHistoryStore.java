package dev.ballast.agent.kube;

import dev.ballast.agent.balancer.HistoryStore;
import dev.ballast.contracts.history.LoadHistoryDocument;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.Map;

/**
 * The load history in ConfigMap {@code <job>-balancer-history} (key {@link LoadHistoryDocument#CONFIG_MAP_KEY}),
 * owned by the TrainingJob so that it lives as long as the job, across balancer restarts and scale-to-zero. Written
 * by server-side apply under {@link KubeStatusStore#FIELD_MANAGER}. It carries no {@code ballast.dev/job} label, so
 * the operator's informers (which select that label) never see its writes.
 */
public final class KubeHistoryStore implements HistoryStore {
    public static final String HISTORY_OF_LABEL = "ballast.dev/balancer-history-of";

    private final KubernetesClient client;
    private final String namespace;
    private final String job;
    private String jobUid;

    public KubeHistoryStore(KubernetesClient client, String namespace, String job) {
        this.client = client;
        this.namespace = namespace;
        this.job = job;
    }

    public static String configMapName(String job) {
        return job + "-balancer-history";
    }

    @Override
    public String load() {
        ConfigMap cm = client.configMaps().inNamespace(namespace).withName(configMapName(job)).get();
        return cm == null || cm.getData() == null ? null : cm.getData().get(LoadHistoryDocument.CONFIG_MAP_KEY);
    }

    @Override
    public void write(String json) {
        ConfigMap cm = new ConfigMapBuilder()
                .withNewMetadata().withName(configMapName(job)).withNamespace(namespace)
                .withLabels(Map.of(HISTORY_OF_LABEL, job))
                .withOwnerReferences(new OwnerReferenceBuilder()
                        .withApiVersion(KubeStatusStore.TRAINING_JOBS.getGroup() + "/" + KubeStatusStore.TRAINING_JOBS.getVersion())
                        .withKind(KubeStatusStore.TRAINING_JOBS.getKind()).withName(job).withUid(jobUid())
                        .withController(false).withBlockOwnerDeletion(false).build())
                .endMetadata()
                .withData(Map.of(LoadHistoryDocument.CONFIG_MAP_KEY, json))
                .build();
        client.resource(cm).fieldManager(KubeStatusStore.FIELD_MANAGER).forceConflicts().serverSideApply();
    }

    private String jobUid() {
        if (jobUid == null) {
            GenericKubernetesResource tj = client.genericKubernetesResources(KubeStatusStore.TRAINING_JOBS)
                    .inNamespace(namespace).withName(job).get();
            if (tj == null) {
                throw new IllegalStateException("TrainingJob " + namespace + "/" + job + " not found");
            }
            jobUid = tj.getMetadata().getUid();
        }
        return jobUid;
    }
}
