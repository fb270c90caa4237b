package dev.ballast.client;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.plan.PlanHeads;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.contracts.plan.PlanVersions;
import dev.ballast.contracts.vectors.VectorFiles;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** contracts/vectors/adoption.json: the adoption rule's contributions, reduction and decisions, shared with Python. */
class AdoptionVectorsTest {
    static final Map<String, Object> VECTORS = VectorFiles.load("adoption.json");

    static PlanVersion version(Object text) {
        return text == Json.NULL ? null : PlanVersions.parse((String) text);
    }

    static long[] longs(Object array) {
        return ((List<?>) array).stream().mapToLong(x -> (Long) x).toArray();
    }

    @Test
    void everyDecision() {
        List<Map<String, Object>> decisions = VectorFiles.cases(VECTORS, "decisions");
        assertThat(decisions).hasSizeGreaterThanOrEqualTo(10);
        for (Map<String, Object> d : decisions) {
            String name = JsonFields.requireString(d, "name");
            long[] reduced = {Long.MAX_VALUE, Long.MAX_VALUE};
            for (Map<String, Object> rank : VectorFiles.cases(d, "ranks")) {
                long[] c = AdoptionRule.contribution(new PlanHeads(version(rank.get("newest")), version(rank.get("oldest"))));
                assertThat(c).as(name).containsExactly(longs(rank.get("contribution")));
                reduced[0] = Math.min(reduced[0], c[0]);
                reduced[1] = Math.min(reduced[1], c[1]);
            }
            assertThat(reduced).as(name).containsExactly(longs(d.get("reduced")));
            assertThat(AdoptionRule.decide(version(d.get("current")), reduced)).as(name).isEqualTo(version(d.get("adopt")));
        }
    }

    @Test
    void aReductionOfAnyOtherLengthIsRefused() {
        for (Object bad : JsonFields.requireArray(VECTORS, "badReduced")) {
            assertThatThrownBy(() -> AdoptionRule.decide(new PlanVersion(1, 0), longs(bad)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 values");
        }
    }
}
