package dev.ballast.collectives;

import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The gRPC methods, with hand-encoded bodies: {@link Envelope} (through {@link EnvelopeMarshaller}),
 * {@link Registration} and {@link PeerTable} in the layouts docs/collectives.md gives, so no protoc step is needed.
 */
final class Methods {
    private Methods() {
    }

    /** Raw bodies (declared first: the descriptors below need it when the class initializes). */
    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new KnownLengthStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    static final String PEER_SERVICE = "ballast.collectives.v1.Peer";
    static final String RENDEZVOUS_SERVICE = "ballast.collectives.v1.Rendezvous";

    /** One {@link Envelope} to a rank of the receiving pod; the reply is empty once it sits in that pod's mailbox. */
    static final MethodDescriptor<Envelope, byte[]> DELIVER = method(PEER_SERVICE, "Deliver", MethodType.UNARY,
        new EnvelopeMarshaller());
    /** Never answers: the call breaks when the pod goes away, which is how peers notice a dead pod at once. */
    static final MethodDescriptor<byte[], byte[]> WATCH = method(PEER_SERVICE, "Watch", MethodType.SERVER_STREAMING,
        BYTES);
    /** A {@link Registration}; answered with the {@link PeerTable} once every pod of the world has registered. */
    static final MethodDescriptor<byte[], byte[]> REGISTER = method(RENDEZVOUS_SERVICE, "Register", MethodType.UNARY,
        BYTES);

    static final byte[] EMPTY = new byte[0];

    /** Tells gRPC the body's size up front, so it frames the message without buffering it again. */
    private static final class KnownLengthStream extends ByteArrayInputStream implements KnownLength {
        KnownLengthStream(byte[] bytes) {
            super(bytes);
        }
    }

    private static <Q> MethodDescriptor<Q, byte[]> method(String service, String name, MethodType type,
        MethodDescriptor.Marshaller<Q> requests) {
        return MethodDescriptor.<Q, byte[]>newBuilder()
            .setType(type)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(service, name))
            .setRequestMarshaller(requests)
            .setResponseMarshaller(BYTES)
            .build();
    }
}
