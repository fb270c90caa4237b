package dev.ballast.agent.wire;

import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.SslContext;

import javax.net.ssl.SSLException;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

/**
 * TLS of the sidecar-balancer stream (docs/security.md): the balancer presents the certificate the operator issued
 * for its Service; a sidecar accepts only a certificate of the job's CA for that name. PEM text, as the operator
 * puts it in the pods' environment.
 */
public final class StreamTls {
    private StreamTls() {
    }

    /** The balancer's side: its certificate chain and PKCS#8 key. */
    public static SslContext server(String certificatePem, String keyPem) {
        try {
            return GrpcSslContexts.forServer(stream(certificatePem), stream(keyPem)).build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalStateException("the balancer's TLS certificate or key is unusable: " + e.getMessage(), e);
        }
    }

    /** What a sidecar trusts: the job's CA only, and the name the balancer's certificate must carry. */
    public record Trust(String caPem, String serverName) {
        public SslContext clientContext() {
            try {
                return GrpcSslContexts.forClient().trustManager(stream(caPem)).build();
            } catch (SSLException | IllegalArgumentException e) {
                throw new IllegalStateException("the job's CA certificate is unusable: " + e.getMessage(), e);
            }
        }
    }

    private static ByteArrayInputStream stream(String pem) {
        return new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII));
    }
}
