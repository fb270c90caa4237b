package dev.ballast.planner.quota;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.json.JsonWriter;
import dev.ballast.contracts.vectors.VectorFiles;
import dev.ballast.planner.Fixtures;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.LayerPlacement;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared quota-rule test vectors (contracts/vectors/quota-rule.json) that the Java and Python clients must
 * both pass. This test recomputes every vector from its inputs and checks the file is exactly what the generator
 * below produces. Regenerate after a deliberate rule change with:
 * {@code ./mvnw -q -B -pl balancer-sidecar/planner -am test -Dtest=QuotaRuleVectorsTest -Dsurefire.failIfNoSpecifiedTests=false -Dballast.vectors.update=true}
 */
class QuotaRuleVectorsTest {
    static final Path FILE = VectorFiles.path("quota-rule.json");

    /** One vector; {@code routes}, where given, is a planned split in the plan codecs' per-source form. */
    record Case(String name, int[] node, int[] rack, int[][] placement, long[][] counts, long[] capacity, int[][] routes) {
        Case(String name, int[] node, int[] rack, int[][] placement, long[][] counts, long[] capacity) {
            this(name, node, rack, placement, counts, capacity, null);
        }
    }

    static List<Case> cases() {
        List<Case> out = new ArrayList<>();
        out.add(new Case("hot-expert-one-replica", new int[] {0, 0, 1, 1}, new int[] {0, 0, 0, 0},
                new int[][] {{0}, {1}, {0, 2}, {3}},
                new long[][] {{30, 5, 5, 5}, {30, 5, 5, 5}, {10, 5, 5, 5}, {10, 5, 5, 5}}, null));
        out.add(new Case("static-only", new int[] {0, 0}, new int[] {0, 0}, new int[][] {{0, 1}, {2}},
                new long[][] {{1, 2, 3}, {4, 5, 6}}, null));
        out.add(new Case("experts-not-divisible-by-ep", new int[] {0, 0, 0}, new int[] {0, 0, 0},
                new int[][] {{0, 4}, {1, 2, 0}, {3, 4}}, new long[][] {{9, 1, 0, 2, 7}, {8, 0, 3, 1, 6}, {7, 2, 2, 2, 5}}, null));
        out.add(new Case("capacity-met", new int[] {0, 0, 1, 1}, new int[] {0, 0, 1, 1},
                new int[][] {{0, 1}, {1, 0}, {2, 0}, {3, 1}},
                new long[][] {{40, 20, 1, 1}, {40, 20, 1, 1}, {40, 1, 1, 1}, {1, 20, 1, 1}}, new long[] {60, 60, 60, 60}));
        out.add(new Case("capacity-impossible", new int[] {0, 1}, new int[] {0, 0}, new int[][] {{0}, {1}},
                new long[][] {{10, 0}, {5, 0}}, new long[] {8, 8}));
        out.add(new Case("all-zero", new int[] {0, 0}, new int[] {0, 0}, new int[][] {{0, 1}, {1, 0}},
                new long[][] {{0, 0}, {0, 0}}, null));
        out.add(new Case("cross-rack-sources", new int[] {0, 1, 2, 3}, new int[] {0, 0, 1, 1},
                new int[][] {{0, 3}, {1}, {2, 0}, {3, 0}},
                new long[][] {{5, 1, 1, 9}, {5, 1, 1, 9}, {50, 1, 1, 1}, {50, 1, 1, 1}}, null));
        // Loads large enough (lo >= 1024 tokens) that step 8 stops bisecting before the last token.
        SplittableRandom big = new SplittableRandom(1024);
        long[][] bigCounts = new long[8][12];
        for (int g = 0; g < 8; g++) {
            for (int e = 0; e < 12; e++) {
                bigCounts[g][e] = (e == 0 ? 40_000 : 0) + big.nextInt(5_000);
            }
        }
        out.add(new Case("large-loads-search-tolerance", new int[] {0, 0, 0, 0, 1, 1, 1, 1}, new int[] {0, 0, 0, 0, 0, 0, 0, 0},
                new int[][] {{0, 1}, {1, 0}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7, 0}, {7, 8, 9, 10, 11}}, bigCounts, null));
        SplittableRandom r = new SplittableRandom(2026);
        for (int i = 0; i < 24; i++) {
            int perNode = 1 + r.nextInt(4);
            int ep = perNode * (1 + r.nextInt(4));
            int experts = ep + r.nextInt(2 * ep + 1);
            GroupTopology gt = Fixtures.group(ep, perNode, 1 + r.nextInt(2));
            LayerPlacement p = Fixtures.randomPlacement(r, ep, experts, 2);
            long[] flat = Fixtures.counts(r, ep, experts, 50 + r.nextInt(2000));
            long[] cap = null;
            if (i % 4 == 3) {
                long t = QuotaRule.apply(gt, p, flat, null).threshold();
                cap = new long[ep];
                for (int g = 0; g < ep; g++) {
                    cap[g] = t + r.nextInt(20) - 5;
                }
            }
            out.add(of("random-" + i, gt, p, flat, cap, null));
        }
        out.addAll(plannedSplits());
        return out;
    }

    /** A case from the planner's types: the group's places, the placement's lists, counts row by row. */
    static Case of(String name, GroupTopology gt, LayerPlacement p, long[] flat, long[] cap, int[][] routes) {
        int ep = gt.ep();
        int experts = p.experts();
        int[] node = new int[ep];
        int[] rack = new int[ep];
        int[][] pl = new int[ep][];
        long[][] counts = new long[ep][experts];
        for (int g = 0; g < ep; g++) {
            node[g] = gt.node(g);
            rack[g] = gt.rack(g);
            pl[g] = p.expertsOn(g);
            System.arraycopy(flat, g * experts, counts[g], 0, experts);
        }
        return new Case(name, node, rack, pl, counts, cap, routes);
    }

    /** Planned splits (docs/quota-rule.md, "Planned split"): by hand, a capacity it exceeds, and random weights. */
    static List<Case> plannedSplits() {
        List<Case> out = new ArrayList<>();
        out.add(new Case("planned-split", new int[] {0, 0}, new int[] {0, 0}, new int[][] {{0}, {0, 1}},
                new long[][] {{10, 4}, {7, 5}}, null, new int[][] {{1, 2}, {1, 0}}));
        out.add(new Case("planned-split-over-capacity", new int[] {0, 0}, new int[] {0, 0}, new int[][] {{0}, {0, 1}},
                new long[][] {{10, 0}, {10, 0}}, new long[] {20, 12}, new int[][] {{0, 1}, {0, 1}}));
        SplittableRandom r = new SplittableRandom(4);
        for (int i = 0; i < 8; i++) {
            int perNode = 1 + r.nextInt(4);
            int ep = perNode * (1 + r.nextInt(3));
            int experts = ep + r.nextInt(2 * ep + 1);
            GroupTopology gt = Fixtures.group(ep, perNode, 1 + r.nextInt(2));
            LayerPlacement p = Fixtures.randomPlacement(r, ep, experts, 2);
            long[] flat = Fixtures.counts(r, ep, experts, 50 + r.nextInt(5000));
            int[][] routes = new int[ep][p.routedCopies()];
            for (int s = 0; s < ep; s++) {
                int k = 0;
                for (int e = 0; e < experts; e++) {
                    if (p.copies(e) < 2) {
                        continue;
                    }
                    int first = k;
                    for (int c = 0; c < p.copies(e); c++) {
                        routes[s][k++] = r.nextInt(3) == 0 ? 0 : r.nextInt(i % 2 == 0 ? 7 : LayerPlacement.ROUTE_WEIGHT_SUM_MAX / 4);
                    }
                    if (routes[s][first] == 0) {
                        routes[s][first] = 1; // every (source, expert) weighs some copy
                    }
                }
            }
            out.add(of("planned-split-random-" + i, gt, p, flat, null, routes));
        }
        return out;
    }

    static String render() {
        StringBuilder sb = new StringBuilder();
        sb.append("{\"format\":\"ballast-quota-vectors/v1\",\"rule\":\"docs/quota-rule.md\",\"vectors\":[\n");
        List<Case> cases = cases();
        for (int i = 0; i < cases.size(); i++) {
            sb.append(vector(cases.get(i))).append(i + 1 < cases.size() ? ",\n" : "\n");
        }
        return sb.append("]}\n").toString();
    }

    static String vector(Case c) {
        int ep = c.node().length;
        int experts = c.counts()[0].length;
        GroupTopology gt = GroupTopology.ofPlaces(c.node(), c.rack(), Hardware.DEFAULT);
        LayerPlacement plain = LayerPlacement.of(experts, c.placement());
        LayerPlacement p = c.routes() == null ? plain : plain.withRouteLists(c.routes());
        long[] flat = new long[ep * experts];
        for (int s = 0; s < ep; s++) {
            System.arraycopy(c.counts()[s], 0, flat, s * experts, experts);
        }
        QuotaResult r = QuotaRule.apply(gt, p, flat, c.capacity());
        JsonWriter w = new JsonWriter().beginObject().field("name", c.name()).field("gpus", ep).field("experts", experts)
                .array("node", c.node()).array("rack", c.rack());
        w.name("placement").beginArray();
        for (int g = 0; g < ep; g++) {
            w.beginArray();
            for (int e : p.expertsOn(g)) {
                w.value(e);
            }
            w.endArray();
        }
        w.endArray().name("counts").beginArray();
        for (long[] row : c.counts()) {
            w.beginArray();
            for (long v : row) {
                w.value(v);
            }
            w.endArray();
        }
        w.endArray();
        if (c.capacity() == null) {
            w.name("capacity").value((String) null);
        } else {
            w.array("capacity", c.capacity());
        }
        if (c.routes() != null) {
            w.name("routes").beginArray();
            for (int[] row : c.routes()) {
                w.beginArray();
                for (int x : row) {
                    w.value(x);
                }
                w.endArray();
            }
            w.endArray();
        }
        w.name("expected").beginObject().field("threshold", r.threshold()).field("capacityExceeded", r.capacityExceeded());
        long[] loads = new long[ep];
        for (int g = 0; g < ep; g++) {
            loads[g] = r.gpuLoad(g);
        }
        w.array("gpuLoad", loads);
        w.name("copies").beginArray();
        for (int e = 0; e < experts; e++) {
            for (int k = p.copyStart(e); k < p.copyStart(e) + p.copies(e); k++) {
                w.beginArray().value(e).value(p.copyGpu(k)).value(r.copyQuota(k)).endArray();
            }
        }
        w.endArray().name("flows").beginArray();
        r.forEachFlow((e, s, k, t) -> w.beginArray().value(e).value(s).value(p.copyGpu(k)).value(t).endArray());
        return w.endArray().endObject().endObject().toString();
    }

    @Test
    void vectorFileMatchesTheRule() throws IOException {
        String expected = render();
        if (Boolean.getBoolean("ballast.vectors.update")) {
            Files.writeString(FILE, expected, StandardCharsets.UTF_8);
        }
        assertThat(Files.readString(FILE, StandardCharsets.UTF_8))
                .as("quota-rule.json is stale: regenerate it (see class comment)")
                .isEqualTo(expected);
    }

    @Test
    void everyVectorRecomputesFromItsInputs() throws IOException {
        Map<String, Object> doc = JsonFields.object(Json.parse(Files.readString(FILE)), "vectors file");
        List<Object> vectors = JsonFields.requireArray(doc, "vectors");
        assertThat(vectors).hasSizeGreaterThan(20);
        for (Object o : vectors) {
            Map<String, Object> v = JsonFields.object(o, "vector");
            int ep = (int) JsonFields.requireLong(v, "gpus");
            int experts = (int) JsonFields.requireLong(v, "experts");
            int[] node = ints(JsonFields.requireArray(v, "node"));
            int[] rack = ints(JsonFields.requireArray(v, "rack"));
            int[][] pl = new int[ep][];
            List<Object> pll = JsonFields.requireArray(v, "placement");
            long[] flat = new long[ep * experts];
            List<Object> cl = JsonFields.requireArray(v, "counts");
            for (int g = 0; g < ep; g++) {
                pl[g] = ints((List<?>) pll.get(g));
                List<?> row = (List<?>) cl.get(g);
                for (int e = 0; e < experts; e++) {
                    flat[g * experts + e] = (Long) row.get(e);
                }
            }
            long[] cap = v.get("capacity") instanceof List<?> capl ? capl.stream().mapToLong(x -> (Long) x).toArray() : null;
            LayerPlacement routed = LayerPlacement.of(experts, pl);
            if (v.get("routes") instanceof List<?> rl) {
                routed = routed.withRouteLists(rl.stream().map(x -> ints((List<?>) x)).toArray(int[][]::new));
            }
            LayerPlacement p = routed;
            QuotaResult r = QuotaRule.apply(GroupTopology.ofPlaces(node, rack, Hardware.DEFAULT), p, flat, cap);
            Map<String, Object> exp = JsonFields.object(v.get("expected"), "expected");
            assertThat(r.threshold()).as(String.valueOf(v.get("name"))).isEqualTo(exp.get("threshold"));
            List<Object> flows = JsonFields.requireArray(exp, "flows");
            List<List<Long>> got = new ArrayList<>();
            r.forEachFlow((e, s, k, t) -> got.add(List.of((long) e, (long) s, (long) p.copyGpu(k), t)));
            assertThat(got).as(String.valueOf(v.get("name"))).isEqualTo(flows);
        }
    }

    private static int[] ints(List<?> l) {
        return l.stream().mapToInt(x -> ((Long) x).intValue()).toArray();
    }
}
