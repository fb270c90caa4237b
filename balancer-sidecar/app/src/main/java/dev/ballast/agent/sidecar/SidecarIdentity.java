package dev.ballast.agent.sidecar;

/** Who a sidecar is, from the downward API and the job's auth Secret (the operator sets these env vars). */
public record SidecarIdentity(String job, String namespace, int podIndex, String podName, String token) {
}
