package dev.ballast.operator.dashboard;

import dev.ballast.operator.api.TrainingJob;
import java.util.List;

/**
 * What a request for the index gets (docs/dashboard.md, "The index of jobs"): 200 with the viewer's name and the jobs
 * they may get, 401 without a token the API server accepts (then {@code message} says what to do).
 */
public record IndexDecision(int httpStatus, String user, String message, List<TrainingJob> visible) {
  static IndexDecision refused(String message) {
    return new IndexDecision(401, "", message, List.of());
  }
}
