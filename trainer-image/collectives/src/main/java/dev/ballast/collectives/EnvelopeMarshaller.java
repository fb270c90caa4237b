package dev.ballast.collectives;

import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/**
 * Puts an {@link Envelope} on the wire as its header followed by its payload, written straight into gRPC's frame
 * (no joined copy), and reads it back with the payload copied once.
 */
final class EnvelopeMarshaller implements MethodDescriptor.Marshaller<Envelope> {

    @Override
    public InputStream stream(Envelope e) {
        return new Body(e.header(), e.payload());
    }

    @Override
    public Envelope parse(InputStream in) {
        try {
            return Envelope.read(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Header then payload, of known length, drained into gRPC's output without an intermediate buffer. */
    private static final class Body extends InputStream implements KnownLength, Drainable {
        private final byte[] header;
        private final byte[] payload;
        private int pos;

        Body(byte[] header, byte[] payload) {
            this.header = header;
            this.payload = payload;
        }

        @Override
        public int available() {
            return header.length + payload.length - pos;
        }

        @Override
        public int read() {
            if (available() == 0) return -1;
            int b = pos < header.length ? header[pos] : payload[pos - header.length];
            pos++;
            return b & 0xFF;
        }

        @Override
        public int read(byte[] into, int off, int len) {
            if (len == 0) return 0;
            if (available() == 0) return -1;
            int n = 0;
            while (n < len && available() > 0) {
                byte[] from = pos < header.length ? header : payload;
                int at = pos < header.length ? pos : pos - header.length;
                int chunk = Math.min(len - n, from.length - at);
                System.arraycopy(from, at, into, off + n, chunk);
                n += chunk;
                pos += chunk;
            }
            return n;
        }

        @Override
        public int drainTo(OutputStream out) throws IOException {
            int n = available();
            if (pos < header.length) out.write(header, pos, header.length - pos);
            int at = Math.max(pos - header.length, 0);
            out.write(payload, at, payload.length - at);
            pos += n;
            return n;
        }
    }
}
