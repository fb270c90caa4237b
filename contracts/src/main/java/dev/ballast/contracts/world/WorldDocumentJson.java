package dev.ballast.contracts.world;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonException;
import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.json.JsonWriter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The JSON form of {@link WorldDocument} (docs/contracts.md, vectors in contracts/vectors/world-documents.json).
 * Encoding is byte-stable: fields in one fixed order, empty domain and rack left out. Decoding refuses anything the
 * record refuses, with a message that starts with {@code world.json} and names the field.
 */
public final class WorldDocumentJson {
    private WorldDocumentJson() {
    }

    public static String encode(WorldDocument w) {
        JsonWriter j = new JsonWriter().beginObject()
                .field("job", w.job()).field("namespace", w.namespace())
                .field("generation", w.generation()).field("gpusPerWorker", w.gpusPerWorker());
        if (w.spec() != null) {
            PlanningSpec s = w.spec();
            j.name("spec").beginObject();
            j.name("parallelism").beginObject().field("expert", s.expertParallel()).field("pipeline", s.pipeline()).endObject();
            j.name("model").beginObject().field("moeLayers", s.moeLayers()).field("experts", s.experts())
                    .field("topK", s.topK()).field("sharedExperts", s.sharedExperts()).field("hiddenSize", s.hiddenSize())
                    .field("ffnHiddenSize", s.ffnHiddenSize()).field("bytesPerParam", s.bytesPerParam()).endObject();
            j.name("balancer").beginObject().field("mode", s.mode()).field("planner", s.planner())
                    .field("redundantSlotsPerGpu", s.redundantSlotsPerGpu()).field("replanEverySteps", s.replanEverySteps())
                    .field("memoryBudgetBytes", s.memoryBudgetBytes());
            HardwareSpec hw = s.hardware();
            j.name("hardware").beginObject().field("nvlinkGBps", hw.nvlinkGBps()).field("nicGBps", hw.nicGBps())
                    .field("crossRackGBps", hw.crossRackGBps()).field("peakTflops", hw.peakTflops())
                    .field("gemmEfficiency", hw.gemmEfficiency()).endObject();
            j.endObject();
            j.endObject();
        }
        j.name("nodes").beginArray();
        for (WorldWorker n : w.nodes()) {
            j.beginObject().field("index", n.index()).field("pod", n.pod()).field("nodeRank", n.nodeRank())
                    .field("node", n.node());
            if (!n.domain().isEmpty()) {
                j.field("domain", n.domain());
            }
            if (!n.rack().isEmpty()) {
                j.field("rack", n.rack());
            }
            j.endObject();
        }
        return j.endArray().endObject().toString();
    }

    /** @throws JsonException naming the field at fault */
    public static WorldDocument decode(String json) {
        Map<String, Object> m = section(in("", () -> Json.parse(json)), "");
        long generation = in("", () -> JsonFields.requireLong(m, "generation"));
        int gpusPerWorker = in("", () -> JsonFields.requireInt(m, "gpusPerWorker", 1, 1 << 10));
        PlanningSpec spec = m.get("spec") == null ? null : spec(section(m.get("spec"), "spec"));
        List<Object> raw = in("", () -> JsonFields.requireArray(m, "nodes"));
        List<WorldWorker> nodes = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            String at = "nodes[" + i + "]";
            Map<String, Object> n = section(raw.get(i), at);
            nodes.add(in(at, () -> new WorldWorker(JsonFields.requireInt(n, "index", 0, Integer.MAX_VALUE),
                    JsonFields.requireString(n, "pod"), JsonFields.requireInt(n, "nodeRank", 0, Integer.MAX_VALUE),
                    JsonFields.requireString(n, "node"), optionalString(n, "domain"), optionalString(n, "rack"))));
        }
        return in("", () -> new WorldDocument(JsonFields.requireString(m, "job"), JsonFields.requireString(m, "namespace"),
                generation, gpusPerWorker, spec, nodes));
    }

    private static PlanningSpec spec(Map<String, Object> s) {
        Map<String, Object> par = section(s.get("parallelism"), "spec.parallelism");
        Map<String, Object> model = section(s.get("model"), "spec.model");
        Map<String, Object> bal = section(s.get("balancer"), "spec.balancer");
        int expert = in("spec.parallelism", () -> JsonFields.requireInt(par, "expert", 1, Integer.MAX_VALUE));
        int pipeline = in("spec.parallelism", () -> JsonFields.requireInt(par, "pipeline", 1, Integer.MAX_VALUE));
        int[] shape = in("spec.model", () -> new int[] {
            JsonFields.requireInt(model, "moeLayers", 1, Integer.MAX_VALUE),
            JsonFields.requireInt(model, "experts", 1, Integer.MAX_VALUE),
            JsonFields.requireInt(model, "topK", 1, Integer.MAX_VALUE),
            JsonFields.requireInt(model, "sharedExperts", 0, Integer.MAX_VALUE),
            JsonFields.requireInt(model, "hiddenSize", 1, Integer.MAX_VALUE),
            JsonFields.requireInt(model, "ffnHiddenSize", 1, Integer.MAX_VALUE),
            JsonFields.requireInt(model, "bytesPerParam", 1, 8)});
        String mode = in("spec.balancer", () -> JsonFields.requireString(bal, "mode"));
        String planner = in("spec.balancer", () -> JsonFields.requireString(bal, "planner"));
        int slots = in("spec.balancer", () -> JsonFields.requireInt(bal, "redundantSlotsPerGpu", 0, Integer.MAX_VALUE));
        int every = in("spec.balancer", () -> JsonFields.requireInt(bal, "replanEverySteps", 1, Integer.MAX_VALUE));
        long budget = in("spec.balancer", () -> JsonFields.requireLong(bal, "memoryBudgetBytes"));
        HardwareSpec hardware = bal.get("hardware") == null ? HardwareSpec.DEFAULT : hardware(bal.get("hardware"));
        return in("spec", () -> new PlanningSpec(expert, pipeline, shape[0], shape[1], shape[2], shape[3], shape[4],
                shape[5], shape[6], mode, planner, slots, every, budget, hardware));
    }

    /** spec.balancer.hardware; the one optional section: a world written before it existed means the defaults. */
    private static HardwareSpec hardware(Object raw) {
        Map<String, Object> hw = section(raw, "spec.balancer.hardware");
        return in("spec.balancer.hardware", () -> new HardwareSpec(
                JsonFields.requireNumber(hw, "nvlinkGBps"), JsonFields.requireNumber(hw, "nicGBps"),
                JsonFields.requireNumber(hw, "crossRackGBps"), JsonFields.requireNumber(hw, "peakTflops"),
                JsonFields.requireNumber(hw, "gemmEfficiency")));
    }

    private static Map<String, Object> section(Object v, String path) {
        return in("", () -> JsonFields.object(v, path.isEmpty() ? "the document" : path));
    }

    private static String optionalString(Map<String, Object> m, String key) {
        return m.get(key) == null ? "" : JsonFields.requireString(m, key);
    }

    /** Runs one read, prefixing any refusal with "world.json" and the path of the section it was in. */
    private static <T> T in(String path, Supplier<T> read) {
        try {
            return read.get();
        } catch (JsonException | IllegalArgumentException e) {
            throw new JsonException(WorldDocument.CONFIG_MAP_KEY + (path.isEmpty() ? "" : " " + path) + ": " + e.getMessage());
        }
    }
}
