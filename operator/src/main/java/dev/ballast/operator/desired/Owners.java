package dev.ballast.operator.desired;

import dev.ballast.operator.api.TrainingJob;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Metadata every child shares: namespace, labels, and a controller owner reference for garbage collection. */
final class Owners {
  private Owners() {}

  static OwnerReference controllerRef(TrainingJob job) {
    return new OwnerReferenceBuilder()
        .withApiVersion(job.getApiVersion())
        .withKind(job.getKind())
        .withName(job.getMetadata().getName())
        .withUid(job.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  static ObjectMeta childMeta(TrainingJob job, String name, Map<String, String> labels) {
    return new ObjectMetaBuilder()
        .withName(name)
        .withNamespace(job.getMetadata().getNamespace())
        .withLabels(new LinkedHashMap<>(labels))
        .withAnnotations(new LinkedHashMap<>())
        .withOwnerReferences(List.of(controllerRef(job)))
        .build();
  }
}
