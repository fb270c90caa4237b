package dev.ballast.operator.observe;

/** What admission reads of the cluster: nodes and the pods holding part of them, and every TrainingJob. */
public interface AdmissionView {
  /** The nodes and the unfinished pods that hold part of them (bound there, or promised by annotation). */
  CapacitySnapshot capacity();

  /** Every TrainingJob of the cluster, in any namespace. */
  ExistingJobs jobs();
}
