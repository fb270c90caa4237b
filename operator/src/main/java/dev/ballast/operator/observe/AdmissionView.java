package dev.ballast.operator.observe;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** What admission reads of the cluster: nodes, the unfinished pods on them, whether a pod is known yet, every TrainingJob. */
public interface AdmissionView {
  List<Node> nodes();

  /** Every TrainingJob of the cluster, in any namespace. */
  ExistingJobs jobs();

  /** Unfinished pods bound to any of {@code nodeNames}, or claiming one by the promise annotation. */
  List<Pod> podsOn(Collection<String> nodeNames);

  /** The uid of the pod this view holds under that name, if any. */
  Optional<String> cachedUid(String namespace, String name);
}
