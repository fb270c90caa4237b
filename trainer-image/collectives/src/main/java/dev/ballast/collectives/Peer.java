package dev.ballast.collectives;

import java.nio.ByteBuffer;

/**
 * One pod of the group as the rendezvous store saw it: where its collective endpoint listens and how many local ranks
 * (threads) it runs. {@code name} is for error messages only (the pod's host name).
 */
public record Peer(int nodeRank, String host, int port, int localRanks, String name) {

    public Peer {
        if (nodeRank < 0) throw new IllegalArgumentException("node rank " + nodeRank + " is negative");
        if (port < 1 || port > 65535) throw new IllegalArgumentException("port " + port + " is not a TCP port");
        if (localRanks < 1) {
            throw new IllegalArgumentException("node rank " + nodeRank + " declares " + localRanks
                + " local ranks; it needs at least one");
        }
    }

    /** host:port, bracketing an IPv6 literal. */
    public String endpoint() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    int encodedBytes() {
        return 12 + Wire.stringBytes(host) + Wire.stringBytes(name);
    }

    void encode(ByteBuffer b) {
        b.putInt(nodeRank).putInt(localRanks).putInt(port);
        Wire.putString(b, host);
        Wire.putString(b, name);
    }

    static Peer decode(ByteBuffer b) {
        int nodeRank = b.getInt();
        int localRanks = b.getInt();
        int port = b.getInt();
        String host = Wire.getString(b);
        String name = Wire.getString(b);
        return new Peer(nodeRank, host, port, localRanks, name);
    }
}
