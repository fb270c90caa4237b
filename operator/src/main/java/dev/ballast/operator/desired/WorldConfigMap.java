package dev.ballast.operator.desired;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.world.Seat;
import dev.ballast.operator.world.World;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The world as the balancer reads it: generation, GPUs per worker and the seats in node-rank order.
 * Before the first world is committed it holds generation 0 and no nodes.
 */
public final class WorldConfigMap {
  public static final String KEY = "world.json";
  private static final ObjectMapper JSON = new ObjectMapper();

  private WorldConfigMap() {}

  public static ConfigMap build(TrainingJob job, World committed) {
    String name = job.getMetadata().getName();
    ConfigMap cm = new ConfigMap();
    cm.setMetadata(Owners.childMeta(job, Names.worldConfigMap(name), Labels.forJob(name)));
    Map<String, String> data = new LinkedHashMap<>();
    data.put(KEY, toJson(job, committed));
    cm.setData(data);
    return TemplateHash.stamp(cm);
  }

  static String toJson(TrainingJob job, World world) {
    ObjectNode root = JSON.createObjectNode();
    root.put("job", job.getMetadata().getName());
    root.put("namespace", job.getMetadata().getNamespace());
    root.put("generation", world == null ? 0 : world.generation());
    root.put("gpusPerWorker", job.getSpec().gpusPerWorker);
    ArrayNode nodes = root.putArray("nodes");
    if (world != null) {
      for (Seat seat : world.seats()) {
        ObjectNode n = nodes.addObject();
        n.put("index", seat.index());
        n.put("pod", Names.workerPod(job.getMetadata().getName(), world.generation(), seat.index()));
        n.put("nodeRank", seat.nodeRank());
        n.put("node", seat.node());
        if (seat.domain() != null) n.put("domain", seat.domain());
        if (seat.rack() != null) n.put("rack", seat.rack());
      }
    }
    return root.toString();
  }
}
