package dev.ballast.agent.kube;

import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.contracts.world.WorldDocumentJson;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Watches what the balancer reads from the cluster: the world ConfigMap the operator publishes. Its document carries
 * the spec as it was frozen at commit (docs/contracts.md), so the balancer never reads the live TrainingJob spec.
 */
public final class KubeSources implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(KubeSources.class.getName());

    private SharedIndexInformer<ConfigMap> worldInformer;

    public void start(KubernetesClient client, String namespace, String worldConfigMap, Consumer<WorldDocument> onWorld) {
        worldInformer = client.configMaps().inNamespace(namespace).withName(worldConfigMap).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ConfigMap cm) {
                read(cm);
            }

            @Override
            public void onUpdate(ConfigMap oldCm, ConfigMap cm) {
                read(cm);
            }

            @Override
            public void onDelete(ConfigMap cm, boolean deletedFinalStateUnknown) {
                // The job is going away; the Deployment (and this process) follows through garbage collection.
            }

            private void read(ConfigMap cm) {
                String json = cm.getData() == null ? null : cm.getData().get(WorldDocument.CONFIG_MAP_KEY);
                if (json == null) {
                    LOG.warning("ConfigMap " + worldConfigMap + " has no key " + WorldDocument.CONFIG_MAP_KEY);
                    return;
                }
                try {
                    onWorld.accept(WorldDocumentJson.decode(json));
                } catch (RuntimeException e) {
                    LOG.warning("ConfigMap " + worldConfigMap + ": unreadable " + e.getMessage());
                }
            }
        });
    }

    @Override
    public void close() {
        if (worldInformer != null) {
            worldInformer.close();
        }
    }
}
