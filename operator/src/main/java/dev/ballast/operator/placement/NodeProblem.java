package dev.ballast.operator.placement;

/** Why a node of an existing placement can no longer hold its workers (see {@link GangPlacer#revalidate}). */
public record NodeProblem(String node, Exclusion cause, String detail) {
  public String message() {
    return "node " + node + " " + detail;
  }
}
