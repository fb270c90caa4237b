package dev.ballast.contracts.json;

import java.util.List;
import java.util.Map;

/** Typed access to parsed JSON objects with errors that name the field. */
public final class JsonFields {
    private JsonFields() {
    }

    public static Map<String, Object> object(Object v, String what) {
        if (!(v instanceof Map<?, ?>)) {
            throw new JsonException(what + " must be a JSON object");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) v;
        return m;
    }

    public static long requireLong(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (v == null) {
            throw new JsonException("missing field \"" + key + "\"");
        }
        if (!(v instanceof Long l)) {
            throw new JsonException("field \"" + key + "\" must be an integer, got " + v);
        }
        return l;
    }

    /** An integer or a decimal number, as a double. */
    public static double requireNumber(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (v == null) {
            throw new JsonException("missing field \"" + key + "\"");
        }
        if (v instanceof Long l) {
            return l;
        }
        if (!(v instanceof Double d)) {
            throw new JsonException("field \"" + key + "\" must be a number, got " + v);
        }
        return d;
    }

    public static int requireInt(Map<String, Object> m, String key, long min, long max) {
        long v = requireLong(m, key);
        if (v < min || v > max) {
            throw new JsonException("field \"" + key + "\" = " + v + " is outside [" + min + ", " + max + "]");
        }
        return (int) v;
    }

    public static String requireString(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (!(v instanceof String s)) {
            throw new JsonException(v == null ? "missing field \"" + key + "\"" : "field \"" + key + "\" must be a string");
        }
        return s;
    }

    public static List<Object> requireArray(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (!(v instanceof List<?>)) {
            throw new JsonException(v == null ? "missing field \"" + key + "\"" : "field \"" + key + "\" must be an array");
        }
        @SuppressWarnings("unchecked")
        List<Object> l = (List<Object>) v;
        return l;
    }
}
