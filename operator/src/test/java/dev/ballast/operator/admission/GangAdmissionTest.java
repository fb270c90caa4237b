package dev.ballast.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.config.OperatorSettings;
import dev.ballast.operator.observe.AdmissionView;
import dev.ballast.operator.observe.CapacitySnapshot;
import dev.ballast.operator.observe.CapacityView;
import dev.ballast.operator.observe.ExistingJobs;
import dev.ballast.operator.observe.Priorities;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Admission against a cache that lags: the pods it creates reach the API server (the fabric8 mock) at
 * once, but its view of the cluster shows them only when the test says so.
 */
@EnableKubernetesMockClient(crud = true)
class GangAdmissionTest {
  KubernetesClient client;
  io.fabric8.kubernetes.client.server.mock.KubernetesMockServer server;

  /** A view that shows exactly the nodes and pods the test hands it, through the snapshot admission reads. */
  static final class LaggingView implements AdmissionView {
    final List<Node> nodes = new ArrayList<>();
    final List<Pod> pods = new ArrayList<>();
    final List<TrainingJob> jobs = new ArrayList<>();

    @Override
    public ExistingJobs jobs() {
      return ExistingJobs.of(jobs.stream());
    }

    /** Runs once right after the next read of the pods: an informer event that lands just then. */
    Runnable afterNextRead = () -> {};

    @Override
    public CapacitySnapshot capacity() {
      var view = new CapacityView();
      nodes.forEach(view::nodeChanged);
      pods.forEach(view::podChanged);
      CapacitySnapshot read = view.snapshot();
      afterNextRead.run();
      afterNextRead = () -> {};
      return read;
    }

    @Override
    public List<Pod> pods(String namespace) {
      return pods.stream().filter(p -> namespace.equals(p.getMetadata().getNamespace())).toList();
    }
  }

  static Node gpuNode(String name) {
    return new NodeBuilder().withNewMetadata().withName(name)
        .addToLabels("nvidia.com/gpu.clique", "nvl-" + name).addToLabels("topology.kubernetes.io/rack", "rack-0")
        .endMetadata()
        .withNewStatus().addToAllocatable("nvidia.com/gpu", new Quantity("8"))
        .addToAllocatable("cpu", new Quantity("64")).addToAllocatable("memory", new Quantity("512Gi"))
        .addToAllocatable("pods", new Quantity("110"))
        .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus()
        .build();
  }

  static TrainingJob job(String name, int workers) {
    TrainingJob job = TestJobs.job(name, workers, workers, 8);
    job.getMetadata().setNamespace("team-a");
    return job;
  }

  /** Admits {@code job} as the reconciler does: the job is in the operator's primary cache, the view lists the rest. */
  static GangAdmission.Result admit(GangAdmission admission, LaggingView view, TrainingJob job) {
    GangAdmission.Result result = admission.admit(job, 1, job.getSpec().workers.max,
        ExistingJobs.of(java.util.stream.Stream.of(job)), java.util.List.of(), NamespacePolicy.NONE);
    view.jobs.add(job);
    return result;
  }

  List<Pod> created(String job) {
    return client.pods().inNamespace("team-a").withLabel("ballast.dev/job", job).list().getItems();
  }

  @Test
  void backToBackAdmissionsNeverPromiseAGpuTwiceWhileTheCacheLags() {
    var view = new LaggingView();
    view.nodes.addAll(List.of(gpuNode("a"), gpuNode("b"), gpuNode("c")));
    var admission = new GangAdmission(client, OperatorSettings.defaults(), view);

    assertThat(admit(admission, view, job("first", 2))).isInstanceOf(GangAdmission.Result.Admitted.class);
    // the cache has not seen first's pods: without the reservations, second would get their nodes too
    assertThat(admit(admission, view, job("second", 2))).isInstanceOf(GangAdmission.Result.Unschedulable.class);
    assertThat(admit(admission, view, job("third", 1))).isInstanceOfSatisfying(GangAdmission.Result.Admitted.class,
        a -> assertThat(a.world().seats()).extracting(s -> s.node())
            .doesNotContainAnyElementsOf(created("first").stream().map(GangAdmissionTest::assigned).toList()));

    // the cache catches up: each pod counts once (from the cache), so a freed node is offered again
    view.pods.addAll(created("first"));
    view.pods.addAll(created("third"));
    assertThat(admit(admission, view, job("fourth", 1))).isInstanceOf(GangAdmission.Result.Unschedulable.class);
    view.pods.removeAll(created("third"));
    assertThat(admit(admission, view, job("fifth", 1))).isInstanceOf(GangAdmission.Result.Admitted.class);
  }

  @Test
  void aRestartedAdmissionSeesThePromisesItsCacheListed() {
    var view = new LaggingView();
    view.nodes.addAll(List.of(gpuNode("a"), gpuNode("b")));
    admit(new GangAdmission(client, OperatorSettings.defaults(), view), view, job("before", 2));
    // a new process: no reservations, but its cache lists the gated pods the old one created
    view.pods.addAll(created("before"));
    var restarted = new GangAdmission(client, OperatorSettings.defaults(), view);
    assertThat(admit(restarted, view, job("after", 1))).isInstanceOf(GangAdmission.Result.Unschedulable.class);
  }

  @Test
  void aPodTheCacheDeliversWhileAdmissionReadsItIsCountedOnce() {
    var view = new LaggingView();
    view.nodes.addAll(List.of(gpuNode("a"), gpuNode("b")));
    var admission = new GangAdmission(client, OperatorSettings.defaults(), view);
    assertThat(admit(admission, view, job("first", 1))).isInstanceOf(GangAdmission.Result.Admitted.class);
    // first's pod reaches the cache (and its event releases the reservation) just after the next read of the cache:
    // the read missed it, so only the reservation, read before, can count it
    view.afterNextRead = () -> created("first").forEach(p -> {
      view.pods.add(p);
      admission.delivered(p);
    });
    assertThat(admit(admission, view, job("second", 1))).isInstanceOfSatisfying(GangAdmission.Result.Admitted.class,
        a -> assertThat(a.world().seats().get(0).node()).isNotEqualTo(assigned(created("first").get(0))));
    // second's pod reaches the cache too: both are cached, no reservation is left, nothing counts twice
    created("second").forEach(p -> {
      view.pods.add(p);
      admission.delivered(p);
    });
    assertThat(admit(admission, view, job("third", 1))).isInstanceOf(GangAdmission.Result.Unschedulable.class);
    view.pods.clear();
    assertThat(admit(admission, view, job("fourth", 2))).as("no stale reservation holds a node")
        .isInstanceOf(GangAdmission.Result.Admitted.class);
  }

  @Test
  void aForgedPromiseHoldsNothingAndAnotherReleasesJobHoldsWhatItWasPromised() {
    var view = new LaggingView();
    view.nodes.addAll(List.of(gpuNode("a"), gpuNode("b")));
    // a tenant's gated 8-GPU pods claiming both nodes: no owner, an owner uid that exists nowhere, and the uid
    // of a real job but from another namespace (owner references never cross namespaces)
    TrainingJob elsewhere = job("elsewhere", 1);
    elsewhere.getMetadata().setNamespace("team-b");
    view.jobs.add(elsewhere);
    view.pods.add(forged("tenant", "a", null));
    view.pods.add(forged("tenant", "b", "uid-nobody"));
    view.pods.add(forged("tenant", "b", "uid-elsewhere"));
    var admission = new GangAdmission(client, OperatorSettings.defaults(), view);
    assertThat(admit(admission, view, job("real", 2))).isInstanceOf(GangAdmission.Result.Admitted.class);

    // the same claim from a pod a job of another release controls (the view lists it; this operator does not
    // reconcile it) holds its node
    var other = new LaggingView();
    other.nodes.addAll(view.nodes);
    other.jobs.add(elsewhere);
    other.pods.add(forged("team-b", "a", "uid-elsewhere"));
    var secondRelease = new GangAdmission(client, OperatorSettings.defaults(), other);
    assertThat(admit(secondRelease, other, job("wants-both", 2))).isInstanceOf(GangAdmission.Result.Unschedulable.class);
  }

  /** A gated pod requesting 8 GPUs that claims {@code node} by annotation, controlled by {@code ownerUid} if set. */
  static Pod forged(String namespace, String node, String ownerUid) {
    var b = new io.fabric8.kubernetes.api.model.PodBuilder().withNewMetadata().withNamespace(namespace)
        .withName("claim-" + node + "-" + ownerUid).withUid("pod-" + node + "-" + ownerUid)
        .addToAnnotations(dev.ballast.operator.desired.Labels.ASSIGNED_NODE, node).endMetadata()
        .withNewSpec().addNewSchedulingGate().withName("ballast.dev/admission").endSchedulingGate()
        .addNewContainer().withName("c").withNewResources().addToLimits("nvidia.com/gpu", new Quantity("8"))
        .endResources().endContainer().endSpec();
    if (ownerUid != null) {
      b.editMetadata().addNewOwnerReference().withApiVersion("ballast.dev/v1alpha1").withKind("TrainingJob")
          .withName("x").withUid(ownerUid).withController(true).endOwnerReference().endMetadata();
    }
    return b.build();
  }

  @Test
  void theJobsOwnStoppedWorldStillInTheCacheDoesNotShrinkItsNextWorld() {
    var view = new LaggingView();
    view.nodes.addAll(List.of(gpuNode("a"), gpuNode("b")));
    var admission = new GangAdmission(client, OperatorSettings.defaults(), view);
    TrainingJob job = job("next", 2);
    var reconciled = ExistingJobs.of(java.util.stream.Stream.of(job));
    admission.admit(job, 1, job.getSpec().workers.max, reconciled, java.util.List.of(), NamespacePolicy.NONE);
    // world 1 is committed, then stopped: its pods are gone from the API, but the admission cache lags
    view.pods.addAll(created("next"));
    job.setStatus(new dev.ballast.operator.api.TrainingJobStatus());
    job.getStatus().world = new dev.ballast.operator.api.WorldStatus();
    job.getStatus().world.generation = 1L;
    client.pods().inNamespace("team-a").withLabel("ballast.dev/job", "next").delete();
    assertThat(admission.admit(job, 2, job.getSpec().workers.max, reconciled, List.of(), NamespacePolicy.NONE))
        .isInstanceOfSatisfying(GangAdmission.Result.Admitted.class,
        a -> assertThat(a.world().size()).isEqualTo(2));
    TrainingJob other = job("other", 1);
    assertThat(admission.admit(other, 1, other.getSpec().workers.max,
        ExistingJobs.of(java.util.stream.Stream.of(job, other)), java.util.List.of(), NamespacePolicy.NONE))
        .as("another job still sees world 2's promises")
        .isInstanceOf(GangAdmission.Result.Unschedulable.class);
  }

  /** The API server takes job {@code name}'s first worker pod, refuses its second ({@code message}), deletes the first. */
  void secondPodRefused(String name, String message) {
    server.expect().post().withPath("/api/v1/namespaces/team-a/pods")
        .andReturn(201, new io.fabric8.kubernetes.api.model.PodBuilder().withNewMetadata().withName(name + "-g1-w0")
            .withNamespace("team-a").withUid("u0").endMetadata().build()).once();
    server.expect().post().withPath("/api/v1/namespaces/team-a/pods")
        .andReturn(403, new io.fabric8.kubernetes.api.model.StatusBuilder().withStatus("Failure").withCode(403)
            .withReason("Forbidden").withMessage(message).build()).once();
    server.expect().delete().withPath("/api/v1/namespaces/team-a/pods/" + name + "-g1-w0").andReturn(200, "{}").once();
  }

  @Test
  void aRefusedPodIsReportedWithItsMessageNoPodIsKeptAndNoneIsCreatedAgainUntilTheBackoffEndsOrTheSpecChanges()
      throws InterruptedException {
    var view = new LaggingView();
    view.nodes.addAll(List.of(gpuNode("a"), gpuNode("b")));
    String message = "pods \"refused-g1-w1\" is forbidden: violates PodSecurity \"restricted:latest\": runAsNonRoot != true";
    secondPodRefused("refused", message);

    TrainingJob job = job("refused", 2);
    var admission = new GangAdmission(client, OperatorSettings.defaults(), view);
    var result = admission.admit(job, 1, job.getSpec().workers.max, ExistingJobs.of(java.util.stream.Stream.of(job)),
        java.util.List.of(), NamespacePolicy.NONE);

    assertThat(result).isEqualTo(new GangAdmission.Result.Refused("refused-g1-w1", message));
    assertThat(server.getLastRequest().getMethod()).as("the pod created before the refusal is deleted").isEqualTo("DELETE");
    int requests = server.getRequestCount();
    assertThat(admission.admit(job, 1, 2, ExistingJobs.of(java.util.stream.Stream.of(job)), List.of(),
        NamespacePolicy.NONE)).as("woken at once by its own pods' events: the same answer").isEqualTo(result);
    assertThat(server.getRequestCount()).as("no pod created and deleted again within the backoff").isEqualTo(requests);
    secondPodRefused("refused", message);
    job.getMetadata().setGeneration(job.getMetadata().getGeneration() + 1);
    assertThat(admission.admit(job, 1, 2, ExistingJobs.of(java.util.stream.Stream.of(job)), List.of(),
        NamespacePolicy.NONE)).as("its spec edited: tried again at once").isEqualTo(result);
    assertThat(server.getRequestCount()).isEqualTo(requests + 3);
  }

  static io.fabric8.kubernetes.api.model.ResourceQuota gpuQuota(String gpus) {
    return new io.fabric8.kubernetes.api.model.ResourceQuotaBuilder().withNewMetadata().withName("gpus")
        .withNamespace("team-a").endMetadata().withNewSpec().addToHard("requests.nvidia.com/gpu", new Quantity(gpus))
        .endSpec().build();
  }

  @Test
  void anElasticJobIsAdmittedAtTheSizeItsQuotaAllowsAndOneItCannotTakeWaitsWithoutCreatingAPod() {
    var view = new LaggingView();
    view.nodes.addAll(List.of(gpuNode("a"), gpuNode("b"), gpuNode("c")));
    var admission = new GangAdmission(client, OperatorSettings.defaults(), view);
    var quotas = List.of(gpuQuota("16"));
    TrainingJob elastic = dev.ballast.operator.TestJobs.job("elastic", 1, 3, 8);
    var reconciled = ExistingJobs.of(java.util.stream.Stream.of(elastic));

    assertThat(admission.admit(elastic, 1, 3, reconciled, List.of(), new NamespacePolicy(quotas, List.of())))
        .isInstanceOfSatisfying(GangAdmission.Result.Admitted.class, a -> assertThat(a.world().size())
            .as("three nodes have room for 3, the quota for 2").isEqualTo(2));
    view.pods.addAll(created("elastic"));
    assertThat(admission.placeableWorkers(elastic, reconciled, new NamespacePolicy(quotas, List.of())))
        .as("its own pods are left out of the quota's usage as of the room").isEqualTo(2);
    assertThat(admission.placeableWorkers(elastic, reconciled, new NamespacePolicy(List.of(gpuQuota("24")), List.of())))
        .isEqualTo(3);

    TrainingJob other = dev.ballast.operator.TestJobs.job("other", 1, 1, 8);
    assertThat(admission.admit(other, 1, 1, ExistingJobs.of(java.util.stream.Stream.of(elastic, other)), List.of(),
        new NamespacePolicy(quotas, List.of()))).isEqualTo(new GangAdmission.Result.Unschedulable(NamespaceQuota.EXCEEDS_QUOTA,
        "the ResourceQuotas of namespace team-a let in 0 workers and workers.min is 1: ResourceQuota gpus"
            + " (requests.nvidia.com/gpu): 16 GPUs of 16 GPUs used, 8 GPUs per worker; the job waits until the"
            + " namespace's usage or its quota changes"));
    assertThat(created("other")).isEmpty();
  }

  @Test
  void aJobBehindInTheQueueLeavesTheQuotaToTheJobsOfItsNamespaceAheadOfIt() {
    var view = new LaggingView();
    view.nodes.addAll(List.of(gpuNode("a"), gpuNode("b"), gpuNode("c"), gpuNode("d"), gpuNode("e"), gpuNode("f")));
    var admission = new GangAdmission(client, OperatorSettings.defaults(), view);
    var policy = new NamespacePolicy(List.of(gpuQuota("32")), List.of()); // four workers
    TrainingJob first = job("first", 3);
    TrainingJob behind = dev.ballast.operator.TestJobs.job("behind", 2, 3, 8);
    var reconciled = ExistingJobs.of(java.util.stream.Stream.of(first, behind));
    var ahead = new AdmissionQueue.Ahead("team-a/first", 0, first.getSpec(), Set.of(), null,
        admission.quotaWorkers(first, policy));

    assertThat(admission.admit(behind, 1, 3, reconciled, List.of(ahead), policy)).as("six nodes have room for both")
        .isEqualTo(new GangAdmission.Result.Unschedulable(InsufficientRoom.QUEUED_BEHIND, "team-a/first (priority 0,"
            + " 3 workers) waits ahead of this job (a higher priority, or as high and older) and takes the quota first;"
            + " beside it: its namespace's quota lets in 1 worker of this job, fewer than its workers.min (2)"));
    assertThat(created("behind")).isEmpty();

    TrainingJob small = dev.ballast.operator.TestJobs.job("small", 1, 3, 8);
    assertThat(admission.admit(small, 1, 3, ExistingJobs.of(java.util.stream.Stream.of(first, small)),
        List.of(ahead), policy)).as("an elastic job behind takes what the job ahead leaves of the quota")
        .isInstanceOfSatisfying(GangAdmission.Result.Admitted.class, a -> assertThat(a.world().size()).isEqualTo(1));

    var elsewhere = new AdmissionQueue.Ahead("team-b/first", 0, first.getSpec(), Set.of(), null, Integer.MAX_VALUE);
    assertThat(admission.admit(behind, 1, 3, reconciled, List.of(elsewhere), policy))
        .as("a job of another namespace takes none of this one's quota")
        .isInstanceOfSatisfying(GangAdmission.Result.Admitted.class, a -> assertThat(a.world().size()).isEqualTo(3));
  }

  @Test
  void aJobItsQuotaCouldNotTakeEvenInAnEmptyNamespaceIsToldToChangeTheQuotaOrItsMinimum() {
    var view = new LaggingView();
    view.nodes.addAll(List.of(gpuNode("a"), gpuNode("b"), gpuNode("c")));
    var admission = new GangAdmission(client, OperatorSettings.defaults(), view);
    TrainingJob big = job("big", 3);
    assertThat(admission.admit(big, 1, 3, ExistingJobs.of(java.util.stream.Stream.of(big)), List.of(),
        new NamespacePolicy(List.of(gpuQuota("16")), List.of()))).isEqualTo(new GangAdmission.Result.Unschedulable(
        NamespaceQuota.QUOTA_TOO_SMALL, "the ResourceQuotas of namespace team-a let in at most 2 workers with nothing"
            + " else running, and workers.min is 3: ResourceQuota gpus (requests.nvidia.com/gpu): 0 GPUs of 16 GPUs"
            + " used, 8 GPUs per worker; raise the quota or lower workers.min"));
    assertThat(created("big")).isEmpty();
    assertThat(NamespaceQuota.waitsForQuota(NamespaceQuota.QUOTA_TOO_SMALL)).isTrue();
  }

  @Test
  void aJobOfTheNamespaceGivesBackTheWorkersThatAJobWaitingForTheQuotaNeedsAndNoMore() {
    var view = new LaggingView();
    view.nodes.addAll(List.of(gpuNode("a"), gpuNode("b"), gpuNode("c"), gpuNode("d"), gpuNode("e")));
    var admission = new GangAdmission(client, OperatorSettings.defaults(), view);
    var quota = new NamespacePolicy(List.of(gpuQuota("24")), List.of());
    TrainingJob lender = ReclaimTest.job("lender", 1, 3, null);
    var reconciled = ExistingJobs.of(java.util.stream.Stream.of(lender));
    assertThat(admission.admit(lender, 1, 3, reconciled, List.of(), quota))
        .isInstanceOf(GangAdmission.Result.Admitted.class);
    view.pods.addAll(created("lender"));
    lender.getStatus().world.generation = 1L;
    TrainingJob waiting = ReclaimTest.job("waiting", 2, 0, null);
    waiting.getStatus().conditions.get(0).setReason(NamespaceQuota.EXCEEDS_QUOTA);
    var priorities = new Priorities(Map.of(), null, Set.of());
    var jobs = List.of(lender, waiting);

    assertThat(admission.giveWay(lender, jobs, reconciled, j -> quota, priorities, Instant.now()))
        .as("two nodes are free, but the quota (24 GPUs, 24 used) lets in none: the lender keeps 1 of its 3")
        .contains(new Reclaim.Yield("team-a/lender", 1, "team-a/waiting", 2, true));
    assertThat(admission.giveWay(lender, jobs, reconciled, j -> new NamespacePolicy(List.of(gpuQuota("32")),
        List.of()), priorities, Instant.now())).as("a quota of 32 needs one worker back")
        .contains(new Reclaim.Yield("team-a/lender", 2, "team-a/waiting", 2, true));
    assertThat(admission.giveWay(lender, jobs, reconciled, j -> NamespacePolicy.NONE, priorities, Instant.now()))
        .as("without the quota the waiting job needs nobody").isEmpty();
    assertThat(admission.giveWay(lender, jobs, reconciled, j -> quota, priorities, Instant.now()).orElseThrow()
        .waitsFor()).isEqualTo("team-a/waiting waits for the quota of its namespace to let in its workers.min (2)");
  }

  @Test
  void aWorkerCountsTowardsTheQuotaWithItsLimitRangesDefaults() {
    var view = new LaggingView();
    view.nodes.addAll(List.of(gpuNode("a"), gpuNode("b"), gpuNode("c")));
    var admission = new GangAdmission(client, OperatorSettings.defaults(), view);
    TrainingJob elastic = dev.ballast.operator.TestJobs.job("defaulted", 1, 3, 8);
    var reconciled = ExistingJobs.of(java.util.stream.Stream.of(elastic));
    var cpu = new io.fabric8.kubernetes.api.model.ResourceQuotaBuilder().withNewMetadata().withName("cpu")
        .withNamespace("team-a").endMetadata().withNewSpec().addToHard("requests.cpu", new Quantity("10")).endSpec()
        .build();
    var defaults = new io.fabric8.kubernetes.api.model.LimitRangeBuilder().withNewMetadata().withName("defaults")
        .withNamespace("team-a").endMetadata().withNewSpec().addNewLimit().withType("Container")
        .addToDefaultRequest("cpu", new Quantity("4")).endLimit().endSpec().build();
    assertThat(admission.placeableWorkers(elastic, reconciled, new NamespacePolicy(List.of(cpu), List.of())))
        .as("the trainer asks for no cpu; the sidecar's alone fits 10 cpu many times").isEqualTo(3);
    assertThat(admission.placeableWorkers(elastic, reconciled, new NamespacePolicy(List.of(cpu), List.of(defaults))))
        .as("the API server gives the trainer 4 cpu: two workers fit 10").isEqualTo(2);
  }

  @Test
  void aQuotaRefusalTheCacheDidNotForeseeIsAWaitNotARefusalAndNoPodIsKept() throws InterruptedException {
    var view = new LaggingView();
    view.nodes.addAll(List.of(gpuNode("a"), gpuNode("b")));
    String message = "pods \"quota-g1-w1\" is forbidden: exceeded quota: gpus, requested: requests.nvidia.com/gpu=8,"
        + " used: requests.nvidia.com/gpu=8, limited: requests.nvidia.com/gpu=8";
    secondPodRefused("quota", message);

    TrainingJob job = job("quota", 2);
    var admission = new GangAdmission(client, OperatorSettings.defaults(), view);
    var result = admission.admit(job, 1, 2, ExistingJobs.of(java.util.stream.Stream.of(job)), List.of(),
        new NamespacePolicy(List.of(gpuQuota("16")), List.of()));

    assertThat(result).isEqualTo(new GangAdmission.Result.Unschedulable(NamespaceQuota.EXCEEDS_QUOTA,
        "the API server refused worker pod quota-g1-w1: " + message
            + "; the job waits until the namespace's usage or its quota changes"));
    assertThat(server.getLastRequest().getMethod()).isEqualTo("DELETE");
    int requests = server.getRequestCount();
    assertThat(admission.admit(job, 1, 2, ExistingJobs.of(java.util.stream.Stream.of(job)), List.of(),
        new NamespacePolicy(List.of(gpuQuota("16")), List.of())))
        .as("woken again at once (its own pods' events, the quota's usage)").isEqualTo(result);
    assertThat(server.getRequestCount()).as("no pod created again within the backoff").isEqualTo(requests);
  }

  @Test
  void afterARefusalAWorkerCountsWhatTheApiServerCountedForIt() {
    var view = new LaggingView();
    view.nodes.addAll(List.of(gpuNode("a"), gpuNode("b"), gpuNode("c")));
    var cpu = new NamespacePolicy(List.of(new io.fabric8.kubernetes.api.model.ResourceQuotaBuilder().withNewMetadata()
        .withName("cpu").withNamespace("team-a").endMetadata().withNewSpec()
        .addToHard("requests.cpu", new Quantity("10")).endSpec().build()), List.of());
    // a webhook gives every pod 4 cpu that admission does not see: the API server takes the first worker of three
    secondPodRefused("learner", "pods \"learner-g1-w1\" is forbidden: exceeded quota: cpu, requested:"
        + " requests.cpu=4100m, used: requests.cpu=4100m, limited: requests.cpu=10");
    TrainingJob learner = dev.ballast.operator.TestJobs.job("learner", 1, 3, 8);
    var reconciled = ExistingJobs.of(java.util.stream.Stream.of(learner));
    var admission = new GangAdmission(client, OperatorSettings.defaults(), view);
    assertThat(admission.placeableWorkers(learner, reconciled, cpu)).as("0.1 cpu per worker, as admission builds it")
        .isEqualTo(3);
    assertThat(admission.admit(learner, 1, 3, reconciled, List.of(), cpu))
        .isInstanceOf(GangAdmission.Result.Unschedulable.class);
    assertThat(admission.placeableWorkers(learner, reconciled, cpu)).as("4.1 cpu each, as the API server counts them")
        .isEqualTo(2);
  }

  @Test
  void onlyRefusalsOfThePodItselfAreReportedOthersAreRetried() {
    assertThat(GangAdmission.refusedForWhatItIs(403)).isTrue();
    assertThat(GangAdmission.refusedForWhatItIs(422)).isTrue();
    assertThat(GangAdmission.refusedForWhatItIs(409)).isFalse();
    assertThat(GangAdmission.refusedForWhatItIs(500)).isFalse();
  }

  static String assigned(Pod p) {
    return p.getMetadata().getAnnotations().get(dev.ballast.operator.desired.Labels.ASSIGNED_NODE);
  }
}
