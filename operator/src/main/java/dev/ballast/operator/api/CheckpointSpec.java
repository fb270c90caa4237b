package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** Persistent volume for checkpoints, mounted into every worker. */
public class CheckpointSpec {
  @Required
  @JsonPropertyDescription("Name of a PersistentVolumeClaim in the job's namespace (ReadWriteMany for more than one node).")
  public String volumeClaim;

  @Default("/ckpt")
  @Pattern("^/.*")
  @JsonPropertyDescription("Absolute mount path in the trainer container; exported as BALLAST_CHECKPOINT_DIR.")
  public String path = "/ckpt";
}
