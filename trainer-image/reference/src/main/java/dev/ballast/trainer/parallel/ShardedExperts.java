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
 * FSSDP: every expert's tensors, flattened in {@link ExpertParams#params()} order (up, then down), are split over
 * the W ranks by the planner's {@link ShardLayout} (rank g keeps [floor(g S / W), floor((g + 1) S / W)), uneven by
 * at most one element), with the AdamW state of that shard only. Each step a rank gathers the full weights of
 * exactly the experts its placement materializes (one sparse all-gather of (layer, expert, shard) chunks), computes
 * with them, and after the backward pass one reduce-scatter sums every copy's gradients (ranks without a copy add
 * zeros) into the shards; the copies are then dropped.
 */
public final class ShardedExperts implements ExpertStore {

    private final TimedComm comm;
    private final int me;
    private final int ranks;
    private final int layers;
    private final int expertCount;
    private final int dim;
    private final int ffnDim;
    private final List<List<ExpertParams>> experts; // names and shapes of the tensors a shard spans
    private final ShardLayout layout;
    private final float[][][] shards; // [layer][expert]: this rank's shard of the flattened weights
    private final AdamState[][] states;
    private ExpertParams[][] copies;

    /** experts: the model's initial weights, by layer and expert; this rank keeps its shard of each. */
    public ShardedExperts(TimedComm comm, List<List<ExpertParams>> experts) {
        this.comm = comm;
        this.me = comm.rank();
        this.ranks = comm.worldSize();
        this.layers = experts.size();
        this.expertCount = experts.get(0).size();
        ExpertParams first = experts.get(0).get(0);
        this.dim = first.dim();
        this.ffnDim = first.ffnDim();
        this.experts = experts;
        if (!first.params().stream().allMatch(Param::decays)) {
            throw new IllegalStateException("FSSDP shards span the expert's tensors, so all must decay alike");
        }
        this.layout = new ShardLayout(ranks, first.params().stream().mapToLong(Param::size).sum());
        this.shards = new float[layers][expertCount][];
        this.states = new AdamState[layers][expertCount];
        int from = (int) layout.offset(me);
        int size = shardSize(me);
        for (int l = 0; l < layers; l++) {
            for (int e = 0; e < expertCount; e++) {
                float[] flat = ReplicatedExperts.concat(experts.get(l).get(e).params().stream()
                        .map(Param::data).toList());
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
        Map<Integer, float[]> owned = new HashMap<>();
        if (shardSize(me) > 0) {
            for (int l = 0; l < layers; l++) {
                for (int e = 0; e < expertCount; e++) {
                    owned.put(chunk(l, e, me), shards[l][e]);
                }
            }
        }
        int[] wants = new int[layers * expertCount * ranks];
        int n = 0;
        for (int l = 0; l < layers; l++) {
            for (int e = 0; e < expertCount; e++) {
                if (placements[l].holds(me, e)) {
                    for (int g = 0; g < ranks; g++) {
                        if (shardSize(g) > 0) {
                            wants[n++] = chunk(l, e, g);
                        }
                    }
                }
            }
        }
        Map<Integer, float[]> got = comm.sparseAllGather(owned, Arrays.copyOf(wants, n));
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

    @Override
    public ExpertParams copy(int layer, int expert) {
        return copies[layer][expert];
    }

    /** Rank-major: for each rank g, shard g of every (layer, expert) in order, so reduce-scatter hands g its own. */
    @Override
    public void finish(AdamW optimizer) {
        int[] shardSizes = new int[ranks];
        int total = 0;
        for (int g = 0; g < ranks; g++) {
            shardSizes[g] = layers * expertCount * shardSize(g);
            total += shardSizes[g];
        }
        float[] grads = new float[total];
        int at = 0;
        for (int g = 0; g < ranks; g++) {
            int from = (int) layout.offset(g);
            int size = shardSize(g);
            for (int l = 0; l < layers; l++) {
                for (int e = 0; e < expertCount; e++) {
                    if (copies[l][e] != null) {
                        copyRange(copies[l][e], from, size, grads, at);
                    }
                    at += size;
                }
            }
        }
        float[] mine = comm.reduceScatterSum(grads, shardSizes);
        int size = shardSize(me);
        float w = ranks;
        for (int l = 0; l < layers; l++) {
            for (int e = 0; e < expertCount; e++) {
                int base = (l * expertCount + e) * size;
                float[] g = new float[size];
                for (int i = 0; i < size; i++) {
                    g[i] = mine[base + i] / w;
                }
                optimizer.update(shards[l][e], g, 0, states[l][e], true);
            }
        }
        copies = null;
    }

    /** This rank's shard of each expert, cut at the tensor boundaries (a shard may span the end of up). */
    @Override
    public List<TensorSlice> checkpointSlices() {
        List<TensorSlice> out = new ArrayList<>();
        int from = (int) layout.offset(me);
        int size = shardSize(me);
        for (int l = 0; l < layers; l++) {
            for (int e = 0; e < expertCount; e++) {
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

    /** This rank's shard of each whole expert in the checkpoint, under this world's layout. */
    @Override
    public void restore(TrainingState state) {
        int from = (int) layout.offset(me);
        int size = shardSize(me);
        for (int l = 0; l < layers; l++) {
            for (int e = 0; e < expertCount; e++) {
                List<TensorSlice> whole = experts.get(l).get(e).params().stream()
                        .map(p -> state.tensor(p.name())).toList();
                float[] data = ReplicatedExperts.concat(whole.stream().map(TensorSlice::data).toList());
                float[] m = ReplicatedExperts.concat(whole.stream().map(TensorSlice::m).toList());
                float[] v = ReplicatedExperts.concat(whole.stream().map(TensorSlice::v).toList());
                if (data.length != layout.bytesPerExpert()) {
                    throw new IllegalStateException("checkpoint expert " + e + " of layer " + l + " has "
                            + data.length + " values, the model's " + layout.bytesPerExpert()
                            + ": resume with the model flags of the run that wrote it");
                }
                shards[l][e] = Arrays.copyOfRange(data, from, from + size);
                states[l][e].restore(Arrays.copyOfRange(m, from, from + size), Arrays.copyOfRange(v, from,
                        from + size), whole.get(0).steps());
            }
        }
    }

    /** An expert's flattened weights from its gathered shards. */
    private float[] assemble(Map<Integer, float[]> got, int layer, int expert) {
        float[] flat = new float[(int) layout.bytesPerExpert()];
        for (int g = 0; g < ranks; g++) {
            if (shardSize(g) > 0) {
                System.arraycopy(got.get(chunk(layer, expert, g)), 0, flat, (int) layout.offset(g), shardSize(g));
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

    private int shardSize(int g) {
        return (int) layout.shardBytes(g);
    }

    private int chunk(int layer, int expert, int shard) {
        return (layer * expertCount + expert) * ranks + shard;
    }
}
