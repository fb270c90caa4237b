package dev.ballast.operator.desired;

import dev.ballast.contracts.world.HardwareSpec;
import dev.ballast.contracts.world.PlanningSpec;
import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.contracts.world.WorldDocumentJson;
import dev.ballast.contracts.world.WorldWorker;
import dev.ballast.operator.api.CommittedSpec;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.WorldStatus;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.util.Locale;
import java.util.Map;

/**
 * The world document the balancer reads (docs/contracts.md), rendered from {@code status.world}: the committed
 * workers and the spec frozen at commit. Before the first commit it holds generation 0, no workers and no spec.
 */
public final class WorldConfigMap {
  private WorldConfigMap() {}

  /** @param committed status.world of the job (null before the first commit) */
  public static ConfigMap build(TrainingJob job, WorldStatus committed) {
    String name = job.getMetadata().getName();
    ConfigMap cm = new ConfigMap();
    cm.setMetadata(Owners.childMeta(job, Names.worldConfigMap(name), Labels.forJob(name)));
    cm.setData(Map.of(WorldDocument.CONFIG_MAP_KEY, WorldDocumentJson.encode(document(job, committed))));
    return TemplateHash.stamp(cm);
  }

  static WorldDocument document(TrainingJob job, WorldStatus committed) {
    String name = job.getMetadata().getName();
    String namespace = job.getMetadata().getNamespace();
    if (committed == null || committed.generation == null) {
      return WorldDocument.uncommitted(name, namespace, job.getSpec().gpusPerWorker);
    }
    // A status.world written before the snapshot existed carries neither field: the live spec stands in.
    CommittedSpec frozen = committed.spec != null ? committed.spec : CommittedSpec.of(job.getSpec());
    int gpusPerWorker = committed.gpusPerWorker != null ? committed.gpusPerWorker : job.getSpec().gpusPerWorker;
    return new WorldDocument(name, namespace, committed.generation, gpusPerWorker, planningSpec(frozen),
        committed.nodes.stream()
            .map(n -> new WorldWorker(n.index, n.pod, n.nodeRank, n.node, n.domain, n.rack))
            .toList());
  }

  static PlanningSpec planningSpec(CommittedSpec s) {
    return new PlanningSpec(s.parallelism.expert, s.parallelism.pipeline,
        s.model.moeLayers, s.model.experts, s.model.topK, s.model.sharedExperts, s.model.hiddenSize,
        s.model.ffnHiddenSize, s.model.bytesPerParam,
        s.balancer.mode.name().toLowerCase(Locale.ROOT), s.balancer.planner.wireName(),
        s.balancer.redundantSlotsPerGpu, s.balancer.replanEverySteps,
        s.balancer.memoryBudgetBytes == null ? 0 : s.balancer.memoryBudgetBytes, hardware(s.balancer.hardware));
  }

  /** A world committed before spec.balancer.hardware existed was planned for the defaults, and still is. */
  private static HardwareSpec hardware(dev.ballast.operator.api.HardwareSpec h) {
    return h == null ? HardwareSpec.DEFAULT
        : new HardwareSpec(h.nvlinkGBps, h.nicGBps, h.crossRackGBps, h.peakTflops, h.gemmEfficiency);
  }
}
