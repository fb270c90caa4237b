package dev.ballast.operator.config;

/** Settings the desired-state builders need; a plain record so builders are tested without Quarkus. */
public record OperatorSettings(
    String sidecarImage,
    String balancerImage,
    int sidecarPort,
    int balancerGrpcPort,
    int balancerHttpPort,
    int masterPort) {

  public static OperatorSettings defaults() {
    return new OperatorSettings(OperatorConfig.AGENT_IMAGE, OperatorConfig.AGENT_IMAGE, 8470, 8471, 8472, 29500);
  }
}
