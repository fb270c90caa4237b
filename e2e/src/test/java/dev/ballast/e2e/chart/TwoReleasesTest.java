package dev.ballast.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.GpuNodes;
import dev.ballast.e2e.support.Jobs;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Two releases of the chart, installed with the real helm, each watching its own namespace, coexist on one cluster:
 * each reconciles only its namespace with its own RBAC (the namespaced rules bound there only), binds its jobs'
 * balancers to its own ClusterRole (named after the release), and counts the other's GPUs. The suite's own operator
 * (watching every namespace) is stopped meanwhile, as a cluster would run only disjoint releases.
 */
@E2eTest
@Order(Integer.MAX_VALUE - 1)
class TwoReleasesTest {
  static final Duration WAIT = Duration.ofMinutes(3);
  final BallastEnvironment env;

  TwoReleasesTest(BallastEnvironment env) {
    this.env = env;
  }

  /** Installs {@code release} in its own namespace watching {@code watched} only, and starts its operator. */
  Process install(String release, String watched) {
    String ns = release + "-system";
    env.helm("upgrade", "--install", release, env.root().resolve("charts/ballast").toString(), "--namespace", ns,
        "--create-namespace", "--set", "replicaCount=0", "--set", "crds.install=false",
        "--set", "watchNamespaces={" + watched + "}", "--wait", "--timeout", "2m");
    // the settings the release's Deployment gives its operator (checked against the rendered chart below)
    String deployment = env.kubectl("get", "deployment", release + "-ballast", "-n", ns, "-o",
        "jsonpath={range .spec.template.spec.containers[0].env[*]}{.name}={.value}{\"\\n\"}{end}").ok().stdout();
    Map<String, String> settings = new java.util.HashMap<>();
    deployment.lines().filter(l -> l.startsWith("BALLAST_")).forEach(l -> settings.put(l.substring(0, l.indexOf('=')),
        l.substring(l.indexOf('=') + 1)));
    assertThat(settings).containsEntry("BALLAST_WATCH_NAMESPACES", watched)
        .containsEntry("BALLAST_BALANCER_CLUSTER_ROLE", release + "-ballast-balancer")
        .containsEntry("BALLAST_LEASE_NAME", release + "-ballast");
    settings.put("BALLAST_LEASE_NAMESPACE", ns); // leader election on, as in the Deployment (POD_NAMESPACE)
    return env.startReleaseOperator(release, ns, settings);
  }

  String canI(String release, String... args) {
    String sa = "system:serviceaccount:" + release + "-system:" + release + "-ballast";
    String[] cmd = new String[args.length + 3];
    cmd[0] = "auth";
    cmd[1] = "can-i";
    System.arraycopy(args, 0, cmd, 2, args.length);
    cmd[cmd.length - 1] = "--as=" + sa;
    return env.kubectl(cmd).stdout().strip();
  }

  @Test
  void twoReleasesWatchingDisjointNamespacesCoexistAndNeverShareAGpu() throws Exception {
    GpuNodes pool = new GpuNodes(env, "two-releases", 26);
    Jobs b = new Jobs(env, "two-releases-b");
    Jobs c = new Jobs(env, "two-releases-c");
    env.killOperator();
    Process operatorB = null;
    Process operatorC = null;
    try {
      pool.add(3);
      operatorB = install("team-b", b.namespace());
      operatorC = install("team-c", c.namespace());

      assertThat(canI("team-b", "create", "pods", "-n", b.namespace())).isEqualTo("yes");
      assertThat(canI("team-b", "create", "pods", "-n", c.namespace())).as("only in its own namespace").isEqualTo("no");
      assertThat(canI("team-b", "list", "pods", "-A")).as("capacity spans the cluster").isEqualTo("yes");
      assertThat(canI("team-b", "list", "secrets", "-n", b.namespace())).as("Secrets are read by name only").isEqualTo("no");
      assertThat(canI("team-b", "watch", "resourcequotas", "-n", b.namespace())).isEqualTo("yes");
      assertThat(canI("team-b", "watch", "limitranges", "-n", c.namespace())).isEqualTo("no");
      assertThat(canI("team-b", "bind", "clusterroles/team-b-ballast-balancer", "-n", b.namespace())).isEqualTo("yes");
      assertThat(canI("team-b", "bind", "clusterroles/team-c-ballast-balancer", "-n", b.namespace())).isEqualTo("no");

      // b's job takes 2 of the pool's 3 nodes and its balancer runs with team-b's ClusterRole
      b.apply(Jobs.elasticManifest("b", 2, 2, pool, "", ""));
      await().atMost(WAIT).untilAsserted(() -> assertThat(b.phase("b")).isEqualTo("Running"));
      assertThat(env.admin().rbac().roleBindings().inNamespace(b.namespace()).withName("b-balancer").get()
          .getRoleRef().getName()).isEqualTo("team-b-ballast-balancer");
      await().atMost(WAIT).untilAsserted(() -> assertThat(b.status("b")).as("the balancer wrote status.balancer "
          + "with only the release's balancer ClusterRole").containsKey("balancer"));

      // c's operator counts b's GPUs: 2 workers do not fit in the 1 node left
      c.apply(Jobs.elasticManifest("c", 2, 2, pool, "", ""));
      await().atMost(WAIT).untilAsserted(() -> {
        assertThat(c.phase("c")).isEqualTo("Pending");
        assertThat(c.condition("c", "Admitted")).hasValueSatisfying(x ->
            assertThat(x.get("reason")).isEqualTo("InsufficientGPUs"));
      });
      assertThat(c.workers("c")).isEmpty();

      b.deleteAll();
      await().atMost(WAIT).untilAsserted(() -> assertThat(c.phase("c")).isEqualTo("Running"));
      assertThat(env.admin().rbac().roleBindings().inNamespace(c.namespace()).withName("c-balancer").get()
          .getRoleRef().getName()).isEqualTo("team-c-ballast-balancer");

      // each operator reconciled its own namespace only
      String logB = Files.readString(env.logs().resolve("team-b-operator.log"));
      String logC = Files.readString(env.logs().resolve("team-c-operator.log"));
      assertThat(logB).contains(b.namespace() + "/b").doesNotContain(c.namespace());
      assertThat(logC).contains(c.namespace() + "/c").doesNotContain(b.namespace() + "/");
    } finally {
      c.deleteAll();
      b.deleteAll();
      for (Process p : new Process[] {operatorB, operatorC}) if (p != null) p.destroyForcibly().waitFor();
      for (String release : new String[] {"team-b", "team-c"}) {
        env.helm("uninstall", release, "--namespace", release + "-system", "--wait", "--ignore-not-found");
        env.kubectl("delete", "namespace", release + "-system", "--wait=false");
      }
      env.kubectl("delete", "namespace", b.namespace(), c.namespace(), "--wait=false");
      pool.deleteAll();
      env.startOperator(Map.of());
    }
  }
}
