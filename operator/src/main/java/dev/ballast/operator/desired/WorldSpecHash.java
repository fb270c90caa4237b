package dev.ballast.operator.desired;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.ballast.operator.api.TrainingJobSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Hash of the spec fields that apply at the next world: the pod template, the checkpoint volume, the topology
 * label keys and the balancer settings. Every worker pod carries the hash of the spec it was built from; a
 * running world whose hash differs from the spec's is replaced (reason SpecChanged). The other fields apply
 * live (restartLimit, timeouts, elastic and recovery policy), by resize (workers) or are immutable.
 */
public final class WorldSpecHash {
  private static final ObjectMapper SORTED = Serialization.jsonMapper().copy()
      .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  private WorldSpecHash() {}

  public static String of(TrainingJobSpec spec) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("template", spec.template);
    fields.put("checkpoint", spec.checkpoint);
    fields.put("topology", spec.topology);
    fields.put("balancer", spec.balancer);
    try {
      byte[] json = SORTED.writeValueAsString(fields).getBytes(StandardCharsets.UTF_8);
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(json), 0, 10);
    } catch (NoSuchAlgorithmException | com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("cannot hash the spec", e);
    }
  }
}
