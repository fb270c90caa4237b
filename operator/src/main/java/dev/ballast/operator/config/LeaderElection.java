package dev.ballast.operator.config;

import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import jakarta.enterprise.context.Dependent;
import java.time.Duration;
import jakarta.enterprise.inject.Produces;

/**
 * Leader election for replicated operators: only the holder of the Lease ({@code ballast.lease-name}) reconciles, so
 * two replicas never admit gangs concurrently (that would risk promising a GPU twice). The Quarkus
 * Operator SDK looks this bean up in the prod profile; a null configuration means "no election".
 */
public class LeaderElection {
  @Produces
  @Dependent
  LeaderElectionConfiguration leaderElection(OperatorConfig config) {
    // renew deadline and retry period in the proportions of the defaults (15 s, 10 s, 2 s)
    Duration lease = Duration.ofSeconds(config.leaseDurationSeconds());
    return config.leaseNamespace().map(ns -> new LeaderElectionConfiguration(config.leaseName(), ns, lease,
        lease.multipliedBy(2).dividedBy(3), lease.dividedBy(7))).orElse(null);
  }
}
