package dev.ballast.collectives;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One message from one rank to another within one collective call. Between pods it travels as the body of a
 * {@code Deliver} call in this layout (little-endian; docs/collectives.md, "Wire format"):
 * <pre>
 *  0  4  magic "BLC1"
 *  4  8  world generation
 * 12  8  sequence number (the sender's count of collective calls, from 0)
 * 20  1  collective (Collective ordinal)
 * 21  1  phase within the collective
 * 22  1  element type (Dtype ordinal)
 * 23  1  reduce op (ReduceOp ordinal, 255 if none)
 * 24  4  source rank
 * 28  4  destination rank
 * 32  8  check: what every rank must agree on (element count, root), -1 if nothing
 * 40  4  payload length in bytes
 * 44  .. payload: the elements, little-endian
 * </pre>
 * Within a pod the record itself is handed over; nothing is encoded.
 */
record Envelope(long generation, long seq, Collective collective, int phase, Dtype dtype, ReduceOp reduceOp,
                int src, int dst, long check, byte[] payload) {

    static final int MAGIC = 0x31434C42; // "BLC1" read little-endian
    static final int HEADER_BYTES = 44;
    private static final int NO_OP = 255;

    /** The 44 header bytes; the payload follows them on the wire. */
    byte[] header() {
        ByteBuffer b = Wire.allocate(HEADER_BYTES);
        b.putInt(MAGIC).putLong(generation).putLong(seq)
            .put((byte) collective.ordinal()).put((byte) phase).put((byte) dtype.ordinal())
            .put((byte) (reduceOp == null ? NO_OP : reduceOp.ordinal()))
            .putInt(src).putInt(dst).putLong(check).putInt(payload.length);
        return b.array();
    }

    /** Header and payload in one array. */
    byte[] encode() {
        byte[] header = header();
        byte[] bytes = Arrays.copyOf(header, HEADER_BYTES + payload.length);
        System.arraycopy(payload, 0, bytes, HEADER_BYTES, payload.length);
        return bytes;
    }

    static Envelope decode(byte[] bytes) {
        try {
            return read(new ByteArrayInputStream(bytes));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads one message that fills the rest of {@code in} (a gRPC request body), the payload copied once. */
    static Envelope read(InputStream in) throws IOException {
        byte[] header = in.readNBytes(HEADER_BYTES);
        if (header.length < HEADER_BYTES) {
            throw new IllegalArgumentException("collective message of " + header.length + " bytes is shorter than its "
                + HEADER_BYTES + "-byte header");
        }
        ByteBuffer b = Wire.wrap(header);
        Wire.expectMagic(b, MAGIC, "Ballast collective message");
        long generation = b.getLong();
        long seq = b.getLong();
        Collective collective = code(Collective.values(), b.get(), "collective");
        int phase = b.get() & 0xFF;
        Dtype dtype = code(Dtype.values(), b.get(), "element type");
        int op = b.get() & 0xFF;
        int src = b.getInt();
        int dst = b.getInt();
        long check = b.getLong();
        int length = b.getInt();
        byte[] payload = in.readNBytes(Math.max(length, 0));
        if (length < 0 || payload.length != length || in.read() != -1) {
            throw new IllegalArgumentException("collective message says " + length
                + " payload bytes but carries a different number");
        }
        return new Envelope(generation, seq, collective, phase, dtype,
            op == NO_OP ? null : code(ReduceOp.values(), (byte) op, "reduce op"), src, dst, check, payload);
    }

    private static <T> T code(T[] values, byte code, String what) {
        int i = code & 0xFF;
        if (i >= values.length) throw new IllegalArgumentException("unknown " + what + " code " + i);
        return values[i];
    }
}
