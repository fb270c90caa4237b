package dev.ballast.contracts.plan;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.vectors.VectorFiles;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** contracts/vectors/plan-versions.json, which the Python client's tests check as well. */
class PlanVersionsVectorsTest {
    static final Map<String, Object> VECTORS = VectorFiles.load("plan-versions.json");

    static PlanVersion version(Object text) {
        return text == Json.NULL ? null : PlanVersions.parse((String) text);
    }

    @Test
    void theSequenceWidthIsTheVectors() {
        assertThat((long) PlanVersions.SEQUENCE_BITS).isEqualTo(JsonFields.requireLong(VECTORS, "sequenceBits"));
    }

    @Test
    void encodingsBothWays() {
        for (Map<String, Object> v : VectorFiles.cases(VECTORS, "encodings")) {
            PlanVersion pv = version(v.get("version"));
            long encoded = JsonFields.requireLong(v, "encoded");
            assertThat(PlanVersions.encode(pv)).as(String.valueOf(pv)).isEqualTo(encoded);
            assertThat(PlanVersions.decode(encoded)).isEqualTo(pv);
        }
        for (Object text : JsonFields.requireArray(VECTORS, "unencodable")) {
            assertThatThrownBy(() -> PlanVersions.encode(version(text))).as((String) text)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not fit");
        }
        for (Object x : JsonFields.requireArray(VECTORS, "undecodable")) {
            assertThatThrownBy(() -> PlanVersions.decode((Long) x)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void integerOrderIsVersionOrder() {
        List<Object> ordered = JsonFields.requireArray(VECTORS, "ordered");
        List<Long> encoded = new ArrayList<>();
        for (int i = 0; i < ordered.size(); i++) {
            encoded.add(PlanVersions.encode(version(ordered.get(i))));
            if (i > 0) {
                assertThat(version(ordered.get(i - 1))).isLessThan(version(ordered.get(i)));
            }
        }
        assertThat(encoded).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void textForm() {
        for (Map<String, Object> v : VectorFiles.cases(VECTORS, "texts")) {
            PlanVersion pv = PlanVersions.parse(JsonFields.requireString(v, "text"));
            assertThat(pv).isEqualTo(new PlanVersion(JsonFields.requireLong(v, "generation"), JsonFields.requireLong(v, "sequence")));
        }
        for (Object bad : JsonFields.requireArray(VECTORS, "badTexts")) {
            assertThatThrownBy(() -> PlanVersions.parse((String) bad)).as("'%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("plan version");
        }
    }

    @Test
    void headsBothWays() {
        for (Map<String, Object> v : VectorFiles.cases(VECTORS, "heads")) {
            PlanHeads h = new PlanHeads(version(v.get("newest")), version(v.get("oldest")));
            String json = JsonFields.requireString(v, "json");
            assertThat(PlanHeadsJson.encode(JsonFields.requireLong(v, "generation"), JsonFields.requireLong(v, "step"), h))
                    .isEqualTo(json);
            assertThat(PlanHeadsJson.decode(json)).isEqualTo(h);
        }
    }
}
