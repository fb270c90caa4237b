package dev.ballast.tools.trace;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonException;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads ballast-trace/v1 (traces/README.md) strictly: the whole file or an error naming the line; never a partial trace.
 * Rules beyond the format: records of a step are contiguous and steps increase; every step has exactly one record
 * per (layer, source); blank lines are allowed only at the end.
 */
public final class TraceReader {
    private TraceReader() {
    }

    public static MemoryTrace read(Path file) throws IOException {
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(file.getFileName().toString(), r);
        }
    }

    public static MemoryTrace read(String name, Reader in) throws IOException {
        BufferedReader r = in instanceof BufferedReader b ? b : new BufferedReader(in);
        String first = r.readLine();
        if (first == null || first.isBlank()) {
            throw new TraceFormatException(1, "empty trace: the first line must be the ballast-trace/v1 header");
        }
        TraceHeader h = header(first);
        List<long[]> numbers = new ArrayList<>();
        List<int[][][]> steps = new ArrayList<>();
        int[][][] cur = null;
        long curStep = -1;
        int filled = 0;
        int curStart = 0;
        int lineNo = 1;
        int blankAt = 0;
        String line;
        while ((line = r.readLine()) != null) {
            lineNo++;
            if (line.isBlank()) {
                if (blankAt == 0) {
                    blankAt = lineNo;
                }
                continue;
            }
            if (blankAt != 0) {
                throw new TraceFormatException(blankAt, "blank line inside the trace");
            }
            Map<String, Object> rec = object(line, lineNo);
            long step = longField(rec, "step", lineNo, 0, Long.MAX_VALUE);
            int layer = (int) longField(rec, "layer", lineNo, 0, h.layers() - 1);
            int source = (int) longField(rec, "source", lineNo, 0, h.sources() - 1);
            Object countsV = rec.get("counts");
            if (!(countsV instanceof List<?> list)) {
                throw new TraceFormatException(lineNo, countsV == null ? "missing \"counts\"" : "\"counts\" must be an array");
            }
            if (list.size() != h.experts()) {
                throw new TraceFormatException(lineNo, "\"counts\" has " + list.size() + " entries, header says experts=" + h.experts());
            }
            if (step != curStep) {
                if (cur != null) {
                    if (step < curStep) {
                        throw new TraceFormatException(lineNo, "step " + step + " after step " + curStep + " (steps must increase)");
                    }
                    checkComplete(cur, h, curStep, curStart, filled);
                }
                cur = new int[h.layers()][h.sources()][];
                curStep = step;
                curStart = lineNo;
                filled = 0;
                numbers.add(new long[] {step});
                steps.add(cur);
            }
            if (cur[layer][source] != null) {
                throw new TraceFormatException(lineNo, "duplicate record for step " + step + " layer " + layer + " source " + source);
            }
            int[] counts = new int[h.experts()];
            for (int e = 0; e < counts.length; e++) {
                Object v = list.get(e);
                if (!(v instanceof Long n)) {
                    throw new TraceFormatException(lineNo, "counts[" + e + "] must be an integer, got " + v);
                }
                if (n < 0 || n > Integer.MAX_VALUE) {
                    throw new TraceFormatException(lineNo, "counts[" + e + "] = " + n + " is outside [0, " + Integer.MAX_VALUE + "]");
                }
                counts[e] = n.intValue();
            }
            cur[layer][source] = counts;
            filled++;
        }
        if (cur == null) {
            throw new TraceFormatException(lineNo, "trace has a header but no records");
        }
        checkComplete(cur, h, curStep, curStart, filled);
        long[] nums = new long[numbers.size()];
        for (int i = 0; i < nums.length; i++) {
            nums[i] = numbers.get(i)[0];
        }
        return new MemoryTrace(name, h, nums, steps);
    }

    private static void checkComplete(int[][][] step, TraceHeader h, long stepNo, int startLine, int filled) {
        if (filled == h.layers() * h.sources()) {
            return;
        }
        for (int l = 0; l < h.layers(); l++) {
            for (int s = 0; s < h.sources(); s++) {
                if (step[l][s] == null) {
                    throw new TraceFormatException(startLine, "step " + stepNo + " (starting here) has no record for layer "
                            + l + " source " + s);
                }
            }
        }
    }

    private static TraceHeader header(String line) {
        Map<String, Object> m = object(line, 1);
        Object format = m.get("format");
        if (!TraceHeader.FORMAT.equals(format)) {
            throw new TraceFormatException(1, "\"format\" must be \"" + TraceHeader.FORMAT + "\", got " + (format == null ? "nothing" : format));
        }
        Object model = m.get("model");
        if (!(model instanceof String)) {
            throw new TraceFormatException(1, "header needs a string \"model\"");
        }
        int layers = (int) longField(m, "layers", 1, 1, 1 << 16);
        int experts = (int) longField(m, "experts", 1, 1, 1 << 20);
        int sources = (int) longField(m, "sources", 1, 1, 1 << 20);
        int topK = (int) longField(m, "topK", 1, 1, experts);
        Object origin = m.get("origin");
        return new TraceHeader((String) model, layers, experts, sources, topK, origin instanceof String s ? s : null);
    }

    private static Map<String, Object> object(String line, int lineNo) {
        Object v;
        try {
            v = Json.parse(line);
        } catch (JsonException e) {
            throw new TraceFormatException(lineNo, "not valid JSON (" + e.getMessage() + ")");
        }
        if (!(v instanceof Map<?, ?>)) {
            throw new TraceFormatException(lineNo, "each line must be a JSON object");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) v;
        return m;
    }

    private static long longField(Map<String, Object> m, String key, int lineNo, long min, long max) {
        Object v = m.get(key);
        if (v == null) {
            throw new TraceFormatException(lineNo, "missing \"" + key + "\"");
        }
        if (!(v instanceof Long n)) {
            throw new TraceFormatException(lineNo, "\"" + key + "\" must be an integer, got " + v);
        }
        if (n < min || n > max) {
            throw new TraceFormatException(lineNo, "\"" + key + "\" = " + n + " is outside [" + min + ", " + max + "]");
        }
        return n;
    }
}
