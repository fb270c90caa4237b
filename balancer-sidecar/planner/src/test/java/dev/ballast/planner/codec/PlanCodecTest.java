package dev.ballast.planner.codec;

import dev.ballast.contracts.json.JsonException;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PlanCodecTest {
    static Plan sample() {
        Parallelism par = new Parallelism(3, 2, 1);
        LayerPlacement a = LayerPlacement.of(5, new int[][] {{0, 1, 4}, {2, 0}, {3, 4}});
        LayerPlacement b = LayerPlacement.staticLayout(3, 5);
        return new Plan(new PlanVersion(3, 300), 1_000_000L, Mode.REPLICATE, "ballast", 5, par,
                new LayerPlacement[][] {{a, b}, {b, a}});
    }

    @Test
    void jsonHasAFixedLayoutAndRoundTrips() {
        Plan p = sample();
        String json = PlanJson.encode(p);
        assertThat(json).startsWith("{\"format\":\"ballast-plan/v1\",\"worldGeneration\":3,\"sequence\":300,"
                + "\"earliestStep\":1000000,\"mode\":\"replicate\",\"planner\":\"ballast\",\"experts\":5,\"ep\":3,\"dp\":2,\"pp\":1,"
                + "\"layers\":[{\"layer\":0,\"groups\":[{\"copy\":0,\"gpus\":[[0,1,4],[0,2],[3,4]]}");
        assertThat(json).doesNotContain(".");
        assertThat(PlanJson.decode(json)).isEqualTo(p);
        assertThat(PlanJson.encode(PlanJson.decode(json))).isEqualTo(json);
    }

    @Test
    void binaryRoundTripsAndIsByteIdenticalForEqualPlans() {
        Plan p = sample();
        byte[] bin = PlanBinary.encode(p);
        assertThat(new String(bin, 0, 4)).isEqualTo("BPL1");
        assertThat(PlanBinary.decode(bin)).isEqualTo(p);
        assertThat(PlanBinary.encode(sample())).isEqualTo(bin);
        assertThat(PlanBinary.fingerprint(sample())).isEqualTo(PlanBinary.fingerprint(p));
        assertThat(bin.length).isLessThan(PlanJson.encode(p).length() / 3);
        Plan other = p.withVersion(new PlanVersion(3, 301), 1_000_000L);
        assertThat(PlanBinary.fingerprint(other)).isNotEqualTo(PlanBinary.fingerprint(p));
    }

    /** An fssdp plan whose first placement shards experts 1 and 4 over their home nodes. */
    static Plan nodeSharded() {
        Plan p = sample();
        LayerPlacement a = p.placement(0, 0).withNodeShards(new boolean[] {false, true, false, false, true});
        LayerPlacement b = p.placement(0, 1);
        return new Plan(p.version(), p.earliestStep(), Mode.FSSDP, "ballast", 5, p.parallelism(),
                new LayerPlacement[][] {{a, b}, {b, b}});
    }

    @Test
    void nodeShardsTravelInBothEncodingsUnderTheirOwnFormat() {
        Plan p = nodeSharded();
        byte[] bin = PlanBinary.encode(p);
        assertThat(new String(bin, 0, 4)).isEqualTo("BPL2");
        Plan back = PlanBinary.decode(bin);
        assertThat(back).isEqualTo(p);
        assertThat(back.placement(0, 0).nodeSharded(4)).isTrue();
        assertThat(back.placement(0, 0).nodeSharded(0)).isFalse();
        assertThat(back.placement(1, 0).hasNodeShards()).isFalse();
        Plan even = new Plan(p.version(), p.earliestStep(), Mode.FSSDP, "ballast", 5, p.parallelism(),
                new LayerPlacement[][] {{sample().placement(0, 0), p.placement(0, 1)}, {p.placement(1, 0), p.placement(1, 1)}});
        assertThat(PlanBinary.fingerprint(even)).isNotEqualTo(PlanBinary.fingerprint(p));
        assertThat(new String(PlanBinary.encode(even), 0, 4)).isEqualTo("BPL1");

        String json = PlanJson.encode(p);
        assertThat(json).startsWith("{\"format\":\"ballast-plan/v2\"");
        assertThat(json).contains("\"gpus\":[[0,1,4],[0,2],[3,4]],\"nodeShards\":[1,4]}");
        assertThat(json).contains("\"nodeShards\":[]");
        assertThat(PlanJson.decode(json)).isEqualTo(p);
        assertThat(PlanJson.encode(even)).startsWith("{\"format\":\"ballast-plan/v1\"").doesNotContain("nodeShards");

        assertThatThrownBy(() -> PlanJson.decode(json.replace("[1,4]", "[4,1]"))).hasMessageContaining("strictly ascending");
        assertThatThrownBy(() -> PlanJson.decode(json.replace("[1,4]", "[1,5]"))).hasMessageContaining("bad node-sharded expert 5");
        assertThatThrownBy(() -> new Plan(p.version(), 0, Mode.REPLICATE, "x", 5, p.parallelism(),
                new LayerPlacement[][] {{p.placement(0, 0), b(p)}, {b(p), b(p)}})).hasMessageContaining("only fssdp");
    }

    @Test
    void shardsAwayFromTheirHomeNodeTravelAsExpertRankPairsUnderV3() {
        // Expert 1's home is rank 0; its state on rank 2's node is away from home. Expert 4's home is rank 2.
        Plan home = nodeSharded();
        LayerPlacement a = home.placement(0, 0).withShardRanks(new int[] {-1, 2, -1, -1, 2});
        Plan p = new Plan(home.version(), home.earliestStep(), Mode.FSSDP, "ballast", 5, home.parallelism(),
                new LayerPlacement[][] {{a, home.placement(0, 1)}, {home.placement(1, 0), home.placement(1, 1)}});
        byte[] bin = PlanBinary.encode(p);
        assertThat(new String(bin, 0, 4)).isEqualTo("BPL3");
        Plan back = PlanBinary.decode(bin);
        assertThat(back).isEqualTo(p);
        assertThat(back.placement(0, 0).shardRank(1)).isEqualTo(2);
        assertThat(back.placement(0, 0).shardRank(0)).isEqualTo(-1);
        assertThat(PlanBinary.fingerprint(back)).isNotEqualTo(PlanBinary.fingerprint(home));
        // A v2 plan's experts are sharded over their home's node, so its encodings are unchanged.
        assertThat(new String(PlanBinary.encode(home), 0, 4)).isEqualTo("BPL2");
        assertThat(PlanBinary.decode(PlanBinary.encode(home)).placement(0, 0).shardRank(1)).isZero();

        String json = PlanJson.encode(p);
        assertThat(json).startsWith("{\"format\":\"ballast-plan/v3\"");
        assertThat(json).contains("\"gpus\":[[0,1,4],[0,2],[3,4]],\"nodeShards\":[[1,2],[4,2]]}");
        assertThat(PlanJson.decode(json)).isEqualTo(p);
        assertThatThrownBy(() -> PlanJson.decode(json.replace("[1,2],[4,2]", "[1,3],[4,2]")))
                .hasMessageContaining("layer 0 group 0: expert 1 sharded over the node of rank 3, outside ep=3");
        assertThatThrownBy(() -> PlanJson.decode(json.replace("[1,2],[4,2]", "1,[4,2]")))
                .hasMessageContaining("nodeShards entry 1 is not an [expert, rank] pair");
        assertThatThrownBy(() -> PlanJson.decode(json.replace("[1,2],[4,2]", "[4,2],[1,2]")))
                .hasMessageContaining("strictly ascending");
        byte[] badRank = bin.clone();
        badRank[indexOfShardRank(bin)] = 3;
        assertThatThrownBy(() -> PlanBinary.decode(badRank)).hasMessageContaining("layer 0 group 0: shard rank = 3 exceeds 2");
    }

    /** Where layer 0, copy 0's first shard rank sits in {@code bin} (BPL3): after the shard count (2) and expert 1's gap (1). */
    private static int indexOfShardRank(byte[] bin) {
        return indexAfterGpus(bin) + 2;
    }

    /** Where layer 0, copy 0's GPUs end in {@code bin}: [0,1,4], [0,2], [3,4] as count and gaps (3 0 0 2, 2 0 1, 2 3 0). */
    private static int indexAfterGpus(byte[] bin) {
        byte[] gpus = {3, 0, 0, 2, 2, 0, 1, 2, 3, 0};
        for (int i = 0; i + gpus.length < bin.length; i++) {
            if (Arrays.equals(Arrays.copyOfRange(bin, i, i + gpus.length), gpus)) {
                return i + gpus.length;
            }
        }
        throw new AssertionError("layer 0, copy 0 not found");
    }

    /**
     * A replicate plan whose first placement carries a planned split. Its multi-copy experts are 0 (GPUs 0, 1; copy
     * indices 0, 1) and 4 (GPUs 0, 2; copy indices 5, 6): each source weighs those four copies.
     */
    static Plan routed() {
        Plan p = sample();
        int[] w = new int[3 * 7];
        int[][] perSource = {{3, 1, 0, 2}, {0, 4, 2, 2}, {5, 0, 1, 1}};
        int[] copyIndex = {0, 1, 5, 6};
        for (int s = 0; s < 3; s++) {
            for (int i = 0; i < 4; i++) {
                w[s * 7 + copyIndex[i]] = perSource[s][i];
            }
        }
        LayerPlacement a = p.placement(0, 0).withRoutes(w);
        return new Plan(p.version(), p.earliestStep(), Mode.REPLICATE, "ballast", 5, p.parallelism(),
                new LayerPlacement[][] {{a, b(p)}, {b(p), p.placement(1, 1)}});
    }

    @Test
    void routesTravelInBothEncodingsUnderV4() {
        Plan p = routed();
        byte[] bin = PlanBinary.encode(p);
        assertThat(new String(bin, 0, 4)).isEqualTo("BPL4");
        Plan back = PlanBinary.decode(bin);
        assertThat(back).isEqualTo(p);
        assertThat(back.placement(0, 0).routeWeight(1, 1)).isEqualTo(4);
        assertThat(back.placement(0, 1).hasRoutes()).isFalse();
        assertThat(PlanBinary.fingerprint(back)).isNotEqualTo(PlanBinary.fingerprint(sample()));
        assertThat(new String(PlanBinary.encode(sample()), 0, 4)).isEqualTo("BPL1");

        String json = PlanJson.encode(p);
        assertThat(json).startsWith("{\"format\":\"ballast-plan/v4\"");
        assertThat(json).contains("\"gpus\":[[0,1,4],[0,2],[3,4]],\"routes\":[[3,1,0,2],[0,4,2,2],[5,0,1,1]]}");
        assertThat(json).contains("\"routes\":[]");
        assertThat(PlanJson.decode(json)).isEqualTo(p);
        assertThat(PlanJson.encode(sample())).doesNotContain("routes");

        assertThatThrownBy(() -> PlanJson.decode(json.replace("[5,0,1,1]", "[0,0,1,1]")))
                .hasMessageContaining("layer 0 group 0: routes: source 2, expert 0: weights sum to 0, outside 1..16384");
        assertThatThrownBy(() -> PlanJson.decode(json.replace("[5,0,1,1]", "[5,0,1]")))
                .hasMessageContaining("layer 0 group 0: routes of source 2: 3 weights for 4 copies");
        assertThatThrownBy(() -> PlanJson.decode(json.replace("[5,0,1,1]", "[5,0,1,1,7]")))
                .hasMessageContaining("routes of source 2: 5 weights for 4 copies");
        assertThatThrownBy(() -> PlanJson.decode(json.replace("[5,0,1,1]", "[5,0,-1,1]")))
                .hasMessageContaining("routes of source 2: bad weight -1");
        assertThatThrownBy(() -> PlanJson.decode(json.replace("[[3,1,0,2],", "[")))
                .hasMessageContaining("layer 0 group 0: routes: 2 sources, expected ep=3");
        assertThatThrownBy(() -> new Plan(p.version(), 0, Mode.FSSDP, "x", 5, p.parallelism(),
                new LayerPlacement[][] {{p.placement(0, 0), b(p)}, {b(p), b(p)}}))
                .hasMessageContaining("only replicate plans carry routes");
        byte[] zero = bin.clone();
        int flag = indexAfterGpus(bin);
        assertThat(Arrays.copyOfRange(bin, flag, flag + 13)).containsExactly(1, 3, 1, 0, 2, 0, 4, 2, 2, 5, 0, 1, 1);
        zero[flag + 9] = 0; // source 2 weighs expert 0's copies 0 0
        assertThatThrownBy(() -> PlanBinary.decode(zero))
                .hasMessageContaining("layer 0 group 0: routes: source 2, expert 0: weights sum to 0");
    }

    private static LayerPlacement b(Plan p) {
        return p.placement(0, 1);
    }

    @Test
    void malformedInputIsRejectedWithTheProblem() {
        byte[] bin = PlanBinary.encode(sample());
        assertThatThrownBy(() -> PlanBinary.decode(Arrays.copyOf(bin, bin.length - 1))).hasMessageContaining("truncated");
        byte[] longer = Arrays.copyOf(bin, bin.length + 1);
        assertThatThrownBy(() -> PlanBinary.decode(longer)).hasMessageContaining("trailing bytes");
        byte[] bad = bin.clone();
        bad[0] = 'X';
        assertThatThrownBy(() -> PlanBinary.decode(bad)).hasMessageContaining("magic");
        String json = PlanJson.encode(sample());
        assertThatThrownBy(() -> PlanJson.decode(json.replace("[3,4]]}", "[4,3]]}")))
                .isInstanceOf(JsonException.class).hasMessageContaining("strictly ascending");
        assertThatThrownBy(() -> PlanJson.decode(json.replace("\"ep\":3", "\"ep\":4")))
                .hasMessageContaining("expected ep=4");
        assertThatThrownBy(() -> PlanJson.decode(json.replace("\"mode\":\"replicate\"", "\"mode\":\"x\"")))
                .hasMessageContaining("unknown mode");
    }
}
