package dev.ballast.operator.admission;

import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import java.util.List;

/** What a namespace's admins set on the pods of the namespace: its ResourceQuotas, and its LimitRanges' defaults. */
public record NamespacePolicy(List<ResourceQuota> quotas, List<LimitRange> limitRanges) {
  public static final NamespacePolicy NONE = new NamespacePolicy(List.of(), List.of());

  public NamespacePolicy {
    quotas = List.copyOf(quotas);
    limitRanges = List.copyOf(limitRanges);
  }
}
