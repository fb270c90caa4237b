package dev.ballast.planner.quota;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.StaticLayout;

/**
 * Step 10 of the quota rule summed per (GPU, link class), from step 9's quotas, for the planner's scoring: the same
 * sums as routing every source's tokens ({@link QuotaRule}'s flows), visiting only the sources whose sums can differ
 * from the all-at-home routing's.
 * <p>
 * Why that is enough: in step 10 each class drains the sources that can still send, in their order, into the copies
 * with room, in theirs; so within a node (class 1) or a rack (class 2) the tokens that move are the smaller of what the
 * group's sources have left and what its copies have room for, the sources give them first to last and the copies
 * take them first to last, whatever the pairing in between. A source whose node (or, in a group of several racks,
 * whose rack) holds no copy of the expert sends everything at the group's last class; so does, under the
 * all-at-home routing, every source outside the home's node (rack). Only the home's node (rack) and the copies' nodes
 * (racks) are visited, and a copy's receipts per class follow from what its group gave. Integer sums: the order of
 * the additions does not change them. Keeps its buffers between calls; not thread-safe.
 */
final class FlowSums {
    /** Per source: tokens of the current expert sent below the last class so far (zero between experts). */
    private long[] used = new long[0];
    /** Per copy of the current expert: its GPU, node and rack; quota not yet received; received so far. */
    private int[] gpu = new int[0];
    private int[] node = new int[0];
    private int[] rack = new int[0];
    private long[] room = new long[0];
    private long[] taken = new long[0];
    /** The nodes whose sources gave in class 1 (to clear {@code used} after the expert), and their count. */
    private int[] visited = new int[0];
    private int nv;

    /**
     * Adds to {@code sendTok[s * 4 + class]} and {@code recvTok[g * 4 + class]}, which hold the all-at-home routing's
     * sums, the difference step 10's routing of {@code p} makes: {@code quota[c]} is step 9's quota of copy c of a
     * multi-copy expert (a single-copy expert takes all its tokens), {@code counts} row-major [source][expert] and
     * {@code totals} their per-expert sums.
     */
    void add(GroupTopology gt, LayerPlacement p, long[] counts, long[] totals, long[] quota, long[] sendTok,
             long[] recvTok) {
        int ep = gt.ep();
        int experts = p.experts();
        size(ep);
        int last = lastClass(gt);
        for (int e = 0; e < experts; e++) {
            int h = StaticLayout.home(e, ep, experts);
            int k = p.copies(e);
            int first = p.copyStart(e);
            if (k == 1 && p.copyGpu(first) == h) {
                continue;
            }
            long total = totals[e];
            // The home's receipts out, and its neighbours' sends moved to the last class: every source then sends all
            // it has at the last class, as step 10 would if no copy were near it.
            long near = 0;
            if (last == 1) {
                long c = counts[h * experts + e];
                sendTok[h * 4] -= c;
                sendTok[h * 4 + 1] += c;
                recvTok[h * 4] -= c;
                near = c;
            } else {
                boolean byRack = last == 3;
                int x = byRack ? gt.rackIndex(h) : gt.nodeIndex(h);
                int to = byRack ? gt.rackMemberStart(x + 1) : gt.nodeMemberStart(x + 1);
                for (int i = byRack ? gt.rackMemberStart(x) : gt.nodeMemberStart(x); i < to; i++) {
                    int s = byRack ? gt.rackMember(i) : gt.nodeMember(i);
                    long c = counts[s * experts + e];
                    int cls = gt.linkClassAt(s * ep + h);
                    sendTok[s * 4 + cls] -= c;
                    sendTok[s * 4 + last] += c;
                    recvTok[h * 4 + cls] -= c;
                    near += c;
                }
            }
            recvTok[h * 4 + last] -= total - near;
            // Class 0: each copy's own GPU.
            for (int j = 0; j < k; j++) {
                int g = p.copyGpu(first + j);
                gpu[j] = g;
                node[j] = gt.nodeIndex(g);
                rack[j] = gt.rackIndex(g);
                long q = k == 1 ? total : quota[first + j];
                long x = Math.min(counts[g * experts + e], q);
                room[j] = q - x;
                sendTok[g * 4] += x;
                sendTok[g * 4 + last] -= x;
                recvTok[g * 4] += x;
                used[g] = x;
            }
            // Class 1 by node, then class 2 by rack, below the last class.
            nv = 0;
            if (last > 1) {
                given(gt, counts, experts, e, k, false, last, sendTok, recvTok);
            }
            if (last > 2) {
                given(gt, counts, experts, e, k, true, last, sendTok, recvTok);
            }
            for (int j = 0; j < k; j++) {
                recvTok[gpu[j] * 4 + last] += room[j];
                used[gpu[j]] = 0;
            }
            for (int i = 0; i < nv; i++) {
                int x = visited[i];
                for (int m = gt.nodeMemberStart(x); m < gt.nodeMemberStart(x + 1); m++) {
                    used[gt.nodeMember(m)] = 0;
                }
            }
        }
    }

    /**
     * Class 1 ({@code byRack} false: by node) or class 2 (by rack) of expert e and its k copies: in each group holding
     * a copy with room, the group's sources give, in order, what they have left until the copies' room is used, and
     * the copies take it in order. Moves what the sources give from the last class to this one.
     */
    private void given(GroupTopology gt, long[] counts, int experts, int e, int k, boolean byRack, int last,
                       long[] sendTok, long[] recvTok) {
        int cls = byRack ? 2 : 1;
        int[] group = byRack ? rack : node;
        // Records what each source gave only where a later class reads it.
        boolean record = !byRack && last == 3;
        boolean runs = gt.groupsAreRankRuns();
        for (int j = 0; j < k; j++) {
            int x = group[j];
            if (!firstOfGroup(group, j, runs)) {
                continue;
            }
            long want = 0;
            for (int j2 = j; j2 < k; j2++) {
                if (group[j2] == x) {
                    want += room[j2];
                } else if (runs) {
                    break;
                }
            }
            if (want == 0) {
                continue;
            }
            long flow = 0;
            int to = byRack ? gt.rackMemberStart(x + 1) : gt.nodeMemberStart(x + 1);
            for (int i = byRack ? gt.rackMemberStart(x) : gt.nodeMemberStart(x); i < to && flow < want; i++) {
                int s = byRack ? gt.rackMember(i) : gt.nodeMember(i);
                long y = Math.min(counts[s * experts + e] - used[s], want - flow);
                sendTok[s * 4 + cls] += y;
                sendTok[s * 4 + last] -= y;
                if (record) {
                    used[s] += y;
                }
                flow += y;
            }
            if (record) {
                visited[nv++] = x;
            }
            for (int j2 = j; j2 < k && flow > 0; j2++) {
                if (group[j2] == x) {
                    long y = Math.min(room[j2], flow);
                    room[j2] -= y;
                    flow -= y;
                    recvTok[gpu[j2] * 4 + cls] += y;
                } else if (runs) {
                    break;
                }
            }
        }
    }

    /**
     * The received half of {@link #add} alone, from the counts' sums per (node, expert), {@code nodeSums[node * experts
     * + e]}: what a copy receives per class follows from its group's sums and its own GPU's count, so no source is
     * visited. The same {@code recvTok} as {@link #add}.
     */
    void addReceived(GroupTopology gt, LayerPlacement p, long[] counts, long[] totals, long[] nodeSums, long[] quota,
                     long[] recvTok) {
        int ep = gt.ep();
        int experts = p.experts();
        size(ep);
        int last = lastClass(gt);
        for (int e = 0; e < experts; e++) {
            int h = StaticLayout.home(e, ep, experts);
            int k = p.copies(e);
            int first = p.copyStart(e);
            if (k == 1 && p.copyGpu(first) == h) {
                continue;
            }
            long total = totals[e];
            // The home's receipts by class: its own GPU's count, the rest of its node, of its rack, of the group.
            long own = counts[h * experts + e];
            long nodeTokens = last == 1 ? total : nodeSums[gt.nodeIndex(h) * experts + e];
            long rackTokens = last < 3 ? total : rackTokens(gt, nodeSums, experts, e, gt.rackIndex(h));
            recvTok[h * 4] -= own;
            recvTok[h * 4 + 1] -= nodeTokens - own;
            recvTok[h * 4 + 2] -= rackTokens - nodeTokens;
            recvTok[h * 4 + 3] -= total - rackTokens;
            for (int j = 0; j < k; j++) {
                int g = p.copyGpu(first + j);
                gpu[j] = g;
                node[j] = gt.nodeIndex(g);
                rack[j] = gt.rackIndex(g);
                long q = k == 1 ? total : quota[first + j];
                long x = Math.min(counts[g * experts + e], q);
                room[j] = q - x;
                // What the copy's own GPU gave is no longer its node's to give.
                taken[j] = x;
                recvTok[g * 4] += x;
            }
            if (last > 1) {
                received(gt, nodeSums, experts, e, k, false, recvTok);
            }
            if (last > 2) {
                received(gt, nodeSums, experts, e, k, true, recvTok);
            }
            for (int j = 0; j < k; j++) {
                recvTok[gpu[j] * 4 + last] += room[j];
            }
        }
    }

    /**
     * Class 1 or 2 of {@link #addReceived} for expert e: in each group holding a copy with room, the smaller of what
     * the group's sources have left (its tokens less what its copies have taken from them) and the copies' room moves,
     * taken by the copies in order.
     */
    private void received(GroupTopology gt, long[] nodeSums, int experts, int e, int k, boolean byRack,
                          long[] recvTok) {
        int cls = byRack ? 2 : 1;
        int[] group = byRack ? rack : node;
        boolean runs = gt.groupsAreRankRuns();
        for (int j = 0; j < k; j++) {
            int x = group[j];
            if (!firstOfGroup(group, j, runs)) {
                continue;
            }
            long want = 0;
            long left = 0;
            for (int j2 = j; j2 < k; j2++) {
                if (group[j2] == x) {
                    want += room[j2];
                    left -= taken[j2];
                } else if (runs) {
                    break;
                }
            }
            if (want == 0) {
                continue;
            }
            left += byRack ? rackTokens(gt, nodeSums, experts, e, x) : nodeSums[x * experts + e];
            long flow = Math.min(left, want);
            for (int j2 = j; j2 < k && flow > 0; j2++) {
                if (group[j2] == x) {
                    long y = Math.min(room[j2], flow);
                    room[j2] -= y;
                    taken[j2] += y;
                    flow -= y;
                    recvTok[gpu[j2] * 4 + cls] += y;
                } else if (runs) {
                    break;
                }
            }
        }
    }

    /**
     * Whether copy j is its group's first (in copy order): the group is then visited at j. Copies ascend by GPU, so
     * where every node and rack is a run of ranks ({@code runs}) a group's copies are a run too.
     */
    private static boolean firstOfGroup(int[] group, int j, boolean runs) {
        if (runs) {
            return j == 0 || group[j - 1] != group[j];
        }
        for (int j2 = 0; j2 < j; j2++) {
            if (group[j2] == group[j]) {
                return false;
            }
        }
        return true;
    }

    /** Expert e's tokens from the sources in rack r: the sum of its nodes'. */
    private static long rackTokens(GroupTopology gt, long[] nodeSums, int experts, int e, int r) {
        long sum = 0;
        for (int n = 0; n < gt.nodeCount(); n++) {
            if (gt.rackOfNode(n) == r) {
                sum += nodeSums[n * experts + e];
            }
        }
        return sum;
    }

    /** Fits the buffers to a group of {@code ep} GPUs (an expert has at most one copy per GPU). */
    private void size(int ep) {
        if (used.length < ep) {
            used = new long[ep];
            gpu = new int[ep];
            node = new int[ep];
            rack = new int[ep];
            room = new long[ep];
            taken = new long[ep];
            visited = new int[ep];
        }
    }

    /**
     * The last link class: everything left after the nearer ones, and what the all-at-home routing sends outside the
     * home's node (one rack) or rack (several racks); within one node, everything beyond the GPU itself.
     */
    private static int lastClass(GroupTopology gt) {
        return gt.nodeCount() == 1 ? 1 : gt.rackCount() == 1 ? 2 : 3;
    }
}
