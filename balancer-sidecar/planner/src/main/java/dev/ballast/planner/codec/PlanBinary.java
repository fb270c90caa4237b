package dev.ballast.planner.codec;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.StaticLayout;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Compact binary encoding of a plan (docs/planner.md): magic "BPL1", then unsigned LEB128 varints:
 * worldGeneration, sequence, earliestStep, mode (0 replicate, 1 fssdp), planner name (length + UTF-8 bytes),
 * experts, ep, dp, pp, layers; then for each layer, copy and GPU: the expert count followed by the experts as
 * gaps (first expert, then each next minus previous minus one).
 * <p>
 * A plan in which some placement shards an expert over its home node ({@link LayerPlacement#nodeSharded}) is written
 * with magic "BPL2" and, after each (layer, copy)'s GPUs, the node-sharded experts the same way (count, then gaps).
 * A plan in which some expert is sharded over a node other than its home's ({@link LayerPlacement#shardRank}) is
 * written with magic "BPL3", and each entry of that list is followed by the rank that names the expert's node. Every
 * other plan keeps its older magic, byte for byte, so its fingerprint is unchanged; a decoder that predates a layout
 * refuses the plan by its magic instead of reading its layout wrong.
 * <p>
 * A replicate plan in which some placement carries a planned split ({@link LayerPlacement#hasRoutes}) is written with
 * magic "BPL4" and, after each (layer, copy)'s GPUs, 0 where the quota rule routes it, else 1 and then, source by
 * source, the route weights of every multi-copy expert's copies (experts ascending, copies by ascending GPU).
 */
public final class PlanBinary {
    private static final byte[] MAGIC = {'B', 'P', 'L', '1'};
    private static final byte[] MAGIC_NODE_SHARDS = {'B', 'P', 'L', '2'};
    private static final byte[] MAGIC_SHARD_NODES = {'B', 'P', 'L', '3'};
    private static final byte[] MAGIC_ROUTES = {'B', 'P', 'L', '4'};

    private PlanBinary() {
    }

    public static byte[] encode(Plan p) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean shards = p.hasNodeShards();
        boolean away = p.hasShardsAwayFromHome();
        boolean routes = p.hasRoutes();
        out.writeBytes(routes ? MAGIC_ROUTES : away ? MAGIC_SHARD_NODES : shards ? MAGIC_NODE_SHARDS : MAGIC);
        varint(out, p.version().worldGeneration());
        varint(out, p.version().sequence());
        varint(out, p.earliestStep());
        varint(out, p.mode().ordinal());
        byte[] name = p.planner().getBytes(StandardCharsets.UTF_8);
        varint(out, name.length);
        out.writeBytes(name);
        Parallelism par = p.parallelism();
        varint(out, p.experts());
        varint(out, par.ep());
        varint(out, par.dp());
        varint(out, par.pp());
        varint(out, p.layers());
        for (int l = 0; l < p.layers(); l++) {
            for (int c = 0; c < par.dp(); c++) {
                LayerPlacement lp = p.placement(l, c);
                for (int g = 0; g < lp.gpus(); g++) {
                    int n = lp.expertCount(g);
                    varint(out, n);
                    int prev = -1;
                    for (int i = 0; i < n; i++) {
                        int e = lp.expertAt(g, i);
                        varint(out, e - prev - 1);
                        prev = e;
                    }
                }
                if (shards) {
                    writeNodeShards(out, lp, away);
                }
                if (routes) {
                    writeRoutes(out, lp);
                }
            }
        }
        return out.toByteArray();
    }

    private static void writeRoutes(ByteArrayOutputStream out, LayerPlacement lp) {
        int[][] lists = lp.routeLists();
        varint(out, lists == null ? 0 : 1);
        for (int s = 0; lists != null && s < lists.length; s++) {
            for (int x : lists[s]) {
                varint(out, x);
            }
        }
    }

    /** The route weights of one (layer, copy) as BPL4 writes them, or {@code lp} unchanged where the rule routes. */
    private static LayerPlacement readRoutes(Reader r, LayerPlacement lp, String where) {
        if (r.small(where + ": routes flag", 1) == 0) {
            return lp;
        }
        int[][] lists = new int[lp.gpus()][lp.routedCopies()];
        for (int[] list : lists) {
            for (int i = 0; i < list.length; i++) {
                list[i] = r.small(where + ": route weight", LayerPlacement.ROUTE_WEIGHT_SUM_MAX);
            }
        }
        try {
            return lp.withRouteLists(lists);
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException(where + ": " + ex.getMessage(), ex);
        }
    }

    private static void writeNodeShards(ByteArrayOutputStream out, LayerPlacement lp, boolean withRanks) {
        int n = 0;
        for (int e = 0; e < lp.experts(); e++) {
            n += lp.nodeSharded(e) ? 1 : 0;
        }
        varint(out, n);
        int prev = -1;
        for (int e = 0; e < lp.experts(); e++) {
            if (lp.nodeSharded(e)) {
                varint(out, e - prev - 1);
                if (withRanks) {
                    varint(out, lp.shardRank(e));
                }
                prev = e;
            }
        }
    }

    public static Plan decode(byte[] bytes) {
        Reader r = new Reader(bytes);
        for (int i = 0; i < MAGIC.length; i++) {
            boolean last = i == MAGIC.length - 1;
            if (r.pos >= bytes.length || bytes[r.pos] != MAGIC[i] && !(last && (bytes[r.pos] == MAGIC_NODE_SHARDS[i]
                    || bytes[r.pos] == MAGIC_SHARD_NODES[i] || bytes[r.pos] == MAGIC_ROUTES[i]))) {
                throw new IllegalArgumentException("not a ballast plan: bad magic");
            }
            r.pos++;
        }
        boolean away = bytes[MAGIC.length - 1] == MAGIC_SHARD_NODES[MAGIC.length - 1];
        boolean shards = away || bytes[MAGIC.length - 1] == MAGIC_NODE_SHARDS[MAGIC.length - 1];
        boolean routes = bytes[MAGIC.length - 1] == MAGIC_ROUTES[MAGIC.length - 1];
        PlanVersion v = new PlanVersion(r.varint("worldGeneration"), r.varint("sequence"));
        long earliest = r.varint("earliestStep");
        int modeIdx = r.small("mode", Mode.values().length - 1);
        int nameLen = r.small("planner name length", 1 << 10);
        if (r.pos + nameLen > bytes.length) {
            throw new IllegalArgumentException("truncated plan: planner name");
        }
        String planner = new String(bytes, r.pos, nameLen, StandardCharsets.UTF_8);
        r.pos += nameLen;
        int experts = r.small("experts", 1 << 20);
        Parallelism par = new Parallelism(r.small("ep", 1 << 20), r.small("dp", 1 << 20), r.small("pp", 1 << 16));
        int layers = r.small("layers", 1 << 16);
        LayerPlacement[][] pl = new LayerPlacement[layers][par.dp()];
        for (int l = 0; l < layers; l++) {
            for (int c = 0; c < par.dp(); c++) {
                int[][] lists = new int[par.ep()][];
                for (int g = 0; g < par.ep(); g++) {
                    int n = r.small("expert count", experts);
                    lists[g] = new int[n];
                    int prev = -1;
                    for (int i = 0; i < n; i++) {
                        long e = prev + 1 + r.varint("expert");
                        if (e >= experts) {
                            throw new IllegalArgumentException("layer " + l + " group " + c + " GPU " + g + ": expert " + e + " >= " + experts);
                        }
                        lists[g][i] = (int) e;
                        prev = (int) e;
                    }
                }
                LayerPlacement lp = LayerPlacement.of(experts, lists);
                String where = "layer " + l + " group " + c;
                pl[l][c] = shards ? lp.withShardRanks(readNodeShards(r, experts, par.ep(), away, where))
                        : routes ? readRoutes(r, lp, where) : lp;
            }
        }
        if (r.pos != bytes.length) {
            throw new IllegalArgumentException("trailing bytes after plan");
        }
        return new Plan(v, earliest, Mode.values()[modeIdx], planner, experts, par, pl);
    }

    /** The shard ranks of one (layer, copy): each listed expert's rank as written (BPL3) or its static home (BPL2). */
    private static int[] readNodeShards(Reader r, int experts, int ep, boolean withRanks, String where) {
        int[] ranks = new int[experts];
        Arrays.fill(ranks, -1);
        int n = r.small("node-sharded expert count", experts);
        long prev = -1;
        for (int i = 0; i < n; i++) {
            long e = prev + 1 + r.varint("node-sharded expert");
            if (e >= experts) {
                throw new IllegalArgumentException(where + ": node-sharded expert " + e + " >= " + experts);
            }
            ranks[(int) e] = withRanks ? r.small(where + ": shard rank", ep - 1) : StaticLayout.home((int) e, ep, experts);
            prev = e;
        }
        return ranks;
    }

    /** FNV-1a 64 of the binary encoding: the hash ranks all-reduce to check they hold the same plan. */
    public static long fingerprint(Plan p) {
        long h = 0xcbf29ce484222325L;
        for (byte b : encode(p)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    private static void varint(ByteArrayOutputStream out, long v) {
        if (v < 0) {
            throw new IllegalArgumentException("varint of a negative value");
        }
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    private static final class Reader {
        final byte[] b;
        int pos;

        Reader(byte[] b) {
            this.b = b;
        }

        long varint(String what) {
            long v = 0;
            for (int shift = 0; shift < 63; shift += 7) {
                if (pos >= b.length) {
                    throw new IllegalArgumentException("truncated plan while reading " + what);
                }
                int x = b[pos++] & 0xff;
                v |= (long) (x & 0x7F) << shift;
                if ((x & 0x80) == 0) {
                    return v;
                }
            }
            throw new IllegalArgumentException("varint too long while reading " + what);
        }

        int small(String what, int max) {
            long v = varint(what);
            if (v > max) {
                throw new IllegalArgumentException(what + " = " + v + " exceeds " + max);
            }
            return (int) v;
        }
    }
}
