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

    /**
     * Token sums per (GPU, link class) of the all-at-home routing (every expert's tokens sent to its static home),
     * sent and received: where a planner's scoring starts before it moves the experts that run elsewhere.
     */
    public record Home(long[] send, long[] recv) {
        /**
         * The received half, {@code recv[g * 4 + class]}, from one layer's counts and their sums per (node, expert)
         * ({@code nodeDemand[node * experts + e]}, dense node numbers) and per expert: only the diagonal is read from
         * the counts.
         */
        public static long[] received(GroupTopology gt, long[] counts, int experts, long[] nodeDemand, long[] total) {
            return received(gt, counts, experts, nodeDemand, total, new long[gt.ep() * 4]);
        }

        /** {@link #received(GroupTopology, long[], int, long[], long[])} into {@code recv} (every entry written). */
        public static long[] received(GroupTopology gt, long[] counts, int experts, long[] nodeDemand, long[] total,
                                      long[] recv) {
            int ep = gt.ep();
            int nodes = gt.nodeCount();
            // GPU g's homes are [firstExpert(g), firstExpert(g + 1)): each range starts where the last ended, and its
            // end, the smallest e with e * ep >= (g + 1) * experts, is counted up to instead of divided out.
            int to = 0;
            for (int g = 0; g < ep; g++) {
                int from = to;
                long end = (long) (g + 1) * experts;
                while ((long) to * ep < end) {
                    to++;
                }
                long own = 0;
                long node = 0;
                long rack = 0;
                long all = 0;
                int nodeRow = gt.nodeIndex(g) * experts;
                for (int e = from; e < to; e++) {
                    own += counts[g * experts + e];
                    node += nodeDemand[nodeRow + e];
                    all += total[e];
                }
                for (int n = 0; n < nodes; n++) {
                    if (gt.rackOfNode(n) == gt.rackIndex(g)) {
                        for (int e = from; e < to; e++) {
                            rack += nodeDemand[n * experts + e];
                        }
                    }
                }
                recv[g * 4] = own;
                recv[g * 4 + 1] = node - own;
                recv[g * 4 + 2] = rack - node;
                recv[g * 4 + 3] = all - rack;
            }
            return recv;
        }

        /**
         * The sent half, {@code send[s * 4 + class]}: one pass over each source's row, in whole segments when every
         * node and rack is a contiguous run of EP ranks.
         */
        public static long[] sent(GroupTopology gt, long[] counts, int experts) {
            int ep = gt.ep();
            long[] send = new long[ep * 4];
            int[] first = new int[ep + 1];
            for (int g = 0; g <= ep; g++) {
                first[g] = StaticLayout.firstExpert(g, ep, experts);
            }
            if (gt.groupsAreRankRuns()) {
                for (int s = 0; s < ep; s++) {
                    int n = gt.nodeIndex(s);
                    int r = gt.rackIndex(s);
                    int nodeLo = first[gt.nodeMember(gt.nodeMemberStart(n))];
                    int nodeHi = first[gt.nodeMember(gt.nodeMemberStart(n + 1) - 1) + 1];
                    int rackLo = first[gt.rackMember(gt.rackMemberStart(r))];
                    int rackHi = first[gt.rackMember(gt.rackMemberStart(r + 1) - 1) + 1];
                    int row = s * experts;
                    long own = sum(counts, row + first[s], row + first[s + 1]);
                    long node = sum(counts, row + nodeLo, row + first[s]) + sum(counts, row + first[s + 1], row + nodeHi);
                    long rack = sum(counts, row + rackLo, row + nodeLo) + sum(counts, row + nodeHi, row + rackHi);
                    long far = sum(counts, row, row + rackLo) + sum(counts, row + rackHi, row + experts);
                    send[s * 4] = own;
                    send[s * 4 + 1] = node;
                    send[s * 4 + 2] = rack;
                    send[s * 4 + 3] = far;
                }
            } else {
                for (int s = 0; s < ep; s++) {
                    int row = s * experts;
                    for (int g = 0; g < ep; g++) {
                        send[s * 4 + gt.linkClassAt(s * ep + g)] += sum(counts, row + first[g], row + first[g + 1]);
                    }
                }
            }
            return send;
        }

        private static long sum(long[] a, int from, int to) {
            long x = 0;
            for (int i = from; i < to; i++) {
                x += a[i];
            }
            return x;
        }
    }
}
