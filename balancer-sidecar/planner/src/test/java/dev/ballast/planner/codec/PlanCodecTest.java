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
