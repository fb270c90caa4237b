package dev.ballast.operator.desired;

import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.tls.JobCertificates.Authority;
import dev.ballast.operator.tls.JobCertificates.ServerCertificate;
import io.fabric8.kubernetes.api.model.Secret;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The Secrets of a job's TLS (docs/security.md): {@code <job>-ca} holds the job's CA with its key, read by the
 * operator only; {@code <job>-balancer-tls} ({@code kubernetes.io/tls}) holds the balancer's certificate and key and
 * the CA's certificate, which the sidecars get (that key only) to check the balancer.
 */
public final class BalancerTls {
  public static final String CA_CERT = "ca.crt";
  public static final String CA_KEY = "ca.key";
  public static final String TLS_CERT = "tls.crt";
  public static final String TLS_KEY = "tls.key";
  /** On the balancer's pod template: a new certificate is a new template, so the balancer restarts with it. */
  public static final String SERIAL_ANNOTATION = "ballast.dev/tls-serial";

  private BalancerTls() {}

  public static Secret authority(TrainingJob job, Authority ca) {
    String name = job.getMetadata().getName();
    Map<String, String> data = new LinkedHashMap<>();
    data.put(CA_CERT, ca.certificatePem());
    data.put(CA_KEY, ca.keyPem());
    return secret(job, Names.jobCa(name), "Opaque", data);
  }

  public static Secret server(TrainingJob job, Authority ca, ServerCertificate server) {
    String name = job.getMetadata().getName();
    Map<String, String> data = new LinkedHashMap<>();
    data.put(TLS_CERT, server.certificatePem());
    data.put(TLS_KEY, server.keyPem());
    data.put(CA_CERT, ca.certificatePem());
    return secret(job, Names.balancerTls(name), "kubernetes.io/tls", data);
  }

  /** A key of a live Secret, decoded (what the API server returns is base64 in {@code data}). */
  public static Optional<String> read(Secret secret, String key) {
    if (secret.getData() != null && secret.getData().get(key) != null) {
      return Optional.of(new String(Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.US_ASCII));
    }
    return secret.getStringData() == null ? Optional.empty() : Optional.ofNullable(secret.getStringData().get(key));
  }

  private static Secret secret(TrainingJob job, String name, String type, Map<String, String> data) {
    Secret secret = new Secret();
    secret.setMetadata(Owners.childMeta(job, name, Labels.forJob(job.getMetadata().getName())));
    secret.setType(type);
    secret.setStringData(data);
    return secret;
  }
}
