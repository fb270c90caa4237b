package dev.ballast.operator.observe;

import dev.ballast.operator.api.TrainingJob;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The cluster as admission reads it, from informer caches instead of cluster-wide lists on every
 * attempt: every Node, every unfinished pod indexed by the node it claims (bound there, or a gated pod
 * annotated as promised there), and every TrainingJob of every namespace (whose pods' promises count,
 * whichever release admitted them). Started on first use; that call blocks until the caches have listed
 * the cluster, so an operator that just started sees every promise already made.
 */
public final class ClusterCache implements AdmissionView, AutoCloseable {
  static final String BY_NODE = "node";

  private final KubernetesClient client;
  private final Consumer<Pod> podEvent;
  private SharedIndexInformer<Node> nodes;
  private SharedIndexInformer<Pod> pods;
  private SharedIndexInformer<TrainingJob> jobs;

  /** @param podEvent told of every pod the cache adds, updates or deletes (from the informer's thread) */
  public ClusterCache(KubernetesClient client, Consumer<Pod> podEvent) {
    this.client = client;
    this.podEvent = podEvent;
  }

  private synchronized void ensureStarted() {
    if (nodes != null) return;
    nodes = client.nodes().inform();
    // finished pods hold nothing: the API server leaves them out (and sends a delete when a pod finishes)
    pods = client.pods().inAnyNamespace()
        .withoutField("status.phase", "Succeeded").withoutField("status.phase", "Failed")
        .withIndexers(Map.of(BY_NODE, pod -> {
          String node = ClusterCapacity.claimedNode(pod);
          return node == null ? List.of() : List.of(node);
        }))
        .inform(new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod pod) {
            podEvent.accept(pod);
          }

          @Override
          public void onUpdate(Pod old, Pod pod) {
            podEvent.accept(pod);
          }

          @Override
          public void onDelete(Pod pod, boolean finalStateUnknown) {
            podEvent.accept(pod);
          }
        }, 0);
    jobs = client.resources(TrainingJob.class).inAnyNamespace().inform();
  }

  @Override
  public List<Node> nodes() {
    ensureStarted();
    return nodes.getStore().list();
  }

  @Override
  public ExistingJobs jobs() {
    ensureStarted();
    return ExistingJobs.of(jobs.getStore().list().stream());
  }

  @Override
  public List<Pod> podsOn(Collection<String> nodeNames) {
    ensureStarted();
    List<Pod> out = new ArrayList<>();
    for (String node : nodeNames) out.addAll(pods.getIndexer().byIndex(BY_NODE, node));
    return out;
  }

  @Override
  public synchronized void close() {
    if (nodes != null) nodes.close();
    if (pods != null) pods.close();
    if (jobs != null) jobs.close();
  }
}
