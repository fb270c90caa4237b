package dev.ballast.agent.balancer;

import java.util.Locale;
import java.util.Map;

/**
 * The parts of a TrainingJob's spec the balancer needs (model, parallelism, gpusPerWorker, balancer), read from
 * the generic object so the balancer does not depend on the operator's API classes.
 */
public record JobSpec(int moeLayers, int experts, int topK, int sharedExperts, int hiddenSize, int ffnHiddenSize,
                      int bytesPerParam, Integer expertParallel, int pipeline, int gpusPerWorker, String mode,
                      String planner, int redundantSlotsPerGpu, int replanEverySteps, long memoryBudgetBytes) {

    /** Reads {@code spec} (a TrainingJob's .spec as a map of maps); defaults follow DESIGN §2 and §6. */
    public static JobSpec fromSpec(Map<String, Object> spec) {
        Map<String, Object> model = map(spec, "model");
        Map<String, Object> par = map(spec, "parallelism");
        Map<String, Object> bal = map(spec, "balancer");
        String mode = str(bal, "mode", "replicate").toLowerCase(Locale.ROOT);
        if (!mode.equals("replicate") && !mode.equals("fssdp") && !mode.equals("off")) {
            throw new IllegalArgumentException("spec.balancer.mode must be replicate, fssdp or off, got '" + mode + "'");
        }
        String planner = str(bal, "planner", "ballast");
        long experts = num(model, "experts", -1);
        return new JobSpec(
                (int) positive(model, "moeLayers", -1, "spec.model.moeLayers"),
                (int) positive(model, "experts", -1, "spec.model.experts"),
                (int) positive(model, "topK", Math.min(8, Math.max(1, experts)), "spec.model.topK"),
                (int) num(model, "sharedExperts", 0),
                (int) positive(model, "hiddenSize", 2048, "spec.model.hiddenSize"),
                (int) positive(model, "ffnHiddenSize", 1024, "spec.model.ffnHiddenSize"),
                (int) positive(model, "bytesPerParam", 2, "spec.model.bytesPerParam"),
                par.containsKey("expert") ? (int) positive(par, "expert", -1, "spec.parallelism.expert") : null,
                (int) positive(par, "pipeline", 1, "spec.parallelism.pipeline"),
                (int) positive(spec, "gpusPerWorker", -1, "spec.gpusPerWorker"),
                mode, planner,
                (int) num(bal, "redundantSlotsPerGpu", 2),
                (int) positive(bal, "replanEverySteps", 50, "spec.balancer.replanEverySteps"),
                num(bal, "memoryBudgetBytes", 0));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v instanceof Map<?, ?> x ? (Map<String, Object>) x : Map.of();
    }

    private static String str(Map<String, Object> m, String key, String dflt) {
        return m.get(key) instanceof String s && !s.isEmpty() ? s : dflt;
    }

    private static long num(Map<String, Object> m, String key, long dflt) {
        Object v = m.get(key);
        if (v == null) {
            return dflt;
        }
        if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
            return n.longValue();
        }
        if (v instanceof String s) {
            try {
                return Long.parseLong(s);
            } catch (NumberFormatException e) {
                // fall through to the error below
            }
        }
        throw new IllegalArgumentException("spec field '" + key + "' must be an integer, got " + v);
    }

    private static long positive(Map<String, Object> m, String key, long dflt, String path) {
        long v = num(m, key, dflt);
        if (v <= 0) {
            throw new IllegalArgumentException(path + (v == -1 && !m.containsKey(key) ? " is required" : " must be > 0, got " + v));
        }
        return v;
    }
}
