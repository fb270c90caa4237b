package dev.ballast.operator.desired;

import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;

/**
 * What makes the containers Ballast adds (sidecar, balancer) pass the {@code restricted} Pod Security Standard:
 * a non-root user, no privilege escalation, no capabilities, the runtime's default seccomp profile, and a
 * read-only root filesystem with an emptyDir at /tmp, where the JVM, Vert.x and Netty's native libraries unpack.
 * Set on the container itself, so the sidecar complies whatever the user's pod template says.
 */
public final class RestrictedSecurity {
  /** The agent image's user and group (images/: user 65532:65532); numeric, so the kubelet can check non-root. */
  public static final long AGENT_UID = 65532;
  /** The emptyDir mounted at /tmp of Ballast's containers. */
  public static final String TMP_VOLUME = "ballast-tmp";
  public static final String TMP_PATH = "/tmp";

  private RestrictedSecurity() {}

  public static SecurityContext container() {
    return new SecurityContextBuilder()
        .withRunAsNonRoot(true)
        .withRunAsUser(AGENT_UID)
        .withRunAsGroup(AGENT_UID)
        .withAllowPrivilegeEscalation(false)
        .withPrivileged(false)
        .withReadOnlyRootFilesystem(true)
        .withNewCapabilities().withDrop("ALL").endCapabilities()
        .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
        .build();
  }

  /** For a pod that only runs Ballast's containers (the balancer). */
  public static PodSecurityContext pod() {
    return new PodSecurityContextBuilder()
        .withRunAsNonRoot(true)
        .withRunAsUser(AGENT_UID)
        .withRunAsGroup(AGENT_UID)
        .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
        .build();
  }

  public static Volume tmpVolume() {
    return new VolumeBuilder().withName(TMP_VOLUME).withNewEmptyDir().endEmptyDir().build();
  }

  public static VolumeMount tmpMount() {
    return new VolumeMountBuilder().withName(TMP_VOLUME).withMountPath(TMP_PATH).build();
  }
}
