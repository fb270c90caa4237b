package dev.ballast.contracts.status;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonException;
import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.json.JsonWriter;

import java.util.LinkedHashMap;
import java.util.Map;

import static dev.ballast.contracts.status.BalancerStatus.ADOPTED_AT_STEP;
import static dev.ballast.contracts.status.BalancerStatus.FIRST_PLAN_GENERATION;
import static dev.ballast.contracts.status.BalancerStatus.FIRST_PLAN_SOURCE;
import static dev.ballast.contracts.status.BalancerStatus.FIRST_PLAN_STEPS;
import static dev.ballast.contracts.status.BalancerStatus.IMBALANCE_AFTER;
import static dev.ballast.contracts.status.BalancerStatus.IMBALANCE_BEFORE;
import static dev.ballast.contracts.status.BalancerStatus.LAST_STEP;
import static dev.ballast.contracts.status.BalancerStatus.LAST_STEP_GENERATION;
import static dev.ballast.contracts.status.BalancerStatus.LAST_STEP_TIME;
import static dev.ballast.contracts.status.BalancerStatus.PLAN_ERROR;
import static dev.ballast.contracts.status.BalancerStatus.PLAN_SEQUENCE;
import static dev.ballast.contracts.status.BalancerStatus.PLAN_VERSION;
import static dev.ballast.contracts.status.BalancerStatus.PREDICTED_SPEEDUP;

/**
 * The JSON form of {@link BalancerStatus}: the fields of {@link BalancerStatus#FIELDS} in that order, ratios rounded
 * to four decimals (plenty for a ratio, and it keeps the applied object stable between writes).
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
        return m;
    }

    public static String encode(BalancerStatus s) {
        JsonWriter w = new JsonWriter().beginObject();
        fields(s).forEach((k, v) -> {
            if (v instanceof String t) {
                w.field(k, t);
            } else if (v instanceof Long l) {
                w.field(k, l);
            } else {
                w.field(k, (Double) v);
            }
        });
        return w.endObject().toString();
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
                first);
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
        return Math.round(x * 10_000) / 10_000.0;
    }
}
