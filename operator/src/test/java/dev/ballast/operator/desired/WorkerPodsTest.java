package dev.ballast.operator.desired;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.CheckpointSpec;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.config.OperatorSettings;
import dev.ballast.operator.world.Seat;
import dev.ballast.operator.world.World;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class WorkerPodsTest {
  final TrainingJob job = TestJobs.job("olmoe", 2, 4, 8);
  // index 3 holds node rank 0: master is chosen by rank, not by index
  final World world = new World(3, List.of(new Seat(3, 0, "node-a", "nvl-0", "rack-0"),
      new Seat(1, 1, "node-b", "nvl-0", "rack-0")));
  final Pod pod = WorkerPods.build(job, world, world.seats().get(1), true, OperatorSettings.defaults());

  @Test
  void nameHostnameAndSubdomainMakeAStableDnsName() {
    assertThat(pod.getMetadata().getName()).isEqualTo("olmoe-g3-w1");
    assertThat(pod.getMetadata().getNamespace()).isEqualTo("team-a");
    assertThat(pod.getSpec().getHostname()).isEqualTo("olmoe-g3-w1");
    assertThat(pod.getSpec().getSubdomain()).isEqualTo("olmoe");
    assertThat(pod.getMetadata().getLabels())
        .containsEntry("app", "olmoe")
        .containsEntry(Labels.JOB, "olmoe")
        .containsEntry(Labels.ROLE, "worker")
        .containsEntry(Labels.INDEX, "1")
        .containsEntry(Labels.WORLD_GENERATION, "3");
    assertThat(pod.getMetadata().getAnnotations()).containsEntry(Labels.SPEC_HASH, WorldSpecHash.of(job.getSpec()));
  }

  @Test
  void theSpecHashCoversTheNextWorldFieldsOnly() {
    String before = WorldSpecHash.of(job.getSpec());
    job.getSpec().restartLimit = 42;
    job.getSpec().workers.max = 9;
    job.getSpec().elastic.cooldownSeconds = 1;
    assertThat(WorldSpecHash.of(job.getSpec())).as("live and resize fields").isEqualTo(before);
    job.getSpec().balancer.replanEverySteps = 7;
    assertThat(WorldSpecHash.of(job.getSpec())).isNotEqualTo(before);
  }

  @Test
  void withTheBalancerOffAPodHasNoSidecarNoSidecarUrlAndNeedsNoSecret() {
    assertThat(pod.getSpec().getInitContainers()).extracting(Container::getName).contains(WorkerPods.SIDECAR);
    job.getSpec().balancer.mode = dev.ballast.operator.api.BalancerSpec.Mode.OFF;
    Pod off = WorkerPods.build(job, world, world.seats().get(1), true, OperatorSettings.defaults());
    assertThat(off.getSpec().getInitContainers()).extracting(Container::getName).doesNotContain(WorkerPods.SIDECAR);
    Container trainer = off.getSpec().getContainers().stream().filter(c -> c.getName().equals(WorkerPods.TRAINER))
        .findFirst().orElseThrow();
    assertThat(trainer.getEnv()).extracting(EnvVar::getName).doesNotContain("BALLAST_SIDECAR_URL")
        .contains("BALLAST_WORLD_GENERATION");
    assertThat(io.fabric8.kubernetes.client.utils.Serialization.asJson(off)).doesNotContain("secretKeyRef");
    assertThat(WorkerPods.resourceShape(job.getSpec()).getInitContainers()).extracting(Container::getName)
        .doesNotContain(WorkerPods.SIDECAR);
  }

  @Test
  void ownedByTheJobAsController() {
    var ref = pod.getMetadata().getOwnerReferences();
    assertThat(ref).singleElement().satisfies(r -> {
      assertThat(r.getKind()).isEqualTo("TrainingJob");
      assertThat(r.getUid()).isEqualTo("uid-olmoe");
      assertThat(r.getController()).isTrue();
    });
  }

  @Test
  void trainerGetsGpusAndTorchrunEnvironmentOverridingStaleUserValues() {
    Container trainer = pod.getSpec().getContainers().get(0);
    assertThat(trainer.getResources().getLimits()).containsEntry("nvidia.com/gpu", new Quantity("8"));
    assertThat(trainer.getResources().getRequests()).containsEntry("nvidia.com/gpu", new Quantity("8"));
    assertThat(trainer.getEnv()).filteredOn(e -> e.getName().equals("BALLAST_POD_IP")).singleElement()
        .satisfies(e -> assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("status.podIP"));
    Map<String, String> env = trainer.getEnv().stream().filter(e -> e.getValue() != null)
        .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
    assertThat(env)
        .containsEntry("MASTER_ADDR", "olmoe-g3-w3.olmoe.team-a.svc")
        .containsEntry("MASTER_PORT", "29500")
        .containsEntry("NNODES", "2")
        .containsEntry("NODE_RANK", "1")
        .containsEntry("NPROC_PER_NODE", "8")
        .containsEntry("WORLD_SIZE", "16")
        .containsEntry("BALLAST_WORLD_GENERATION", "3")
        .containsEntry("BALLAST_POD_INDEX", "1")
        .containsEntry("BALLAST_CHECKPOINT_TIMEOUT_SECONDS", "120")
        .containsEntry("USER_VAR", "kept");
    assertThat(trainer.getEnv().stream().filter(e -> e.getName().equals("NODE_RANK"))).hasSize(1);
  }

  @Test
  void sidecarIsANativeSidecarWithAStartupProbeAndTheJobSecret() {
    assertThat(pod.getSpec().getInitContainers()).singleElement().satisfies(c -> {
      assertThat(c.getName()).isEqualTo(WorkerPods.SIDECAR);
      assertThat(c.getRestartPolicy()).isEqualTo("Always");
      assertThat(c.getStartupProbe().getHttpGet().getPath()).isEqualTo("/q/health/ready");
      assertThat(c.getStartupProbe().getHttpGet().getPort().getIntVal()).as("the health listener").isEqualTo(8473);
      assertThat(c.getPorts()).as("the trainer API is on loopback, no container port")
          .extracting(p -> p.getContainerPort()).containsExactly(8473);
      assertThat(c.getEnv()).as("no listen address: the agent's defaults are the pod's").extracting(EnvVar::getName)
          .doesNotContain("BALLAST_BIND_ADDRESS", "BALLAST_TRAINER_API_ADDRESS");
      assertThat(c.getEnv()).anySatisfy(e -> {
        assertThat(e.getName()).isEqualTo("BALLAST_TOKEN");
        assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("olmoe-sidecar-auth-uidolmoe");
      });
      assertThat(c.getEnv()).anySatisfy(e -> {
        assertThat(e.getName()).isEqualTo("BALLAST_BALANCER_ADDRESS");
        assertThat(e.getValue()).isEqualTo("olmoe-balancer.team-a.svc:8471");
      });
    });
  }

  @Test
  void theSidecarPassesTheRestrictedPodSecurityStandardWhateverTheTemplateSays() {
    Container sidecar = pod.getSpec().getInitContainers().get(0);
    assertThat(pod.getSpec().getSecurityContext()).as("the template sets no pod security context").isNull();
    assertThat(RestrictedPolicy.violations(pod.getSpec(), sidecar)).isEmpty();
    assertThat(sidecar.getSecurityContext().getRunAsUser()).isEqualTo(RestrictedSecurity.AGENT_UID);
    // the trainer is the user's: Ballast does not change its security context
    assertThat(RestrictedPolicy.violations(pod.getSpec(), pod.getSpec().getContainers().get(0))).isNotEmpty();
  }

  @Test
  void gatedPinnedToItsNodeAndNeverRestartedByTheKubelet() {
    assertThat(pod.getSpec().getRestartPolicy()).isEqualTo("Never");
    assertThat(pod.getSpec().getSchedulingGates()).extracting("name").containsExactly(Labels.ADMISSION_GATE);
    var terms = pod.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
        .getNodeSelectorTerms();
    assertThat(terms).singleElement().satisfies(t -> assertThat(t.getMatchFields()).singleElement()
        .satisfies(r -> {
          assertThat(r.getKey()).isEqualTo("metadata.name");
          assertThat(r.getValues()).containsExactly("node-b");
        }));
    assertThat(pod.getMetadata().getAnnotations())
        .containsEntry(Labels.ASSIGNED_NODE, "node-b")
        .containsEntry(Labels.NODE_RANK, "1")
        .containsEntry(Labels.WORLD_SIZE, "2")
        .containsKey(Labels.TEMPLATE_HASH);
    assertThat(pod.getSpec().getTolerations()).extracting("key").containsExactly("nvidia.com/gpu");
  }

  @Test
  void recreatedPodsOfACommittedWorldAreNotGated() {
    Pod ungated = WorkerPods.build(job, world, world.seats().get(0), false, OperatorSettings.defaults());
    assertThat(ungated.getSpec().getSchedulingGates()).isEmpty();
  }

  @Test
  void everyUserNodeSelectorTermIsNarrowedToTheChosenNode() {
    job.getSpec().template.getSpec().setAffinity(new AffinityBuilder().withNewNodeAffinity()
        .withNewRequiredDuringSchedulingIgnoredDuringExecution()
        .addNewNodeSelectorTerm().addNewMatchExpression().withKey("zone").withOperator("In").withValues("a")
        .endMatchExpression().endNodeSelectorTerm()
        .addNewNodeSelectorTerm().addNewMatchExpression().withKey("zone").withOperator("In").withValues("b")
        .endMatchExpression().endNodeSelectorTerm()
        .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build());
    Pod p = WorkerPods.build(job, world, world.seats().get(0), true, OperatorSettings.defaults());
    var terms = p.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
        .getNodeSelectorTerms();
    assertThat(terms).hasSize(2).allSatisfy(t -> {
      assertThat(t.getMatchExpressions()).hasSize(1);
      assertThat(t.getMatchFields()).singleElement().satisfies(r -> assertThat(r.getValues()).containsExactly("node-a"));
    });
    // the job's own template is not modified
    assertThat(job.getSpec().template.getSpec().getAffinity().getNodeAffinity()
        .getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms().get(0).getMatchFields()).isEmpty();
  }

  @Test
  void checkpointVolumeIsMountedAndAnnounced() {
    job.getSpec().checkpoint = new CheckpointSpec();
    job.getSpec().checkpoint.volumeClaim = "ckpt-pvc";
    Pod p = WorkerPods.build(job, world, world.seats().get(0), true, OperatorSettings.defaults());
    assertThat(p.getSpec().getVolumes()).filteredOn(v -> v.getPersistentVolumeClaim() != null)
        .singleElement().satisfies(v -> assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo("ckpt-pvc"));
    Container trainer = p.getSpec().getContainers().get(0);
    assertThat(trainer.getVolumeMounts()).anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/ckpt"));
    assertThat(trainer.getEnv()).anySatisfy(e -> assertThat(e.getName()).isEqualTo("BALLAST_CHECKPOINT_DIR"));
  }

  @Test
  void hashIsStableAndChangesWithTheTemplate() {
    Pod again = WorkerPods.build(job, world, world.seats().get(1), true, OperatorSettings.defaults());
    assertThat(TemplateHash.read(again)).isEqualTo(TemplateHash.read(pod));
    job.getSpec().template.getSpec().getContainers().get(0).setImage("registry.example/trainer:2.0");
    Pod changed = WorkerPods.build(job, world, world.seats().get(1), true, OperatorSettings.defaults());
    assertThat(TemplateHash.read(changed)).isNotEqualTo(TemplateHash.read(pod));
  }
}
