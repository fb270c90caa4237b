package dev.ballast.trainer.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
                                .isCloseTo(j[i], org.assertj.core.data.Offset.offset(bound));
                    }
                }
            }
        }
    }
}
