package dev.ballast.trainer.parallel;

import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.ShardLayout;
import dev.ballast.trainer.checkpoint.TensorSlice;
import dev.ballast.trainer.checkpoint.TrainingState;
import dev.ballast.trainer.model.Param;
import dev.ballast.trainer.moe.ExpertParams;
import dev.ballast.trainer.optim.AdamState;
import dev.ballast.trainer.optim.AdamW;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * FSSDP: every expert's tensors, flattened in {@link ExpertParams#params()} order (up, then down), are split by the
 * planner's {@link ShardLayout} for that expert, with the AdamW state of this rank's range only. The layout is per
 * (layer, expert) and comes from the adopted placement: over all W ranks (rank g keeps [floor(g S / W),
 * floor((g + 1) S / W)), uneven by at most one element; the layout before any plan) or, for an expert the placement
 * shards by node, over the ranks of its static home's node only (the others keep an empty range). Each step a rank
 * gathers the full weights of exactly the experts its placement materializes (one sparse all-gather of (layer,
 * expert, shard) chunks), computes with them, and after the backward pass one reduce-scatter sums every copy's
 * gradients (ranks without a copy add zeros) into the shards; the copies are then dropped. When a placement's layout
 * of an expert differs from the one its shards are cut by, the weights and moments move to the new owners first
 * (see reshard).
 */
public final class ShardedExperts implements ExpertStore {

    private final TimedComm comm;
    private final int me;
    private final int ranks;
    private final int[] nodeOfRank;
    private final int layers;
    private final int expertCount;
    private final int dim;
    private final int ffnDim;
    private final long expertSize;
    private final List<List<ExpertParams>> experts; // names and shapes of the tensors a shard spans
    private final ShardLayout[][] layouts; // [layer][expert]: how the expert's shards are cut now
    private final float[][][] shards; // [layer][expert]: this rank's shard of the flattened weights
    private final AdamState[][] states;
    private ExpertParams[][] copies;

    /**
     * experts: the model's initial weights, by layer and expert; this rank keeps its shard of each under the even
     * layout. nodeOfRank: the node of every rank, which a node-sharded expert's owners share with its home.
     */
    public ShardedExperts(TimedComm comm, List<List<ExpertParams>> experts, int[] nodeOfRank) {
        this.comm = comm;
        this.me = comm.rank();
        this.ranks = comm.worldSize();
        if (nodeOfRank.length != ranks) {
            throw new IllegalArgumentException("node table of " + nodeOfRank.length + " ranks for a world of "
                    + ranks);
        }
        this.nodeOfRank = nodeOfRank.clone();
        this.layers = experts.size();
        this.expertCount = experts.get(0).size();
        ExpertParams first = experts.get(0).get(0);
        this.dim = first.dim();
        this.ffnDim = first.ffnDim();
        this.experts = experts;
        if (!first.params().stream().allMatch(Param::decays)) {
            throw new IllegalStateException("FSSDP shards span the expert's tensors, so all must decay alike");
        }
        this.expertSize = first.params().stream().mapToLong(Param::size).sum();
        ShardLayout even = new ShardLayout(ranks, expertSize);
        this.layouts = new ShardLayout[layers][expertCount];
        this.shards = new float[layers][expertCount][];
        this.states = new AdamState[layers][expertCount];
        int from = (int) even.offset(me);
        int size = (int) even.shardBytes(me);
        for (int l = 0; l < layers; l++) {
            for (int e = 0; e < expertCount; e++) {
                float[] flat = ReplicatedExperts.concat(experts.get(l).get(e).params().stream()
                        .map(Param::data).toList());
                layouts[l][e] = even;
                shards[l][e] = Arrays.copyOfRange(flat, from, from + size);
                states[l][e] = new AdamState(size);
            }
        }
    }

    @Override
    public Mode mode() {
        return Mode.FSSDP;
    }

    @Override
    public void materialize(LayerPlacement[] placements) {
        reshard(placements);
        Map<Integer, float[]> owned = new HashMap<>();
        List<Integer> wants = new ArrayList<>();
        for (int l = 0; l < layers; l++) {
            for (int e = 0; e < expertCount; e++) {
                if (shardSize(l, e, me) > 0) {
                    owned.put(chunk(l, e, me), shards[l][e]);
                }
                if (placements[l].holds(me, e)) {
                    for (int g = 0; g < ranks; g++) {
                        if (shardSize(l, e, g) > 0) {
                            wants.add(chunk(l, e, g));
                        }
                    }
                }
            }
        }
        Map<Integer, float[]> got = comm.sparseAllGather(owned, wants.stream().mapToInt(Integer::intValue).toArray());
        copies = new ExpertParams[layers][expertCount];
        for (int l = 0; l < layers; l++) {
            for (int e = 0; e < expertCount; e++) {
                if (placements[l].holds(me, e)) {
                    float[] flat = assemble(got, l, e);
                    ExpertParams copy = new ExpertParams(l, e, dim, ffnDim);
                    int at = 0;
                    for (Param p : copy.params()) {
                        System.arraycopy(flat, at, p.data(), 0, p.size());
                        at += p.size();
                    }
                    copies[l][e] = copy;
                }
            }
        }
    }

    /**
     * Re-cuts every expert whose layout in placements differs from the one its shards follow: each rank offers its
     * old range of the weights, m and v (one chunk per expert), each new owner fetches the old chunks that overlap
     * its new range in one sparse all-gather and keeps the overlap. A chunk is fetched whole even where only part of
     * it overlaps (up to one old shard too many per boundary): simpler than cutting sub-ranges, and a re-shard
     * happens only when a plan changes the layout. The AdamW step count stays: every rank steps every expert's state
     * each step, an empty one included, so all ranks hold the expert's count.
     */
    private void reshard(LayerPlacement[] placements) {
        ShardLayout[][] next = new ShardLayout[layers][expertCount];
        boolean moves = false;
        for (int l = 0; l < layers; l++) {
            for (int e = 0; e < expertCount; e++) {
                next[l][e] = ShardLayout.of(placements[l], e, nodeOfRank, expertSize);
                moves |= !next[l][e].equals(layouts[l][e]);
            }
        }
        if (!moves) {
            return;
        }
        Map<Integer, float[]> owned = new HashMap<>();
        List<Integer> wants = new ArrayList<>();
        for (int l = 0; l < layers; l++) {
            for (int e = 0; e < expertCount; e++) {
                ShardLayout old = layouts[l][e];
                if (next[l][e].equals(old)) {
                    continue;
                }
                if (old.shardBytes(me) > 0) {
                    AdamState s = states[l][e];
                    owned.put(chunk(l, e, me), ReplicatedExperts.concat(List.of(shards[l][e], s.m(), s.v())));
                }
                long lo = next[l][e].offset(me);
                long hi = lo + next[l][e].shardBytes(me);
                for (int g = 0; g < ranks; g++) {
                    if (old.shardBytes(g) > 0 && old.offset(g) < hi && old.offset(g + 1) > lo) {
                        wants.add(chunk(l, e, g));
                    }
                }
            }
        }
        Map<Integer, float[]> got = comm.sparseAllGather(owned, wants.stream().mapToInt(Integer::intValue).toArray());
        for (int l = 0; l < layers; l++) {
            for (int e = 0; e < expertCount; e++) {
                ShardLayout old = layouts[l][e];
                ShardLayout now = next[l][e];
                if (now.equals(old)) {
                    continue;
                }
                int lo = (int) now.offset(me);
                int size = (int) now.shardBytes(me);
                float[] w = new float[size];
                float[] m = new float[size];
                float[] v = new float[size];
                for (int g = 0; g < ranks; g++) {
                    int from = (int) old.offset(g);
                    int n = (int) old.shardBytes(g);
                    int a = Math.max(lo, from);
                    int b = Math.min(lo + size, from + n);
                    if (n > 0 && a < b) {
                        float[] c = got.get(chunk(l, e, g));
                        System.arraycopy(c, a - from, w, a - lo, b - a);
                        System.arraycopy(c, n + a - from, m, a - lo, b - a);
                        System.arraycopy(c, 2 * n + a - from, v, a - lo, b - a);
                    }
                }
                AdamState s = new AdamState(size);
                s.restore(m, v, states[l][e].steps());
                layouts[l][e] = now;
                shards[l][e] = w;
                states[l][e] = s;
            }
        }
    }

    @Override
    public ExpertParams copy(int layer, int expert) {
        return copies[layer][expert];
    }

    /**
     * Rank-major: rank g's segment is its shard of every (layer, expert) in order (empty where it owns none), so the
     * reduce-scatter hands g its own.
     */
    @Override
    public void finish(AdamW optimizer) {
        int[] segments = new int[ranks];
        int total = 0;
        for (int g = 0; g < ranks; g++) {
            for (int l = 0; l < layers; l++) {
                for (int e = 0; e < expertCount; e++) {
                    segments[g] += shardSize(l, e, g);
                }
            }
            total += segments[g];
        }
        float[] grads = new float[total];
        int at = 0;
        for (int g = 0; g < ranks; g++) {
            for (int l = 0; l < layers; l++) {
                for (int e = 0; e < expertCount; e++) {
                    int size = shardSize(l, e, g);
                    if (copies[l][e] != null) {
                        copyRange(copies[l][e], (int) layouts[l][e].offset(g), size, grads, at);
                    }
                    at += size;
                }
            }
        }
        float[] mine = comm.reduceScatterSum(grads, segments);
        float w = ranks;
        at = 0;
        for (int l = 0; l < layers; l++) {
            for (int e = 0; e < expertCount; e++) {
                int size = shardSize(l, e, me);
                float[] g = new float[size];
                for (int i = 0; i < size; i++) {
                    g[i] = mine[at + i] / w;
                }
                at += size;
                // Empty shards step too: the count stays the expert's on every rank (see reshard).
                optimizer.update(shards[l][e], g, 0, states[l][e], true);
            }
        }
        copies = null;
    }

    /** This rank's shard of each expert, cut at the tensor boundaries (a shard may span the end of up). */
    @Override
    public List<TensorSlice> checkpointSlices() {
        List<TensorSlice> out = new ArrayList<>();
        for (int l = 0; l < layers; l++) {
            for (int e = 0; e < expertCount; e++) {
                int from = (int) layouts[l][e].offset(me);
                int size = shardSize(l, e, me);
                AdamState s = states[l][e];
                int start = 0;
                for (Param t : experts.get(l).get(e).params()) {
                    int lo = Math.max(from, start);
                    int hi = Math.min(from + size, start + t.size());
                    if (lo < hi) {
                        int a = lo - from;
                        int b = hi - from;
                        out.add(new TensorSlice(t.name(), t.rows(), t.cols(), lo - start,
                                Arrays.copyOfRange(shards[l][e], a, b), Arrays.copyOfRange(s.m(), a, b),
                                Arrays.copyOfRange(s.v(), a, b), s.steps()));
                    }
                    start += t.size();
                }
            }
        }
        return out;
    }

    /** This rank's shard of each whole expert in the checkpoint, under the layout each expert has now. */
    @Override
    public void restore(TrainingState state) {
        for (int l = 0; l < layers; l++) {
            for (int e = 0; e < expertCount; e++) {
                List<TensorSlice> whole = experts.get(l).get(e).params().stream()
                        .map(p -> state.tensor(p.name())).toList();
                float[] data = ReplicatedExperts.concat(whole.stream().map(TensorSlice::data).toList());
                float[] m = ReplicatedExperts.concat(whole.stream().map(TensorSlice::m).toList());
                float[] v = ReplicatedExperts.concat(whole.stream().map(TensorSlice::v).toList());
                if (data.length != expertSize) {
                    throw new IllegalStateException("checkpoint expert " + e + " of layer " + l + " has "
                            + data.length + " values, the model's " + expertSize
                            + ": resume with the model flags of the run that wrote it");
                }
                int from = (int) layouts[l][e].offset(me);
                int to = from + shardSize(l, e, me);
                shards[l][e] = Arrays.copyOfRange(data, from, to);
                states[l][e].restore(Arrays.copyOfRange(m, from, to), Arrays.copyOfRange(v, from, to),
                        whole.get(0).steps());
            }
        }
    }

    /** An expert's flattened weights from its gathered shards. */
    private float[] assemble(Map<Integer, float[]> got, int layer, int expert) {
        float[] flat = new float[(int) expertSize];
        ShardLayout layout = layouts[layer][expert];
        for (int g = 0; g < ranks; g++) {
            int size = shardSize(layer, expert, g);
            if (size > 0) {
                System.arraycopy(got.get(chunk(layer, expert, g)), 0, flat, (int) layout.offset(g), size);
            }
        }
        return flat;
    }

    /** grad of the flattened expert, elements [from, from + size), into out at at. */
    private static void copyRange(ExpertParams p, int from, int size, float[] out, int at) {
        int start = 0;
        for (Param t : p.params()) {
            int lo = Math.max(from, start);
            int hi = Math.min(from + size, start + t.size());
            if (lo < hi) {
                System.arraycopy(t.grad(), lo - start, out, at + lo - from, hi - lo);
            }
            start += t.size();
        }
    }

    private int shardSize(int layer, int expert, int g) {
        return (int) layouts[layer][expert].shardBytes(g);
    }

    private int chunk(int layer, int expert, int shard) {
        return (layer * expertCount + expert) * ranks + shard;
    }
}
