package dev.ballast.operator.observe;

import dev.ballast.operator.api.TrainingJob;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * The cluster as admission reads it, from informers instead of cluster-wide lists on every attempt: every Node and
 * every unfinished pod, kept per node in a {@link CapacityView} as the informers store them ({@link ViewStore}), and every TrainingJob of every
 * namespace (whose pods' promises count, whichever release admitted them). {@link #start()} lists the cluster in the
 * background (the operator calls it at startup); a read before the lists are done waits for them, so an operator that
 * just started sees every promise already made.
 */
public final class ClusterCache implements AdmissionView, AutoCloseable {
  private static final Logger LOG = Logger.getLogger(ClusterCache.class);

  private final KubernetesClient client;
  private final Consumer<Pod> podEvent;
  private final CapacityView view = new CapacityView();
  private SharedIndexInformer<Node> nodes;
  private SharedIndexInformer<Pod> pods;
  private SharedIndexInformer<TrainingJob> jobs;
  private CompletableFuture<Void> synced;

  /**
   * @param podEvent told of every pod the cache adds, updates or deletes (from the informer's thread), after
   *     {@link #capacity()} shows the change
   */
  public ClusterCache(KubernetesClient client, Consumer<Pod> podEvent) {
    this.client = client;
    this.podEvent = podEvent;
  }

  /** Starts listing and watching the cluster, without waiting; once done, logs how long the lists took. */
  public synchronized void start() {
    if (synced != null) return;
    long begin = System.nanoTime();
    nodes = client.nodes().runnableInformer(0)
        .itemStore(new ViewStore<>((old, n) -> view.nodeChanged(n), view::nodeDeleted));
    // finished pods hold nothing: the API server leaves them out (and sends a delete when a pod finishes)
    pods = client.pods().inAnyNamespace()
        .withoutField("status.phase", "Succeeded").withoutField("status.phase", "Failed")
        .runnableInformer(0)
        .itemStore(new ViewStore<>(view::podReplaced, view::podDeleted));
    // handlers run after the store (and so the view) has the change: a reservation is released only once the view
    // shows its pod
    pods.addEventHandler(new ResourceEventHandler<>() {
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
    });
    jobs = client.resources(TrainingJob.class).inAnyNamespace().runnableInformer(0);
    synced = CompletableFuture.allOf(nodes.start().toCompletableFuture(), pods.start().toCompletableFuture(),
        jobs.start().toCompletableFuture());
    synced.thenRun(() -> LOG.infof("Admission's cluster cache listed %d nodes, %d pods and %d TrainingJobs in %.0f ms",
        nodes.getStore().list().size(), pods.getStore().list().size(), jobs.getStore().list().size(),
        (System.nanoTime() - begin) / 1e6));
  }

  /** Starts the cache if nobody has, and waits until it has listed the cluster. */
  private void awaitSynced() {
    start();
    try {
      synced.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }

  @Override
  public CapacitySnapshot capacity() {
    awaitSynced();
    return view.snapshot();
  }

  @Override
  public ExistingJobs jobs() {
    awaitSynced();
    return ExistingJobs.of(jobs.getStore().list().stream());
  }

  @Override
  public List<Pod> pods(String namespace) {
    awaitSynced();
    return pods.getIndexer().byIndex(Cache.NAMESPACE_INDEX, namespace); // the informer's own index, not a scan
  }

  @Override
  public synchronized void close() {
    if (nodes != null) nodes.close();
    if (pods != null) pods.close();
    if (jobs != null) jobs.close();
  }
}
