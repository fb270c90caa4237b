package dev.ballast.operator.desired;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.contracts.world.WorldDocumentJson;
import dev.ballast.contracts.world.WorldWorker;
import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.BalancerSpec;
import dev.ballast.operator.api.CommittedSpec;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.status.StatusAggregator;
import dev.ballast.operator.world.Decision;
import dev.ballast.operator.world.Seat;
import dev.ballast.operator.world.World;
import dev.ballast.operator.world.WorldStep;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorldConfigMapTest {
  final TrainingJob job = TestJobs.job("olmoe", 2, 4, 8);
  final World world = new World(1, List.of(new Seat(1, 0, "n1", "d0", "r0"), new Seat(0, 1, "n0", null, null)));

  WorldDocument rendered() {
    String json = WorldConfigMap.build(job, job.getStatus() == null ? null : job.getStatus().world)
        .getData().get(WorldDocument.CONFIG_MAP_KEY);
    return WorldDocumentJson.decode(json);
  }

  void commit() {
    var decision = new Decision(new WorldStep.Commit(world), List.of(), null, List.of(), null, true);
    job.setStatus(StatusAggregator.aggregate(job, decision, null, Instant.EPOCH));
  }

  @Test
  void beforeTheFirstCommitTheDocumentHasGenerationZeroAndNeitherWorkersNorSpec() {
    WorldDocument w = rendered();
    assertThat(w.generation()).isZero();
    assertThat(w.nodes()).isEmpty();
    assertThat(w.spec()).isNull();
    assertThat(w.job()).isEqualTo("olmoe");
    assertThat(w.namespace()).isEqualTo("team-a");
  }

  @Test
  void theCommittedWorldCarriesItsWorkersInRankOrderAndTheSpecAsItWasAtCommit() {
    job.getSpec().balancer.memoryBudgetBytes = 1L << 30;
    commit();
    // edits after the commit wait for the next world
    job.getSpec().gpusPerWorker = 4;
    job.getSpec().parallelism.expert = 4;
    job.getSpec().balancer.mode = BalancerSpec.Mode.FSSDP;
    job.getSpec().balancer.replanEverySteps = 7;

    WorldDocument w = rendered();
    assertThat(w.generation()).isEqualTo(1);
    assertThat(w.gpusPerWorker()).isEqualTo(8);
    assertThat(w.nodes()).extracting(n -> n.pod() + "@" + n.node() + "/" + n.domain() + "/" + n.rack())
        .containsExactly("olmoe-g1-w1@n1/d0/r0", "olmoe-g1-w0@n0//");
    assertThat(w.spec().expertParallel()).isEqualTo(8);
    assertThat(w.spec().mode()).isEqualTo("replicate");
    assertThat(w.spec().replanEverySteps()).isEqualTo(50);
    assertThat(w.spec().memoryBudgetBytes()).isEqualTo(1L << 30);
    assertThat(w.spec().moeLayers()).isEqualTo(16);
    assertThat(w.spec().topK()).isEqualTo(8);
  }

  @Test
  void aStatusWorldWithoutTheSnapshotFallsBackToTheLiveSpec() {
    commit();
    job.getStatus().world.spec = null;
    job.getStatus().world.gpusPerWorker = null;
    job.getSpec().balancer.planner = BalancerSpec.Planner.EPLB;
    WorldDocument w = rendered();
    assertThat(w.spec().planner()).isEqualTo("eplb");
    assertThat(w.gpusPerWorker()).isEqualTo(8);
  }

  @Test
  void theDeclaredHardwareIsFrozenAtCommitAndAnOlderSnapshotWithoutItMeansTheDefaults() {
    job.getSpec().balancer.hardware.peakTflops = 312.0;
    job.getSpec().balancer.hardware.nicGBps = 25.0;
    commit();
    job.getSpec().balancer.hardware.peakTflops = 1979.0;
    assertThat(rendered().spec().hardware())
        .isEqualTo(new dev.ballast.contracts.world.HardwareSpec(450, 25, 25, 312, 0.6));
    job.getStatus().world.spec.balancer.hardware = null;
    assertThat(rendered().spec().hardware()).isEqualTo(dev.ballast.contracts.world.HardwareSpec.DEFAULT);
  }

  /** The CRD class status.world.spec and the contract's spec section must use the same field names and values. */
  @Test
  void theStatusSnapshotSerializesExactlyAsTheContractsSpecSection() {
    job.getSpec().balancer.memoryBudgetBytes = 123L;
    job.getSpec().balancer.planner = BalancerSpec.Planner.BALLAST_ROUTED;
    CommittedSpec snapshot = CommittedSpec.of(job.getSpec());
    assertThat(WorldConfigMap.planningSpec(snapshot).planner()).isEqualTo("ballast-routed");
    var document = new WorldDocument("j", "ns", 1, 8, WorldConfigMap.planningSpec(snapshot),
        List.of(new WorldWorker(0, "j-worker-0", 0, "n0", "", "")));
    Object contract = JsonFields.object(Json.parse(WorldDocumentJson.encode(document)), "document").get("spec");
    Object crd = Json.parse(Serialization.asJson(snapshot));
    // Jackson writes the hardware rates as 450.0, the contract's writer as 450: the same JSON number.
    assertThat(integralAsLong(crd)).isEqualTo(contract);
  }

  private static Object integralAsLong(Object json) {
    if (json instanceof java.util.Map<?, ?> m) {
      var out = new java.util.LinkedHashMap<Object, Object>();
      m.forEach((k, v) -> out.put(k, integralAsLong(v)));
      return out;
    }
    return json instanceof Double d && d == Math.rint(d) ? (Object) d.longValue() : json;
  }
}
