package dev.ballast.e2e.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.contracts.env.LocalPorts;
import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.Cmd;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.Jobs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/ballast dashboard} as a person runs it: with their own kubeconfig, through real {@code kubectl
 * port-forward}s that the real API server sends to the pod's node (KWOK's PortForward objects, docs/dashboard.md), to
 * the job's balancer and to the chart-installed operator's index.
 */
@E2eTest
class DashboardCommandTest {
  static final Duration WAIT = Duration.ofMinutes(3);
  final BallastEnvironment env;
  final Jobs jobs;

  DashboardCommandTest(BallastEnvironment env) {
    this.env = env;
    this.jobs = new Jobs(env, DashboardCommandTest.class);
  }

  @Test
  void aPersonOpensTheJobPageAndTheIndexThroughPortForwardsAsThemselves() throws Exception {
    jobs.apply(Jobs.reportingManifest("opened", ""));
    String ns = jobs.namespace();
    // the balancer serves once it has written its status (a pod reported Running may still be starting)
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.status("opened")).containsKey("balancer"));

    // what the command and its port-forwards need: get the job; find and port-forward to the balancer's pod
    String opener = person("opener", ns, List.of("get:trainingjobs.ballast.dev", "get,list:deployments.apps",
        "get,list:pods", "create:pods/portforward"));
    // the same, and the operator's Deployment and pod in its namespace for the index
    grant(opener, ns, BallastEnvironment.NAMESPACE,
        List.of("get,list:deployments.apps", "get,list:pods", "create:pods/portforward"));
    Path kubeconfig = kubeconfig(opener, ns);

    int port = LocalPorts.listenPort();
    try (Command page = Command.start(env, kubeconfig, "dashboard", "opened", "-n", ns, "--port", "" + port)) {
      page.awaitLine("Forwarding from 127.0.0.1:" + port);
      String token = token(opener, ns);
      await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
        var job = IndexPageTest.get(URI.create("http://127.0.0.1:" + port + "/dashboard/api/job"), token);
        assertThat(job.statusCode()).as("%s%nbin/ballast: %s", job.body(), page.output()).isEqualTo(200);
        assertThat(job.body()).contains("\"opened\"");
      });
      var html = IndexPageTest.get(URI.create("http://127.0.0.1:" + port + "/dashboard/"), null);
      assertThat(html.statusCode()).isEqualTo(200);
      assertThat(html.body()).contains("<html");
    }

    // someone who may not get the job is told so before any port-forward
    String outsider = person("outsider", ns, List.of("get,list:pods"));
    try (Command refused = Command.start(env, kubeconfig(outsider, ns), "dashboard", "opened", "-n", ns)) {
      assertThat(refused.exitCode()).isEqualTo(1);
      assertThat(refused.output()).contains("you may not get trainingjobs.ballast.dev/opened");
    }

    // the index: the chart's operator Deployment, whose pod KWOK plays, forwarded to the operator process
    String deployment = env.kubectl("get", "deployment", "-n", BallastEnvironment.NAMESPACE, "-l",
        "app.kubernetes.io/component=operator", "-o", "jsonpath={.items[0].metadata.name}").ok().stdout().trim();
    env.kubectl("scale", "deployment", deployment, "-n", BallastEnvironment.NAMESPACE, "--replicas=1").ok();
    try {
      String pod = await().atMost(WAIT).until(() -> env.kubectl("get", "pods", "-n", BallastEnvironment.NAMESPACE,
          "-l", "app.kubernetes.io/component=operator", "--field-selector=status.phase=Running",
          "-o", "jsonpath={.items[0].metadata.name}").stdout().trim(), name -> !name.isEmpty());
      int operatorPort = env.operatorUri("/").getPort();
      env.kubectlStdin("""
          apiVersion: kwok.x-k8s.io/v1alpha1
          kind: PortForward
          metadata: {name: %s, namespace: %s, labels: {e2e: DashboardCommandTest}}
          spec:
            forwards:
            - ports: [8080]
              target: {address: 127.0.0.1, port: %d}
          """.formatted(pod, BallastEnvironment.NAMESPACE, operatorPort), "apply", "-f", "-").ok();
      int indexPort = LocalPorts.listenPort();
      try (Command index = Command.start(env, kubeconfig, "dashboard", "--port", "" + indexPort)) {
        index.awaitLine("Forwarding from 127.0.0.1:" + indexPort);
        String token = token(opener, ns);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> assertThat(IndexPageTest.rows(
            IndexPageTest.get(URI.create("http://127.0.0.1:" + indexPort + "/dashboard/api/jobs"), token)))
            .as("bin/ballast: %s", index.output())
            .extracting(r -> r.get("namespace") + "/" + r.get("name")).contains(ns + "/opened"));
      }
    } finally {
      env.kubectl("scale", "deployment", deployment, "-n", BallastEnvironment.NAMESPACE, "--replicas=0").ok();
      env.kubectl("delete", "portforwards.kwok.x-k8s.io,roles,rolebindings", "-n", BallastEnvironment.NAMESPACE,
          "-l", "e2e=" + DashboardCommandTest.class.getSimpleName(), "--ignore-not-found").ok();
    }
    jobs.deleteAll();
  }

  /** A ServiceAccount in {@code ns} with a Role of {@code rules} ("verbs:resource") there; its name. */
  String person(String name, String ns, List<String> rules) {
    env.kubectl("create", "serviceaccount", name, "-n", ns).ok();
    grant(name, ns, ns, rules);
    return name;
  }

  void grant(String account, String accountNs, String ns, List<String> rules) {
    String role = accountNs + "-" + account;
    StringBuilder yaml = new StringBuilder("""
        apiVersion: rbac.authorization.k8s.io/v1
        kind: Role
        metadata: {name: %s, namespace: %s, labels: {e2e: DashboardCommandTest}}
        rules:
        """.formatted(role, ns));
    for (String rule : rules) {
      String[] verbsAndResource = rule.split(":");
      String[] resource = verbsAndResource[1].split("\\.", 2);
      yaml.append("- apiGroups: [\"%s\"]%n  resources: [\"%s\"]%n  verbs: [%s]%n".formatted(
          resource.length > 1 ? resource[1] : "", resource[0], String.join(", ", verbsAndResource[0].split(","))));
    }
    env.kubectlStdin(yaml.toString(), "apply", "-f", "-").ok();
    env.kubectl("create", "rolebinding", role, "--role=" + role, "--serviceaccount=" + accountNs + ":" + account,
        "-n", ns).ok();
    env.kubectl("label", "rolebinding", role, "-n", ns, "e2e=" + DashboardCommandTest.class.getSimpleName()).ok();
  }

  String token(String account, String ns) {
    return env.kubectl("create", "token", account, "-n", ns).ok().stdout().trim();
  }

  /** A kubeconfig of the cluster's with {@code account}'s token as its only user: the person's own credentials. */
  Path kubeconfig(String account, String ns) throws IOException {
    String admin = env.kubectl("config", "view", "--minify", "-o", "jsonpath={.users[0].name}").ok().stdout().trim();
    Path file = Files.createTempFile("kubeconfig-" + account, ".yaml");
    Files.writeString(file, env.kubectl("config", "view", "--raw", "--minify").ok().stdout());
    kubectl(file, "config", "set-credentials", account, "--token=" + token(account, ns));
    kubectl(file, "config", "set-context", "--current", "--user=" + account);
    kubectl(file, "config", "unset", "users." + admin);
    return file;
  }

  void kubectl(Path kubeconfig, String... args) {
    List<String> cmd = new java.util.ArrayList<>(List.of(env.bin("kubectl").toString(), "--kubeconfig",
        kubeconfig.toString()));
    cmd.addAll(List.of(args));
    Cmd.run(env.root(), Map.of(), Duration.ofMinutes(1), cmd, null).ok();
  }

  /** {@code bin/ballast ARGS} with {@code kubeconfig} and the cluster's kubectl on PATH; its output kept. */
  record Command(Process process, StringBuilder out, CompletableFuture<Void> drained) implements AutoCloseable {
    static Command start(BallastEnvironment env, Path kubeconfig, String... args) throws IOException {
      List<String> cmd = new java.util.ArrayList<>(List.of(env.root().resolve("bin/ballast").toString()));
      cmd.addAll(List.of(args));
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
      Map<String, String> e = pb.environment();
      e.put("KUBECONFIG", kubeconfig.toString());
      e.put("PATH", env.bin("kubectl").getParent() + ":" + e.get("PATH"));
      Process p = pb.start();
      StringBuilder out = new StringBuilder();
      CompletableFuture<Void> drained = CompletableFuture.runAsync(() -> {
        try (var r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line; (line = r.readLine()) != null; ) {
            synchronized (out) {
              out.append(line).append('\n');
            }
          }
        } catch (IOException ignored) {
          // the process was stopped
        }
      });
      return new Command(p, out, drained);
    }

    String output() {
      synchronized (out) {
        return out.toString();
      }
    }

    void awaitLine(String text) {
      await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
        assertThat(process.isAlive()).as("bin/ballast still running; output so far:%n%s", output()).isTrue();
        assertThat(output()).contains(text);
      });
    }

    int exitCode() throws InterruptedException {
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("bin/ballast exits: %s", output()).isTrue();
      drained.join();
      return process.exitValue();
    }

    @Override
    public void close() throws IOException {
      process.descendants().forEach(ProcessHandle::destroy); // kubectl port-forward, exec'd or a child
      process.destroy();
      Files.createDirectories(Path.of("target"));
      Files.writeString(Path.of("target/dashboard-command.log"), output() + "----\n", StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    }
  }
}
