package dev.ballast.trainer.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.ballast.client.HttpSidecarClient;
import dev.ballast.contracts.env.LocalPorts;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.contracts.status.BalancerStatus;
import dev.ballast.contracts.status.BalancerStatusJson;
import dev.ballast.trainer.loop.AdoptedStep;
import dev.ballast.trainer.parallel.PodRanks;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop for real: the agent jar as a balancer in file mode and two sidecars, local processes as in the Python
 * client's tests (trainer-image/python/tests/conftest.py); 2 pods x 2 ranks of the reference trainer, each pod with
 * its own sidecar. The balancer plans from the trainer's reports; every rank must adopt its plans at the same steps.
 * Skipped, with the reason, when the agent jar is not built.
 */
class AgentLoopTest {

    private static final Path JAR = Path.of(System.getProperty("user.dir")).resolve(
            "../../balancer-sidecar/app/target/quarkus-app/quarkus-run.jar").normalize();
    private static final String WORLD = """
            {"job":"loopjob","namespace":"default","generation":1,"gpusPerWorker":2,
             "spec":{"parallelism":{"expert":4,"pipeline":1},
                     "model":{"moeLayers":2,"experts":8,"topK":2,"sharedExperts":0,"hiddenSize":15,"ffnHiddenSize":33,
                              "bytesPerParam":4},
                     "balancer":{"mode":"replicate","planner":"ballast","redundantSlotsPerGpu":1,"replanEverySteps":3,
                                 "memoryBudgetBytes":0,
                                 "hardware":{"nvlinkGBps":0.0128,"nicGBps":0.022,"crossRackGBps":0.022,
                                             "peakTflops":0.058,"gemmEfficiency":1}}},
             "nodes":[{"index":0,"pod":"loopjob-worker-0","nodeRank":0,"node":"n0","domain":"d0","rack":"r0"},
                      {"index":1,"pod":"loopjob-worker-1","nodeRank":1,"node":"n1","domain":"d0","rack":"r0"}]}
            """;
    private static final int STEPS = 60;
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void allRanksOfBothPodsAdoptTheBalancersPlansAtTheSameSteps(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Files.isRegularFile(JAR), "agent jar not built (" + JAR + "); build it with "
                + "./mvnw -q -B -o -pl balancer-sidecar/app -am package -DskipTests");
        Files.writeString(dir.resolve("world.json"), WORLD);
        int grpc = LocalPorts.listenPort();
        int balancerHttp = LocalPorts.listenPort();
        // The agents share this host's network, so each one's health listener gets a port of its own.
        int[] healthPorts = {LocalPorts.listenPort(), LocalPorts.listenPort(), LocalPorts.listenPort()};
        int[] sidecarPorts = {LocalPorts.listenPort(), LocalPorts.listenPort()};
        Map<String, String> common = Map.of("BALLAST_JOB", "loopjob", "BALLAST_NAMESPACE", "default",
                "BALLAST_TOKEN", "loop-token", "BALLAST_BIND_ADDRESS", "127.0.0.1");
        List<Process> agents = new ArrayList<>();
        try {
            Map<String, String> balancer = new HashMap<>(common);
            balancer.putAll(Map.of("BALLAST_GRPC_PORT", "" + grpc, "BALLAST_HTTP_PORT", "" + balancerHttp,
                    "BALLAST_HEALTH_PORT", "" + healthPorts[0],
                    "BALLAST_WORLD_FILE", dir.resolve("world.json").toString(),
                    "BALLAST_STATUS_FILE", dir.resolve("status.json").toString()));
            agents.add(start("balancer", balancer, dir.resolve("balancer.log")));
            for (int pod = 0; pod < 2; pod++) {
                Map<String, String> sidecar = new HashMap<>(common);
                sidecar.putAll(Map.of("BALLAST_POD_INDEX", "" + pod, "BALLAST_SIDECAR_PORT", "" + sidecarPorts[pod],
                        "BALLAST_HEALTH_PORT", "" + healthPorts[pod + 1],
                        "BALLAST_BALANCER_ADDRESS", "127.0.0.1:" + grpc));
                agents.add(start("sidecar", sidecar, dir.resolve("sidecar" + pod + ".log")));
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            awaitBody("http://127.0.0.1:" + healthPorts[0] + "/q/health/ready", "", deadline, dir);
            for (int port : sidecarPorts) {
                awaitBody("http://127.0.0.1:" + port + "/v1/status", "\"worldGeneration\":1", deadline, dir);
            }

            HttpSidecarClient[] clients = {new HttpSidecarClient("http://127.0.0.1:" + sidecarPorts[0]),
                new HttpSidecarClient("http://127.0.0.1:" + sidecarPorts[1])};
            Map<String, String> flags = TrainMain.parse(("--steps " + STEPS + " --batch 32 --window 4 --dim 15 "
                    + "--ffn-dim 33 --layers 2 --experts 8 --top-k 2 --seed 3 --backend java --routing-skew 2 "
                    + "--log-every 10").split(" "));
            List<List<AdoptedStep>> ranks;
            try (PodRanks pods = PodRanks.local(2, 2, Duration.ofSeconds(60))) {
                ranks = DistributedTrainMain.run(flags, pods, pod -> clients[pod]);
            }

            for (int s = 0; s < STEPS; s++) {
                int step = s;
                assertThat(ranks).as("plan of step %d on every rank", s + 1)
                        .extracting(r -> r.get(step).adopted()).containsOnly(ranks.get(0).get(s).adopted());
                assertThat(ranks).extracting(r -> r.get(step).loss()).containsOnly(ranks.get(0).get(s).loss());
            }
            List<PlanVersion> versions = ranks.get(0).stream().map(AdoptedStep::adopted).toList();
            assertThat(versions).isSorted();
            assertThat(versions.get(STEPS - 1)).as("a balancer plan was adopted")
                    .isGreaterThan(new PlanVersion(1, 0));
            assertThat(ranks.get(0).get(STEPS - 1).loss()).isLessThan(ranks.get(0).get(0).loss());
            for (HttpSidecarClient c : clients) {
                assertThat(c.refusedReports()).as("reports refused: %s", c.lastError()).isZero();
                assertThat(c.sentReports()).isPositive();
                c.close();
            }
            HttpRequest status = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + balancerHttp + "/v1/status"))
                    .header("Authorization", "Bearer loop-token").timeout(Duration.ofSeconds(5)).GET().build();
            assertThat(http.send(status, HttpResponse.BodyHandlers.ofString()).body()).contains("\"sidecars\":2");

            // status.balancer (here its file) measures the trainer's steps beside the prediction: the plan in use
            // spreads the skewed routing, and the ranks' step and compute times are there.
            BalancerStatus.Measured measured = awaitMeasuredAfterPlan(dir.resolve("status.json"));
            // The world declares the CPU rates the trainer runs at, but in 60 steps of 256 assignments per rank the
            // measured block is noisy and covers whichever plans ran (three runs: 3.06, 2.98 and 1.59 under the plans
            // against about 3.03 static); e2e ReferenceTrainerTest checks the fall over 400 steps. Here: the skew is
            // measured both ways and the plan does not make it worse.
            assertThat(measured.imbalanceBefore()).as("measured imbalance on the static layout").isGreaterThan(1.5);
            assertThat(measured.imbalanceAfter()).as("measured imbalance under the plan")
                    .isGreaterThanOrEqualTo(1).isLessThan(measured.imbalanceBefore() * 1.02);
            assertThat(measured.stepSecondsAfter()).isPositive();
            assertThat(measured.computeSecondsAfter()).isPositive();
        } finally {
            agents.forEach(Process::destroy);
            for (Process p : agents) {
                if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }

    /** The balancer's measured block once it has the plan's step times (it flushes status every 2 s at most). */
    private static BalancerStatus.Measured awaitMeasuredAfterPlan(Path statusFile) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        BalancerStatus.Measured m = null;
        while (System.nanoTime() < deadline) {
            m = Files.exists(statusFile) ? BalancerStatusJson.decode(Files.readString(statusFile)).measured() : null;
            if (m != null && !Double.isNaN(m.stepSecondsAfter()) && !Double.isNaN(m.imbalanceAfter())) {
                return m;
            }
            Thread.sleep(300);
        }
        return fail("status.balancer.measured has no step time under a plan within 20 s: " + m);
    }

    private static Process start(String role, Map<String, String> env, Path log) throws IOException {
        ProcessBuilder b = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx192m", "-XX:TieredStopAtLevel=1", "-jar", JAR.toString(), role);
        b.environment().putAll(env);
        b.redirectErrorStream(true).redirectOutput(log.toFile());
        return b.start();
    }

    private void awaitBody(String url, String wanted, long deadline, Path dir) throws Exception {
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = get(url);
                if (r.statusCode() == 200 && r.body().contains(wanted)) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(300);
        }
        StringBuilder logs = new StringBuilder();
        for (String f : List.of("balancer.log", "sidecar0.log", "sidecar1.log")) {
            String text = Files.readString(dir.resolve(f));
            logs.append("\n--- ").append(f).append('\n').append(text.substring(Math.max(0, text.length() - 2000)));
        }
        fail("agents not ready within 120 s (" + url + " without " + wanted + "):" + logs);
    }

    private HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
