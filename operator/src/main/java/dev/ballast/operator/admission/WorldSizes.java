package dev.ballast.operator.admission;

import dev.ballast.operator.api.TrainingJobSpec;

/**
 * Which worker counts make a valid world: between workers.min and workers.max, and holding whole
 * expert-parallel × pipeline groups (workers × gpusPerWorker divisible by expert × pipeline).
 */
public final class WorldSizes {
  private WorldSizes() {}

  /** Largest valid world size not above {@code fitting}, or 0 if none reaches workers.min. */
  public static int largestValid(int fitting, TrainingJobSpec spec) {
    int group = spec.parallelism.expert * spec.parallelism.pipeline;
    for (int n = Math.min(fitting, spec.workers.max); n >= spec.workers.min; n--) {
      if ((long) n * spec.gpusPerWorker % group == 0) return n;
    }
    return 0;
  }

  static String explain(int fitting, TrainingJobSpec spec) {
    return "room for " + fitting + " workers × " + spec.gpusPerWorker + " GPUs, but no worker count between "
        + spec.workers.min + " and " + Math.min(fitting, spec.workers.max) + " holds whole groups of "
        + spec.parallelism.expert + " (expert) × " + spec.parallelism.pipeline + " (pipeline) GPUs";
  }
}
