package dev.ballast.planner.model;

/**
 * Token sums per (GPU, link class), {@code sendTok[s * 4 + class]} and {@code recvTok[g * 4 + class]}: the shape in
 * which the cost model and the quota rule's scoring account for an all-to-all.
 */
public final class LinkTokens {
    private LinkTokens() {
    }

    /**
     * Adds {@code sign} × every source's count for expert {@code e} (row-major {@code counts}, {@code experts} per
     * row) as sent to GPU {@code g}: +1 routes the expert there, -1 takes out what an earlier sum sent there.
     */
    public static void addColumn(GroupTopology gt, long[] counts, int experts, int e, int g, long sign, long[] sendTok,
                                 long[] recvTok) {
        int ep = gt.ep();
        for (int s = 0; s < ep; s++) {
            long t = sign * counts[s * experts + e];
            int cls = gt.linkClassAt(s * ep + g);
            sendTok[s * 4 + cls] += t;
            recvTok[g * 4 + cls] += t;
        }
    }
}
