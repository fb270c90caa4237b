package dev.ballast.contracts.history;

import dev.ballast.contracts.json.JsonException;
import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.vectors.VectorFiles;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** contracts/vectors/load-history.json, and the size bounds. */
class LoadHistoryJsonVectorsTest {
    static final Map<String, Object> VECTORS = VectorFiles.load("load-history.json");

    @Test
    void everyValidDocumentReencodesToItsCanonicalFormAndEveryInvalidOneIsRefusedNamingTheField() {
        VectorFiles.checkCodec(VECTORS, LoadHistoryJson::decode, LoadHistoryJson::encode, 3, 10);
    }

    @Test
    void theTypedHistoryEncodesToItsVector() {
        var h = new LoadHistoryDocument("olmoe", 3, 4210, 812, new long[][] {{5, 1, 0, 9}, {3, 3, 2, 1}});
        assertThat(LoadHistoryJson.encode(h))
                .isEqualTo(JsonFields.requireString(VectorFiles.cases(VECTORS, "valid").get(0), "canonical"));
    }

    @Test
    void theLargestHistoryFitsAConfigMapAndOneMoreLayerIsRefused() {
        long[][] totals = new long[64][1024];
        for (long[] layer : totals) {
            java.util.Arrays.fill(layer, 999_999_999_999L); // 12 digits: more than a step's tokens on any cluster
        }
        String json = LoadHistoryJson.encode(new LoadHistoryDocument("j", 1, 1, 1, totals));
        assertThat(json.length()).isLessThan(LoadHistoryDocument.MAX_CHARS);
        assertThat(LoadHistoryJson.decode(json).totals()[63][1023]).isEqualTo(999_999_999_999L);
        assertThatThrownBy(() -> new LoadHistoryDocument("j", 1, 1, 1, new long[65][1024]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("65 layers × 1024 experts");
    }

    @Test
    void anOversizedTextIsRefusedBeforeItIsParsed() {
        String huge = "{\"format\":\"" + "x".repeat(LoadHistoryDocument.MAX_CHARS) + "\"}";
        assertThatThrownBy(() -> LoadHistoryJson.decode(huge)).isInstanceOf(JsonException.class)
                .hasMessageContaining("history.json: the document is " + huge.length() + " characters");
    }
}
