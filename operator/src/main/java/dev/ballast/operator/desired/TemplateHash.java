package dev.ballast.operator.desired;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Stamps a desired object with a hash of itself. The live object is updated only when its stamp
 * differs: comparing fields would see every server-side default as drift.
 */
public final class TemplateHash {
  private static final ObjectMapper SORTED = Serialization.jsonMapper().copy()
      .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  private TemplateHash() {}

  public static String of(HasMetadata desired) {
    return digest(desired);
  }

  /** 20 hex digits of the SHA-256 of the value's JSON with map keys sorted. */
  static String digest(Object value) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(SORTED.writeValueAsBytes(value));
      return HexFormat.of().formatHex(digest, 0, 10);
    } catch (NoSuchAlgorithmException | com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("cannot hash " + value.getClass().getSimpleName(), e);
    }
  }

  /** Returns the object with its hash annotation set (computed before the annotation is added). */
  public static <T extends HasMetadata> T stamp(T desired) {
    String hash = of(desired);
    desired.getMetadata().getAnnotations().put(Labels.TEMPLATE_HASH, hash);
    return desired;
  }

  public static String read(HasMetadata live) {
    var annotations = live.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(Labels.TEMPLATE_HASH);
  }
}
