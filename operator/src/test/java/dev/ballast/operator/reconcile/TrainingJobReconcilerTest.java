package dev.ballast.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import dev.ballast.operator.config.OperatorSettings;
import dev.ballast.operator.desired.Labels;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.javaoperatorsdk.operator.Operator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reconcile loop against the fabric8 mock API server (CRUD mode). The test plays scheduler and
 * kubelet by setting nodeName and pod phases. What only a real API server shows (CEL, defaulting,
 * server-side apply, garbage collection, scheduling) is proven by the e2e suite.
 */
@EnableKubernetesMockClient(crud = true)
class TrainingJobReconcilerTest {
  static final String NS = "team-a";
  KubernetesClient client;
  Operator operator;

  @BeforeEach
  void startOperator() {
    operator = new Operator(o -> o.withKubernetesClient(client).withCloseClientOnStop(false)
        .withUseSSAToPatchPrimaryResource(false));
    operator.register(new TrainingJobReconciler(client, OperatorSettings.defaults(), 1),
        c -> c.settingNamespaces(NS));
    operator.start();
  }

  @AfterEach
  void stopOperator() {
    operator.stop();
  }

  void gpuNodes(int count) {
    for (int i = 0; i < count; i++) {
      Node node = new NodeBuilder().withNewMetadata().withName("gpu-" + i)
          .addToLabels("nvidia.com/gpu.clique", "nvl-" + (i / 2)).addToLabels("topology.kubernetes.io/rack", "rack-0")
          .endMetadata()
          .withNewStatus().addToAllocatable("nvidia.com/gpu", new Quantity("8"))
          .addToAllocatable(Map.of("cpu", new Quantity("96"), "memory", new Quantity("1Ti"), "pods", new Quantity("110")))
          .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus()
          .build();
      client.resource(node).create();
    }
  }

  TrainingJob create(String name, int min, int max) {
    return create(name, min, max, null);
  }

  TrainingJob create(String name, int min, int max, Integer ttlSecondsAfterFinished) {
    TrainingJob job = TestJobs.job(name, min, max, 8);
    job.getSpec().ttlSecondsAfterFinished = ttlSecondsAfterFinished;
    job.getSpec().recovery.backoffSeconds = 1;
    job.getMetadata().setUid(null);
    job.getMetadata().setGeneration(null);
    return client.resource(job).create();
  }

  TrainingJob job(String name) {
    return client.resources(TrainingJob.class).inNamespace(NS).withName(name).get();
  }

  List<Pod> workers(String name) {
    return client.pods().inNamespace(NS).withLabels(Labels.workerSelector(name)).list().getItems();
  }

  /** What kube-scheduler does once gates are gone: bind each pod to its required node. */
  void schedule(String name) {
    for (Pod p : workers(name)) {
      assertThat(p.getSpec().getSchedulingGates()).as("gates are removed before binding").isEmpty();
      client.pods().inNamespace(NS).withName(p.getMetadata().getName()).edit(x -> {
        x.getSpec().setNodeName(x.getMetadata().getAnnotations().get(Labels.ASSIGNED_NODE));
        return x;
      });
    }
  }

  /** What the kubelet reports. */
  void setPhase(String pod, String phase, Integer exitCode) {
    Pod p = client.pods().inNamespace(NS).withName(pod).get();
    var status = new PodStatusBuilder().withPhase(phase);
    if (exitCode != null) {
      status.withContainerStatuses(new ContainerStatusBuilder().withName("trainer").withNewState()
          .withNewTerminated().withExitCode(exitCode).withReason("Error").endTerminated().endState().build());
    }
    p.setStatus(status.build());
    client.resource(p).updateStatus();
  }

  static final Duration WAIT = Duration.ofSeconds(60); // generous: the mock server is slow on a loaded machine

  @Test
  void aJobIsAdmittedAsAGangCommittedAndRuns() {
    gpuNodes(4);
    create("olmoe", 2, 4);

    await().atMost(WAIT).untilAsserted(() -> {
      List<Pod> pods = workers("olmoe");
      assertThat(pods).hasSize(4);
      assertThat(pods).allSatisfy(p -> {
        assertThat(p.getSpec().getSchedulingGates()).isEmpty();
        assertThat(p.getMetadata().getAnnotations()).containsKey(Labels.RELEASED_AT);
      });
    });
    assertThat(job("olmoe").getStatus().phase).isEqualTo(Phase.Admitted);
    assertThat(workers("olmoe")).extracting(p -> p.getMetadata().getAnnotations().get(Labels.ASSIGNED_NODE))
        .containsExactlyInAnyOrder("gpu-0", "gpu-1", "gpu-2", "gpu-3");

    schedule("olmoe");
    await().atMost(WAIT).untilAsserted(() -> {
      var status = job("olmoe").getStatus();
      assertThat(status.world).as("the committed world").isNotNull(); // (an NPE would end the wait at once)
      assertThat(status.world.generation).isEqualTo(1L);
      assertThat(status.world.nodes).hasSize(4);
      assertThat(status.conditions).anySatisfy(c -> {
        assertThat(c.getType()).isEqualTo("Admitted");
        assertThat(c.getStatus()).isEqualTo("True");
      });
    });

    workers("olmoe").forEach(p -> setPhase(p.getMetadata().getName(), "Running", null));
    await().atMost(WAIT).untilAsserted(() -> {
      var status = job("olmoe").getStatus();
      assertThat(status.phase).isEqualTo(Phase.Running);
      assertThat(status.readyWorkers).isEqualTo(4);
      assertThat(status.desiredWorkers).isEqualTo(4);
    });

    // the children exist: headless service, world config map, balancer and its identity, sidecar secret
    assertThat(client.services().inNamespace(NS).withName("olmoe").get().getSpec().getClusterIP()).isEqualTo("None");
    assertThat(client.configMaps().inNamespace(NS).withName("olmoe-world").get().getData().get("world.json"))
        .contains("\"generation\":1").contains("olmoe-g1-w3");
    assertThat(client.apps().deployments().inNamespace(NS).withName("olmoe-balancer").get()).isNotNull();
    assertThat(client.rbac().roleBindings().inNamespace(NS).withName("olmoe-balancer").get().getRoleRef().getName())
        .isEqualTo("ballast-balancer");
    assertThat(client.secrets().inNamespace(NS)
        .withName(dev.ballast.operator.desired.Names.sidecarSecret("olmoe", job("olmoe").getMetadata().getUid())).get())
        .isNotNull();
  }

  @Test
  void aJobWhoseReconciliationIsPausedIsLeftAloneUntilTheAnnotationIsRemoved() {
    gpuNodes(2);
    TrainingJob paused = TestJobs.job("paused", 2, 2, 8);
    paused.getMetadata().setUid(null);
    paused.getMetadata().setGeneration(null);
    paused.getMetadata().setAnnotations(Map.of(Labels.PAUSE_RECONCILIATION, "true"));
    client.resource(paused).create();
    await().atMost(WAIT).untilAsserted(() -> {
      var status = job("paused").getStatus();
      assertThat(status).isNotNull();
      assertThat(status.reason).isEqualTo("ReconciliationPaused");
      assertThat(status.conditions).anySatisfy(c -> {
        assertThat(c.getType()).isEqualTo("ReconciliationPaused");
        assertThat(c.getStatus()).isEqualTo("True");
      });
    });
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
        .untilAsserted(() -> assertThat(workers("paused")).as("no admission while paused").isEmpty());

    client.resources(TrainingJob.class).inNamespace(NS).withName("paused")
        .edit(j -> {
          j.getMetadata().getAnnotations().remove(Labels.PAUSE_RECONCILIATION);
          return j;
        });
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(workers("paused")).as("the annotation's removal alone wakes the job").hasSize(2);
      assertThat(job("paused").getStatus().conditions).anySatisfy(c -> {
        assertThat(c.getType()).isEqualTo("ReconciliationPaused");
        assertThat(c.getStatus()).isEqualTo("False");
        assertThat(c.getReason()).isEqualTo("Resumed");
      });
    });
  }

  @Test
  void aChildNameHeldByAnotherObjectIsReportedInStatusUntilItIsFreed() {
    gpuNodes(1);
    // someone's Service holds the name of train's balancer Service (as job train-balancer's headless Service would)
    client.resource(new io.fabric8.kubernetes.api.model.ServiceBuilder().withNewMetadata().withName("train-balancer")
        .withNamespace(NS).endMetadata().withNewSpec().addNewPort().withPort(80).endPort().endSpec().build()).create();
    create("train", 1, 1);
    await().atMost(WAIT).untilAsserted(() -> assertThat(job("train").getStatus())
        .isNotNull().extracting(st -> st.conditions).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
        .anySatisfy(o -> {
          var c = (io.fabric8.kubernetes.api.model.Condition) o;
          assertThat(c.getType()).isEqualTo("ChildrenOwned");
          assertThat(c.getStatus()).isEqualTo("False");
          assertThat(c.getReason()).isEqualTo("NameConflict");
          assertThat(c.getMessage()).isEqualTo("Service train-balancer already exists, controlled by no controller, "
              + "not by this job; rename this job or remove that Service");
        }));
    assertThat(client.services().inNamespace(NS).withName("train-balancer").get().getMetadata().getOwnerReferences())
        .as("never taken over").isEmpty();

    client.services().inNamespace(NS).withName("train-balancer").delete();
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(job("train").getStatus().conditions).anySatisfy(c -> {
        assertThat(c.getType()).isEqualTo("ChildrenOwned");
        assertThat(c.getStatus()).isEqualTo("True");
      });
      assertThat(client.services().inNamespace(NS).withName("train-balancer").get().getMetadata().getOwnerReferences())
          .singleElement().satisfies(o -> assertThat(o.getName()).isEqualTo("train"));
    });
  }

  @Test
  void aDeletedWorkerRestartsTheWorldAsTheNextGenerationAndDriftIsRepaired() {
    gpuNodes(2);
    create("drift", 2, 2);
    await().atMost(WAIT).until(() -> workers("drift").size() == 2
        && workers("drift").stream().allMatch(p -> p.getSpec().getSchedulingGates().isEmpty()));
    schedule("drift");
    await().atMost(WAIT).until(() -> job("drift").getStatus().world != null);

    client.pods().inNamespace(NS).withName("drift-g1-w1").delete();
    client.services().inNamespace(NS).withName("drift").delete();
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(job("drift").getStatus().restarts).isEqualTo(1);
      assertThat(job("drift").getStatus().transition.reason).isEqualTo("WorkerLost");
      assertThat(workers("drift")).as("the whole world stops; the next one is a new generation")
          .extracting(p -> p.getMetadata().getName()).containsExactlyInAnyOrder("drift-g2-w0", "drift-g2-w1");
      assertThat(workers("drift")).allSatisfy(p -> assertThat(p.getSpec().getSchedulingGates()).isEmpty());
      assertThat(client.services().inNamespace(NS).withName("drift").get()).isNotNull();
    });
    schedule("drift");
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(job("drift").getStatus().world.generation).isEqualTo(2L);
      assertThat(job("drift").getStatus().transition).isNull();
    });
  }

  @Test
  void aLostNodesWorkersAreReplacedElsewhereAndItsStuckPodDoesNotBlock() {
    gpuNodes(3);
    TrainingJob job = TestJobs.job("lost", 2, 2, 8);
    job.getSpec().recovery.nodeLostAfterSeconds = 0;
    job.getSpec().recovery.backoffSeconds = 1;
    job.getMetadata().setUid(null);
    job.getMetadata().setGeneration(null);
    client.resource(job).create();
    await().atMost(WAIT).until(() -> workers("lost").size() == 2
        && workers("lost").stream().allMatch(p -> p.getSpec().getSchedulingGates().isEmpty()));
    schedule("lost");
    await().atMost(WAIT).until(() -> job("lost").getStatus().world != null);
    String lostNode = client.pods().inNamespace(NS).withName("lost-g1-w1").get().getSpec().getNodeName();

    Node node = client.nodes().withName(lostNode).get();
    node.getStatus().getConditions().get(0).setStatus("Unknown");
    node.getStatus().getConditions().get(0).setLastTransitionTime("2026-01-01T00:00:00Z");
    client.resource(node).updateStatus();
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(job("lost").getStatus().transition).as("the transition").isNotNull(); // an NPE would end the wait
      assertThat(job("lost").getStatus().transition.reason).isEqualTo("NodeLost");
      assertThat(workers("lost")).filteredOn(p -> p.getMetadata().getName().startsWith("lost-g2-"))
          .hasSize(2).allSatisfy(p -> assertThat(p.getMetadata().getAnnotations().get(Labels.ASSIGNED_NODE))
              .isNotEqualTo(lostNode));
    });
  }

  @Test
  void aJobThatCannotFitStaysPendingAndSaysWhy() {
    gpuNodes(1);
    create("big", 2, 2);
    await().atMost(WAIT).untilAsserted(() -> {
      var status = job("big").getStatus();
      assertThat(status).isNotNull();
      assertThat(status.phase).isEqualTo(Phase.Pending);
      assertThat(status.conditions).anySatisfy(c -> {
        assertThat(c.getType()).isEqualTo("Admitted");
        assertThat(c.getReason()).isEqualTo("InsufficientGPUs");
        assertThat(c.getMessage()).contains("2").contains("8 GPUs");
      });
    });
    assertThat(workers("big")).as("an unplaceable gang holds no GPUs").isEmpty();
  }

  @Test
  void aFailedWorkerFailsTheJobAndStopsTheRest() {
    gpuNodes(2);
    create("crash", 2, 2);
    await().atMost(WAIT).until(() -> workers("crash").size() == 2
        && workers("crash").stream().allMatch(p -> p.getSpec().getSchedulingGates().isEmpty()));
    schedule("crash");
    await().atMost(WAIT).until(() -> job("crash").getStatus().world != null);
    setPhase("crash-g1-w0", "Running", null);
    setPhase("crash-g1-w1", "Failed", 3);
    await().atMost(WAIT).untilAsserted(() -> {
      var status = job("crash").getStatus();
      assertThat(status.phase).isEqualTo(Phase.Failed);
      assertThat(status.conditions).anySatisfy(c -> {
        assertThat(c.getType()).isEqualTo("Failed");
        assertThat(c.getMessage()).contains("crash-g1-w1").contains("exited with code 3");
      });
      assertThat(client.pods().inNamespace(NS).withName("crash-g1-w0").get()).isNull();
    });
  }

  @Test
  void aSucceededJobIsDeletedWhenItsTtlExpires() {
    gpuNodes(2);
    create("short", 2, 2, 1);
    await().atMost(WAIT).until(() -> workers("short").size() == 2
        && workers("short").stream().allMatch(p -> p.getSpec().getSchedulingGates().isEmpty()));
    schedule("short");
    await().atMost(WAIT).until(() -> job("short").getStatus().world != null);
    setPhase("short-g1-w0", "Succeeded", 0);
    setPhase("short-g1-w1", "Succeeded", 0);
    await().atMost(WAIT).untilAsserted(() -> {
      TrainingJob j = job("short");
      assertThat(j == null || j.getStatus().phase == Phase.Succeeded).isTrue();
    });
    await().atMost(WAIT).untilAsserted(() -> assertThat(job("short")).as("deleted after its TTL").isNull());
  }
}
