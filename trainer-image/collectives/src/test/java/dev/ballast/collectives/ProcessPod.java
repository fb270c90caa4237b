package dev.ballast.collectives;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A pod as its own JVM (MultiProcessTest starts it with {@code java -cp}): joins from the env the operator would set,
 * runs a fixed sequence of collectives on each local rank, and prints one line per rank with digests of the results.
 */
public final class ProcessPod {
    private ProcessPod() {
    }

    public static void main(String[] args) {
        try (CommNode node = CommNode.join(CommConfig.fromEnv(System.getenv()))) {
            for (String line : runAll(node)) System.out.println(line);
        }
    }

    static List<String> runAll(CommNode node) {
        List<CompletableFuture<String>> ranks = new ArrayList<>();
        for (int l = 0; l < node.localRanks(); l++) {
            RankComm c = node.rank(l);
            ranks.add(CompletableFuture.supplyAsync(() -> run(c)));
        }
        List<String> lines = new ArrayList<>();
        for (CompletableFuture<String> r : ranks) lines.add(r.join());
        return lines;
    }

    /** "rank R sum S a2a A": digests of an all-reduce and an all-to-all; ends with a barrier before leaving. */
    static String run(RankComm c) {
        float[] sum = c.allReduce(Reference.floats(11, c.rank(), 1000), ReduceOp.SUM);
        float[][] out = new float[c.worldSize()][];
        for (int d = 0; d < out.length; d++) out[d] = Reference.floats(c.rank(), d, d);
        float[][] in = c.allToAllV(out);
        c.barrier();
        return "rank " + c.rank() + " sum " + java.util.Arrays.hashCode(CollectivesTest.bits(sum)) + " a2a "
            + digest(in);
    }

    static int digest(float[][] arrays) {
        int h = 1;
        for (float[] a : arrays) h = 31 * h + java.util.Arrays.hashCode(CollectivesTest.bits(a));
        return h;
    }
}
