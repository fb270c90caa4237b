package dev.ballast.tools.synth;

import java.util.Locale;

/**
 * Parameters of a seeded synthetic routing trace (docs/planner.md, "Synthetic traces").
 *
 * @param zipfS          skew: the expert at popularity rank r gets weight (1 + r)^-s
 * @param driftRate      popularity ranks shift by this many positions per step (0: stationary)
 * @param burstProb      chance per (step, layer) that one random expert is hot for that step
 * @param burstFactor    weight multiplier of a burst
 * @param heterogeneity  σ of a fixed log-normal factor per (layer, source, expert): sources prefer different experts
 * @param noise          σ of a fresh log-normal factor per (step, layer, source, expert)
 * @param replanInterval re-plan interval the scenario is meant to be scored with (0: bench default)
 */
public record SyntheticSpec(String name, int layers, int experts, int topK, int sources, int steps, int tokensPerSource,
                            double zipfS, double driftRate, double burstProb, double burstFactor, double heterogeneity,
                            double noise, long seed, int replanInterval) {
    public SyntheticSpec {
        if (layers <= 0 || experts <= 0 || topK <= 0 || topK > experts || sources <= 0 || steps <= 0 || tokensPerSource <= 0) {
            throw new IllegalArgumentException("synthetic " + name + ": sizes must be positive and topK <= experts");
        }
        if (zipfS < 0 || driftRate < 0 || burstProb < 0 || burstProb > 1 || burstFactor < 1 || heterogeneity < 0 || noise < 0) {
            throw new IllegalArgumentException("synthetic " + name + ": bad skew/drift/burst/noise parameters");
        }
    }

    /** The same scenario drawn with another seed. */
    public SyntheticSpec withSeed(long newSeed) {
        return new SyntheticSpec(name, layers, experts, topK, sources, steps, tokensPerSource, zipfS, driftRate, burstProb,
                burstFactor, heterogeneity, noise, newSeed, replanInterval);
    }

    public String describe() {
        return String.format(Locale.ROOT,
                "%s: zipf s=%.2f, experts=%d, top-%d, layers=%d, sources=%d, steps=%d, drift=%.3f ranks/step, bursts p=%.2f x%.0f, "
                        + "heterogeneity σ=%.2f, noise σ=%.2f, seed=%d%s",
                name, zipfS, experts, topK, layers, sources, steps, driftRate, burstProb, burstFactor, heterogeneity, noise, seed,
                replanInterval > 0 ? ", re-plan every " + replanInterval : "");
    }
}
