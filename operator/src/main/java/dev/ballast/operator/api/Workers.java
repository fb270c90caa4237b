package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;

/** Elastic range of worker pods. */
public class Workers {
  /** Pod names carry the index, so the range is bounded to keep them DNS labels (see {@link TrainingJob#MAX_NAME_LENGTH}). */
  public static final int MAX_WORKERS = 1024;

  @Required
  @Min(1)
  @Max(MAX_WORKERS)
  @JsonPropertyDescription("Fewest workers the job runs with; below this no world runs.")
  public Integer min;

  @Required
  @Min(1)
  @Max(MAX_WORKERS)
  @JsonPropertyDescription("Most workers the job uses when GPUs are free.")
  public Integer max;

  public Workers() {}

  public Workers(int min, int max) {
    this.min = min;
    this.max = max;
  }
}
