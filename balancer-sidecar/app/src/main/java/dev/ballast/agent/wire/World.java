package dev.ballast.agent.wire;

import dev.ballast.planner.json.Json;
import dev.ballast.planner.json.JsonException;
import dev.ballast.planner.json.JsonFields;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The world the operator publishes in ConfigMap {@code <job>-world}, key {@code world.json} (DESIGN §3):
 * generation 0 with no nodes until the first world is committed.
 */
public record World(String job, String namespace, long generation, int gpusPerWorker, List<Node> nodes, String json) {
    public record Node(int index, String pod, int nodeRank, String node, String domain, String rack) {
    }

    public static World parse(String json) {
        Map<String, Object> m = JsonFields.object(Json.parse(json), "world.json");
        long generation = JsonFields.requireLong(m, "generation");
        int gpus = JsonFields.requireInt(m, "gpusPerWorker", 1, 1 << 10);
        List<Node> nodes = new ArrayList<>();
        List<Object> raw = JsonFields.requireArray(m, "nodes");
        for (int i = 0; i < raw.size(); i++) {
            Map<String, Object> n = JsonFields.object(raw.get(i), "nodes[" + i + "]");
            nodes.add(new Node(JsonFields.requireInt(n, "index", 0, Integer.MAX_VALUE), str(n, "pod"),
                    JsonFields.requireInt(n, "nodeRank", 0, raw.size() - 1), str(n, "node"), str(n, "domain"), str(n, "rack")));
        }
        nodes.sort((a, b) -> Integer.compare(a.nodeRank, b.nodeRank));
        for (int r = 0; r < nodes.size(); r++) {
            if (nodes.get(r).nodeRank != r) {
                throw new JsonException("world.json: node ranks must be 0.." + (nodes.size() - 1) + " without repeats");
            }
        }
        return new World(str(m, "job"), str(m, "namespace"), generation, gpus, List.copyOf(nodes), json);
    }

    private static String str(Map<String, Object> m, String key) {
        return m.get(key) instanceof String s ? s : "";
    }

    public int gpus() {
        return nodes.size() * gpusPerWorker;
    }

    /** The node entry of a pod index, or null when the pod is not part of this world. */
    public Node byPodIndex(int index) {
        for (Node n : nodes) {
            if (n.index == index) {
                return n;
            }
        }
        return null;
    }
}
