package dev.ballast.operator.observe;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Collection;
import java.util.List;

/** What admission reads of the cluster: nodes, the unfinished pods on them, every TrainingJob. */
public interface AdmissionView {
  List<Node> nodes();

  /** Every TrainingJob of the cluster, in any namespace. */
  ExistingJobs jobs();

  /** Unfinished pods bound to any of {@code nodeNames}, or claiming one by the promise annotation. */
  List<Pod> podsOn(Collection<String> nodeNames);
}
