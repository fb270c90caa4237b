package dev.ballast.trainer.parallel;

import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.trainer.checkpoint.TensorSlice;
import dev.ballast.trainer.checkpoint.TrainingState;
import dev.ballast.trainer.model.Param;
import dev.ballast.trainer.moe.ExpertParams;
import dev.ballast.trainer.optim.AdamState;
import dev.ballast.trainer.optim.AdamW;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Replicate mode: expert e is owned by its static home rank, which keeps its weights, gradients and AdamW state.
 * Each step the owners send their current weights to the ranks the placement gives a replica (one all-to-all), and
 * after the backward pass the replicas send their gradients back (another), which the owner adds to its own in
 * ascending rank order. A placement need not keep an expert on its home rank (EPLB's placements move compute off
 * homes, docs/cost-model.md): the owner then computes none of its rows but still keeps the expert's state, refreshes
 * every copy and sums their gradients.
 */
public final class ReplicatedExperts implements ExpertStore {

    private final TimedComm comm;
    private final List<List<ExpertParams>> experts;
    private final int me;
    private final int ranks;
    private final int expertCount;
    private final Map<Param, AdamState> states = new LinkedHashMap<>();
    private LayerPlacement[] placements;
    private ExpertParams[][] replicas; // [layer][expert], null where this rank holds no replica

    /** experts: the model's, by layer and expert; this rank keeps (and updates) only those it owns. */
    public ReplicatedExperts(TimedComm comm, List<List<ExpertParams>> experts) {
        this.comm = comm;
        this.experts = experts;
        this.me = comm.rank();
        this.ranks = comm.worldSize();
        this.expertCount = experts.get(0).size();
        for (List<ExpertParams> layer : experts) {
            for (ExpertParams e : layer) {
                if (owner(e.expert()) == me) {
                    e.params().forEach(p -> states.put(p, new AdamState(p.size())));
                }
            }
        }
    }

    @Override
    public Mode mode() {
        return Mode.REPLICATE;
    }

    @Override
    public void materialize(LayerPlacement[] layerPlacements) {
        placements = layerPlacements;
        replicas = new ExpertParams[experts.size()][expertCount];
        if (!hasReplicas()) {
            return;
        }
        float[][] send = new float[ranks][];
        for (int g = 0; g < ranks; g++) {
            List<float[]> parts = new ArrayList<>();
            forEachReplica(g, (l, e) -> {
                if (owner(e) == me) {
                    experts.get(l).get(e).params().forEach(p -> parts.add(p.data()));
                }
            });
            send[g] = concat(parts);
        }
        float[][] recv = comm.allToAllV(send);
        int[] offset = new int[ranks];
        forEachReplica(me, (l, e) -> {
            ExpertParams replica = experts.get(l).get(e).copy();
            int o = owner(e);
            for (Param p : replica.params()) {
                System.arraycopy(recv[o], offset[o], p.data(), 0, p.size());
                offset[o] += p.size();
            }
            replicas[l][e] = replica;
        });
    }

    @Override
    public ExpertParams copy(int layer, int expert) {
        return owner(expert) == me ? experts.get(layer).get(expert) : replicas[layer][expert];
    }

    @Override
    public void finish(AdamW optimizer) {
        if (hasReplicas()) {
            float[][] send = new float[ranks][];
            for (int o = 0; o < ranks; o++) {
                int to = o;
                List<float[]> parts = new ArrayList<>();
                forEachReplica(me, (l, e) -> {
                    if (owner(e) == to) {
                        replicas[l][e].params().forEach(p -> parts.add(p.grad()));
                    }
                });
                send[o] = concat(parts);
            }
            float[][] recv = comm.allToAllV(send);
            for (int g = 0; g < ranks; g++) {
                float[] from = recv[g];
                int[] offset = {0};
                forEachReplica(g, (l, e) -> {
                    if (owner(e) == me) {
                        for (Param p : experts.get(l).get(e).params()) {
                            float[] grad = p.grad();
                            for (int i = 0; i < grad.length; i++) {
                                grad[i] += from[offset[0] + i];
                            }
                            offset[0] += grad.length;
                        }
                    }
                });
            }
        }
        float w = ranks;
        states.forEach((p, state) -> {
            float[] g = p.grad();
            for (int i = 0; i < g.length; i++) {
                g[i] /= w;
            }
            optimizer.update(p, state);
        });
        replicas = null;
        placements = null;
    }

    @Override
    public List<TensorSlice> checkpointSlices() {
        return TensorSlice.of(states);
    }

    @Override
    public void restore(TrainingState state) {
        state.restore(states);
    }

    private int owner(int expert) {
        return ExpertParallelExecutor.home(expert, ranks, expertCount);
    }

    /** Whether any rank holds a copy of an expert it does not own. */
    private boolean hasReplicas() {
        for (LayerPlacement p : placements) {
            for (int g = 0; g < ranks; g++) {
                for (int i = 0; i < p.expertCount(g); i++) {
                    if (owner(p.expertAt(g, i)) != g) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private interface ReplicaVisitor {
        void visit(int layer, int expert);
    }

    /** The replicas on rank g (experts it holds but does not own), by layer, then expert, ascending. */
    private void forEachReplica(int g, ReplicaVisitor v) {
        for (int l = 0; l < placements.length; l++) {
            LayerPlacement p = placements[l];
            for (int i = 0; i < p.expertCount(g); i++) {
                int e = p.expertAt(g, i);
                if (owner(e) != g) {
                    v.visit(l, e);
                }
            }
        }
    }

    static float[] concat(List<float[]> parts) {
        int n = 0;
        for (float[] p : parts) {
            n += p.length;
        }
        float[] out = new float[n];
        int at = 0;
        for (float[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
