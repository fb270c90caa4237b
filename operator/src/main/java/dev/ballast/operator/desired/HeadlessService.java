package dev.ballast.operator.desired;

import dev.ballast.operator.api.TrainingJob;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;

/** Headless Service that gives every worker a stable DNS name, ready or not (rendezvous happens before readiness). */
public final class HeadlessService {
  private HeadlessService() {}

  public static Service build(TrainingJob job, int masterPort) {
    String name = job.getMetadata().getName();
    return TemplateHash.stamp(new ServiceBuilder()
        .withMetadata(Owners.childMeta(job, Names.headlessService(name), Labels.forJob(name)))
        .withNewSpec()
        .withClusterIP("None")
        .withPublishNotReadyAddresses(true)
        .withSelector(Labels.workerSelector(name))
        .addNewPort().withName("rendezvous").withPort(masterPort).withNewTargetPort(masterPort).endPort()
        .endSpec()
        .build());
  }
}
