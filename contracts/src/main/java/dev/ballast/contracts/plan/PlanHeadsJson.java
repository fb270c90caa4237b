package dev.ballast.contracts.plan;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonException;
import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.json.JsonWriter;

import java.util.Map;

/**
 * The sidecar's answer to {@code GET /v1/plans/heads?generation=g&step=s} (docs/protocol.md):
 * {@code {"generation":g,"step":s,"newest":"g.s"|null,"oldest":"g.s"|null}}. Vectors: contracts/vectors/plan-versions.json.
 */
public final class PlanHeadsJson {
    private PlanHeadsJson() {
    }

    public static String encode(long generation, long step, PlanHeads heads) {
        return new JsonWriter().beginObject().field("generation", generation).field("step", step)
                .field("newest", text(heads.newest())).field("oldest", text(heads.oldest())).endObject().toString();
    }

    /** @throws JsonException naming the field at fault */
    public static PlanHeads decode(String json) {
        Map<String, Object> m = JsonFields.object(Json.parse(json), "plan heads");
        return new PlanHeads(version(m, "newest"), version(m, "oldest"));
    }

    private static String text(PlanVersion v) {
        return v == null ? null : v.toString();
    }

    private static PlanVersion version(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (v == null || v == Json.NULL) {
            return null;
        }
        if (!(v instanceof String s)) {
            throw new JsonException("plan heads: field \"" + key + "\" must be a plan version string or null, got " + v);
        }
        try {
            return PlanVersions.parse(s);
        } catch (IllegalArgumentException e) {
            throw new JsonException("plan heads: field \"" + key + "\": " + e.getMessage());
        }
    }
}
