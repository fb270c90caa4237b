package dev.ballast.operator.observe;

import dev.ballast.operator.placement.Resources;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * An unfinished pod that may hold part of a node, with its effective request (and pod slot) summed once, when its
 * informer event arrives. A bound pod holds its node whoever owns it; a pod only promised the node by annotation
 * holds it only while its controller is an existing TrainingJob, which is checked when capacity is read
 * ({@link ClusterCapacity#heldNode}): jobs are created and deleted independently of their pods.
 *
 * @param node where it is bound, or else the node it claims by the promise annotation
 * @param controller the TrainingJob its controller reference names, null when none
 */
public record PodHold(Pod pod, String node, boolean bound, Resources held, ExistingJobs.JobRef controller) {

  /** The pod's hold, or null when it claims no node or has finished (finished pods hold nothing). */
  public static PodHold of(Pod pod) {
    if (pod.getSpec() == null || finished(pod)) return null;
    String node = ClusterCapacity.claimedNode(pod);
    if (node == null) return null;
    return new PodHold(pod, node, pod.getSpec().getNodeName() != null, ClusterCapacity.perPod(pod.getSpec()),
        ExistingJobs.controllingJob(pod));
  }

  public String uid() {
    return pod.getMetadata().getUid();
  }

  /** Whether it holds its node given which TrainingJobs exist. */
  public boolean counts(ExistingJobs jobs) {
    return bound || controller != null && jobs.exists(controller);
  }

  static boolean finished(Pod pod) {
    return pod.getStatus() != null
        && ("Succeeded".equals(pod.getStatus().getPhase()) || "Failed".equals(pod.getStatus().getPhase()));
  }
}
