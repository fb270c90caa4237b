package dev.ballast.planner.codec;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonException;
import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.json.JsonWriter;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * JSON encoding of a plan (docs/planner.md, "Plan encodings"): compact, keys in a fixed order, integers only.
 * <pre>{"format":"ballast-plan/v1","worldGeneration":3,"sequence":7,"earliestStep":1200,"mode":"replicate",
 * "planner":"ballast","experts":64,"ep":8,"dp":1,"pp":1,
 * "layers":[{"layer":0,"groups":[{"copy":0,"gpus":[[0,1,12],[2,3],...]}]}]}</pre>
 * A plan in which some placement shards experts over their home node ({@link LayerPlacement#nodeSharded}) is
 * {@code ballast-plan/v2}, and every group of it lists them after its GPUs: {@code "nodeShards":[3,17]} (ascending,
 * possibly empty). A plan in which some expert is sharded over a node other than its home's
 * ({@link LayerPlacement#shardRank}) is {@code ballast-plan/v3}, and every group lists (expert, rank) pairs instead:
 * {@code "nodeShards":[[3,3],[17,8]]} (experts ascending; the rank names the node). Every other plan keeps its older
 * format, byte for byte, so a reader that predates a layout refuses it by its format instead of ignoring it.
 * <p>
 * A replicate plan in which some placement carries a planned split ({@link LayerPlacement#hasRoutes}) is
 * {@code ballast-plan/v4}, and every group lists its route weights after its GPUs: one array per source EP rank, the
 * weights of every multi-copy expert's copies (experts ascending, each expert's copies by ascending GPU), or an empty
 * {@code "routes":[]} where the quota rule routes that group: {@code "routes":[[3,1,0,2],[0,4,2,2],...]}.
 */
public final class PlanJson {
    public static final String FORMAT = "ballast-plan/v1";
    public static final String FORMAT_NODE_SHARDS = "ballast-plan/v2";
    public static final String FORMAT_SHARD_NODES = "ballast-plan/v3";
    public static final String FORMAT_ROUTES = "ballast-plan/v4";

    private PlanJson() {
    }

    public static String encode(Plan p) {
        Parallelism par = p.parallelism();
        boolean shards = p.hasNodeShards();
        boolean away = p.hasShardsAwayFromHome();
        boolean routes = p.hasRoutes();
        JsonWriter w = new JsonWriter().beginObject()
                .field("format", routes ? FORMAT_ROUTES : away ? FORMAT_SHARD_NODES : shards ? FORMAT_NODE_SHARDS : FORMAT)
                .field("worldGeneration", p.version().worldGeneration())
                .field("sequence", p.version().sequence())
                .field("earliestStep", p.earliestStep())
                .field("mode", p.mode().wireName())
                .field("planner", p.planner())
                .field("experts", p.experts())
                .field("ep", par.ep())
                .field("dp", par.dp())
                .field("pp", par.pp())
                .name("layers").beginArray();
        for (int l = 0; l < p.layers(); l++) {
            w.beginObject().field("layer", l).name("groups").beginArray();
            for (int c = 0; c < par.dp(); c++) {
                LayerPlacement lp = p.placement(l, c);
                w.beginObject().field("copy", c).name("gpus").beginArray();
                for (int g = 0; g < lp.gpus(); g++) {
                    w.beginArray();
                    for (int i = 0; i < lp.expertCount(g); i++) {
                        w.value(lp.expertAt(g, i));
                    }
                    w.endArray();
                }
                w.endArray();
                if (shards) {
                    w.name("nodeShards").beginArray();
                    for (int e = 0; e < lp.experts(); e++) {
                        if (!lp.nodeSharded(e)) {
                            continue;
                        }
                        if (away) {
                            w.beginArray().value(e).value(lp.shardRank(e)).endArray();
                        } else {
                            w.value(e);
                        }
                    }
                    w.endArray();
                }
                if (routes) {
                    writeRoutes(w, lp);
                }
                w.endObject();
            }
            w.endArray().endObject();
        }
        return w.endArray().endObject().toString();
    }

    private static void writeRoutes(JsonWriter w, LayerPlacement lp) {
        w.name("routes").beginArray();
        int[][] lists = lp.routeLists();
        for (int s = 0; lists != null && s < lists.length; s++) {
            w.beginArray();
            for (int x : lists[s]) {
                w.value(x);
            }
            w.endArray();
        }
        w.endArray();
    }

    /** Parses and validates; errors name the field or the layer/group/GPU at fault. */
    public static Plan decode(String json) {
        Map<String, Object> m = JsonFields.object(Json.parse(json), "plan");
        boolean away = FORMAT_SHARD_NODES.equals(m.get("format"));
        boolean shards = away || FORMAT_NODE_SHARDS.equals(m.get("format"));
        boolean routes = FORMAT_ROUTES.equals(m.get("format"));
        if (!shards && !routes && !FORMAT.equals(m.get("format"))) {
            throw new JsonException("\"format\" must be \"" + FORMAT + "\", \"" + FORMAT_NODE_SHARDS + "\", \""
                    + FORMAT_SHARD_NODES + "\" or \"" + FORMAT_ROUTES + "\"");
        }
        PlanVersion v = new PlanVersion(JsonFields.requireLong(m, "worldGeneration"), JsonFields.requireLong(m, "sequence"));
        long earliest = JsonFields.requireLong(m, "earliestStep");
        Mode mode = Mode.parse(JsonFields.requireString(m, "mode"));
        String planner = JsonFields.requireString(m, "planner");
        int experts = JsonFields.requireInt(m, "experts", 1, 1 << 20);
        Parallelism par = new Parallelism(JsonFields.requireInt(m, "ep", 1, 1 << 20),
                JsonFields.requireInt(m, "dp", 1, 1 << 20), JsonFields.requireInt(m, "pp", 1, 1 << 16));
        List<Object> layers = JsonFields.requireArray(m, "layers");
        LayerPlacement[][] placements = new LayerPlacement[layers.size()][par.dp()];
        for (int l = 0; l < layers.size(); l++) {
            Map<String, Object> lo = JsonFields.object(layers.get(l), "layers[" + l + "]");
            if (JsonFields.requireLong(lo, "layer") != l) {
                throw new JsonException("layers[" + l + "] has layer " + lo.get("layer"));
            }
            List<Object> groups = JsonFields.requireArray(lo, "groups");
            if (groups.size() != par.dp()) {
                throw new JsonException("layer " + l + ": " + groups.size() + " groups, expected dp=" + par.dp());
            }
            for (int c = 0; c < groups.size(); c++) {
                Map<String, Object> go = JsonFields.object(groups.get(c), "layer " + l + " group " + c);
                if (JsonFields.requireLong(go, "copy") != c) {
                    throw new JsonException("layer " + l + " group " + c + " has copy " + go.get("copy"));
                }
                List<Object> gpus = JsonFields.requireArray(go, "gpus");
                if (gpus.size() != par.ep()) {
                    throw new JsonException("layer " + l + " group " + c + ": " + gpus.size() + " GPUs, expected ep=" + par.ep());
                }
                int[][] lists = new int[gpus.size()][];
                for (int g = 0; g < gpus.size(); g++) {
                    if (!(gpus.get(g) instanceof List<?> el)) {
                        throw new JsonException("layer " + l + " group " + c + " GPU " + g + ": expected an array of experts");
                    }
                    lists[g] = new int[el.size()];
                    for (int i = 0; i < el.size(); i++) {
                        if (!(el.get(i) instanceof Long e) || e < 0 || e >= experts) {
                            throw new JsonException("layer " + l + " group " + c + " GPU " + g + ": bad expert " + el.get(i));
                        }
                        if (i > 0 && e <= lists[g][i - 1]) {
                            throw new JsonException("layer " + l + " group " + c + " GPU " + g + ": experts must be strictly ascending");
                        }
                        lists[g][i] = e.intValue();
                    }
                }
                LayerPlacement lp = LayerPlacement.of(experts, lists);
                String where = "layer " + l + " group " + c;
                placements[l][c] = routes ? withRoutes(lp, go, where)
                        : !shards ? lp : away ? lp.withShardRanks(shardRanks(go, experts, par.ep(), where))
                        : lp.withNodeShards(nodeShards(go, experts, where));
            }
        }
        return new Plan(v, earliest, mode, planner, experts, par, placements);
    }

    /** v4's route weights: none for an empty list, else one list per source over the multi-copy experts' copies. */
    private static LayerPlacement withRoutes(LayerPlacement lp, Map<String, Object> group, String where) {
        List<Object> sources = JsonFields.requireArray(group, "routes");
        if (sources.isEmpty()) {
            return lp;
        }
        int[][] lists = new int[sources.size()][];
        for (int s = 0; s < lists.length; s++) {
            if (!(sources.get(s) instanceof List<?> list)) {
                throw new JsonException(where + ": routes of source " + s + ": expected an array of weights");
            }
            lists[s] = new int[list.size()];
            for (int i = 0; i < list.size(); i++) {
                if (!(list.get(i) instanceof Long w) || w < 0 || w > LayerPlacement.ROUTE_WEIGHT_SUM_MAX) {
                    throw new JsonException(where + ": routes of source " + s + ": bad weight " + list.get(i));
                }
                lists[s][i] = w.intValue();
            }
        }
        try {
            return lp.withRouteLists(lists);
        } catch (IllegalArgumentException ex) {
            throw new JsonException(where + ": " + ex.getMessage());
        }
    }

    /** v3's (expert, rank) pairs: the rank's node holds the expert's state; -1 for the experts not listed. */
    private static int[] shardRanks(Map<String, Object> group, int experts, int ep, String where) {
        int[] ranks = new int[experts];
        Arrays.fill(ranks, -1);
        long prev = -1;
        for (Object o : JsonFields.requireArray(group, "nodeShards")) {
            if (!(o instanceof List<?> pair) || pair.size() != 2 || !(pair.get(0) instanceof Long e)
                    || !(pair.get(1) instanceof Long r)) {
                throw new JsonException(where + ": nodeShards entry " + o + " is not an [expert, rank] pair");
            }
            if (e < 0 || e >= experts) {
                throw new JsonException(where + ": bad node-sharded expert " + e);
            }
            if (r < 0 || r >= ep) {
                throw new JsonException(where + ": expert " + e + " sharded over the node of rank " + r
                        + ", outside ep=" + ep);
            }
            if (e <= prev) {
                throw new JsonException(where + ": nodeShards must be strictly ascending by expert");
            }
            ranks[e.intValue()] = r.intValue();
            prev = e;
        }
        return ranks;
    }

    private static boolean[] nodeShards(Map<String, Object> group, int experts, String where) {
        boolean[] sharded = new boolean[experts];
        List<Object> list = JsonFields.requireArray(group, "nodeShards");
        long prev = -1;
        for (Object o : list) {
            if (!(o instanceof Long e) || e < 0 || e >= experts) {
                throw new JsonException(where + ": bad node-sharded expert " + o);
            }
            if (e <= prev) {
                throw new JsonException(where + ": nodeShards must be strictly ascending");
            }
            sharded[e.intValue()] = true;
            prev = e;
        }
        return sharded;
    }
}
