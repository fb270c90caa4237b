package dev.ballast.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.api.model.ScopedResourceSelectorRequirement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The room a namespace's ResourceQuotas leave, counted as the API server's quota evaluator counts pods. */
class NamespaceQuotaTest {
  static PodSpec pod(int gpus, String cpu, String cpuLimit) {
    var resources = new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
        .addToRequests("cpu", new Quantity(cpu));
    if (gpus > 0) resources.addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus)));
    if (cpuLimit != null) resources.addToLimits("cpu", new Quantity(cpuLimit));
    return new PodSpecBuilder().withContainers(new ContainerBuilder().withName("c").withResources(resources.build())
        .build()).build();
  }

  static ResourceQuota quota(String name, Map<String, String> hard) {
    var b = new ResourceQuotaBuilder().withNewMetadata().withName(name).withNamespace("team-a").endMetadata()
        .withNewSpec();
    hard.forEach((k, v) -> b.addToHard(k, new Quantity(v)));
    return b.endSpec().build();
  }

  @Test
  void noQuotaLimitsNothing() {
    assertThat(NamespaceQuota.of(List.of(), pod(8, "4", null), List.of())).isEqualTo(NamespaceQuota.Room.UNLIMITED);
  }

  @Test
  void theQuotaThatAllowsTheFewestWorkersSetsTheRoomAndIsNamed() {
    var quotas = List.of(quota("gpus", Map.of("requests.nvidia.com/gpu", "32")),
        quota("cpu", Map.of("requests.cpu", "20", "count/services", "1")));
    // two other pods use 8 GPUs and 4.5 cpu: 24 GPUs are left (3 workers), 15.5 cpu (3 workers of 4)
    var used = List.of(pod(8, "4", null), pod(0, "500m", null));
    var room = NamespaceQuota.of(quotas, pod(8, "4", null), used);
    assertThat(room.workers()).isEqualTo(3);
    assertThat(room.limit()).isEqualTo("ResourceQuota cpu (requests.cpu): 4.5 cpu of 20 cpu used, 4 cpu per worker");

    var tighter = List.of(quota("gpus", Map.of("requests.nvidia.com/gpu", "16")), quotas.get(1));
    assertThat(NamespaceQuota.of(tighter, pod(8, "4", null), used)).isEqualTo(new NamespaceQuota.Room(1,
        "ResourceQuota gpus (requests.nvidia.com/gpu): 8 GPUs of 16 GPUs used, 8 GPUs per worker"));
    assertThat(NamespaceQuota.message("team-a", new NamespaceQuota.Room(1, "R"), 2)).isEqualTo(
        "the ResourceQuotas of namespace team-a let in 1 worker and workers.min is 2: R; the job waits until the"
            + " namespace's usage or its quota changes");
  }

  @Test
  void usageAboveTheHardLimitLeavesNoRoomAndPodCountsAndLimitsCount() {
    assertThat(NamespaceQuota.of(List.of(quota("gpus", Map.of("requests.nvidia.com/gpu", "8"))), pod(8, "1", null),
        List.of(pod(8, "1", null), pod(8, "1", null))).workers()).isZero();
    assertThat(NamespaceQuota.of(List.of(quota("pods", Map.of("count/pods", "5"))), pod(8, "1", null),
        List.of(pod(0, "1", null), pod(0, "1", null))).workers()).isEqualTo(3);
    assertThat(NamespaceQuota.of(List.of(quota("limits", Map.of("limits.cpu", "10"))), pod(8, "1", "3"),
        List.of(pod(0, "1", "2"), pod(0, "1", null))).limit()).isEqualTo(
            "ResourceQuota limits (limits.cpu): 2 cpu (limits) of 10 cpu (limits) used, 3 cpu (limits) per worker");
  }

  @Test
  void aQuotaWhoseScopesDoNotSelectTheWorkerLimitsNothingAndCountsOnlyThePodsItSelects() {
    PodSpec worker = pod(8, "1", null);
    worker.setPriorityClassName("training");
    PodSpec inference = pod(8, "1", null);
    inference.setPriorityClassName("inference");
    ResourceQuota forInference = quota("inference", Map.of("requests.nvidia.com/gpu", "8"));
    forInference.getSpec().setScopeSelector(new io.fabric8.kubernetes.api.model.ScopeSelector(List.of(
        new ScopedResourceSelectorRequirement("In", "PriorityClass", List.of("inference")))));
    assertThat(NamespaceQuota.of(List.of(forInference), worker, List.of(inference)).workers())
        .isEqualTo(Integer.MAX_VALUE);

    ResourceQuota forTraining = quota("training", Map.of("requests.nvidia.com/gpu", "16"));
    forTraining.getSpec().setScopeSelector(new io.fabric8.kubernetes.api.model.ScopeSelector(List.of(
        new ScopedResourceSelectorRequirement("NotIn", "PriorityClass", List.of("inference")))));
    assertThat(NamespaceQuota.of(List.of(forTraining), worker, List.of(inference, pod(8, "1", null))).workers())
        .as("the inference pod is not counted; the pod without a class is").isEqualTo(1);

    ResourceQuota terminating = quota("batch", Map.of("requests.nvidia.com/gpu", "0"));
    terminating.getSpec().setScopes(List.of("Terminating"));
    assertThat(NamespaceQuota.of(List.of(terminating), worker, List.of()).workers()).isEqualTo(Integer.MAX_VALUE);
    worker.setActiveDeadlineSeconds(3600L);
    assertThat(NamespaceQuota.of(List.of(terminating), worker, List.of()).workers()).isZero();

    ResourceQuota bestEffort = quota("free", Map.of("pods", "0"));
    bestEffort.getSpec().setScopes(List.of("BestEffort"));
    assertThat(NamespaceQuota.of(List.of(bestEffort), worker, List.of()).workers())
        .as("a worker asking for cpu is not BestEffort").isEqualTo(Integer.MAX_VALUE);
    assertThat(NamespaceQuota.of(List.of(bestEffort), new PodSpecBuilder().withContainers(new ContainerBuilder()
        .withName("c").build()).build(), List.of()).workers()).isZero();
  }

  @Test
  void aPodStuckTerminatingPastItsGracePeriodIsNoLongerCounted() {
    var pod = new io.fabric8.kubernetes.api.model.PodBuilder().withNewMetadata().withName("w").endMetadata().build();
    java.time.Instant t = java.time.Instant.parse("2026-12-07T12:00:00Z");
    assertThat(NamespaceQuota.counts(pod, t)).isTrue();
    pod.getMetadata().setDeletionTimestamp("2026-12-07T11:59:00Z");
    pod.getMetadata().setDeletionGracePeriodSeconds(30L);
    assertThat(NamespaceQuota.counts(pod, t)).as("a lost node's pod, 30 s past its grace").isFalse();
    assertThat(NamespaceQuota.counts(pod, t.minusSeconds(31))).as("still within its grace").isTrue();
  }

  @Test
  void whatTheApiServerCountedIsReadFromItsRefusalAndCountsForEachWorker() {
    assertThat(NamespaceQuota.requested("pods \"t-g1-w2\" is forbidden: exceeded quota: team, requested:"
        + " requests.cpu=4200m,requests.nvidia.com/gpu=8, used: requests.cpu=8400m,requests.nvidia.com/gpu=16,"
        + " limited: requests.cpu=10,requests.nvidia.com/gpu=16"))
        .isEqualTo(Map.of("requests.cpu", 4200L, "requests.nvidia.com/gpu", 8L));
    assertThat(NamespaceQuota.requested("pods \"t\" is forbidden: violates PodSecurity")).isEmpty();
    var cpu = List.of(quota("cpu", Map.of("requests.cpu", "10")));
    assertThat(NamespaceQuota.of(cpu, pod(8, "4", null), List.of()).workers()).isEqualTo(2);
    assertThat(NamespaceQuota.of(cpu, pod(8, "4", null), List.of(), Map.of("requests.cpu", 4200L)).workers())
        .isEqualTo(2);
    assertThat(NamespaceQuota.of(cpu, pod(8, "4", null), List.of(), Map.of("requests.cpu", 5100L)).workers())
        .isEqualTo(1);
  }
}
