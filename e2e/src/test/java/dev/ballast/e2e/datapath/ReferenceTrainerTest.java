package dev.ballast.e2e.datapath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.Jobs;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The reference trainer (trainer-image/reference, docs/trainer.md) in worker pods on the real control plane: 2 pods x
 * 2 GPUs, one JVM per pod running its 2 ranks, joined across pods by the trainer's collectives, training the byte-level
 * MoE model with a skewed gate while reporting to the pods' sidecars and adopting the balancer's replicate plans.
 */
@E2eTest
class ReferenceTrainerTest {
  static final String JOB = "reftrain";
  static final int STEPS = 400;
  static final Pattern ADOPTED = Pattern.compile("^rank (\\d+) \\(pod (\\d+)\\) adopted plan (\\S+) at step (\\d+)$",
      Pattern.MULTILINE);
  static final Pattern FINISHED = Pattern.compile(
      "^rank (\\d+) \\(pod (\\d+)\\) finished step (\\d+): loss (\\S+), plan (\\S+)$", Pattern.MULTILINE);
  final BallastEnvironment env;
  final Jobs jobs;

  ReferenceTrainerTest(BallastEnvironment env) {
    this.env = env;
    this.jobs = new Jobs(env, ReferenceTrainerTest.class);
  }


  @Test
  void everyRankOfBothPodsAdoptsEachPlanAtTheSameStepAndTheMeasuredImbalanceFalls() throws Exception {
    trainAndCheckAdoptions(JOB, "ballast");
  }

  /**
   * ballast-routed's plans carry a planned split (ballast-plan/v4, docs/quota-rule.md): the trainers read them from their
   * sidecars and route each step's rows by it, with the same adoption rule and a falling measured imbalance.
   */
  @Test
  void plannedSplitsOfBallastRoutedAreAdoptedAndRouteTheRanksRows() throws Exception {
    trainAndCheckAdoptions(JOB + "-routed", "ballast-routed");
  }

  void trainAndCheckAdoptions(String job, String planner) throws Exception {
    // The kubelet appends to a pod's log, and a run on a kept cluster or target folder reuses this job's pod names.
    Map<Path, Long> logSizes = new TreeMap<>();
    for (int w = 0; w < 2; w++) {
      Path log = trainerLog(job + "-g1-w" + w);
      logSizes.put(log, Files.exists(log) ? Files.size(log) : 0L);
    }
    jobs.apply(Jobs.referenceTrainerManifest(job, STEPS, planner));
    await().atMost(Duration.ofMinutes(3)).untilAsserted(() -> assertThat(jobs.phase(job)).isIn("Running", "Succeeded"));
    Pod balancer = env.admin().pods().inNamespace(jobs.namespace()).withLabel("ballast.dev/job", job)
        .withLabel("ballast.dev/role", "balancer").list().getItems().stream()
        .filter(p -> "Running".equals(p.getStatus().getPhase())).findFirst().orElseThrow();

    // The balancer measures the imbalance of the steps the ranks report (docs/metrics.md): on the static layout
    // (before) and under the plan the ranks ran at that step (after). Once every rank runs a balancer plan, the
    // skewed gate's hot experts have replicas and the busiest GPU carries less.
    // (ignoreExceptions: a balancer pod reported Running may not listen yet, and a new one replaces a lost one)
    await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions().untilAsserted(() -> {
      @SuppressWarnings("unchecked")
      Map<String, Object> part = (Map<String, Object>) jobs.status(job).get("balancer");
      assertThat(part).as("status.balancer").isNotNull();
      assertThat((String) part.get("planVersion")).as("the plan every rank adopted").isNotNull().doesNotEndWith(".0");
      String metrics = DataPathTest.get(balancer, 8473, "/q/metrics", null);
      double before = imbalance(metrics, job, "measured", "before");
      double after = imbalance(metrics, job, "measured", "after");
      assertThat(before).as("measured imbalance on the static layout").isGreaterThan(1.5);
      assertThat(after).as("measured imbalance under the adopted plan (static layout: %s)", before).isLessThan(before);
      System.out.printf("%s: measured imbalance of a step under plan %s: %.3f (static layout %.3f)%n",
          planner, part.get("planVersion"), after, before);
      String plan = DataPathTest.get(balancer, 8472, "/v1/plan", DataPathTest.token(env, jobs.namespace(), job));
      assertThat(plan).as("the balancer's plan").contains("\"planner\":\"" + planner + "\"");
      if (planner.equals("ballast-routed")) {
        assertThat(plan).as("a ballast-routed plan with its planned split").startsWith("{\"format\":\"ballast-plan/v4\"")
            .containsPattern("\"routes\":\\[\\[");
      }
    });

    // Every worker's trainer ran all its steps and exited 0.
    await().atMost(Duration.ofMinutes(5)).untilAsserted(() -> assertThat(jobs.phase(job)).isEqualTo("Succeeded"));
    List<Pod> workers = new ArrayList<>(jobs.workers(job));
    workers.sort(Comparator.comparingInt(p -> Integer.parseInt(p.getMetadata().getAnnotations().get("ballast.dev/node-rank"))));
    assertThat(workers).hasSize(2);
    String pod0 = newOutput(trainerLog(workers.get(0).getMetadata().getName()), logSizes);
    String pod1 = newOutput(trainerLog(workers.get(1).getMetadata().getName()), logSizes);
    assertThat(pod0).as("node rank 0's trainer (global rank 0 prints the run)")
        .contains("4 ranks on 2 pods").contains("plans from the sidecars, replicate");
    // rank 0's step lines list every rank's times, gathered from both pods
    assertThat(pod0).containsPattern("step +" + STEPS + " .*compute ms \\[[^,\\]]+(, [^,\\]]+){3}\\]");

    // Which rank adopted which plan at which step, from both pods' logs; each pod's lines are its own ranks'.
    Map<String, Map<Integer, Long>> adoptions = new TreeMap<>();
    collectAdoptions(pod0, 0, adoptions);
    collectAdoptions(pod1, 1, adoptions);
    assertThat(adoptions).as("plans of world 1 adopted during the run").isNotEmpty();
    adoptions.forEach((version, byRank) -> {
      assertThat(byRank.keySet()).as("ranks that adopted plan %s", version).containsExactly(0, 1, 2, 3);
      assertThat(new TreeSet<>(byRank.values())).as("steps at which the ranks adopted plan %s", version).hasSize(1);
    });

    // The loss every rank prints at the end is the SUM all-reduce over all 4 ranks' losses: the same bits in both pods.
    List<String[]> finished = new ArrayList<>();
    collectFinished(pod0, 0, finished);
    collectFinished(pod1, 1, finished);
    assertThat(finished).extracting(f -> f[0]).as("ranks that finished").containsExactlyInAnyOrder("0", "1", "2", "3");
    assertThat(finished).extracting(f -> f[1]).as("last step of every rank").containsOnly(Integer.toString(STEPS));
    assertThat(Set.copyOf(finished.stream().map(f -> f[2]).toList())).as("every rank's loss").hasSize(1);
    String lastPlan = finished.get(0)[3];
    assertThat(finished).extracting(f -> f[3]).as("every rank's plan at the end").containsOnly(lastPlan);
    assertThat(adoptions).as("the last plan was adopted by the adoption rule").containsKey(lastPlan);

    // The balancer saw the same adoptions: status.balancer's plan (the oldest any rank reported running; the client
    // drops the reports still queued when a trainer exits, so it may lag the trainers' last plan) is one the logs show,
    // adopted at the step they show.
    @SuppressWarnings("unchecked")
    Map<String, Object> part = (Map<String, Object>) jobs.status(job).get("balancer");
    String reported = (String) part.get("planVersion");
    assertThat(adoptions).as("status.balancer.planVersion in the trainers' logs").containsKey(reported);
    assertThat(((Number) part.get("adoptedAtStep")).longValue()).as("status.balancer.adoptedAtStep of %s", reported)
        .isEqualTo(adoptions.get(reported).values().iterator().next());
    env.kubectl("delete", "tj", job, "-n", jobs.namespace(), "--wait=false").ok();
  }

  /** One series of ballast_balancer_imbalance (the whole model), by its source and layout labels. */
  static double imbalance(String metrics, String job, String source, String layout) {
    Matcher m = Pattern.compile("^ballast_balancer_imbalance\\{([^}]*)} (\\S+)$", Pattern.MULTILINE).matcher(metrics);
    while (m.find()) {
      String labels = m.group(1);
      if (labels.contains("job=\"" + job + "\"") && labels.contains("source=\"" + source + "\"")
          && labels.contains("layout=\"" + layout + "\"")) {
        return Double.parseDouble(m.group(2));
      }
    }
    throw new AssertionError("no ballast_balancer_imbalance{source=\"" + source + "\",layout=\"" + layout
        + "\"} in the balancer's metrics");
  }

  /** Where the process kubelet logs a pod's trainer container. */
  Path trainerLog(String pod) {
    return env.kubelet().logDir().resolve(jobs.namespace() + "_" + pod + "_trainer.log");
  }

  /** What this test's run appended to a log (sizes: the logs' sizes before it). */
  static String newOutput(Path log, Map<Path, Long> sizes) throws java.io.IOException {
    byte[] all = Files.readAllBytes(log);
    int from = (int) Math.min(all.length, sizes.getOrDefault(log, 0L));
    return new String(all, from, all.length - from, java.nio.charset.StandardCharsets.UTF_8);
  }

  static void collectAdoptions(String log, int pod, Map<String, Map<Integer, Long>> into) {
    Matcher m = ADOPTED.matcher(log);
    while (m.find()) {
      assertThat(Integer.parseInt(m.group(2))).as("pod of the line '%s' in node rank %d's log", m.group(), pod)
          .isEqualTo(pod);
      Long earlier = into.computeIfAbsent(m.group(3), v -> new TreeMap<>())
          .put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(4)));
      assertThat(earlier).as("rank %s adopted plan %s twice", m.group(1), m.group(3)).isNull();
    }
  }

  /** {rank, step, loss, plan} of each "finished" line; each pod's lines are its own ranks'. */
  static void collectFinished(String log, int pod, List<String[]> into) {
    Matcher m = FINISHED.matcher(log);
    while (m.find()) {
      assertThat(Integer.parseInt(m.group(2))).as("pod of the line '%s'", m.group()).isEqualTo(pod);
      into.add(new String[] {m.group(1), m.group(3), m.group(4), m.group(5)});
    }
  }
}
