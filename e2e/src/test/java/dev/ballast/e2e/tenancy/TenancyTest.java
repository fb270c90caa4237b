package dev.ballast.e2e.tenancy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.Jobs;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What one tenant can and cannot do to another's jobs, on the real API server: a pod that forges admission's promise
 * annotation holds no GPUs, and a job whose child's name another object holds says so in its status.
 */
@E2eTest
class TenancyTest {
  static final Duration WAIT = Duration.ofMinutes(2);
  final BallastEnvironment env;
  final Jobs jobs;

  TenancyTest(BallastEnvironment env) {
    this.env = env;
    this.jobs = new Jobs(env, TenancyTest.class);
  }

  /** A gated pod in {@code namespace} requesting a whole node's 8 GPUs and claiming {@code node} as a promise. */
  static Pod forgedPromise(String namespace, String node) {
    return new PodBuilder().withNewMetadata().withNamespace(namespace).withName("claim-" + node)
        .addToLabels("ballast.dev/job", "train").addToLabels("ballast.dev/role", "worker")
        .addToAnnotations("ballast.dev/assigned-node", node).endMetadata()
        .withNewSpec().addNewSchedulingGate().withName("ballast.dev/admission").endSchedulingGate()
        .addNewContainer().withName("hog").withImage("registry.example/hog:1")
        .withNewResources().addToLimits("nvidia.com/gpu", new Quantity("8")).endResources().endContainer()
        .endSpec().build();
  }

  @Test
  void aTenantsForgedPromisesInAnotherNamespaceDoNotBlockARealJob() {
    String tenant = jobs.namespace() + "-tenant";
    var admin = env.admin();
    if (admin.namespaces().withName(tenant).get() != null) {
      admin.namespaces().withName(tenant).delete();
      admin.namespaces().withName(tenant).waitUntilCondition(Objects::isNull, 2, TimeUnit.MINUTES);
    }
    admin.resource(new NamespaceBuilder().withNewMetadata().withName(tenant).endMetadata().build()).create();
    List<String> gpuNodes = admin.nodes().withLabel("nvidia.com/gpu.present", "true").list().getItems().stream()
        .map(n -> n.getMetadata().getName()).toList();
    for (String node : gpuNodes) admin.resource(forgedPromise(tenant, node)).create();

    jobs.apply(Jobs.manifest("real", 2, 2, "[]"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("real")).isEqualTo("Running"));
    assertThat(jobs.workers("real")).hasSize(2).allSatisfy(p -> assertThat(gpuNodes)
        .as("bound on a node every GPU of which a forged pod claims").contains(p.getSpec().getNodeName()));
    assertThat(admin.pods().inNamespace(tenant).list().getItems()).hasSize(gpuNodes.size())
        .allSatisfy(p -> assertThat(p.getSpec().getNodeName()).as("still gated").isNull());

    env.kubectl("delete", "tj", "real", "-n", jobs.namespace(), "--wait=false").ok();
    admin.namespaces().withName(tenant).delete();
  }

  @Test
  void jobsWantingOneServiceNameReportTheConflictInsteadOfSwallowingIt() {
    // train-balancer's headless Service is named train-balancer, which is also the name of train's balancer Service
    jobs.apply(Jobs.manifest("train-balancer", 1, 1, 8, 8, "env: []"));
    await().atMost(WAIT).until(() -> env.admin().services().inNamespace(jobs.namespace()).withName("train-balancer")
        .get() != null);
    jobs.apply(Jobs.manifest("train", 1, 1, 8, 8, "env: []"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.condition("train", "ChildrenOwned"))
        .hasValueSatisfying(c -> {
          assertThat(c.get("status")).isEqualTo("False");
          assertThat(c.get("reason")).isEqualTo("NameConflict");
          assertThat(c.get("message")).isEqualTo("Service train-balancer already exists, controlled by TrainingJob "
              + "train-balancer, not by this job; rename this job or remove that Service");
        }));
    assertThat(env.admin().services().inNamespace(jobs.namespace()).withName("train-balancer").get()
        .getMetadata().getOwnerReferences()).singleElement()
        .satisfies(o -> assertThat(o.getName()).as("never taken over").isEqualTo("train-balancer"));
    assertThat(env.kubectl("get", "events", "-n", jobs.namespace(), "--field-selector",
        "reason=NameConflict,involvedObject.name=train", "-o", "name").ok().stdout()).isNotBlank();
    assertThat(jobs.condition("train-balancer", "ChildrenOwned")).as("the holder has no conflict").isEmpty();
    env.kubectl("delete", "tj", "train", "train-balancer", "-n", jobs.namespace(), "--wait=false").ok();
  }
}
