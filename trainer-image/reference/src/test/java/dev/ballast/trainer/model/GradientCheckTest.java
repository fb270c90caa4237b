package dev.ballast.trainer.model;

import static dev.ballast.trainer.model.GradCheck.dot;
import static dev.ballast.trainer.model.GradCheck.gaussian;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.backend.JavaBackend;
import dev.ballast.trainer.data.Batch;
import dev.ballast.trainer.moe.ExpertActivations;
import dev.ballast.trainer.moe.ExpertFfn;
import dev.ballast.trainer.moe.ExpertParams;
import dev.ballast.trainer.moe.Gate;
import dev.ballast.trainer.moe.LocalExpertExecutor;
import dev.ballast.trainer.moe.Routing;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Every layer's backward pass against finite differences (GradCheck states the tolerance), on parameters and on
 * inputs. Where top-k routing is involved the check asserts that the perturbations left the routing unchanged,
 * since top-k is piecewise constant and a flipped choice would make the difference quotient meaningless.
 */
class GradientCheckTest {

    private static final double EPS = 1e-2;
    private final Backend backend = JavaBackend.create();
    private final Random random = new Random(5);

    @Test
    void windowEmbedding() {
        WindowEmbedding emb = new WindowEmbedding(3, 6);
        emb.init(random);
        int tokens = 10;
        int[] ctx = random.ints(tokens * 3, 0, 256).toArray();
        ctx[3] = ctx[0]; // a byte that repeats: its row gathers two gradients
        float[] r = gaussian(random, tokens * 6, 1);
        emb.backward(ctx, tokens, r);
        GradCheck.check("embed", emb.table().data(), emb.table().grad(), () -> dot(emb.forward(ctx, tokens), r),
                EPS, 1);
    }

    @Test
    void rmsNorm() {
        RmsNorm norm = new RmsNorm("norm", 7);
        norm.gain().fillGaussian(random, 1);
        int rows = 5;
        float[] x = gaussian(random, rows * 7, 2);
        float[] r = gaussian(random, rows * 7, 1);
        float[] dx = norm.backward(x, norm.forward(x, rows), r, rows);
        GradCheck.check("norm gain", norm.gain().data(), norm.gain().grad(), () -> dot(norm.forward(x, rows).y(), r),
                EPS, 2);
        GradCheck.check("norm input", x, dx, () -> dot(norm.forward(x, rows).y(), r), EPS, 3);
    }

    @Test
    void gateWithTopKRenormalizedWeights() {
        int dim = 6, experts = 5, tokens = 12;
        Gate gate = new Gate("gate", dim, experts, 2);
        gate.weight().fillGaussian(random, 1);
        float[] x = gaussian(random, tokens * dim, 1);
        float[] r = gaussian(random, tokens * 2, 1);
        Routing routing = gate.route(backend, x, tokens);
        float[] dx = new float[tokens * dim];
        gate.backward(backend, x, routing, r, dx);
        java.util.function.DoubleSupplier loss = () -> {
            Routing now = gate.route(backend, x, tokens);
            assertThat(now.expert()).as("routing unchanged by the perturbation").containsExactly(routing.expert());
            return dot(now.weight(), r);
        };
        GradCheck.check("gate weight", gate.weight().data(), gate.weight().grad(), loss, 1e-3, 4);
        GradCheck.check("gate input", x, dx, loss, 1e-3, 5);
    }

    @Test
    void expertFfn() {
        ExpertParams p = new ExpertParams(0, 0, 6, 9);
        p.init(random, 1);
        int rows = 7;
        float[] x = gaussian(random, rows * 6, 1);
        float[] r = gaussian(random, rows * 6, 1);
        ExpertActivations act = ExpertFfn.forward(backend, p, x, rows);
        float[] dx = ExpertFfn.backward(backend, p, act, r);
        java.util.function.DoubleSupplier loss = () -> dot(ExpertFfn.forward(backend, p, x, rows).y(), r);
        GradCheck.check("expert up", p.up().data(), p.up().grad(), loss, EPS, 6);
        GradCheck.check("expert down", p.down().data(), p.down().grad(), loss, EPS, 7);
        GradCheck.check("expert input", x, dx, loss, EPS, 8);
    }

    @Test
    void outputHeadWithCrossEntropy() {
        OutputHead head = new OutputHead(8);
        head.init(random);
        head.norm().gain().fillGaussian(random, 1);
        int tokens = 9;
        float[] h = gaussian(random, tokens * 8, 1);
        int[] target = random.ints(tokens, 0, 256).toArray();
        float[] dh = head.loss(backend, h, target, tokens, true).dh();
        java.util.function.DoubleSupplier loss = () -> head.loss(backend, h, target, tokens, false).loss();
        GradCheck.check("head", head.weight().data(), head.weight().grad(), loss, EPS, 9);
        GradCheck.check("final norm", head.norm().gain().data(), head.norm().gain().grad(), loss, EPS, 10);
        GradCheck.check("head input", h, dh, loss, EPS, 11);
    }

    @Test
    void moeBlockWithDispatchAndCombine() {
        ModelConfig config = new ModelConfig(1, 6, 8, 1, 4, 2);
        MoeBlock block = new MoeBlock(0, config);
        block.gate().weight().fillGaussian(random, 1);
        block.norm().gain().fillGaussian(random, 1);
        List<ExpertParams> experts = java.util.stream.IntStream.range(0, 4).mapToObj(e -> {
            ExpertParams p = new ExpertParams(0, e, 6, 8);
            p.init(random, 1);
            return p;
        }).toList();
        LocalExpertExecutor executor = new LocalExpertExecutor(backend, List.of(experts));
        int tokens = 10;
        float[] h = gaussian(random, tokens * 6, 1);
        float[] r = gaussian(random, tokens * 6, 1);
        MoeBlock.State state = block.forward(backend, executor, h, tokens);
        float[] dh = block.backward(backend, executor, state, r);
        java.util.function.DoubleSupplier loss = () -> {
            MoeBlock.State now = block.forward(backend, executor, h, tokens);
            assertThat(now.routing().expert()).as("routing unchanged").containsExactly(state.routing().expert());
            return dot(now.out(), r);
        };
        GradCheck.check("block input", h, dh, loss, 1e-3, 12);
        GradCheck.check("block gate", block.gate().weight().data(), block.gate().weight().grad(), loss, 1e-3, 13);
        GradCheck.check("block norm", block.norm().gain().data(), block.norm().gain().grad(), loss, 1e-3, 14);
        ExpertParams busy = experts.stream().filter(e -> state.routing().counts()[e.expert()] > 0).findFirst()
                .orElseThrow();
        GradCheck.check("block expert up", busy.up().data(), busy.up().grad(), loss, 1e-3, 15);
    }

    @Test
    void wholeModelOnATinyConfig() {
        MoeModel model = new MoeModel(new ModelConfig(3, 8, 12, 2, 4, 2), 21);
        int tokens = 12;
        Batch batch = new Batch(tokens, 3, random.ints(tokens * 3, 0, 256).toArray(),
                random.ints(tokens, 0, 256).toArray());
        LocalExpertExecutor executor = model.localExecutor(backend);
        model.zeroGrad();
        StepResult base = model.forwardBackward(backend, executor, batch);
        java.util.function.DoubleSupplier loss = () -> {
            StepResult now = model.loss(backend, executor, batch);
            for (int l = 0; l < base.routing().size(); l++) {
                assertThat(now.routing().get(l).expert()).as("layer %d routing unchanged", l)
                        .containsExactly(base.routing().get(l).expert());
            }
            return now.loss();
        };
        long seed = 100;
        for (Param p : model.allParams()) {
            if (isUnusedExpert(p, base)) {
                continue;
            }
            GradCheck.check("model " + p.name(), p.data(), p.grad(), loss, 1e-3, seed++);
        }
    }

    /** An expert that received no token has a zero gradient, correctly; the check needs a non-zero one. */
    private static boolean isUnusedExpert(Param p, StepResult base) {
        if (!p.name().contains(".expert")) {
            return false;
        }
        String[] parts = p.name().split("\\.");
        int layer = Integer.parseInt(parts[0].substring("layer".length()));
        int expert = Integer.parseInt(parts[1].substring("expert".length()));
        return base.routing().get(layer).counts()[expert] == 0;
    }
}
