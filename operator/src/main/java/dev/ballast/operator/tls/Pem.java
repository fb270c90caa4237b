package dev.ballast.operator.tls;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;

/** PEM text of certificates and PKCS#8 private keys (what Netty's TLS and Kubernetes TLS Secrets take). */
public final class Pem {
  private static final String KEY = "PRIVATE KEY";
  private static final String CERT = "CERTIFICATE";

  private Pem() {}

  public static String certificate(X509Certificate cert) {
    try {
      return encode(CERT, cert.getEncoded());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot encode certificate: " + e.getMessage(), e);
    }
  }

  public static String privateKey(PrivateKey key) {
    return encode(KEY, key.getEncoded()); // PKCS#8
  }

  public static X509Certificate parseCertificate(String pem) {
    try {
      return (X509Certificate) CertificateFactory.getInstance("X.509")
          .generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("not a PEM certificate: " + e.getMessage(), e);
    }
  }

  public static PrivateKey parseEcPrivateKey(String pem) {
    try {
      return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(decode(KEY, pem)));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("not a PKCS#8 EC private key: " + e.getMessage(), e);
    }
  }

  private static String encode(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }

  private static byte[] decode(String type, String pem) {
    String begin = "-----BEGIN " + type + "-----";
    String end = "-----END " + type + "-----";
    int from = pem.indexOf(begin);
    int to = pem.indexOf(end);
    if (from < 0 || to < from) throw new IllegalArgumentException("no " + type + " block in PEM text");
    return Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to));
  }
}
