package dev.ballast.operator.events;

import dev.ballast.operator.api.TrainingJob;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import org.jboss.logging.Logger;

/** Records Kubernetes Events on a TrainingJob (visible in {@code kubectl describe tj}) and logs them once. */
public class JobEvents {
  private static final Logger LOG = Logger.getLogger(JobEvents.class);
  private static final String COMPONENT = "ballast-operator";

  private final KubernetesClient client;

  public JobEvents(KubernetesClient client) {
    this.client = client;
  }

  public void normal(TrainingJob job, String reason, String message) {
    record(job, "Normal", reason, message);
  }

  public void warning(TrainingJob job, String reason, String message) {
    record(job, "Warning", reason, message);
  }

  private void record(TrainingJob job, String type, String reason, String message) {
    String ns = job.getMetadata().getNamespace();
    String name = job.getMetadata().getName();
    if ("Warning".equals(type)) {
      LOG.warnf("%s/%s: %s", ns, name, message);
    } else {
      LOG.infof("%s/%s: %s", ns, name, message);
    }
    String now = Instant.now().toString();
    try {
      client.v1().events().inNamespace(ns).resource(new EventBuilder()
          .withNewMetadata().withGenerateName(name + ".").withNamespace(ns).endMetadata()
          .withInvolvedObject(new ObjectReferenceBuilder()
              .withApiVersion(job.getApiVersion()).withKind(job.getKind()).withName(name).withNamespace(ns)
              .withUid(job.getMetadata().getUid()).withResourceVersion(job.getMetadata().getResourceVersion())
              .build())
          .withType(type).withReason(reason).withMessage(truncate(message))
          .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
          .withNewSource().withComponent(COMPONENT).endSource()
          .withReportingComponent(COMPONENT)
          .build()).create();
    } catch (RuntimeException e) {
      LOG.debugf(e, "could not record event %s on %s/%s", reason, ns, name); // events are best effort
    }
  }

  /** The API server limits event messages to 1 KiB. */
  private static String truncate(String message) {
    return message.length() <= 1000 ? message : message.substring(0, 997) + "...";
  }
}
