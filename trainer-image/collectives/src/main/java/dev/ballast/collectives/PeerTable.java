package dev.ballast.collectives;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The whole group of one world generation, ordered by node rank. Global ranks are numbered pod by pod: node rank n's
 * local rank l is global rank {@code firstRank(n) + l}, which is {@code NODE_RANK * NPROC_PER_NODE + l} when every pod
 * runs the same number of ranks (the operator's case).
 */
public record PeerTable(long generation, List<Peer> peers) {
    static final int MAGIC = 0x31544C42; // "BLT1" read little-endian

    public PeerTable {
        peers = List.copyOf(peers);
        for (int i = 0; i < peers.size(); i++) {
            if (peers.get(i).nodeRank() != i) {
                throw new IllegalArgumentException("peer table position " + i + " holds node rank "
                    + peers.get(i).nodeRank());
            }
        }
    }

    public int nodes() {
        return peers.size();
    }

    public int worldSize() {
        return firstRank(peers.size());
    }

    /** The global rank of node rank {@code nodeRank}'s local rank 0 (the world size for {@code nodes()}). */
    public int firstRank(int nodeRank) {
        int rank = 0;
        for (int n = 0; n < nodeRank; n++) rank += peers.get(n).localRanks();
        return rank;
    }

    /** The node rank of the pod that runs global rank {@code rank}. */
    public int nodeOf(int rank) {
        if (rank < 0) throw new IllegalArgumentException("rank " + rank + " is negative");
        int first = 0;
        for (Peer p : peers) {
            first += p.localRanks();
            if (rank < first) return p.nodeRank();
        }
        throw new IllegalArgumentException("rank " + rank + " is outside the world of " + worldSize() + " ranks");
    }

    /** "node rank 1 (pod-b at 10.0.0.7:41234, ranks 2-3)", for error messages. */
    public String describe(int nodeRank) {
        Peer p = peers.get(nodeRank);
        int first = firstRank(nodeRank);
        int last = first + p.localRanks() - 1;
        return "node rank " + nodeRank + " (" + p.name() + " at " + p.endpoint() + ", "
            + (first == last ? "rank " + first : "ranks " + first + "-" + last) + ")";
    }

    byte[] encode() {
        int size = 16;
        for (Peer p : peers) size += p.encodedBytes();
        ByteBuffer b = Wire.allocate(size);
        b.putInt(MAGIC).putLong(generation).putInt(peers.size());
        for (Peer p : peers) p.encode(b);
        return b.array();
    }

    static PeerTable decode(byte[] bytes) {
        ByteBuffer b = Wire.wrap(bytes);
        Wire.expectMagic(b, MAGIC, "rendezvous peer table");
        long generation = b.getLong();
        int count = b.getInt();
        Peer[] peers = new Peer[count];
        for (int i = 0; i < count; i++) peers[i] = Peer.decode(b);
        return new PeerTable(generation, List.of(peers));
    }
}
