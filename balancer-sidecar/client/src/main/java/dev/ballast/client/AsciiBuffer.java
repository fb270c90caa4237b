package dev.ballast.client;

import java.nio.charset.StandardCharsets;

/** A growable byte buffer for ASCII text, reused across messages so encoding allocates only when it grows. */
final class AsciiBuffer {
    private byte[] bytes = new byte[256];
    private int length;

    void clear() {
        length = 0;
    }

    /** Makes room for {@code more} further bytes; the put methods do not check. */
    void reserve(int more) {
        if (bytes.length - length < more) {
            byte[] b = new byte[Math.max(bytes.length * 2, length + more)];
            System.arraycopy(bytes, 0, b, 0, length);
            bytes = b;
        }
    }

    AsciiBuffer put(byte[] ascii) {
        System.arraycopy(ascii, 0, bytes, length, ascii.length);
        length += ascii.length;
        return this;
    }

    AsciiBuffer put(char c) {
        bytes[length++] = (byte) c;
        return this;
    }

    /** Decimal digits, as {@link Long#toString(long)} writes them (at most 20 bytes). */
    AsciiBuffer put(long v) {
        if (v < 0) {
            if (v == Long.MIN_VALUE) {
                return put(MIN_VALUE);
            }
            bytes[length++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long x = v; x >= 10; x /= 10) {
            digits++;
        }
        int end = length + digits;
        for (int i = end - 1; i >= length; i--) {
            bytes[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        length = end;
        return this;
    }

    byte[] bytes() {
        return bytes;
    }

    int length() {
        return length;
    }

    @Override
    public String toString() {
        return new String(bytes, 0, length, StandardCharsets.US_ASCII);
    }

    private static final byte[] MIN_VALUE = Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);
}
