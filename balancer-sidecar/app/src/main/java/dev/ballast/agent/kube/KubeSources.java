package dev.ballast.agent.kube;

import dev.ballast.agent.balancer.JobSpec;
import dev.ballast.agent.wire.World;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import java.util.Map;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Watches what the balancer reads from the cluster: the world ConfigMap the operator publishes and the TrainingJob's
 * spec (through the generic client, so the balancer does not depend on the operator's classes).
 */
public final class KubeSources implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(KubeSources.class.getName());

    public static final ResourceDefinitionContext TRAINING_JOBS = new ResourceDefinitionContext.Builder()
            .withGroup("ballast.dev").withVersion("v1alpha1").withKind("TrainingJob").withPlural("trainingjobs")
            .withNamespaced(true).build();

    private SharedIndexInformer<ConfigMap> worldInformer;
    private SharedIndexInformer<GenericKubernetesResource> jobInformer;

    public void start(KubernetesClient client, String namespace, String job, String worldConfigMap,
                      Consumer<World> onWorld, Consumer<JobSpec> onSpec) {
        worldInformer = client.configMaps().inNamespace(namespace).withName(worldConfigMap).inform(handler(cm -> {
            String json = cm.getData() == null ? null : cm.getData().get("world.json");
            if (json == null) {
                LOG.warning("ConfigMap " + worldConfigMap + " has no key world.json");
                return;
            }
            try {
                onWorld.accept(World.parse(json));
            } catch (RuntimeException e) {
                LOG.warning("ConfigMap " + worldConfigMap + ": unreadable world.json: " + e.getMessage());
            }
        }));
        jobInformer = client.genericKubernetesResources(TRAINING_JOBS).inNamespace(namespace).withName(job)
                .inform(handler(tj -> {
                    Object spec = tj.getAdditionalProperties().get("spec");
                    if (!(spec instanceof Map<?, ?> m)) {
                        LOG.warning("TrainingJob " + job + " has no spec");
                        return;
                    }
                    try {
                        @SuppressWarnings("unchecked")
                        Map<String, Object> sm = (Map<String, Object>) m;
                        onSpec.accept(JobSpec.fromSpec(sm));
                    } catch (RuntimeException e) {
                        LOG.warning("TrainingJob " + job + ": " + e.getMessage());
                    }
                }));
    }

    private static <T> ResourceEventHandler<T> handler(Consumer<T> c) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                c.accept(obj);
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                c.accept(newObj);
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                // The job is going away; the Deployment (and this process) follows through garbage collection.
            }
        };
    }

    @Override
    public void close() {
        if (worldInformer != null) {
            worldInformer.close();
        }
        if (jobInformer != null) {
            jobInformer.close();
        }
    }
}
