package dev.ballast.trainer.loop;

import dev.ballast.collectives.RankComm;
import dev.ballast.collectives.ReduceOp;
import dev.ballast.contracts.json.JsonWriter;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The trainer's routing as a ballast-trace/v1 file (traces/README.md): one source per rank, one record per step,
 * layer and rank with that rank's tokens' counts. The tools module reads it (TraceReader) for the bench.
 */
public final class RoutingTrace implements AutoCloseable {

    public static final String FORMAT = "ballast-trace/v1";

    private final Path file;
    private final BufferedWriter out;
    private final int layers;
    private final int sources;

    private RoutingTrace(Path file, BufferedWriter out, int layers, int sources) {
        this.file = file;
        this.out = out;
        this.layers = layers;
        this.sources = sources;
    }

    /** Creates (or replaces) file and writes the header. */
    public static RoutingTrace create(Path file, String model, int layers, int experts, int sources, int topK,
                                      String origin) {
        try {
            BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
            out.write(new JsonWriter().beginObject().field("format", FORMAT).field("model", model)
                    .field("layers", layers).field("experts", experts).field("sources", sources).field("topK", topK)
                    .field("origin", origin).endObject().toString());
            out.write('\n');
            return new RoutingTrace(file, out, layers, sources);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the trace " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Every rank's counts (mine[l][e] from each), in rank order, on every rank: one SUM all-reduce in which each rank
     * fills only its own slot, so the sums are exact. Every rank calls it at the same point of the same step.
     */
    public static long[][][] gather(RankComm comm, long[][] mine) {
        int layers = mine.length;
        int experts = mine[0].length;
        int slot = layers * experts;
        long[] flat = new long[comm.worldSize() * slot];
        for (int l = 0; l < layers; l++) {
            System.arraycopy(mine[l], 0, flat, comm.rank() * slot + l * experts, experts);
        }
        long[] all = comm.allReduce(flat, ReduceOp.SUM);
        long[][][] out = new long[comm.worldSize()][layers][experts];
        for (int r = 0; r < out.length; r++) {
            for (int l = 0; l < layers; l++) {
                System.arraycopy(all, r * slot + l * experts, out[r][l], 0, experts);
            }
        }
        return out;
    }

    /** counts[s][l][e]: source (rank) s's tokens routed to expert e of layer l; steps must increase. */
    public void append(long step, long[][][] counts) {
        if (counts.length != sources || counts[0].length != layers) {
            throw new IllegalArgumentException("trace step " + step + " has " + counts.length + " sources of "
                    + counts[0].length + " layers; the header says " + sources + " of " + layers);
        }
        try {
            for (int l = 0; l < layers; l++) {
                for (int s = 0; s < sources; s++) {
                    out.write(new JsonWriter().beginObject().field("step", step).field("layer", l).field("source", s)
                            .array("counts", counts[s][l]).endObject().toString());
                    out.write('\n');
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the trace " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the trace " + file + ": " + e.getMessage(), e);
        }
    }
}
