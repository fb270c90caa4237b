package dev.ballast.operator.observe;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The TrainingJobs that exist, by uid, in every namespace and whichever Ballast release reconciles them. A gated
 * pod's promise of a node counts only when its controller owner reference resolves here: anyone who may create
 * pods can write the {@code ballast.dev/assigned-node} annotation, but not a TrainingJob's uid into a pod of its
 * namespace that the job does not own without also owning that job.
 *
 * @param namespaceByUid each job's namespace by its uid
 */
public record ExistingJobs(Map<String, String> namespaceByUid) {
  public static final String GROUP = "ballast.dev";
  public static final String KIND = "TrainingJob";

  public ExistingJobs {
    namespaceByUid = Map.copyOf(namespaceByUid);
  }

  public static ExistingJobs of(Stream<? extends HasMetadata> jobs) {
    Map<String, String> byUid = new HashMap<>();
    jobs.forEach(j -> byUid.put(j.getMetadata().getUid(), j.getMetadata().getNamespace()));
    return new ExistingJobs(byUid);
  }

  /** These jobs and {@code more} (e.g. the informer's and the jobs this operator is reconciling). */
  public ExistingJobs with(ExistingJobs more) {
    Map<String, String> byUid = new HashMap<>(namespaceByUid);
    byUid.putAll(more.namespaceByUid);
    return new ExistingJobs(byUid);
  }

  /**
   * Whether the pod's controller is a TrainingJob that exists in the pod's own namespace (Kubernetes owner
   * references never cross namespaces: the garbage collector treats such an owner as absent).
   */
  public boolean control(Pod pod) {
    JobRef ref = controllingJob(pod);
    return ref != null && exists(ref);
  }

  /** Whether this job exists (in that namespace). */
  public boolean exists(JobRef job) {
    return job.namespace().equals(namespaceByUid.get(job.uid()));
  }

  /** The TrainingJob the pod's controller reference names, in the pod's namespace; null when it names none. */
  public static JobRef controllingJob(Pod pod) {
    for (OwnerReference ref : pod.getMetadata().getOwnerReferences()) {
      if (!Boolean.TRUE.equals(ref.getController())) continue;
      boolean job = KIND.equals(ref.getKind()) && ref.getApiVersion() != null
          && ref.getApiVersion().startsWith(GROUP + "/") && ref.getUid() != null
          && pod.getMetadata().getNamespace() != null;
      return job ? new JobRef(pod.getMetadata().getNamespace(), ref.getUid()) : null;
    }
    return null;
  }

  /** A TrainingJob as a pod's controller reference names it: the pod's namespace and the job's uid. */
  public record JobRef(String namespace, String uid) {}
}
