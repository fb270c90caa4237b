package dev.ballast.trainer.moe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.backend.JavaBackend;
import dev.ballast.trainer.data.BatchSampler;
import dev.ballast.trainer.data.ByteCorpus;
import dev.ballast.trainer.model.ModelConfig;
import dev.ballast.trainer.model.MoeModel;
import dev.ballast.trainer.model.Param;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The seam a distributed runtime plugs into, exercised the way replicate mode will use it: each expert's rows are
 * computed on replicas ({@link ExpertParams#copy()}), split between two copies, and the replicas' gradients are
 * added into the owner's. Forward outputs are per row, so the loss is the same bits; splitting the rows reorders
 * the weight-gradient sums, so those agree within float tolerance.
 */
class ReplicaExecutorTest {

    private static final ModelConfig CONFIG = new ModelConfig(4, 16, 32, 2, 4, 2);

    @Test
    void replicasGiveTheSameLossAndTheOwnersGetTheGradients() {
        Backend backend = JavaBackend.create();
        var batch = new BatchSampler(ByteCorpus.load(ByteCorpus.DEFAULT), 4, 64, 9).next();

        MoeModel local = new MoeModel(CONFIG, 3);
        local.zeroGrad();
        double localLoss = local.forwardBackward(backend, local.localExecutor(backend), batch).loss();

        MoeModel replicated = new MoeModel(CONFIG, 3);
        replicated.zeroGrad();
        double replicatedLoss = replicated.forwardBackward(backend,
                new SplitReplicaExecutor(backend, replicated.experts()), batch).loss();

        assertThat(Double.doubleToRawLongBits(replicatedLoss)).isEqualTo(Double.doubleToRawLongBits(localLoss));
        List<Param> a = local.allParams();
        List<Param> b = replicated.allParams();
        for (int i = 0; i < a.size(); i++) {
            float[] ga = a.get(i).grad();
            float[] gb = b.get(i).grad();
            double scale = 1e-6;
            for (float g : ga) {
                scale = Math.max(scale, Math.abs(g));
            }
            for (int j = 0; j < ga.length; j++) {
                assertThat((double) gb[j]).as("%s[%d]", a.get(i).name(), j).isCloseTo(ga[j], offset(1e-5 * scale));
            }
        }
    }

    /** Two replicas per expert, each taking half of its rows; gradients returned to the owner after backward. */
    private static final class SplitReplicaExecutor implements ExpertExecutor {
        private final Backend backend;
        private final List<List<ExpertParams>> owners;
        private final List<List<ExpertActivations[]>> saved = new ArrayList<>();
        private final List<List<ExpertParams[]>> replicas = new ArrayList<>();

        SplitReplicaExecutor(Backend backend, List<List<ExpertParams>> owners) {
            this.backend = backend;
            this.owners = owners;
            for (int l = 0; l < owners.size(); l++) {
                saved.add(null);
                replicas.add(null);
            }
        }

        @Override
        public List<float[]> forward(int layer, List<ExpertBatch> batches) {
            List<float[]> outputs = new ArrayList<>();
            List<ExpertActivations[]> acts = new ArrayList<>();
            List<ExpertParams[]> copies = new ArrayList<>();
            for (ExpertBatch b : batches) {
                ExpertParams owner = owners.get(layer).get(b.expert());
                ExpertParams[] pair = {owner.copy(), owner.copy()};
                int half = b.rows() / 2;
                int d = b.dim();
                ExpertActivations first = ExpertFfn.forward(backend, pair[0],
                        Arrays.copyOfRange(b.input(), 0, half * d), half);
                ExpertActivations second = ExpertFfn.forward(backend, pair[1],
                        Arrays.copyOfRange(b.input(), half * d, b.rows() * d), b.rows() - half);
                float[] y = new float[b.rows() * d];
                System.arraycopy(first.y(), 0, y, 0, half * d);
                System.arraycopy(second.y(), 0, y, half * d, (b.rows() - half) * d);
                outputs.add(y);
                acts.add(new ExpertActivations[] {first, second});
                copies.add(pair);
            }
            saved.set(layer, acts);
            replicas.set(layer, copies);
            return outputs;
        }

        @Override
        public List<float[]> backward(int layer, List<float[]> dOutputs) {
            List<float[]> dInputs = new ArrayList<>();
            for (int e = 0; e < dOutputs.size(); e++) {
                ExpertActivations[] acts = saved.get(layer).get(e);
                ExpertParams[] pair = replicas.get(layer).get(e);
                int d = CONFIG.dim();
                int half = acts[0].rows();
                float[] dy = dOutputs.get(e);
                float[] dx0 = ExpertFfn.backward(backend, pair[0], acts[0], Arrays.copyOfRange(dy, 0, half * d));
                float[] dx1 = ExpertFfn.backward(backend, pair[1], acts[1],
                        Arrays.copyOfRange(dy, half * d, dy.length));
                float[] dx = new float[dy.length];
                System.arraycopy(dx0, 0, dx, 0, dx0.length);
                System.arraycopy(dx1, 0, dx, dx0.length, dx1.length);
                dInputs.add(dx);
                ExpertParams owner = owners.get(layer).get(e);
                for (ExpertParams replica : pair) {
                    for (int t = 0; t < 2; t++) {
                        float[] to = owner.params().get(t).grad();
                        float[] from = replica.params().get(t).grad();
                        for (int i = 0; i < to.length; i++) {
                            to[i] += from[i];
                        }
                    }
                }
            }
            return dInputs;
        }
    }
}
