package dev.ballast.operator.reconcile;

import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.desired.BalancerTls;
import dev.ballast.operator.desired.Names;
import dev.ballast.operator.events.JobEvents;
import dev.ballast.operator.tls.JobCertificates;
import dev.ballast.operator.tls.JobCertificates.Authority;
import dev.ballast.operator.tls.Pem;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Optional;

/**
 * Keeps a job's TLS Secrets (docs/security.md): creates the job's CA once, and issues the balancer's certificate
 * when it has none, when its CA changed, or when two thirds of its life have passed (JobCertificates). A Secret the
 * cache does not show yet is read from the API server before anything is created, so a lagging cache never makes a
 * second CA.
 */
final class BalancerTlsKeeper {
  private final KubernetesClient client;
  private final ChildApplier children;
  private final JobEvents events;

  BalancerTlsKeeper(KubernetesClient client, ChildApplier children, JobEvents events) {
    this.client = client;
    this.children = children;
    this.events = events;
  }

  /** Returns the serial of the balancer's current certificate. */
  String ensure(TrainingJob job, Context<TrainingJob> ctx, Instant now) {
    String name = job.getMetadata().getName();
    String namespace = job.getMetadata().getNamespace();
    Authority ca = secret(ctx, job, Names.jobCa(name)).flatMap(BalancerTlsKeeper::authority).orElse(null);
    if (ca == null) {
      ca = JobCertificates.newAuthority(namespace, name, now);
      Secret created = BalancerTls.authority(job, ca);
      Optional<Secret> live = secret(ctx, job, Names.jobCa(name));
      if (live.isPresent()) {
        replace(live.get(), created); // unreadable: the sidecars cannot be trusting it
      } else {
        children.create(job, created);
      }
    }
    Optional<Secret> live = secret(ctx, job, Names.balancerTls(name));
    X509Certificate current = live.flatMap(s -> BalancerTls.read(s, BalancerTls.TLS_CERT)).flatMap(BalancerTlsKeeper::certificate)
        .orElse(null);
    if (!JobCertificates.needsNewServer(current, ca, now)) return current.getSerialNumber().toString(16);

    JobCertificates.ServerCertificate issued = JobCertificates.issueServer(ca, Names.balancerDnsNames(name, namespace), now);
    Secret desired = BalancerTls.server(job, ca, issued);
    if (live.isPresent()) {
      replace(live.get(), desired);
    } else {
      children.create(job, desired);
    }
    events.normal(job, "BalancerCertificateIssued", "Issued the balancer's TLS certificate (serial " + issued.serial()
        + ", valid until " + issued.certificate().getNotAfter().toInstant() + ", renewed from "
        + JobCertificates.renewAt(issued.certificate()) + ")" + (current == null ? "" : "; the balancer restarts with it"));
    return issued.serial();
  }

  private void replace(Secret live, Secret desired) {
    desired.getMetadata().setResourceVersion(live.getMetadata().getResourceVersion());
    client.resource(desired).update();
  }

  /** From the cache, else from the API server (the cache may not show a Secret created a moment ago). */
  private Optional<Secret> secret(Context<TrainingJob> ctx, TrainingJob job, String name) {
    Optional<Secret> cached = ChildApplier.find(ctx, Secret.class, name);
    if (cached.isPresent()) return cached;
    return Optional.ofNullable(client.secrets().inNamespace(job.getMetadata().getNamespace()).withName(name).get());
  }

  private static Optional<Authority> authority(Secret secret) {
    try {
      return Optional.of(Authority.parse(BalancerTls.read(secret, BalancerTls.CA_CERT).orElseThrow(),
          BalancerTls.read(secret, BalancerTls.CA_KEY).orElseThrow()));
    } catch (RuntimeException unreadable) {
      return Optional.empty();
    }
  }

  private static Optional<X509Certificate> certificate(String pem) {
    try {
      return Optional.of(Pem.parseCertificate(pem));
    } catch (IllegalArgumentException unreadable) {
      return Optional.empty();
    }
  }
}
