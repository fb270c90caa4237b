package dev.ballast.operator.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/** An elastic Mixture-of-Experts training job: gang-admitted GPU workers plus a per-job expert balancer. */
@Group(TrainingJob.GROUP)
@Version(TrainingJob.VERSION)
@Kind("TrainingJob")
@Plural("trainingjobs")
@Singular("trainingjob")
@ShortNames("tj")
@Categories({"ballast", "training"})
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.readyWorkers", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Desired", jsonPath = ".status.desiredWorkers", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Target", jsonPath = ".status.transition.workers", type = AdditionalPrinterColumn.Type.INTEGER, priority = 1)
@AdditionalPrinterColumn(name = "Gen", jsonPath = ".status.world.generation", type = AdditionalPrinterColumn.Type.INTEGER, priority = 1)
@AdditionalPrinterColumn(name = "Restarts", jsonPath = ".status.restarts", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Imbalance", jsonPath = ".status.balancer.imbalanceAfter", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(name = "Plan", jsonPath = ".status.balancer.planVersion", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Reason", jsonPath = ".status.reason", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
@ValidationRule(
    value = "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$') && size(self.metadata.name) <= " + TrainingJob.MAX_NAME_LENGTH,
    message = "metadata.name must be at most " + TrainingJob.MAX_NAME_LENGTH
        + " characters of lowercase letters, digits and '-', starting with a letter and ending with a letter or digit,"
        + " so that pod names like <name>-g<generation>-w<index> stay valid DNS labels")
public class TrainingJob extends CustomResource<TrainingJobSpec, TrainingJobStatus> implements Namespaced {
  public static final String GROUP = "ballast.dev";
  public static final String VERSION = "v1alpha1";
  /** 63 (DNS label) minus "-g", ten generation digits, "-w" and four index digits (see Names#workerPod). */
  public static final int MAX_NAME_LENGTH = 45;
}
