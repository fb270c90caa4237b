package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import java.util.ArrayList;
import java.util.List;

/** How the operator restarts a world after failures. See docs/elastic.md. */
public class RecoverySpec {
  /** The reserved "retry me" exit code (EX_TEMPFAIL in sysexits.h). */
  public static final int TEMPFAIL = 75;

  /** What the operator does when a running world reports no step for progressDeadlineSeconds. */
  public enum OnNoProgress {
    @JsonProperty("Restart") RESTART,
    @JsonProperty("Report") REPORT
  }

  @Default("10")
  @Min(1)
  @Max(3600)
  @JsonPropertyDescription("Delay before the first restart after a failure; doubled for every further restart.")
  public Integer backoffSeconds = 10;

  @Default("300")
  @Min(1)
  @Max(86400)
  @JsonPropertyDescription("Longest delay between restarts.")
  public Integer maxBackoffSeconds = 300;

  @Default("[75]")
  @JsonPropertyDescription("Trainer exit codes that restart the world. Codes 128-255 (killed by a signal, e.g. 137 for"
      + " SIGKILL or out of memory) are retryable too unless listed in fatalExitCodes; every other non-zero code is fatal.")
  public List<Integer> retryableExitCodes = new ArrayList<>(List.of(TEMPFAIL));

  @Default("[]")
  @JsonPropertyDescription("Trainer exit codes that fail the job at once, even in the signal range 128-255.")
  public List<Integer> fatalExitCodes = new ArrayList<>();

  @Default("60")
  @Min(0)
  @Max(3600)
  @JsonPropertyDescription("Seconds a node may be NotReady before its workers count as lost and the world restarts without"
      + " it, and before the job's balancer is evicted from it and started elsewhere (Ballast's own grace period;"
      + " Kubernetes' pod eviction after 300 s is not waited for).")
  public Integer nodeLostAfterSeconds = 60;

  @Min(60)
  @JsonPropertyDescription("Seconds a running world may go without a new step in status.balancer (the balancer's"
      + " heartbeat, refreshed every 30 s while steps advance) before the job counts as not progressing. Unset: not checked.")
  public Integer progressDeadlineSeconds;

  @Min(1)
  @JsonPropertyDescription("Seconds a committed world's workers may take until all run (images pulled, Secrets and"
      + " ConfigMaps found, sidecars started) before the world restarts, counted against restartLimit, as Kueue's"
      + " waitForPodsReady timeout; the Ready condition names what they wait for. Unset: as long as they need.")
  public Integer startupTimeoutSeconds;

  @Default("Restart")
  @JsonPropertyDescription("When progressDeadlineSeconds passes without a step: Restart the world (counted against"
      + " restartLimit) or only Report it in the Progressing condition.")
  public OnNoProgress onNoProgress = OnNoProgress.RESTART;
}
