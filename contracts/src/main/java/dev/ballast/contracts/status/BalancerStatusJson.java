package dev.ballast.contracts.status;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonException;
import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.json.JsonWriter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.ballast.contracts.status.BalancerStatus.ADOPTED_AT_STEP;
import static dev.ballast.contracts.status.BalancerStatus.COMPUTE_SECONDS_AFTER;
import static dev.ballast.contracts.status.BalancerStatus.COMPUTE_SECONDS_BEFORE;
import static dev.ballast.contracts.status.BalancerStatus.FIRST_PLAN_GENERATION;
import static dev.ballast.contracts.status.BalancerStatus.FIRST_PLAN_SOURCE;
import static dev.ballast.contracts.status.BalancerStatus.FIRST_PLAN_STEPS;
import static dev.ballast.contracts.status.BalancerStatus.IMBALANCE_AFTER;
import static dev.ballast.contracts.status.BalancerStatus.IMBALANCE_BEFORE;
import static dev.ballast.contracts.status.BalancerStatus.LAST_STEP;
import static dev.ballast.contracts.status.BalancerStatus.LAST_STEP_GENERATION;
import static dev.ballast.contracts.status.BalancerStatus.LAST_STEP_TIME;
import static dev.ballast.contracts.status.BalancerStatus.MEASURED;
import static dev.ballast.contracts.status.BalancerStatus.PLAN_ERROR;
import static dev.ballast.contracts.status.BalancerStatus.PLAN_SEQUENCE;
import static dev.ballast.contracts.status.BalancerStatus.PLAN_VERSION;
import static dev.ballast.contracts.status.BalancerStatus.PREDICTED_SPEEDUP;
import static dev.ballast.contracts.status.BalancerStatus.STEP_SECONDS_AFTER;
import static dev.ballast.contracts.status.BalancerStatus.STEP_SECONDS_BEFORE;
import static dev.ballast.contracts.status.BalancerStatus.STEP_TIME_SPEEDUP;
import static dev.ballast.contracts.status.BalancerStatus.KIND;
import static dev.ballast.contracts.status.BalancerStatus.POD;
import static dev.ballast.contracts.status.BalancerStatus.RANK;
import static dev.ballast.contracts.status.BalancerStatus.STRAGGLERS;

/**
 * The JSON form of {@link BalancerStatus}: the fields of {@link BalancerStatus#FIELDS} in that order, ratios rounded
 * to four decimals (plenty for a ratio, and it keeps the applied object stable between writes), seconds to
 * microseconds; the measured block is a nested object of the fields of {@link BalancerStatus#MEASURED_FIELDS} that
 * were measured.
 */
public final class BalancerStatusJson {
    private BalancerStatusJson() {
    }

    /** The fields as a map, in order: what server-side apply sends as status.balancer. */
    public static Map<String, Object> fields(BalancerStatus s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(PLAN_VERSION, s.planVersion());
        m.put(PLAN_SEQUENCE, s.planSequence());
        m.put(ADOPTED_AT_STEP, s.adoptedAtStep());
        m.put(IMBALANCE_BEFORE, round4(s.imbalanceBefore()));
        m.put(IMBALANCE_AFTER, round4(s.imbalanceAfter()));
        m.put(PREDICTED_SPEEDUP, round4(s.predictedSpeedup()));
        if (s.heartbeat() != null) {
            m.put(LAST_STEP_GENERATION, s.heartbeat().generation());
            m.put(LAST_STEP, s.heartbeat().step());
            m.put(LAST_STEP_TIME, s.heartbeat().at());
        }
        if (!s.planError().isEmpty()) {
            m.put(PLAN_ERROR, s.planError());
        }
        if (s.firstPlan() != null) {
            m.put(FIRST_PLAN_GENERATION, s.firstPlan().generation());
            m.put(FIRST_PLAN_SOURCE, s.firstPlan().source());
            if (s.firstPlan().steps() >= 0) {
                m.put(FIRST_PLAN_STEPS, s.firstPlan().steps());
            }
        }
        if (s.measured() != null) {
            m.put(MEASURED, measuredFields(s.measured()));
        }
        if (!s.stragglers().isEmpty()) {
            List<Object> list = new ArrayList<>();
            for (BalancerStatus.Straggler x : s.stragglers()) {
                Map<String, Object> one = new LinkedHashMap<>();
                one.put(RANK, x.rank());
                one.put(POD, x.pod());
                one.put(KIND, x.kind());
                list.add(one);
            }
            m.put(STRAGGLERS, list);
        }
        return m;
    }

    private static Map<String, Object> measuredFields(BalancerStatus.Measured x) {
        Map<String, Object> m = new LinkedHashMap<>();
        putMeasured(m, IMBALANCE_BEFORE, round4(x.imbalanceBefore()));
        putMeasured(m, IMBALANCE_AFTER, round4(x.imbalanceAfter()));
        putMeasured(m, STEP_SECONDS_BEFORE, roundMicros(x.stepSecondsBefore()));
        putMeasured(m, STEP_SECONDS_AFTER, roundMicros(x.stepSecondsAfter()));
        putMeasured(m, STEP_TIME_SPEEDUP, round4(x.stepTimeSpeedup()));
        putMeasured(m, COMPUTE_SECONDS_BEFORE, roundMicros(x.computeSecondsBefore()));
        putMeasured(m, COMPUTE_SECONDS_AFTER, roundMicros(x.computeSecondsAfter()));
        return m;
    }

    private static void putMeasured(Map<String, Object> m, String key, double v) {
        if (!Double.isNaN(v) && !Double.isInfinite(v)) {
            m.put(key, v);
        }
    }

    public static String encode(BalancerStatus s) {
        JsonWriter w = new JsonWriter();
        write(w, fields(s));
        return w.toString();
    }

    private static void write(JsonWriter w, Map<String, Object> fields) {
        w.beginObject();
        fields.forEach((k, v) -> {
            if (v instanceof String t) {
                w.field(k, t);
            } else if (v instanceof Long l) {
                w.field(k, l);
            } else if (v instanceof List<?> list) {
                w.name(k).beginArray();
                for (Object item : list) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> block = (Map<String, Object>) item;
                    write(w, block);
                }
                w.endArray();
            } else if (v instanceof Map<?, ?> nested) {
                @SuppressWarnings("unchecked")
                Map<String, Object> block = (Map<String, Object>) nested;
                write(w.name(k), block);
            } else {
                w.field(k, (Double) v);
            }
        });
        w.endObject();
    }

    /** @throws JsonException naming the field at fault */
    public static BalancerStatus decode(String json) {
        Map<String, Object> m = JsonFields.object(Json.parse(json), "status.balancer");
        BalancerStatus.StepHeartbeat beat = m.containsKey(LAST_STEP)
                ? new BalancerStatus.StepHeartbeat(JsonFields.requireLong(m, LAST_STEP_GENERATION),
                        JsonFields.requireLong(m, LAST_STEP), JsonFields.requireString(m, LAST_STEP_TIME))
                : null;
        BalancerStatus.FirstPlan first = m.containsKey(FIRST_PLAN_GENERATION)
                ? new BalancerStatus.FirstPlan(JsonFields.requireLong(m, FIRST_PLAN_GENERATION),
                        JsonFields.requireString(m, FIRST_PLAN_SOURCE),
                        m.containsKey(FIRST_PLAN_STEPS) ? JsonFields.requireLong(m, FIRST_PLAN_STEPS) : -1)
                : null;
        return new BalancerStatus(JsonFields.requireString(m, PLAN_VERSION), JsonFields.requireLong(m, PLAN_SEQUENCE),
                JsonFields.requireLong(m, ADOPTED_AT_STEP), ratio(m, IMBALANCE_BEFORE), ratio(m, IMBALANCE_AFTER),
                ratio(m, PREDICTED_SPEEDUP), beat, m.containsKey(PLAN_ERROR) ? JsonFields.requireString(m, PLAN_ERROR) : "",
                first, m.containsKey(MEASURED) ? measured(JsonFields.object(m.get(MEASURED), MEASURED)) : null,
                m.containsKey(STRAGGLERS) ? stragglers(JsonFields.requireArray(m, STRAGGLERS)) : List.of());
    }

    private static List<BalancerStatus.Straggler> stragglers(List<Object> items) {
        List<BalancerStatus.Straggler> out = new ArrayList<>();
        for (Object item : items) {
            Map<String, Object> x = JsonFields.object(item, STRAGGLERS + "[" + out.size() + "]");
            String kind = JsonFields.requireString(x, KIND);
            if (!kind.equals(BalancerStatus.Straggler.SLOW) && !kind.equals(BalancerStatus.Straggler.SILENT)) {
                throw new JsonException("field \"" + KIND + "\" must be \"slow\" or \"silent\", got \"" + kind + "\"");
            }
            out.add(new BalancerStatus.Straggler(JsonFields.requireLong(x, RANK), JsonFields.requireString(x, POD), kind));
        }
        return out;
    }

    /** The measured block; its stepTimeSpeedup is derived from the step times, so it is not read back. */
    private static BalancerStatus.Measured measured(Map<String, Object> m) {
        return new BalancerStatus.Measured(optionalRatio(m, IMBALANCE_BEFORE), optionalRatio(m, IMBALANCE_AFTER),
                optionalRatio(m, STEP_SECONDS_BEFORE), optionalRatio(m, STEP_SECONDS_AFTER),
                optionalRatio(m, COMPUTE_SECONDS_BEFORE), optionalRatio(m, COMPUTE_SECONDS_AFTER));
    }

    private static double optionalRatio(Map<String, Object> m, String key) {
        return m.containsKey(key) ? ratio(m, key) : Double.NaN;
    }

    /** The persisted plan-sequence high-water mark of a status.balancer as read back (absent: 0). */
    public static long planSequence(Map<?, ?> balancer) {
        return balancer != null && balancer.get(PLAN_SEQUENCE) instanceof Number n ? n.longValue() : 0;
    }

    private static double ratio(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (!(v instanceof Number n)) {
            throw new JsonException(v == null ? "missing field \"" + key + "\"" : "field \"" + key + "\" must be a number");
        }
        return n.doubleValue();
    }

    private static double round4(double x) {
        return Double.isFinite(x) ? Math.round(x * 10_000) / 10_000.0 : x;
    }

    private static double roundMicros(double seconds) {
        return Double.isFinite(seconds) ? Math.round(seconds * 1_000_000) / 1_000_000.0 : seconds;
    }
}
