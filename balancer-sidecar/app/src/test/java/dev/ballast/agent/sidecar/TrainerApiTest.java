package dev.ballast.agent.sidecar;

import com.google.protobuf.ByteString;
import dev.ballast.agent.proto.BalancerMessage;
import dev.ballast.agent.proto.PlanMessage;
import dev.ballast.agent.proto.Welcome;
import dev.ballast.agent.proto.WorldChange;
import dev.ballast.agent.sim.TestWorlds;
import dev.ballast.agent.wire.Protocol;
import dev.ballast.client.HttpSidecarClient;
import dev.ballast.client.InProcessAllReduce;
import dev.ballast.client.StepLoads;
import dev.ballast.client.PlanAdopter;
import dev.ballast.contracts.plan.PlanHeads;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.contracts.world.WorldDocumentJson;
import dev.ballast.planner.codec.PlanBinary;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The Java client against the real trainer API routes (Vert.x, no Quarkus), backed by a real SidecarCore. */
class TrainerApiTest {
    Vertx vertx;
    HttpServer server;
    SidecarCore core;
    String url;

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        core = new SidecarCore(new SidecarIdentity("j", "ns", 0, "j-worker-0", "t"), 8, 64, System::nanoTime);
        core.onConnected();
        core.onBalancerMessage(BalancerMessage.newBuilder().setWelcome(Welcome.newBuilder().setLayers(2).setExperts(4)
                .setGpusPerWorker(2)).build());
        core.onBalancerMessage(BalancerMessage.newBuilder().setWorld(WorldChange.newBuilder().setGeneration(1)
                .setWorldJson(WorldDocumentJson.encode(TestWorlds.world("j", 1, 2, TestWorlds.spec(2, 4, 1, 2, 1, 50),
                        TestWorlds.worker("j", 0, 0, "n0", "", ""))))).build());
        Router router = Router.router(vertx);
        new SidecarHttp(core, () -> { }).register(router);
        server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").toCompletionStage()
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        url = "http://127.0.0.1:" + server.actualPort();
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    void deliver(Plan p, PlanVersion previous) {
        PlanMessage.Builder m = PlanMessage.newBuilder().setVersion(Protocol.toWire(p.version()))
                .setEarliestStep(p.earliestStep()).setPayload(ByteString.copyFrom(PlanBinary.encode(p)))
                .setFingerprint(PlanBinary.fingerprint(p));
        if (previous != null) {
            m.setPrevious(Protocol.toWire(previous));
        }
        core.onBalancerMessage(BalancerMessage.newBuilder().setPlan(m).build());
    }

    @Test
    void reportsHeadsPlansAndAdoptionOverHttp() {
        Plan p1 = Plan.staticPlan(new PlanVersion(1, 5), 3, Mode.REPLICATE, 2, 4, new Parallelism(2, 1, 1));
        deliver(p1, null);
        try (HttpSidecarClient c = new HttpSidecarClient(url)) {
            assertThat(c.heads(1, 2)).isEqualTo(new PlanHeads(null, new PlanVersion(1, 5)));
            assertThat(c.heads(1, 3)).isEqualTo(new PlanHeads(new PlanVersion(1, 5), new PlanVersion(1, 5)));
            assertThat(c.plan(new PlanVersion(1, 5))).contains(p1);
            assertThat(c.plan(new PlanVersion(1, 6))).isEmpty();
            assertThat(c.world()).contains("\"generation\":1");

            PlanAdopter a = new PlanAdopter(c, new InProcessAllReduce(1), 1);
            assertThat(a.atStepBoundary(2)).isNull();
            assertThat(a.atStepBoundary(3)).isEqualTo(p1);

            c.report(new StepLoads(1, 3, 1, 0, new long[][] {{1, 2, 3, 4}, {5, 6, 7, 8}}, a.currentVersion()));
            c.report(new StepLoads(1, 3, 7, 0, new long[][] {{1, 2, 3, 4}, {5, 6, 7, 8}}, null)); // rank of another pod
            await().atMost(10, TimeUnit.SECONDS).until(() -> c.sentReports() + c.refusedReports() == 2);
            assertThat(c.sentReports()).isEqualTo(1);
            assertThat(c.lastError()).contains("gpuRank 7 is not a rank of this pod");
            assertThat(core.stats().reportsAccepted()).isEqualTo(1);
            // the accepted report and the rank's adoption are queued for the balancer
            assertThat(core.pollOutbound().hasReport()).isTrue();
            assertThat(core.pollOutbound().getAdoption().getAdopted().getSequence()).isEqualTo(5);
        }
    }

    @Test
    void anFssdpPlanWithNodeShardsReachesTheTrainerWithItsLayout() {
        Plan even = Plan.staticPlan(new PlanVersion(1, 5), 3, Mode.FSSDP, 2, 4, new Parallelism(2, 1, 1));
        LayerPlacement sharded = even.placement(0, 0).withNodeShards(new boolean[] {false, true, false, true});
        Plan p = new Plan(even.version(), 3, Mode.FSSDP, "ballast", 4, even.parallelism(),
                new LayerPlacement[][] {{sharded}, {even.placement(1, 0)}});
        deliver(p, null);
        try (HttpSidecarClient c = new HttpSidecarClient(url)) {
            Plan back = c.plan(new PlanVersion(1, 5)).orElseThrow();
            assertThat(back).isEqualTo(p);
            assertThat(back.placement(0, 0).nodeSharded(3)).isTrue();
            assertThat(back.placement(1, 0).hasNodeShards()).isFalse();
            assertThat(PlanBinary.fingerprint(back)).isEqualTo(PlanBinary.fingerprint(p));
        }
    }
}
