package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LinkClass;

import java.util.Arrays;

/**
 * Replica refresh and gradient-return bytes per GPU, link (NVLink, NIC, cross-rack) and direction, against what each
 * link moves in one layer's compute time at the balanced load: a replica that keeps every link within that is hidden
 * under compute by the cost model's overlap rule. Local replicas save tokens on the network, but a hot expert's home
 * refreshes every one of them over its own links; this keeps them from turning that into exposed time.
 */
public final class ParameterBudget {
    private final GroupTopology gt;
    private final double weightBytes;
    private final double gradBytes;
    /** [g * 6 + direction * 3 + link]: direction 0 sends, 1 receives; link 0 NVLink, 1 NIC, 2 cross-rack. */
    private final double[] bytes;
    private final double[] cap = new double[3];

    /** A budget of {@code computeSec} on every link of every GPU of the group, nothing counted yet. */
    public ParameterBudget(GroupTopology gt, double weightBytes, double gradBytes, double computeSec) {
        this(gt, weightBytes, gradBytes, computeSec, new double[length(gt.ep())]);
    }

    /**
     * As the public constructor, counting in {@code scratch} (at least {@link #length} long, cleared here), which the
     * budget owns until its caller drops it.
     */
    ParameterBudget(GroupTopology gt, double weightBytes, double gradBytes, double computeSec, double[] scratch) {
        this.gt = gt;
        this.weightBytes = weightBytes;
        this.gradBytes = gradBytes;
        this.bytes = scratch;
        Arrays.fill(bytes, 0, length(gt.ep()), 0);
        cap[0] = computeSec * gt.hardware().bytesPerSecond(LinkClass.NVLINK);
        cap[1] = computeSec * gt.hardware().bytesPerSecond(LinkClass.NETWORK);
        cap[2] = computeSec * gt.hardware().bytesPerSecond(LinkClass.CROSS_RACK);
    }

    /** Counts a replica on g of an expert homed on h only if every link of both stays within budget; whether it did. */
    public boolean tryAdd(int h, int g) {
        add(h, g, 1);
        if (within(h) && within(g)) {
            return true;
        }
        add(h, g, -1);
        return false;
    }

    /** The byte counts' length for a group of {@code ep} GPUs. */
    static int length(int ep) {
        return ep * 6;
    }

    private boolean within(int g) {
        for (int i = 0; i < 6; i++) {
            if (bytes[g * 6 + i] > cap[i % 3]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Counts ({@code sign} 1) or uncounts (-1) a replica on g of an expert homed on h, whether or not it fits: the owner
     * sends the weights and receives the gradient, the replica the other way round.
     */
    public void add(int h, int g, int sign) {
        int cls = gt.linkClass(h, g);
        if (cls != 0) {
            count(h, 0, cls, sign * weightBytes);
            count(g, 1, cls, sign * weightBytes);
            count(g, 0, cls, sign * gradBytes);
            count(h, 1, cls, sign * gradBytes);
        }
    }

    /** Same-node traffic is NVLink; any other crosses the NIC, and cross-rack traffic also the rack link. */
    private void count(int g, int direction, int cls, double b) {
        int at = g * 6 + direction * 3;
        if (cls == LinkClass.NVLINK.ordinal()) {
            bytes[at] += b;
            return;
        }
        bytes[at + 1] += b;
        if (cls == LinkClass.CROSS_RACK.ordinal()) {
            bytes[at + 2] += b;
        }
    }
}
