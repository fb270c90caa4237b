package dev.ballast.operator;

import dev.ballast.operator.api.ModelShape;
import dev.ballast.operator.api.ParallelismSpec;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobSpec;
import dev.ballast.operator.api.Workers;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;

/** Small TrainingJobs for tests. */
public final class TestJobs {
  private TestJobs() {}

  public static TrainingJob job(String name, int min, int max, int gpusPerWorker) {
    TrainingJob job = new TrainingJob();
    job.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace("team-a").withUid("uid-" + name)
        .withGeneration(1L).build());
    TrainingJobSpec spec = new TrainingJobSpec();
    spec.template = new PodTemplateSpecBuilder()
        .withNewMetadata().addToLabels("app", "olmoe").endMetadata()
        .withNewSpec()
        .addNewContainer().withName("trainer").withImage("registry.example/trainer:1.0")
        .addNewEnv().withName("NODE_RANK").withValue("99").endEnv()
        .addNewEnv().withName("USER_VAR").withValue("kept").endEnv()
        .endContainer()
        .addNewToleration().withKey("nvidia.com/gpu").withOperator("Exists").withEffect("NoSchedule").endToleration()
        .endSpec()
        .build();
    spec.workers = new Workers(min, max);
    spec.gpusPerWorker = gpusPerWorker;
    spec.parallelism = new ParallelismSpec(Math.min(8, gpusPerWorker * min), 1);
    spec.model = new ModelShape(16, 64, 8);
    job.setSpec(spec);
    return job;
  }
}
