package dev.ballast.trainer.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ballast.trainer.data.ByteCorpus;
import dev.ballast.trainer.model.ModelConfig;
import dev.ballast.trainer.optim.AdamWConfig;
import dev.ballast.trainer.train.Trainer;
import dev.ballast.trainer.train.TrainerConfig;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * cuBLAS against the Java backend, skipped (an assumption, not a pass) where no CUDA driver answers. Tolerance per
 * element: 1e-5 * sum_p |a_ip b_pj|, since both sum k float32 products in different orders (cuBLAS may also split k).
 */
class JCudaBackendTest {

    @Test
    void agreesWithJavaForAllTransposes() {
        assumeTrue(Backends.cudaAvailable(), "no CUDA driver or device: the JCuda path is not exercised here");
        Random random = new Random(11);
        try (Backend gpu = Backends.select("jcuda"); Backend cpu = JavaBackend.create()) {
            int[][] shapes = {{1, 1, 1}, {5, 33, 17}, {64, 256, 64}, {257, 130, 129}};
            for (int[] s : shapes) {
                for (int t = 0; t < 4; t++) {
                    boolean ta = (t & 1) != 0, tb = (t & 2) != 0;
                    int m = s[0], n = s[1], k = s[2];
                    float[] a = JavaBackendGemmTest.fill(random, m * k);
                    float[] b = JavaBackendGemmTest.fill(random, k * n);
                    float[] c0 = JavaBackendGemmTest.fill(random, m * n);
                    float[] g = c0.clone();
                    float[] j = c0.clone();
                    gpu.gemm(ta, tb, m, n, k, 0.5f, a, ta ? m : k, b, tb ? k : n, 1f, g, n);
                    cpu.gemm(ta, tb, m, n, k, 0.5f, a, ta ? m : k, b, tb ? k : n, 1f, j, n);
                    for (int i = 0; i < m * n; i++) {
                        double bound = 1e-5 * (0.5 * k + Math.abs(c0[i])); // |a|,|b| <= 1
                        assertThat((double) g[i]).as("%dx%dx%d ta=%s tb=%s at %d", m, n, k, ta, tb, i)
                                .isCloseTo(j[i], offset(bound));
                    }
                }
            }
        }
    }

    /** Whole training steps: the GEMM differences compound through the network, so 1e-3 relative on the loss. */
    @Test
    void trainsLikeJava() {
        assumeTrue(Backends.cudaAvailable(), "no CUDA driver or device: the JCuda path is not exercised here");
        var corpus = ByteCorpus.load(ByteCorpus.DEFAULT);
        var config = new TrainerConfig(new ModelConfig(6, 32, 64, 2, 4, 2), AdamWConfig.defaults(),
                ByteCorpus.DEFAULT, 5, 128, 3, "jcuda");
        try (Backend gpu = Backends.select("jcuda"); Backend cpu = JavaBackend.create()) {
            Trainer onGpu = new Trainer(config, corpus, gpu);
            Trainer onCpu = new Trainer(config, corpus, cpu);
            for (int s = 0; s < config.steps(); s++) {
                double g = onGpu.step().loss();
                double c = onCpu.step().loss();
                assertThat(g).as("step %d", s + 1).isCloseTo(c, offset(1e-3 * Math.abs(c)));
            }
        }
    }
}
