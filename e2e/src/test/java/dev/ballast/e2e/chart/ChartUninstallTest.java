package dev.ballast.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.Jobs;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Uninstalling the chart never deletes users' TrainingJobs (the CRD is kept). Runs last: it removes the operator's RBAC. */
@E2eTest
@Order(Integer.MAX_VALUE)
class ChartUninstallTest {
  final BallastEnvironment env;
  final Jobs jobs;

  ChartUninstallTest(BallastEnvironment env) {
    this.env = env;
    this.jobs = new Jobs(env, ChartUninstallTest.class);
  }

  @Test
  void uninstallingTheChartKeepsTheCrdAndTheJobs() {
    env.kubectl("apply", "-n", jobs.namespace(), "-f", env.root().resolve("crds/examples/minimal.yaml").toString()).ok();
    env.helm("uninstall", BallastEnvironment.RELEASE, "--namespace", BallastEnvironment.NAMESPACE, "--wait");
    assertThat(env.kubectl("get", "crd", "trainingjobs.ballast.dev").exitCode()).isZero();
    assertThat(jobs.get("olmoe-minimal")).as("the user's TrainingJob survives the uninstall").isNotNull();
    assertThat(env.kubectl("get", "clusterrole", "ballast-balancer").exitCode())
        .as("the chart's own objects are gone").isNotZero();
  }
}
