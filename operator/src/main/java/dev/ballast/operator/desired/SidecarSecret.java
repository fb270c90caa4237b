package dev.ballast.operator.desired;

import dev.ballast.operator.api.TrainingJob;
import io.fabric8.kubernetes.api.model.Secret;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;

/** The per-job shared secret sidecars present to their balancer. Created once; never rotated by reconcile. */
public final class SidecarSecret {
  public static final String TOKEN_KEY = "token";
  private static final SecureRandom RANDOM = new SecureRandom();

  private SidecarSecret() {}

  /** A secret with a fresh random token; the reconciler creates it once and never replaces it. */
  public static Secret build(TrainingJob job) {
    String name = job.getMetadata().getName();
    Secret secret = new Secret();
    secret.setMetadata(Owners.childMeta(job, Names.sidecarSecret(name, job.getMetadata().getUid()), Labels.forJob(name)));
    secret.setType("Opaque");
    secret.setImmutable(true);
    secret.setStringData(Map.of(TOKEN_KEY, newToken()));
    return secret;
  }

  private static String newToken() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
