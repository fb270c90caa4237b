package dev.ballast.contracts.world;

import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.vectors.VectorFiles;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** contracts/vectors/world-documents.json, which the Python client's tests check as well. */
class WorldDocumentJsonVectorsTest {
    static final Map<String, Object> VECTORS = VectorFiles.load("world-documents.json");

    @Test
    void everyValidDocumentReencodesToItsCanonicalFormAndEveryInvalidOneIsRefusedNamingTheField() {
        VectorFiles.checkCodec(VECTORS, WorldDocumentJson::decode, WorldDocumentJson::encode, 3, 10);
    }

    @Test
    void theTypedCommittedWorldEncodesToItsVector() {
        Map<String, Object> committed = VectorFiles.cases(VECTORS, "valid").get(1);
        PlanningSpec spec = new PlanningSpec(4, 2, 4, 8, 2, 1, 2048, 1024, 2, "replicate", "ballast", 2, 50, 0, HardwareSpec.DEFAULT);
        WorldDocument w = new WorldDocument("olmoe", "team-a", 3, 2, spec, List.of(
                new WorldWorker(3, "olmoe-worker-3", 3, "gpu-d", "nvl-1", "rack-1"),
                new WorldWorker(0, "olmoe-worker-0", 0, "gpu-a", "nvl-0", "rack-0"),
                new WorldWorker(2, "olmoe-worker-2", 1, "gpu-b", "nvl-0", "rack-0"),
                new WorldWorker(1, "olmoe-worker-1", 2, "gpu-c", "nvl-1", "rack-1")));
        assertThat(WorldDocumentJson.encode(w)).isEqualTo(JsonFields.requireString(committed, "canonical"));
        assertThat(w.gpus()).isEqualTo(8);
        assertThat(w.byPodIndex(2).nodeRank()).isEqualTo(1);
        assertThat(w.byPodIndex(7)).isNull();
        assertThat(WorldDocumentJson.decode(WorldDocumentJson.encode(w))).isEqualTo(w);
    }
}
