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
 * template-hash annotation differs, so a reconcile with nothing to do issues no writes. A name held by an
 * object the job does not control is never taken over nor silently skipped: it is returned as a
 * {@link ChildConflict} for the job's status.
 */
final class ChildApplier {
  private static final Logger LOG = Logger.getLogger(ChildApplier.class);
  private final KubernetesClient client;

  ChildApplier(KubernetesClient client) {
    this.client = client;
  }

  /**
   * Create-or-update by template hash. The informer holds only the job's own children, so a live object that is
   * missing there but exists in the API server under the same name belongs to someone else: a conflict.
   */
  <T extends HasMetadata> Optional<ChildConflict> apply(TrainingJob job, Context<TrainingJob> ctx, T desired) {
    @SuppressWarnings("unchecked")
    Optional<T> live = (Optional<T>) find(ctx, desired.getClass(), desired.getMetadata().getName());
    if (live.isEmpty()) return create(job, desired);
    if (Objects.equals(TemplateHash.read(live.get()), TemplateHash.read(desired))) return Optional.empty();
    desired.getMetadata().setResourceVersion(live.get().getMetadata().getResourceVersion());
    if (desired instanceof Service svc && live.get() instanceof Service liveSvc) {
      // the API server allocated these; an update must carry them over
      svc.getSpec().setClusterIP(liveSvc.getSpec().getClusterIP());
      svc.getSpec().setClusterIPs(liveSvc.getSpec().getClusterIPs());
    }
    client.resource(desired).update();
    LOG.infof("Updated %s %s/%s (its desired state changed)", desired.getKind(),
        desired.getMetadata().getNamespace(), desired.getMetadata().getName());
    return Optional.empty();
  }

  /**
   * Creates. An AlreadyExists answer is read back: the job's own child (the informer had not seen an earlier create
   * yet) is done; anything else holding the name is a conflict, returned.
   */
  Optional<ChildConflict> create(TrainingJob job, HasMetadata desired) {
    if (tryCreate(job, desired)) return Optional.empty();
    HasMetadata holder = client.resource(desired).get();
    return holder == null ? Optional.empty() : ChildConflict.of(job, holder); // gone since: created next time
  }

  /**
   * Creates an object the operator may create but not read (a Secret, whose name carries the job's uid so that
   * nothing else holds it): AlreadyExists counts as done.
   */
  void createUnread(TrainingJob job, HasMetadata desired) {
    tryCreate(job, desired);
  }

  /** Creates; false when the name is taken (AlreadyExists). */
  private boolean tryCreate(TrainingJob job, HasMetadata desired) {
    try {
      client.resource(desired).create();
      LOG.infof("Created %s %s/%s for TrainingJob %s", desired.getKind(), desired.getMetadata().getNamespace(),
          desired.getMetadata().getName(), job.getMetadata().getName());
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) throw e;
      return false;
    }
  }

  static <T extends HasMetadata> Optional<T> find(Context<TrainingJob> ctx, Class<T> type, String name) {
    return ctx.getSecondaryResourcesAsStream(type).filter(r -> name.equals(r.getMetadata().getName())).findFirst();
  }
}
