package dev.ballast.collectives;

import java.nio.ByteBuffer;

/** The element types that travel, and their little-endian encoding in a message payload (docs/collectives.md). */
enum Dtype {
    NONE(1), FLOAT(4), DOUBLE(8), LONG(8), INT(4);

    final int bytes;

    Dtype(int bytes) {
        this.bytes = bytes;
    }

    static byte[] encode(float[] a) {
        ByteBuffer b = buffer(a.length * 4);
        b.asFloatBuffer().put(a);
        return b.array();
    }

    static byte[] encode(double[] a) {
        ByteBuffer b = buffer(a.length * 8);
        b.asDoubleBuffer().put(a);
        return b.array();
    }

    static byte[] encode(long[] a) {
        ByteBuffer b = buffer(a.length * 8);
        b.asLongBuffer().put(a);
        return b.array();
    }

    static byte[] encode(int[] a) {
        ByteBuffer b = buffer(a.length * 4);
        b.asIntBuffer().put(a);
        return b.array();
    }

    static float[] floats(byte[] bytes) {
        float[] a = new float[bytes.length / 4];
        wrap(bytes).asFloatBuffer().get(a);
        return a;
    }

    static double[] doubles(byte[] bytes) {
        double[] a = new double[bytes.length / 8];
        wrap(bytes).asDoubleBuffer().get(a);
        return a;
    }

    static long[] longs(byte[] bytes) {
        long[] a = new long[bytes.length / 8];
        wrap(bytes).asLongBuffer().get(a);
        return a;
    }

    static int[] ints(byte[] bytes) {
        int[] a = new int[bytes.length / 4];
        wrap(bytes).asIntBuffer().get(a);
        return a;
    }

    private static ByteBuffer buffer(int size) {
        return Wire.allocate(size);
    }

    private static ByteBuffer wrap(byte[] bytes) {
        return Wire.wrap(bytes);
    }
}
