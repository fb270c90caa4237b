package dev.ballast.contracts.json;

/**
 * Writes compact JSON in the order the caller emits it, so output is byte-stable.
 * Commas are managed here; callers only open, name and close.
 */
public final class JsonWriter {
    private final StringBuilder out = new StringBuilder();
    private boolean needComma;

    public JsonWriter beginObject() {
        comma();
        out.append('{');
        needComma = false;
        return this;
    }

    public JsonWriter endObject() {
        out.append('}');
        needComma = true;
        return this;
    }

    public JsonWriter beginArray() {
        comma();
        out.append('[');
        needComma = false;
        return this;
    }

    public JsonWriter endArray() {
        out.append(']');
        needComma = true;
        return this;
    }

    /** Writes a key; the next value call supplies its value. */
    public JsonWriter name(String key) {
        comma();
        quote(key);
        out.append(':');
        needComma = false;
        return this;
    }

    public JsonWriter value(long v) {
        comma();
        out.append(v);
        needComma = true;
        return this;
    }

    /** Doubles are written with up to 6 significant decimals, never in exponent form for normal magnitudes. */
    public JsonWriter value(double v) {
        comma();
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            out.append("null");
        } else if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            out.append((long) v);
        } else {
            out.append(new java.math.BigDecimal(v).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString());
        }
        needComma = true;
        return this;
    }

    public JsonWriter value(boolean v) {
        comma();
        out.append(v);
        needComma = true;
        return this;
    }

    public JsonWriter value(String v) {
        comma();
        if (v == null) {
            out.append("null");
        } else {
            quote(v);
        }
        needComma = true;
        return this;
    }

    public JsonWriter field(String key, long v) {
        return name(key).value(v);
    }

    public JsonWriter field(String key, double v) {
        return name(key).value(v);
    }

    public JsonWriter field(String key, String v) {
        return name(key).value(v);
    }

    public JsonWriter field(String key, boolean v) {
        return name(key).value(v);
    }

    public JsonWriter array(String key, long[] values) {
        name(key).beginArray();
        for (long v : values) {
            value(v);
        }
        return endArray();
    }

    public JsonWriter array(String key, int[] values) {
        name(key).beginArray();
        for (int v : values) {
            value(v);
        }
        return endArray();
    }

    private void comma() {
        if (needComma) {
            out.append(',');
        }
    }

    private void quote(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
