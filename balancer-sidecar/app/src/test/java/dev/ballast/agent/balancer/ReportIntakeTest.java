package dev.ballast.agent.balancer;

import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.agent.proto.ErrorNotice.Code;
import dev.ballast.agent.proto.LoadReport;
import dev.ballast.planner.model.Parallelism;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ReportIntakeTest {
    static final WorldDocument WORLD = BalancerCoreTest.WORLD; // generation 3, 2 GPUs per pod; pod 5 is node rank 0

    record Step(long step, long[] layer0, long[] layer1) {
    }

    final List<Step> steps = new ArrayList<>();
    final ReportIntake intake = new ReportIntake(() -> 0);

    static LoadReport report(long gen, long step, int rank, int firstLayer, int layers, long... counts) {
        LoadReport.Builder b = LoadReport.newBuilder().setWorldGeneration(gen).setStep(step).setGpuRank(rank)
                .setFirstLayer(firstLayer).setLayers(layers).setExperts(2);
        for (long c : counts) {
            b.addCounts(c);
        }
        return b.build();
    }

    Refusal take(int podIndex, int nodeRank, LoadReport r) {
        return intake.take(podIndex, nodeRank, WORLD, r, done -> steps.add(new Step(done.step(),
                done.loads().counts(0, 0).clone(), done.loads().counts(1, 0).clone())));
    }

    @Test
    void aStepIsHandedOnOnceEveryRankReportedItsStagesLayers() {
        // 4 GPUs as EP 2 x PP 2, two layers of two experts: ranks 0, 1 run layer 0; ranks 2, 3 run layer 1.
        intake.use(new Parallelism(2, 1, 2), 2, 2);
        assertThat(take(5, 0, report(3, 9, 0, 0, 1, 1, 2))).isNull();
        assertThat(take(5, 0, report(3, 9, 1, 0, 1, 3, 4))).isNull();
        assertThat(take(0, 1, report(3, 9, 2, 1, 1, 5, 6))).isNull();
        assertThat(steps).isEmpty();
        assertThat(take(0, 1, report(3, 9, 3, 1, 1, 7, 8))).isNull();
        assertThat(steps).hasSize(1);
        assertThat(steps.get(0).step()).isEqualTo(9);
        assertThat(steps.get(0).layer0()).containsExactly(1, 2, 3, 4);
        assertThat(steps.get(0).layer1()).containsExactly(5, 6, 7, 8);
        assertThat(intake.accepted()).isEqualTo(4);
        assertThat(intake.refused()).isZero();
    }

    @Test
    void refusesOtherGenerationsOtherPodsRanksAndWrongShapesAndKeepsNothingOfThem() {
        intake.use(new Parallelism(4, 1, 1), 2, 2);
        assertThat(take(5, 0, report(2, 1, 0, 0, 2, 1, 1, 1, 1)))
                .isEqualTo(new Refusal(Code.STALE_GENERATION, "report of rank 0 step 1 is from world generation 2; the current generation is 3"));
        assertThat(take(5, 0, report(4, 1, 0, 0, 2, 1, 1, 1, 1)))
                .isEqualTo(new Refusal(Code.BAD_REPORT, "report from world generation 4 but the balancer knows generation 3 only"));
        assertThat(take(5, 0, report(3, 1, 2, 0, 2, 1, 1, 1, 1)))
                .isEqualTo(new Refusal(Code.BAD_REPORT, "gpu rank 2 is not a rank of pod index 5 (GPU ranks 0..1)"));
        Refusal shape = take(5, 0, report(3, 1, 0, 0, 2, 1, 1, 1));
        assertThat(shape.code()).isEqualTo(Code.BAD_REPORT);
        assertThat(shape.message()).contains("expected layers × experts = 4");
        assertThat(intake.refused()).isEqualTo(4);
        assertThat(intake.accepted()).isZero();
        for (int rank = 0; rank < 4; rank++) {
            assertThat(take(rank < 2 ? 5 : 0, rank < 2 ? 0 : 1, report(3, 1, rank, 0, 2, 1, 1, 1, 1))).isNull();
        }
        assertThat(steps).as("the refused reports added nothing to step 1").hasSize(1);
        assertThat(steps.get(0).layer0()).containsExactly(1, 1, 1, 1, 1, 1, 1, 1);
    }

    @Test
    void withoutAUsableLayoutEveryReportIsRefusedWithTheReason() {
        assertThat(take(5, 0, report(3, 1, 0, 0, 2, 1, 1, 1, 1)))
                .isEqualTo(new Refusal(Code.BAD_REPORT, "reports cannot be used: no plan context"));
        intake.use(new Parallelism(4, 1, 1), 2, 2);
        intake.unusable("cannot plan world generation 3: too few GPUs");
        assertThat(take(5, 0, report(3, 1, 0, 0, 2, 1, 1, 1, 1)).message())
                .isEqualTo("reports cannot be used: cannot plan world generation 3: too few GPUs");
    }

    @Test
    void completedStepsAreDeliveredInOrder() {
        intake.use(new Parallelism(4, 1, 1), 2, 2);
        for (long step = 0; step < 3; step++) {
            for (int rank = 3; rank >= 0; rank--) {
                take(rank < 2 ? 5 : 0, rank < 2 ? 0 : 1, report(3, step, rank, 0, 2, step, 0, 0, step));
            }
        }
        assertThat(steps).extracting(Step::step).containsExactly(0L, 1L, 2L);
        assertThat(steps.get(2).layer0()).startsWith(2, 0);
    }
}
