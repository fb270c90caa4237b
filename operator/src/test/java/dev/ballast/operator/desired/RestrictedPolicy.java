package dev.ballast.operator.desired;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The container checks of the {@code restricted} Pod Security Standard (Kubernetes docs, "Pod Security
 * Standards"), plus the read-only root filesystem with a writable /tmp that Ballast asks of its own containers.
 * Returns the violations in words; the e2e suite proves the same on a real API server.
 */
final class RestrictedPolicy {
  private RestrictedPolicy() {}

  static List<String> violations(PodSpec pod, Container c) {
    PodSecurityContext podCtx = pod.getSecurityContext() == null ? new PodSecurityContext() : pod.getSecurityContext();
    SecurityContext ctx = c.getSecurityContext() == null ? new SecurityContext() : c.getSecurityContext();
    List<String> problems = new ArrayList<>();
    Boolean nonRoot = ctx.getRunAsNonRoot() != null ? ctx.getRunAsNonRoot() : podCtx.getRunAsNonRoot();
    if (!Boolean.TRUE.equals(nonRoot)) problems.add("runAsNonRoot is not true");
    Long uid = ctx.getRunAsUser() != null ? ctx.getRunAsUser() : podCtx.getRunAsUser();
    if (uid != null && uid == 0) problems.add("runAsUser is 0");
    if (!Boolean.FALSE.equals(ctx.getAllowPrivilegeEscalation())) problems.add("allowPrivilegeEscalation is not false");
    if (Boolean.TRUE.equals(ctx.getPrivileged())) problems.add("privileged");
    if (ctx.getCapabilities() == null || !ctx.getCapabilities().getDrop().contains("ALL")) {
      problems.add("capabilities do not drop ALL");
    } else if (ctx.getCapabilities().getAdd().stream().anyMatch(a -> !a.equals("NET_BIND_SERVICE"))) {
      problems.add("capabilities add " + ctx.getCapabilities().getAdd());
    }
    var seccomp = ctx.getSeccompProfile() != null ? ctx.getSeccompProfile() : podCtx.getSeccompProfile();
    if (seccomp == null || !List.of("RuntimeDefault", "Localhost").contains(seccomp.getType())) {
      problems.add("seccompProfile is not RuntimeDefault or Localhost");
    }
    if (!Boolean.TRUE.equals(ctx.getReadOnlyRootFilesystem())) problems.add("root filesystem is writable");
    boolean tmpFromEmptyDir = c.getVolumeMounts().stream().anyMatch(m -> m.getMountPath().equals("/tmp")
        && pod.getVolumes().stream().filter(v -> v.getName().equals(m.getName())).map(Volume::getEmptyDir)
            .anyMatch(Objects::nonNull));
    if (!tmpFromEmptyDir) problems.add("no emptyDir at /tmp");
    return problems;
  }
}
