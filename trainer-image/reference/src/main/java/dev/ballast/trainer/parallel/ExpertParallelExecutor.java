package dev.ballast.trainer.parallel;

import dev.ballast.client.StepQuotas;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.StaticLayout;
import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.model.Param;
import dev.ballast.trainer.moe.ExpertActivations;
import dev.ballast.trainer.moe.ExpertBatch;
import dev.ballast.trainer.moe.ExpertExecutor;
import dev.ballast.trainer.moe.ExpertFfn;
import dev.ballast.trainer.moe.ExpertParams;
import java.util.ArrayList;
import java.util.List;

/**
 * Expert parallelism over one EP group spanning the world (ranks 0..W-1), replicate mode. Expert e is owned by its
 * static home rank floor(e W / E) (the planner's static layout), which keeps its weights, gradients and optimizer
 * state. A plan may materialize extra copies (replicas) on other ranks: {@link #beginStep} refreshes them from the
 * owners, {@link #finishStep} adds their gradients into the owners' in ascending rank order. Per layer, forward
 * all-gathers the routing counts, splits every (source, expert) among the expert's copies by the quota rule
 * ({@link StepQuotas}), sends the rows with one all-to-all, runs each copy once on the rows it received (stacked in
 * source order) and sends the outputs back with a second; backward routes dL/dy and dL/dx the same way.
 */
public final class ExpertParallelExecutor implements ExpertExecutor {

    private final Backend backend;
    private final TimedComm comm;
    private final List<List<ExpertParams>> experts;
    private final int[] node;
    private final int[] rack;
    private final int me;
    private final int ranks;
    private final int expertCount;
    private final LayerStep[] saved;
    private final int[][] lastCounts;
    private final int[] replicaRows;
    private Plan plan;
    private ExpertParams[][] replicas; // [layer][expert], null where this rank holds no replica

    /** What a layer's backward reuses from its forward. */
    private record LayerStep(CopyAssignment assignment, int[] myRows, ExpertActivations[] acts) {
    }

    /**
     * @param experts the model's experts by layer and expert; this rank uses (and updates) only those it owns
     * @param node    node (pod) of each rank, for the quota rule's nearest-copy-first routing
     */
    public ExpertParallelExecutor(Backend backend, TimedComm comm, List<List<ExpertParams>> experts, int[] node) {
        if (node.length != comm.worldSize()) {
            throw new IllegalArgumentException("node table of " + node.length + " ranks for a world of "
                    + comm.worldSize());
        }
        this.backend = backend;
        this.comm = comm;
        this.experts = experts;
        this.node = node.clone();
        this.rack = new int[node.length];
        this.me = comm.rank();
        this.ranks = comm.worldSize();
        this.expertCount = experts.get(0).size();
        this.saved = new LayerStep[experts.size()];
        this.lastCounts = new int[experts.size()][];
        this.replicaRows = new int[experts.size()];
    }

    /** The static home (owner) of expert e. */
    public int owner(int expert) {
        return StaticLayout.home(expert, ranks, expertCount);
    }

    public boolean owns(int expert) {
        return owner(expert) == me;
    }

    /** The layer's counts of the last forward, all ranks summed: the loads a trainer reports. */
    public int[] globalCounts(int layer) {
        return lastCounts[layer].clone();
    }

    /** Rows this rank computed on replicas (experts it does not own) in the layer's last forward. */
    public int replicaRows(int layer) {
        return replicaRows[layer];
    }

    /**
     * Adopts the step's plan (null: the static layout) and materializes its replicas from the owners' current
     * weights. Every rank must pass the same plan.
     */
    public void beginStep(Plan stepPlan) {
        check(stepPlan);
        this.plan = stepPlan;
        this.replicas = new ExpertParams[experts.size()][expertCount];
        if (!hasReplicas()) {
            return;
        }
        float[][] send = new float[ranks][];
        for (int g = 0; g < ranks; g++) {
            List<float[]> parts = new ArrayList<>();
            forEachReplica(g, (l, e) -> {
                if (owns(e)) {
                    experts.get(l).get(e).params().forEach(p -> parts.add(p.data()));
                }
            });
            send[g] = concat(parts);
        }
        float[][] recv = comm.allToAllV(send);
        int[] offset = new int[ranks];
        forEachReplica(me, (l, e) -> {
            ExpertParams owned = experts.get(l).get(e);
            ExpertParams replica = owned.copy();
            int o = owner(e);
            for (Param p : replica.params()) {
                System.arraycopy(recv[o], offset[o], p.data(), 0, p.size());
                offset[o] += p.size();
            }
            replicas[l][e] = replica;
        });
    }

    /** After the backward pass: every replica's gradients are added into its owner's, in ascending rank order. */
    public void finishStep() {
        if (hasReplicas()) {
            float[][] send = new float[ranks][];
            for (int o = 0; o < ranks; o++) {
                int owner = o;
                List<float[]> parts = new ArrayList<>();
                forEachReplica(me, (l, e) -> {
                    if (owner(e) == owner) {
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
                    if (owns(e)) {
                        for (Param p : experts.get(l).get(e).params()) {
                            float[] to = p.grad();
                            for (int i = 0; i < to.length; i++) {
                                to[i] += from[offset[0] + i];
                            }
                            offset[0] += to.length;
                        }
                    }
                });
            }
        }
        replicas = null;
    }

    @Override
    public List<float[]> forward(int layer, List<ExpertBatch> batches) {
        if (replicas == null) {
            throw new IllegalStateException("forward of layer " + layer + " outside beginStep/finishStep");
        }
        int dim = batches.get(0).dim();
        int[] myRows = new int[expertCount];
        float[] counts = new float[expertCount];
        List<float[]> inputs = new ArrayList<>(expertCount);
        for (ExpertBatch b : batches) {
            myRows[b.expert()] = b.rows();
            counts[b.expert()] = b.rows();
            inputs.add(b.input());
        }
        float[][] gathered = comm.allGather(counts);
        long[] flat = new long[ranks * expertCount];
        int[] total = new int[expertCount];
        for (int s = 0; s < ranks; s++) {
            for (int e = 0; e < expertCount; e++) {
                flat[s * expertCount + e] = (long) gathered[s][e];
                total[e] += (int) gathered[s][e];
            }
        }
        lastCounts[layer] = total;
        LayerPlacement placement = placement(layer);
        CopyAssignment a = CopyAssignment.of(placement,
                StepQuotas.forPlacement(placement, node, rack, flat, null));
        float[][] recv = comm.allToAllV(toCopies(a, inputs, dim));
        ExpertActivations[] acts = new ExpertActivations[expertCount];
        float[][] ys = new float[expertCount][];
        replicaRows[layer] = 0;
        for (int e = 0; e < expertCount; e++) {
            int rows = a.copyRows(e, me);
            if (rows > 0) {
                replicaRows[layer] += owns(e) ? 0 : rows;
                acts[e] = ExpertFfn.forward(backend, params(layer, e), stack(a, recv, e, dim), rows);
                ys[e] = acts[e].y();
            }
        }
        saved[layer] = new LayerStep(a, myRows, acts);
        return unstack(a, comm.allToAllV(toSources(a, ys, dim)), myRows, dim);
    }

    @Override
    public List<float[]> backward(int layer, List<float[]> dOutputs) {
        LayerStep st = saved[layer];
        if (st == null) {
            throw new IllegalStateException("backward of layer " + layer + " without its forward");
        }
        saved[layer] = null;
        CopyAssignment a = st.assignment();
        int dim = experts.get(layer).get(0).dim();
        float[][] recv = comm.allToAllV(toCopies(a, dOutputs, dim));
        float[][] dxs = new float[expertCount][];
        for (int e = 0; e < expertCount; e++) {
            if (st.acts()[e] != null) {
                dxs[e] = ExpertFfn.backward(backend, params(layer, e), st.acts()[e], stack(a, recv, e, dim));
            }
        }
        return unstack(a, comm.allToAllV(toSources(a, dxs, dim)), st.myRows(), dim);
    }

    private ExpertParams params(int layer, int e) {
        if (owns(e)) {
            return experts.get(layer).get(e);
        }
        ExpertParams replica = replicas[layer][e];
        if (replica == null) {
            throw new IllegalStateException("rank " + me + " was sent rows of layer " + layer + " expert " + e
                    + " but holds no copy of it");
        }
        return replica;
    }

    private LayerPlacement placement(int layer) {
        return plan == null ? LayerPlacement.staticLayout(ranks, expertCount) : plan.placement(layer, 0);
    }

    private boolean hasReplicas() {
        for (int l = 0; l < experts.size(); l++) {
            LayerPlacement p = placement(l);
            if (p.totalCopies() != expertCount) {
                return true;
            }
        }
        return false;
    }

    private interface ReplicaVisitor {
        void visit(int layer, int expert);
    }

    /** The replicas on rank g (experts it holds but does not own), by layer, then expert, ascending. */
    private void forEachReplica(int g, ReplicaVisitor v) {
        for (int l = 0; l < experts.size(); l++) {
            LayerPlacement p = placement(l);
            for (int i = 0; i < p.expertCount(g); i++) {
                int e = p.expertAt(g, i);
                if (owner(e) != g) {
                    v.visit(l, e);
                }
            }
        }
    }

    private void check(Plan p) {
        if (p == null) {
            return;
        }
        if (p.parallelism().ep() != ranks || p.parallelism().dp() != 1 || p.parallelism().pp() != 1) {
            throw new IllegalArgumentException("plan " + p.version() + " is for ep=" + p.parallelism().ep() + " dp="
                    + p.parallelism().dp() + " pp=" + p.parallelism().pp() + "; this runtime runs one EP group of all "
                    + ranks + " ranks (ep=" + ranks + " dp=1 pp=1)");
        }
        if (p.experts() != expertCount || p.layers() != experts.size()) {
            throw new IllegalArgumentException("plan " + p.version() + " has " + p.layers() + " layers of "
                    + p.experts() + " experts; the model has " + experts.size() + " of " + expertCount);
        }
        for (int l = 0; l < p.layers(); l++) {
            LayerPlacement lp = p.placement(l, 0);
            for (int e = 0; e < expertCount; e++) {
                if (!lp.holds(owner(e), e)) {
                    throw new IllegalArgumentException("plan " + p.version() + " layer " + l + " does not keep expert "
                            + e + " on its home rank " + owner(e) + ": replicate mode needs every owner in place");
                }
            }
        }
    }

    /** This rank's rows of each expert, to the copies: the message to g holds expert by expert its run for g. */
    private float[][] toCopies(CopyAssignment a, List<float[]> perExpert, int dim) {
        float[][] send = new float[ranks][];
        for (int g = 0; g < ranks; g++) {
            float[] m = new float[a.messageRows(me, g) * dim];
            int at = 0;
            for (int e = 0; e < expertCount; e++) {
                int n = a.rows(e, me, g) * dim;
                System.arraycopy(perExpert.get(e), a.firstRow(e, me, g) * dim, m, at, n);
                at += n;
            }
            send[g] = m;
        }
        return send;
    }

    /** The copy on this rank's batch of expert e: every source's run, in ascending source order. */
    private float[] stack(CopyAssignment a, float[][] recv, int e, int dim) {
        float[] x = new float[a.copyRows(e, me) * dim];
        for (int s = 0; s < ranks; s++) {
            System.arraycopy(recv[s], a.messageFirstRow(e, s, me) * dim, x, a.copyFirstRow(e, s, me) * dim,
                    a.rows(e, s, me) * dim);
        }
        return x;
    }

    /** Results of this rank's copies, back to each source: the message to s holds expert by expert s's run. */
    private float[][] toSources(CopyAssignment a, float[][] perCopy, int dim) {
        float[][] send = new float[ranks][];
        for (int s = 0; s < ranks; s++) {
            float[] m = new float[a.messageRows(s, me) * dim];
            int at = 0;
            for (int e = 0; e < expertCount; e++) {
                int n = a.rows(e, s, me) * dim;
                if (n > 0) {
                    System.arraycopy(perCopy[e], a.copyFirstRow(e, s, me) * dim, m, at, n);
                }
                at += n;
            }
            send[s] = m;
        }
        return send;
    }

    /** The copies' results for this rank's rows, reassembled per expert in row (slot) order. */
    private List<float[]> unstack(CopyAssignment a, float[][] recv, int[] myRows, int dim) {
        List<float[]> out = new ArrayList<>(expertCount);
        for (int e = 0; e < expertCount; e++) {
            float[] y = new float[myRows[e] * dim];
            for (int g = 0; g < ranks; g++) {
                System.arraycopy(recv[g], a.messageFirstRow(e, me, g) * dim, y, a.firstRow(e, me, g) * dim,
                        a.rows(e, me, g) * dim);
            }
            out.add(y);
        }
        return out;
    }

    private static float[] concat(List<float[]> parts) {
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
