package dev.ballast.tools.trace;

import dev.ballast.contracts.json.JsonWriter;

import java.io.IOException;
import java.io.Writer;

/** Writes any trace source as ballast-trace/v1: header line, then records by step, layer, source. */
public final class TraceWriter {
    private TraceWriter() {
    }

    public static void write(TraceSource t, Writer out) throws IOException {
        TraceHeader h = t.header();
        JsonWriter hw = new JsonWriter().beginObject()
                .field("format", TraceHeader.FORMAT)
                .field("model", h.model())
                .field("layers", h.layers())
                .field("experts", h.experts())
                .field("sources", h.sources())
                .field("topK", h.topK());
        if (h.origin() != null) {
            hw.field("origin", h.origin());
        }
        out.write(hw.endObject().toString());
        out.write('\n');
        for (int i = 0; i < t.steps(); i++) {
            int[][][] c = t.counts(i);
            for (int l = 0; l < h.layers(); l++) {
                for (int s = 0; s < h.sources(); s++) {
                    JsonWriter w = new JsonWriter().beginObject()
                            .field("step", t.stepNumber(i)).field("layer", l).field("source", s)
                            .array("counts", c[l][s]).endObject();
                    out.write(w.toString());
                    out.write('\n');
                }
            }
        }
    }
}
