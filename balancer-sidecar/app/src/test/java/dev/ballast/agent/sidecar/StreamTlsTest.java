package dev.ballast.agent.sidecar;

import dev.ballast.agent.proto.BalancerGrpc;
import dev.ballast.agent.proto.BalancerMessage;
import dev.ballast.agent.proto.SidecarMessage;
import dev.ballast.agent.proto.Welcome;
import dev.ballast.agent.wire.StreamTls;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sidecar's channel against a real TLS gRPC server (Netty, as in the balancer): it connects only to a certificate
 * of the CA it trusts, issued for the balancer's name, whatever address it dials.
 */
class StreamTlsTest {
    static final String NAME = "olmoe-balancer.team-a.svc";
    SelfSignedCertificate balancerCert;
    Server server;
    String address;

    @BeforeEach
    void start() throws Exception {
        balancerCert = new SelfSignedCertificate(NAME); // its own CA, standing in for the job's CA
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .sslContext(StreamTls.server(pem(balancerCert.certificate()), pem(balancerCert.privateKey())))
                .addService(new BalancerGrpc.BalancerImplBase() {
                    @Override
                    public StreamObserver<SidecarMessage> connect(StreamObserver<BalancerMessage> out) {
                        out.onNext(BalancerMessage.newBuilder().setWelcome(Welcome.newBuilder().setLayers(3)).build());
                        out.onCompleted();
                        return new StreamObserver<>() {
                            public void onNext(SidecarMessage m) { }

                            public void onError(Throwable t) { }

                            public void onCompleted() { }
                        };
                    }
                }).build().start();
        address = "127.0.0.1:" + server.getPort(); // an address, as a Service IP would be: the name is checked instead
    }

    @AfterEach
    void stop() {
        server.shutdownNow();
        balancerCert.delete();
    }

    static String pem(java.io.File file) throws Exception {
        return Files.readString(file.toPath());
    }

    /** The first message of a stream, or the status it failed with. */
    String firstMessage(StreamTls.Trust trust) throws Exception {
        ManagedChannel channel = SidecarLink.channel(address, trust);
        CompletableFuture<String> result = new CompletableFuture<>();
        try {
            StreamObserver<SidecarMessage> up = BalancerGrpc.newStub(channel).connect(new StreamObserver<>() {
                public void onNext(BalancerMessage m) {
                    result.complete("welcome layers=" + m.getWelcome().getLayers());
                }

                public void onError(Throwable t) {
                    result.complete(Status.fromThrowable(t).getCode().toString());
                }

                public void onCompleted() {
                    result.complete("completed");
                }
            });
            up.onNext(SidecarMessage.getDefaultInstance());
            return result.get(20, TimeUnit.SECONDS);
        } finally {
            channel.shutdownNow();
        }
    }

    @Test
    void theJobsCaAndTheBalancersNameConnect() throws Exception {
        assertThat(firstMessage(new StreamTls.Trust(pem(balancerCert.certificate()), NAME))).isEqualTo("welcome layers=3");
    }

    @Test
    void anotherCaIsRefused() throws Exception {
        SelfSignedCertificate other = new SelfSignedCertificate(NAME);
        try {
            assertThat(firstMessage(new StreamTls.Trust(pem(other.certificate()), NAME))).isEqualTo("UNAVAILABLE");
        } finally {
            other.delete();
        }
    }

    @Test
    void anotherNameIsRefused() throws Exception {
        assertThat(firstMessage(new StreamTls.Trust(pem(balancerCert.certificate()), "other-balancer.team-a.svc")))
                .isEqualTo("UNAVAILABLE");
    }

    @Test
    void aPlaintextSidecarCannotTalkToATlsBalancer() throws Exception {
        assertThat(firstMessage(null)).isEqualTo("UNAVAILABLE");
    }
}
