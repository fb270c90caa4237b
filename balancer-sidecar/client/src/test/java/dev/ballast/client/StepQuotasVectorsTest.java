package dev.ballast.client;

import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.vectors.VectorFiles;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.quota.QuotaResult;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The Java client's quota entry point against the shared vectors the Python client also passes. */
class StepQuotasVectorsTest {

    static int[] ints(Object o) {
        return ((List<?>) o).stream().mapToInt(x -> ((Long) x).intValue()).toArray();
    }

    static long[] longs(Object o) {
        return ((List<?>) o).stream().mapToLong(x -> (Long) x).toArray();
    }

    @Test
    void passesEverySharedVector() throws Exception {
        Map<String, Object> file = VectorFiles.load("quota-rule.json");
        List<Object> vectors = JsonFields.requireArray(file, "vectors");
        assertThat(vectors).hasSizeGreaterThan(10);
        for (Object o : vectors) {
            Map<String, Object> v = JsonFields.object(o, "vector");
            int gpus = (int) JsonFields.requireLong(v, "gpus");
            int experts = (int) JsonFields.requireLong(v, "experts");
            List<Object> pl = JsonFields.requireArray(v, "placement");
            int[][] lists = new int[gpus][];
            for (int g = 0; g < gpus; g++) {
                lists[g] = ints(pl.get(g));
            }
            List<Object> rows = JsonFields.requireArray(v, "counts");
            long[] counts = new long[gpus * experts];
            for (int s = 0; s < gpus; s++) {
                System.arraycopy(longs(rows.get(s)), 0, counts, s * experts, experts);
            }
            long[] cap = v.get("capacity") instanceof List<?> c ? longs(c) : null;
            LayerPlacement p = LayerPlacement.of(experts, lists);
            if (v.get("routes") instanceof List<?> routes) {
                p = p.withRouteLists(routes.stream().map(StepQuotasVectorsTest::ints).toArray(int[][]::new));
            }
            QuotaResult r = StepQuotas.forPlacement(p, ints(v.get("node")), ints(v.get("rack")), counts, cap);
            Map<String, Object> ex = JsonFields.object(v.get("expected"), "expected");
            String name = (String) v.get("name");
            assertThat(r.threshold()).as(name).isEqualTo(JsonFields.requireLong(ex, "threshold"));
            long[] load = new long[r.gpus()];
            for (int g = 0; g < load.length; g++) {
                load[g] = r.gpuLoad(g);
            }
            assertThat(load).as(name).containsExactly(longs(ex.get("gpuLoad")));
            List<Object> copies = JsonFields.requireArray(ex, "copies");
            for (int c = 0; c < copies.size(); c++) {
                assertThat(r.copyQuota(c)).as(name + " copy " + c).isEqualTo(longs(copies.get(c))[2]);
            }
        }
    }
}
