package dev.ballast.operator.startup;

import dev.ballast.operator.config.OperatorConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

/** Refuses to run against Kubernetes older than 1.29: worker pods need native sidecars and scheduling gates. */
@jakarta.enterprise.context.ApplicationScoped
public class ServerVersionCheck {
  private static final Logger LOG = Logger.getLogger(ServerVersionCheck.class);
  static final int MIN_MINOR = 29;

  @Inject KubernetesClient client;
  @Inject OperatorConfig config;

  void onStart(@Observes StartupEvent event) {
    if (!config.checkServerVersion()) return;
    var version = client.getKubernetesVersion();
    if (!supported(version.getMajor(), version.getMinor())) {
      throw new IllegalStateException("Kubernetes " + version.getGitVersion() + " is too old: Ballast needs 1."
          + MIN_MINOR + " or newer (native sidecar containers and scheduling gates)");
    }
    LOG.infof("Connected to Kubernetes %s", version.getGitVersion());
  }

  /** Minor versions may carry a suffix such as "31+" on managed clusters. */
  static boolean supported(String major, String minor) {
    int maj = Integer.parseInt(major.replaceAll("\\D", ""));
    int min = Integer.parseInt(minor.replaceAll("\\D", ""));
    return maj > 1 || (maj == 1 && min >= MIN_MINOR);
  }
}
