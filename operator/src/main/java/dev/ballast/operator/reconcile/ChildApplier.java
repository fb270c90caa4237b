package dev.ballast.operator.reconcile;

import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.desired.TemplateHash;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.Objects;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * Makes live children match desired ones. A child is written only when it is missing or its
 * template-hash annotation differs, so a reconcile with nothing to do issues no writes.
 */
final class ChildApplier {
  private static final Logger LOG = Logger.getLogger(ChildApplier.class);
  private final KubernetesClient client;

  ChildApplier(KubernetesClient client) {
    this.client = client;
  }

  /** Create-or-update by template hash. Returns true if it wrote. */
  <T extends HasMetadata> boolean apply(TrainingJob job, Context<TrainingJob> ctx, T desired) {
    @SuppressWarnings("unchecked")
    Optional<T> live = (Optional<T>) find(ctx, desired.getClass(), desired.getMetadata().getName());
    if (live.isEmpty()) return create(job, desired);
    if (Objects.equals(TemplateHash.read(live.get()), TemplateHash.read(desired))) return false;
    desired.getMetadata().setResourceVersion(live.get().getMetadata().getResourceVersion());
    if (desired instanceof Service svc && live.get() instanceof Service liveSvc) {
      // the API server allocated these; an update must carry them over
      svc.getSpec().setClusterIP(liveSvc.getSpec().getClusterIP());
      svc.getSpec().setClusterIPs(liveSvc.getSpec().getClusterIPs());
    }
    client.resource(desired).update();
    LOG.infof("Updated %s %s/%s (its desired state changed)", desired.getKind(),
        desired.getMetadata().getNamespace(), desired.getMetadata().getName());
    return true;
  }

  /** Creates; an AlreadyExists answer counts as done. Returns true if it wrote. */
  boolean create(TrainingJob job, HasMetadata desired) {
    try {
      client.resource(desired).create();
      LOG.infof("Created %s %s/%s for TrainingJob %s", desired.getKind(), desired.getMetadata().getNamespace(),
          desired.getMetadata().getName(), job.getMetadata().getName());
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) return false; // the informer had not seen our own earlier create yet
      throw e;
    }
  }

  static <T extends HasMetadata> Optional<T> find(Context<TrainingJob> ctx, Class<T> type, String name) {
    return ctx.getSecondaryResourcesAsStream(type).filter(r -> name.equals(r.getMetadata().getName())).findFirst();
  }
}
