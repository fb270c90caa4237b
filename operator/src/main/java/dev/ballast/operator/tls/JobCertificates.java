package dev.ballast.operator.tls;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Issues a job's X.509 material with BouncyCastle (docs/security.md, "TLS"): a CA of its own (EC P-256, 5 years) and
 * the balancer's server certificate signed by it (30 days, DNS names of its Service), renewed once two thirds of its
 * life has passed. Keys are generated here and never leave the job's Secrets.
 */
public final class JobCertificates {
  public static final Duration CA_VALIDITY = Duration.ofDays(5 * 365);
  public static final Duration SERVER_VALIDITY = Duration.ofDays(30);
  /** Backdated so a peer whose clock is a little behind accepts a certificate issued just now. */
  static final Duration CLOCK_SKEW = Duration.ofMinutes(5);
  private static final String SIGNATURE = "SHA256withECDSA";
  private static final SecureRandom RANDOM = new SecureRandom();

  /** A CA: its certificate and private key. */
  public record Authority(X509Certificate certificate, PrivateKey key) {
    public String certificatePem() {
      return Pem.certificate(certificate);
    }

    public String keyPem() {
      return Pem.privateKey(key);
    }

    public static Authority parse(String certificatePem, String keyPem) {
      return new Authority(Pem.parseCertificate(certificatePem), Pem.parseEcPrivateKey(keyPem));
    }
  }

  /** A server certificate and its private key. */
  public record ServerCertificate(X509Certificate certificate, PrivateKey key) {
    public String certificatePem() {
      return Pem.certificate(certificate);
    }

    public String keyPem() {
      return Pem.privateKey(key);
    }

    /** The serial in hex: it names this certificate in the balancer's pod template, so a new one restarts the pod. */
    public String serial() {
      return certificate.getSerialNumber().toString(16);
    }
  }

  private JobCertificates() {}

  public static Authority newAuthority(String namespace, String job, Instant now) {
    KeyPair pair = ecKeyPair();
    X500Name name = new X500Name("CN=ballast job CA " + namespace + "/" + job + ",O=ballast.dev");
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder = builder(name, name, pair.getPublic(), now, CA_VALIDITY)
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
          .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
          .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
      return new Authority(sign(builder, pair.getPrivate()), pair.getPrivate());
    } catch (CertIOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot issue the CA of " + namespace + "/" + job + ": " + e.getMessage(), e);
    }
  }

  /** A server certificate for {@code dnsNames} (the first is the subject's CN), signed by {@code ca}. */
  public static ServerCertificate issueServer(Authority ca, List<String> dnsNames, Instant now) {
    KeyPair pair = ecKeyPair();
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      GeneralName[] names = dnsNames.stream().map(n -> new GeneralName(GeneralName.dNSName, n)).toArray(GeneralName[]::new);
      X509v3CertificateBuilder builder = builder(X500Name.getInstance(ca.certificate().getSubjectX500Principal().getEncoded()),
          new X500Name("CN=" + dnsNames.get(0) + ",O=ballast.dev"), pair.getPublic(), now, SERVER_VALIDITY)
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
          .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
          .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
          .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names))
          .addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(ca.certificate()))
          .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
      return new ServerCertificate(sign(builder, ca.key()), pair.getPrivate());
    } catch (CertIOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot issue a server certificate for " + dnsNames + ": " + e.getMessage(), e);
    }
  }

  /** When a certificate is renewed: two thirds into its validity, so a missed reconcile or two still leaves days. */
  public static Instant renewAt(X509Certificate cert) {
    Instant from = cert.getNotBefore().toInstant();
    Instant to = cert.getNotAfter().toInstant();
    return from.plus(Duration.between(from, to).multipliedBy(2).dividedBy(3));
  }

  /**
   * Whether the balancer needs a new certificate: it has none (or an unreadable one), its CA was replaced, or two
   * thirds of its life have passed. Pure.
   */
  public static boolean needsNewServer(X509Certificate current, Authority ca, Instant now) {
    return current == null || !signedBy(current, ca) || !now.isBefore(renewAt(current));
  }

  /** True when {@code cert} was signed by {@code ca}'s key (a certificate of a replaced CA is not). */
  public static boolean signedBy(X509Certificate cert, Authority ca) {
    try {
      cert.verify(ca.certificate().getPublicKey());
      return true;
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, PublicKey key, Instant now,
      Duration validity) {
    return new JcaX509v3CertificateBuilder(issuer, new BigInteger(127, RANDOM).add(BigInteger.ONE),
        Date.from(now.minus(CLOCK_SKEW)), Date.from(now.plus(validity)), subject, key);
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key) throws GeneralSecurityException {
    try {
      return new JcaX509CertificateConverter().getCertificate(builder.build(new JcaContentSignerBuilder(SIGNATURE).build(key)));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException(e.getMessage(), e);
    }
  }

  private static KeyPair ecKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no EC P-256 key generator: " + e.getMessage(), e);
    }
  }
}
