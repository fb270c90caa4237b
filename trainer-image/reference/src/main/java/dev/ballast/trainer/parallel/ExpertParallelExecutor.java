package dev.ballast.trainer.parallel;

import dev.ballast.client.StepQuotas;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.StaticLayout;
import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.moe.ExpertActivations;
import dev.ballast.trainer.moe.ExpertBatch;
import dev.ballast.trainer.moe.ExpertExecutor;
import dev.ballast.trainer.moe.ExpertFfn;
import dev.ballast.trainer.moe.ExpertParams;
import dev.ballast.trainer.optim.AdamW;
import java.util.ArrayList;
import java.util.List;

/**
 * Expert parallelism over one EP group spanning the world (ranks 0..W-1). A step's plan (null: the planner's static
 * layout, each rank its home experts floor(e W / E)) says which experts each rank computes; the {@link ExpertStore}
 * materializes those copies (replicate: owners and refreshed replicas; FSSDP: gathered from the shards) and takes
 * their gradients back. Per layer, forward all-gathers the routing counts, splits every (source, expert) among the
 * expert's copies by the quota rule ({@link StepQuotas}, the rule every trainer runs), sends the rows with one
 * all-to-all, runs each copy once on the rows it received (stacked in ascending source order) and sends the outputs
 * back with a second; backward routes dL/dy and dL/dx the same way.
 */
public final class ExpertParallelExecutor implements ExpertExecutor {

    private final Backend backend;
    private final TimedComm comm;
    private final ExpertStore store;
    private final int[] node;
    private final int[] rack;
    private final int me;
    private final int ranks;
    private final int layers;
    private final int expertCount;
    private final LayerStep[] saved;
    private final int[][] lastCounts;
    private final int[] replicaRows;
    private LayerPlacement[] placements;
    private long expertCpuNanos;

    /** What a layer's backward reuses from its forward. */
    private record LayerStep(CopyAssignment assignment, int dim, int[] myRows, ExpertActivations[] acts) {
    }

    /** node: the node (pod) of each rank, for the quota rule's nearest-copy-first routing. */
    public ExpertParallelExecutor(Backend backend, TimedComm comm, ExpertStore store, int layers, int experts,
                                  int[] node) {
        if (node.length != comm.worldSize()) {
            throw new IllegalArgumentException("node table of " + node.length + " ranks for a world of "
                    + comm.worldSize());
        }
        this.backend = backend;
        this.comm = comm;
        this.store = store;
        this.node = node.clone();
        this.rack = new int[node.length];
        this.me = comm.rank();
        this.ranks = comm.worldSize();
        this.layers = layers;
        this.expertCount = experts;
        this.saved = new LayerStep[layers];
        this.lastCounts = new int[layers][];
        this.replicaRows = new int[layers];
    }

    /** The static home of expert e among W ranks of E experts: the owner in replicate mode. */
    public static int home(int expert, int ranks, int experts) {
        return StaticLayout.home(expert, ranks, experts);
    }

    /** The layer's counts of the last forward, all ranks summed: the loads a trainer reports. */
    public int[] globalCounts(int layer) {
        return lastCounts[layer].clone();
    }

    /** Rows this rank computed in the layer's last forward on experts whose home is another rank. */
    public int replicaRows(int layer) {
        return replicaRows[layer];
    }

    /**
     * This thread's CPU nanoseconds inside expert FFNs (forward and backward) since construction: the part of a rank's
     * compute a plan moves between ranks, and what the cost model's compute term predicts.
     */
    public long expertCpuNanos() {
        return expertCpuNanos;
    }

    /** Adopts the step's plan (null: the static layout) and materializes its copies. Every rank passes the same. */
    public void beginStep(Plan plan) {
        check(plan);
        LayerPlacement[] p = new LayerPlacement[layers];
        for (int l = 0; l < layers; l++) {
            p[l] = plan == null ? LayerPlacement.staticLayout(ranks, expertCount) : plan.placement(l, 0);
        }
        store.materialize(p);
        placements = p;
    }

    /** After the backward pass: gradients to where they are kept, the optimizer step there. */
    public void finishStep(AdamW optimizer) {
        store.finish(optimizer);
        placements = null;
    }

    @Override
    public List<float[]> forward(int layer, List<ExpertBatch> batches) {
        if (placements == null) {
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
        LayerPlacement placement = placements[layer];
        CopyAssignment a = CopyAssignment.of(placement,
                StepQuotas.forPlacement(placement, node, rack, flat, null));
        float[][] recv = comm.allToAllV(toCopies(a, inputs, dim));
        ExpertActivations[] acts = new ExpertActivations[expertCount];
        float[][] ys = new float[expertCount][];
        replicaRows[layer] = 0;
        for (int e = 0; e < expertCount; e++) {
            int rows = a.copyRows(e, me);
            if (rows > 0) {
                replicaRows[layer] += home(e, ranks, expertCount) == me ? 0 : rows;
                ExpertParams params = params(layer, e);
                float[] x = stack(a, recv, e, dim);
                long cpu = TimedComm.threadCpuNanos();
                acts[e] = ExpertFfn.forward(backend, params, x, rows);
                expertCpuNanos += TimedComm.threadCpuNanos() - cpu;
                ys[e] = acts[e].y();
            }
        }
        saved[layer] = new LayerStep(a, dim, myRows, acts);
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
        int dim = st.dim();
        float[][] recv = comm.allToAllV(toCopies(a, dOutputs, dim));
        float[][] dxs = new float[expertCount][];
        for (int e = 0; e < expertCount; e++) {
            if (st.acts()[e] != null) {
                ExpertParams params = params(layer, e);
                float[] dy = stack(a, recv, e, dim);
                long cpu = TimedComm.threadCpuNanos();
                dxs[e] = ExpertFfn.backward(backend, params, st.acts()[e], dy);
                expertCpuNanos += TimedComm.threadCpuNanos() - cpu;
            }
        }
        return unstack(a, comm.allToAllV(toSources(a, dxs, dim)), st.myRows(), dim);
    }

    private ExpertParams params(int layer, int e) {
        ExpertParams copy = store.copy(layer, e);
        if (copy == null) {
            throw new IllegalStateException("rank " + me + " was sent rows of layer " + layer + " expert " + e
                    + " but holds no copy of it");
        }
        return copy;
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
        if (p.experts() != expertCount || p.layers() != layers) {
            throw new IllegalArgumentException("plan " + p.version() + " has " + p.layers() + " layers of "
                    + p.experts() + " experts; the model has " + layers + " of " + expertCount);
        }
        if (p.mode() != store.mode()) {
            throw new IllegalArgumentException("plan " + p.version() + " is for " + p.mode().wireName()
                    + " mode; this run keeps its experts in " + store.mode().wireName() + " mode");
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
}
