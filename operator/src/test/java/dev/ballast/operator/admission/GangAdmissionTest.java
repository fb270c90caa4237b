package dev.ballast.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.config.OperatorSettings;
import dev.ballast.operator.observe.AdmissionView;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Admission against a cache that lags: the pods it creates reach the API server (the fabric8 mock) at
 * once, but its view of the cluster shows them only when the test says so.
 */
@EnableKubernetesMockClient(crud = true)
class GangAdmissionTest {
  KubernetesClient client;
  io.fabric8.kubernetes.client.server.mock.KubernetesMockServer server;

  /** A view that shows exactly the pods the test hands it. */
  static final class LaggingView implements AdmissionView {
    final List<Node> nodes = new ArrayList<>();
    final List<Pod> pods = new ArrayList<>();

    @Override
    public List<Node> nodes() {
      return nodes;
    }

    @Override
    public List<Pod> podsOn(Collection<String> nodeNames) {
      return pods.stream().filter(p -> nodeNames.contains(
          p.getMetadata().getAnnotations().get(dev.ballast.operator.desired.Labels.ASSIGNED_NODE))).toList();
    }

    @Override
    public Optional<String> cachedUid(String namespace, String name) {
      return pods.stream().filter(p -> p.getMetadata().getName().equals(name)).map(p -> p.getMetadata().getUid())
          .findFirst();
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

  TrainingJob job(String name, int workers) {
    TrainingJob job = TestJobs.job(name, workers, workers, 8);
    job.getMetadata().setNamespace("team-a");
    return job;
  }

  List<Pod> created(String job) {
    return client.pods().inNamespace("team-a").withLabel("ballast.dev/job", job).list().getItems();
  }

  @Test
  void backToBackAdmissionsNeverPromiseAGpuTwiceWhileTheCacheLags() {
    var view = new LaggingView();
    view.nodes.addAll(List.of(gpuNode("a"), gpuNode("b"), gpuNode("c")));
    var admission = new GangAdmission(client, OperatorSettings.defaults(), view);

    assertThat(admission.admit(job("first", 2), 1)).isInstanceOf(GangAdmission.Result.Admitted.class);
    // the cache has not seen first's pods: without the reservations, second would get their nodes too
    assertThat(admission.admit(job("second", 2), 1)).isInstanceOf(GangAdmission.Result.Unschedulable.class);
    assertThat(admission.admit(job("third", 1), 1)).isInstanceOfSatisfying(GangAdmission.Result.Admitted.class,
        a -> assertThat(a.world().seats()).extracting(s -> s.node())
            .doesNotContainAnyElementsOf(created("first").stream().map(GangAdmissionTest::assigned).toList()));

    // the cache catches up: each pod counts once (from the cache), so a freed node is offered again
    view.pods.addAll(created("first"));
    view.pods.addAll(created("third"));
    assertThat(admission.admit(job("fourth", 1), 1)).isInstanceOf(GangAdmission.Result.Unschedulable.class);
    view.pods.removeAll(created("third"));
    assertThat(admission.admit(job("fifth", 1), 1)).isInstanceOf(GangAdmission.Result.Admitted.class);
  }

  @Test
  void aRestartedAdmissionSeesThePromisesItsCacheListed() {
    var view = new LaggingView();
    view.nodes.addAll(List.of(gpuNode("a"), gpuNode("b")));
    new GangAdmission(client, OperatorSettings.defaults(), view).admit(job("before", 2), 1);
    // a new process: no reservations, but its cache lists the gated pods the old one created
    view.pods.addAll(created("before"));
    var restarted = new GangAdmission(client, OperatorSettings.defaults(), view);
    assertThat(restarted.admit(job("after", 1), 1)).isInstanceOf(GangAdmission.Result.Unschedulable.class);
  }

  @Test
  void aPodTheApiServerRefusesIsReportedWithItsMessageAndNoPodIsKept() throws InterruptedException {
    var view = new LaggingView();
    view.nodes.addAll(List.of(gpuNode("a"), gpuNode("b")));
    String message = "pods \"refused-g1-w1\" is forbidden: violates PodSecurity \"restricted:latest\": runAsNonRoot != true";
    // the first pod is created; the API server's admission refuses the second
    server.expect().post().withPath("/api/v1/namespaces/team-a/pods")
        .andReturn(201, new io.fabric8.kubernetes.api.model.PodBuilder().withNewMetadata().withName("refused-g1-w0")
            .withNamespace("team-a").withUid("u0").endMetadata().build()).once();
    server.expect().post().withPath("/api/v1/namespaces/team-a/pods")
        .andReturn(403, new io.fabric8.kubernetes.api.model.StatusBuilder().withStatus("Failure").withCode(403)
            .withReason("Forbidden").withMessage(message).build()).once();
    server.expect().delete().withPath("/api/v1/namespaces/team-a/pods/refused-g1-w0").andReturn(200, "{}").once();

    var result = new GangAdmission(client, OperatorSettings.defaults(), view).admit(job("refused", 2), 1);

    assertThat(result).isEqualTo(new GangAdmission.Result.Refused("refused-g1-w1", message));
    assertThat(server.getLastRequest().getMethod()).as("the pod created before the refusal is deleted").isEqualTo("DELETE");
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
