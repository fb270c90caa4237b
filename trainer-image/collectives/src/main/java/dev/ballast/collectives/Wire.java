package dev.ballast.collectives;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** Little-endian buffers and length-prefixed UTF-8 strings for the rendezvous messages (docs/collectives.md). */
final class Wire {
    private Wire() {
    }

    static ByteBuffer allocate(int bytes) {
        return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    static ByteBuffer wrap(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Bytes {@link #putString} writes for s. */
    static int stringBytes(String s) {
        return 4 + s.getBytes(StandardCharsets.UTF_8).length;
    }

    static void putString(ByteBuffer b, String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        b.putInt(utf8.length).put(utf8);
    }

    static String getString(ByteBuffer b) {
        int length = b.getInt();
        if (length < 0 || length > b.remaining()) {
            throw new IllegalArgumentException("string of " + length + " bytes in a message with " + b.remaining()
                + " left");
        }
        byte[] utf8 = new byte[length];
        b.get(utf8);
        return new String(utf8, StandardCharsets.UTF_8);
    }

    static void expectMagic(ByteBuffer b, int magic, String what) {
        int got = b.remaining() >= 4 ? b.getInt() : 0;
        if (got != magic) {
            throw new IllegalArgumentException("not a " + what + " (magic 0x" + Integer.toHexString(got) + ", expected 0x"
                + Integer.toHexString(magic) + ")");
        }
    }
}
