package dev.ballast.collectives;

import java.nio.ByteBuffer;

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

    byte[] encode() {
        ByteBuffer b = Wire.allocate(HEADER_BYTES + payload.length);
        b.putInt(MAGIC).putLong(generation).putLong(seq)
            .put((byte) collective.ordinal()).put((byte) phase).put((byte) dtype.ordinal())
            .put((byte) (reduceOp == null ? NO_OP : reduceOp.ordinal()))
            .putInt(src).putInt(dst).putLong(check).putInt(payload.length).put(payload);
        return b.array();
    }

    static Envelope decode(byte[] bytes) {
        if (bytes.length < HEADER_BYTES) {
            throw new IllegalArgumentException("collective message of " + bytes.length + " bytes is shorter than its "
                + HEADER_BYTES + "-byte header");
        }
        ByteBuffer b = Wire.wrap(bytes);
        Wire.expectMagic(b, MAGIC, "Ballast collective message");
        long generation = b.getLong();
        long seq = b.getLong();
        Collective collective = Collective.values()[b.get() & 0xFF];
        int phase = b.get() & 0xFF;
        Dtype dtype = Dtype.values()[b.get() & 0xFF];
        int op = b.get() & 0xFF;
        int src = b.getInt();
        int dst = b.getInt();
        long check = b.getLong();
        int length = b.getInt();
        if (length != b.remaining()) {
            throw new IllegalArgumentException("collective message says " + length + " payload bytes but carries "
                + b.remaining());
        }
        byte[] payload = new byte[length];
        b.get(payload);
        return new Envelope(generation, seq, collective, phase, dtype, op == NO_OP ? null : ReduceOp.values()[op],
            src, dst, check, payload);
    }
}
