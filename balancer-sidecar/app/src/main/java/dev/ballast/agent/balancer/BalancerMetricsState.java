package dev.ballast.agent.balancer;

import dev.ballast.agent.proto.ErrorNotice;

import java.util.Map;

/**
 * What the balancer's metrics show, as of the last tick or published plan: an immutable copy the core hands to any
 * thread (the metrics only read it; docs/metrics.md names each series).
 *
 * @param predicted the current plan's scores on the loads it was planned for: the static layout (before) and the
 *     plan (after); null before the world's first plan
 * @param measured a complete step's loads (scored at most once a second) under the static layout (before) and the plan in use (after);
 *     null before the world's first step
 * @param predictedGain predicted step time of the static layout over the plan's (1: no gain)
 * @param plans plans computed, with {@code planNanos} their total computation time
 * @param lastBytesMoved expert weights the newest published plan moved onto GPUs ({@code bytesMoved} all plans)
 * @param ranksBehind GPU ranks of the world not yet running the newest published plan
 * @param ranksSilent GPU ranks missing from the last few released steps (stragglers that stopped reporting)
 * @param ranksSlow GPU ranks flagged as persistently slower than their peers ({@link SlowRanks})
 * @param sidecarHealth the sidecars' health messages summed ({@link SidecarHealthTally})
 */
public record BalancerMetricsState(long worldGeneration, long planSequence, Scores predicted, Scores measured,
                                   double predictedGain, long plans, long planNanos, long lastBytesMoved,
                                   long bytesMoved, int sidecarsConnected,
                                   int ranksBehind, int ranksSilent, int ranksSlow,
                                   Map<ErrorNotice.Code, Long> refusals, SidecarHealthTally.Totals sidecarHealth) {

    /** Imbalance (busiest GPU's tokens over the mean) before and after, whole-model and per layer. */
    public record Scores(double before, double after, double[] layersBefore, double[] layersAfter) {
    }

    public static final BalancerMetricsState EMPTY = new BalancerMetricsState(0, 0, null, null, 1.0, 0, 0, 0, 0, 0, 0,
            0, 0, Map.of(), SidecarHealthTally.Totals.NONE);
}
