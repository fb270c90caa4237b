package dev.ballast.collectives;

import java.nio.ByteBuffer;

/**
 * What a pod tells the rendezvous store: which world it belongs to and how to reach it. An empty {@code host} asks
 * the store to use the address the registration came from.
 */
record Registration(long generation, int nnodes, int nodeRank, int localRanks, String host, int port, String name) {
    static final int MAGIC = 0x31524C42; // "BLR1" read little-endian

    byte[] encode() {
        ByteBuffer b = Wire.allocate(28 + Wire.stringBytes(host) + Wire.stringBytes(name));
        b.putInt(MAGIC).putLong(generation).putInt(nnodes).putInt(nodeRank).putInt(localRanks).putInt(port);
        Wire.putString(b, host);
        Wire.putString(b, name);
        return b.array();
    }

    static Registration decode(byte[] bytes) {
        ByteBuffer b = Wire.wrap(bytes);
        Wire.expectMagic(b, MAGIC, "rendezvous registration");
        long generation = b.getLong();
        int nnodes = b.getInt();
        int nodeRank = b.getInt();
        int localRanks = b.getInt();
        int port = b.getInt();
        String host = Wire.getString(b);
        String name = Wire.getString(b);
        return new Registration(generation, nnodes, nodeRank, localRanks, host, port, name);
    }

    Peer toPeer(String observedHost) {
        return new Peer(nodeRank, host.isEmpty() ? observedHost : host, port, localRanks, name);
    }
}
