package dev.ballast.collectives;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The payload of a sparse all-gather's answer: some chunks, each a float[] with an int id. Layout (little-endian):
 * int count, then count pairs (int id, int length), then the elements of every chunk in that order.
 */
final class SparseChunks {
    private SparseChunks() {
    }

    static byte[] encode(Map<Integer, float[]> chunks) {
        int elements = 0;
        for (float[] c : chunks.values()) elements += c.length;
        ByteBuffer b = Wire.allocate(4 + 8 * chunks.size() + 4 * elements);
        b.putInt(chunks.size());
        for (Map.Entry<Integer, float[]> c : chunks.entrySet()) b.putInt(c.getKey()).putInt(c.getValue().length);
        for (float[] c : chunks.values()) for (float v : c) b.putFloat(v);
        return b.array();
    }

    static Map<Integer, float[]> decode(byte[] bytes) {
        ByteBuffer b = Wire.wrap(bytes);
        int count = b.getInt();
        int[] ids = new int[count];
        int[] lengths = new int[count];
        for (int i = 0; i < count; i++) {
            ids[i] = b.getInt();
            lengths[i] = b.getInt();
        }
        Map<Integer, float[]> chunks = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            float[] c = new float[lengths[i]];
            b.asFloatBuffer().get(c);
            b.position(b.position() + 4 * lengths[i]);
            chunks.put(ids[i], c);
        }
        return chunks;
    }
}
