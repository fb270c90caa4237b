package dev.ballast.operator.config;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The operator's KubernetesClient, built as Quarkus builds its default one (which this replaces), with
 * the e2e chaos hook ({@link ChaosExit}) when {@code ballast.chaos-exit-after-writes} is set.
 */
@Singleton
public class KubernetesClients {
  @Produces
  @Singleton
  KubernetesClient kubernetesClient(KubernetesSerialization serialization, Config config, OperatorConfig ballast) {
    var builder = new KubernetesClientBuilder().withKubernetesSerialization(serialization).withConfig(config);
    ballast.chaosExitAfterWrites().ifPresent(writes ->
        builder.withHttpClientBuilderConsumer(http -> http.addOrReplaceInterceptor("ballast-chaos", new ChaosExit(writes))));
    return builder.build();
  }

  void close(@Disposes KubernetesClient client) {
    client.close();
  }
}
