package dev.ballast.contracts.history;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonException;
import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.json.JsonWriter;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The JSON form of {@link LoadHistoryDocument}, byte-stable (fields in one order, no spaces):
 * <pre>{"format":"ballast-load-history/v1","job":"olmoe","generation":3,"lastStep":4210,"observedSteps":812,
 * "layers":2,"experts":4,"totals":[[5,1,0,9],[3,3,2,1]]}</pre>
 * Decoding refuses anything the record refuses, a text over {@link LoadHistoryDocument#MAX_CHARS}, another format,
 * and totals whose shape differs from layers × experts, with a message that starts with {@code history.json} and
 * names the field.
 */
public final class LoadHistoryJson {
    private LoadHistoryJson() {
    }

    public static String encode(LoadHistoryDocument h) {
        JsonWriter j = new JsonWriter().beginObject().field("format", LoadHistoryDocument.FORMAT).field("job", h.job())
                .field("generation", h.generation()).field("lastStep", h.lastStep())
                .field("observedSteps", h.observedSteps()).field("layers", h.layers()).field("experts", h.experts())
                .name("totals").beginArray();
        for (long[] layer : h.totals()) {
            j.beginArray();
            for (long v : layer) {
                j.value(v);
            }
            j.endArray();
        }
        return j.endArray().endObject().toString();
    }

    /** @throws JsonException naming the field at fault */
    public static LoadHistoryDocument decode(String json) {
        if (json.length() > LoadHistoryDocument.MAX_CHARS) {
            throw refusal("", "the document is " + json.length() + " characters, more than the "
                    + LoadHistoryDocument.MAX_CHARS + " a load history may have");
        }
        Map<String, Object> m = in("", () -> JsonFields.object(Json.parse(json), "the document"));
        String format = in("", () -> JsonFields.requireString(m, "format"));
        if (!LoadHistoryDocument.FORMAT.equals(format)) {
            throw refusal("format", "\"" + format + "\" is not " + LoadHistoryDocument.FORMAT);
        }
        int layers = in("", () -> JsonFields.requireInt(m, "layers", 1, LoadHistoryDocument.MAX_CELLS));
        int experts = in("", () -> JsonFields.requireInt(m, "experts", 1, LoadHistoryDocument.MAX_CELLS));
        if ((long) layers * experts > LoadHistoryDocument.MAX_CELLS) {
            throw refusal("", layers + " layers × " + experts + " experts is more than the " + LoadHistoryDocument.MAX_CELLS
                    + " a load history holds");
        }
        List<Object> rows = in("", () -> JsonFields.requireArray(m, "totals"));
        if (rows.size() != layers) {
            throw refusal("totals", "has " + rows.size() + " layers, \"layers\" says " + layers);
        }
        long[][] totals = new long[layers][];
        for (int l = 0; l < layers; l++) {
            String at = "totals[" + l + "]";
            if (!(rows.get(l) instanceof List<?> row)) {
                throw refusal(at, "must be an array");
            }
            if (row.size() != experts) {
                throw refusal(at, "has " + row.size() + " experts, \"experts\" says " + experts);
            }
            totals[l] = new long[experts];
            for (int e = 0; e < experts; e++) {
                if (!(row.get(e) instanceof Long v) || v < 0) {
                    throw refusal(at + "[" + e + "]", "must be a non-negative integer, got " + row.get(e));
                }
                totals[l][e] = v;
            }
        }
        return in("", () -> new LoadHistoryDocument(JsonFields.requireString(m, "job"),
                JsonFields.requireLong(m, "generation"), JsonFields.requireLong(m, "lastStep"),
                JsonFields.requireLong(m, "observedSteps"), totals));
    }

    private static JsonException refusal(String path, String what) {
        return new JsonException(LoadHistoryDocument.CONFIG_MAP_KEY + (path.isEmpty() ? "" : " " + path) + ": " + what);
    }

    private static <T> T in(String path, Supplier<T> read) {
        try {
            return read.get();
        } catch (JsonException | IllegalArgumentException e) {
            throw refusal(path, e.getMessage());
        }
    }
}
