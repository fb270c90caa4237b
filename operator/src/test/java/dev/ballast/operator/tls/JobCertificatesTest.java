package dev.ballast.operator.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.tls.JobCertificates.Authority;
import dev.ballast.operator.tls.JobCertificates.ServerCertificate;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JobCertificatesTest {
  static final Instant T0 = Instant.parse("2026-12-03T12:00:00Z");
  static final List<String> NAMES = List.of("olmoe-balancer.team-a.svc", "olmoe-balancer.team-a.svc.cluster.local",
      "olmoe-balancer.team-a", "olmoe-balancer");
  final Authority ca = JobCertificates.newAuthority("team-a", "olmoe", T0);
  final ServerCertificate server = JobCertificates.issueServer(ca, NAMES, T0);

  @Test
  void theServerCertificateChainsToTheJobsCaForItsServiceNames() throws Exception {
    X509Certificate cert = server.certificate();
    assertThat(trusts(ca, cert)).isTrue();

    assertThat(cert.getSubjectAlternativeNames().stream().map(san -> (String) san.get(1)).toList()).isEqualTo(NAMES);
    assertThat(cert.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1"); // serverAuth
    assertThat(cert.getBasicConstraints()).isEqualTo(-1);
    assertThat(ca.certificate().getBasicConstraints()).isZero();
    assertThat(Duration.between(cert.getNotBefore().toInstant(), cert.getNotAfter().toInstant()))
        .isEqualTo(JobCertificates.SERVER_VALIDITY.plus(JobCertificates.CLOCK_SKEW));
  }

  @Test
  void anotherJobsCaDoesNotTrustThisBalancer() {
    Authority other = JobCertificates.newAuthority("team-a", "other", T0);
    assertThat(trusts(other, server.certificate())).as("another job's CA").isFalse();
    assertThat(trusts(other, JobCertificates.issueServer(other, NAMES, T0).certificate())).isTrue();
    assertThat(JobCertificates.signedBy(server.certificate(), other)).isFalse();
  }

  @Test
  void renewedTwoThirdsIntoItsLifeAndWhenItsCaChanges() {
    Instant renewAt = JobCertificates.renewAt(server.certificate());
    assertThat(renewAt).isEqualTo(T0.minus(JobCertificates.CLOCK_SKEW)
        .plus(JobCertificates.SERVER_VALIDITY.plus(JobCertificates.CLOCK_SKEW).multipliedBy(2).dividedBy(3)));
    assertThat(JobCertificates.needsNewServer(server.certificate(), ca, renewAt.minusSeconds(1))).isFalse();
    assertThat(JobCertificates.needsNewServer(server.certificate(), ca, renewAt)).isTrue();
    assertThat(JobCertificates.needsNewServer(null, ca, T0)).as("none yet").isTrue();
    assertThat(JobCertificates.needsNewServer(server.certificate(), JobCertificates.newAuthority("team-a", "olmoe", T0), T0))
        .as("a replaced CA").isTrue();

    ServerCertificate renewed = JobCertificates.issueServer(ca, NAMES, renewAt);
    assertThat(renewed.serial()).isNotEqualTo(server.serial());
    assertThat(JobCertificates.needsNewServer(renewed.certificate(), ca, renewAt)).isFalse();
    assertThat(renewed.certificate().getNotAfter()).isAfter(server.certificate().getNotAfter());
  }

  @Test
  void pemRoundTripsWhatTheSecretsHold() {
    Authority parsed = Authority.parse(ca.certificatePem(), ca.keyPem());
    assertThat(parsed.certificate()).isEqualTo(ca.certificate());
    assertThat(parsed.key().getEncoded()).isEqualTo(ca.key().getEncoded());
    assertThat(server.keyPem()).startsWith("-----BEGIN PRIVATE KEY-----\n"); // PKCS#8, as Netty reads it
    assertThat(Pem.parseCertificate(server.certificatePem())).isEqualTo(server.certificate());
  }

  /** PKIX validation of {@code cert} with {@code anchor} as the only trust anchor, now. */
  static boolean trusts(Authority anchor, X509Certificate cert) {
    try {
      var params = new PKIXParameters(Set.of(new TrustAnchor(anchor.certificate(), null)));
      params.setRevocationEnabled(false);
      params.setDate(Date.from(T0.plusSeconds(60)));
      CertPathValidator.getInstance("PKIX")
          .validate(CertificateFactory.getInstance("X.509").generateCertPath(List.of(cert)), params);
      return true;
    } catch (java.security.GeneralSecurityException e) {
      return false;
    }
  }
}
