package dev.ballast.operator.config;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The operator's KubernetesClient, built as Quarkus builds its default one (which this replaces), with
 * its requests counted by verb ({@link ApiRequests}), and the e2e chaos hook ({@link ChaosExit}) when
 * {@code ballast.chaos-exit-after-writes} is set.
 */
@Singleton
public class KubernetesClients {
  @Produces
  @Singleton
  KubernetesClient kubernetesClient(KubernetesSerialization serialization, Config config, OperatorConfig ballast,
      MeterRegistry registry) {
    var requests = new ApiRequests(registry);
    var chaos = ballast.chaosExitAfterWrites().map(ChaosExit::new);
    var builder = new KubernetesClientBuilder().withKubernetesSerialization(serialization).withConfig(config)
        .withHttpClientBuilderConsumer(http -> {
          http.addOrReplaceInterceptor("ballast-requests", requests);
          chaos.ifPresent(c -> http.addOrReplaceInterceptor("ballast-chaos", c));
        });
    return builder.build();
  }

  void close(@Disposes KubernetesClient client) {
    client.close();
  }
}
