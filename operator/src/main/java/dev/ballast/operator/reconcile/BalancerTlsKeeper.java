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
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Keeps a job's TLS Secrets (docs/security.md): creates the job's CA once, and issues the balancer's certificate
 * when it has none, when its CA changed, or when two thirds of its life have passed (JobCertificates). Both
 * Secrets are read from the API server by name (no cache can lag behind, so no second CA is ever made); one another
 * object controls is a conflict, never taken over.
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

  /**
   * Returns the serial of the balancer's current certificate, or empty when another object holds the name of one
   * of the job's TLS Secrets (added to {@code conflicts}; it is never taken over).
   */
  Optional<String> ensure(TrainingJob job, Instant now, List<ChildConflict> conflicts) {
    String name = job.getMetadata().getName();
    String namespace = job.getMetadata().getNamespace();
    Optional<Secret> liveCa = secret(job, Names.jobCa(name));
    Optional<Secret> live = secret(job, Names.balancerTls(name));
    List<ChildConflict> held = Stream.of(liveCa, live).flatMap(Optional::stream)
        .flatMap(s -> ChildConflict.of(job, s).stream()).toList();
    if (!held.isEmpty()) {
      conflicts.addAll(held);
      return Optional.empty();
    }
    Authority ca = liveCa.flatMap(BalancerTlsKeeper::authority).orElse(null);
    if (ca == null) {
      ca = JobCertificates.newAuthority(namespace, name, now);
      Secret created = BalancerTls.authority(job, ca);
      if (liveCa.isPresent()) {
        replace(liveCa.get(), created); // unreadable: the sidecars cannot be trusting it
      } else {
        Optional<ChildConflict> conflict = children.create(job, created);
        if (conflict.isPresent()) {
          conflicts.add(conflict.get());
          return Optional.empty();
        }
      }
    }
    X509Certificate current = live.flatMap(s -> BalancerTls.read(s, BalancerTls.TLS_CERT))
        .flatMap(BalancerTlsKeeper::certificate).orElse(null);
    if (!JobCertificates.needsNewServer(current, ca, now)) return Optional.of(current.getSerialNumber().toString(16));

    JobCertificates.ServerCertificate issued = JobCertificates.issueServer(ca, Names.balancerDnsNames(name, namespace), now);
    Secret desired = BalancerTls.server(job, ca, issued);
    if (live.isPresent()) {
      replace(live.get(), desired);
    } else {
      Optional<ChildConflict> conflict = children.create(job, desired);
      if (conflict.isPresent()) {
        conflicts.add(conflict.get());
        return Optional.empty();
      }
    }
    events.normal(job, "BalancerCertificateIssued", "Issued the balancer's TLS certificate (serial " + issued.serial()
        + ", valid until " + issued.certificate().getNotAfter().toInstant() + ", renewed from "
        + JobCertificates.renewAt(issued.certificate()) + ")" + (current == null ? "" : "; the balancer restarts with it"));
    return Optional.of(issued.serial());
  }

  private void replace(Secret live, Secret desired) {
    desired.getMetadata().setResourceVersion(live.getMetadata().getResourceVersion());
    client.resource(desired).update();
  }

  /**
   * Read by name from the API server: the operator has no Secret informer, as it may read only Secrets it knows
   * the name of (get, never list or watch; docs/security.md).
   */
  private Optional<Secret> secret(TrainingJob job, String name) {
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
