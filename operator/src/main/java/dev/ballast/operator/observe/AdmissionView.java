package dev.ballast.operator.observe;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/** What admission reads of the cluster: nodes and the pods holding part of them, and every TrainingJob. */
public interface AdmissionView {
  /** The nodes and the unfinished pods that hold part of them (bound there, or promised by annotation). */
  CapacitySnapshot capacity();

  /** Every TrainingJob of the cluster, in any namespace. */
  ExistingJobs jobs();

  /** The unfinished pods of one namespace, wherever they are (bound or not): what its ResourceQuotas count. */
  List<Pod> pods(String namespace);
}
