package dev.ballast.e2e.kubelet;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A container's environment as the kubelet would give it: literal values, the downward API
 * (name, namespace, node, pod IP), Secret and ConfigMap keys read from the API. Because pods share
 * the host's network here, "localhost" means the pod's own loopback address, and cluster DNS names
 * in values are replaced by the addresses they resolve to.
 */
final class EnvResolver {
  private static final Pattern CLUSTER_NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?\\.svc(\\.cluster\\.local)?");
  private static final Pattern LOCALHOST = Pattern.compile("\\b(127\\.0\\.0\\.1|localhost)\\b");

  private final KubernetesClient client;
  private final Addresses addresses;
  private final Pod pod;
  private final String ip;

  EnvResolver(KubernetesClient client, Addresses addresses, Pod pod, String ip) {
    this.client = client;
    this.addresses = addresses;
    this.pod = pod;
    this.ip = ip;
  }

  Map<String, String> resolve(Container c) {
    Map<String, String> env = new LinkedHashMap<>();
    for (EnvVar e : c.getEnv()) {
      String value = e.getValueFrom() != null ? from(e.getValueFrom()) : e.getValue();
      env.put(e.getName(), rewrite(value == null ? "" : value));
    }
    return env;
  }

  private String from(EnvVarSource src) {
    String ns = pod.getMetadata().getNamespace();
    if (src.getFieldRef() != null) {
      return switch (src.getFieldRef().getFieldPath()) {
        case "metadata.name" -> pod.getMetadata().getName();
        case "metadata.namespace" -> ns;
        case "spec.nodeName" -> pod.getSpec().getNodeName();
        case "status.podIP" -> ip;
        default -> throw new IllegalArgumentException("the process kubelet does not support fieldRef "
            + src.getFieldRef().getFieldPath());
      };
    }
    if (src.getSecretKeyRef() != null) {
      Secret s = client.secrets().inNamespace(ns).withName(src.getSecretKeyRef().getName()).get();
      String name = src.getSecretKeyRef().getName();
      String key = src.getSecretKeyRef().getKey();
      if (s == null) throw new MissingReference("secret \"" + name + "\" not found");
      String b64 = s.getData() == null ? null : s.getData().get(key);
      if (b64 == null) throw new MissingReference("couldn't find key " + key + " in Secret " + ns + "/" + name);
      return new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8);
    }
    if (src.getConfigMapKeyRef() != null) {
      ConfigMap cm = client.configMaps().inNamespace(ns).withName(src.getConfigMapKeyRef().getName()).get();
      String name = src.getConfigMapKeyRef().getName();
      String key = src.getConfigMapKeyRef().getKey();
      if (cm == null) throw new MissingReference("configmap \"" + name + "\" not found");
      String value = cm.getData() == null ? null : cm.getData().get(key);
      if (value == null) throw new MissingReference("couldn't find key " + key + " in ConfigMap " + ns + "/" + name);
      return value;
    }
    throw new IllegalArgumentException("unsupported env source " + src);
  }

  /**
   * A Secret or ConfigMap the environment names, or its key, does not exist (yet); the message is the kubelet's. The
   * kubelet does not fail the pod for it: it reports CreateContainerConfigError and tries again until the object
   * appears or the pod is deleted.
   */
  static final class MissingReference extends IllegalStateException {
    MissingReference(String message) {
      super(message);
    }
  }

  private String rewrite(String value) {
    String v = LOCALHOST.matcher(value).replaceAll(ip);
    Matcher m = CLUSTER_NAME.matcher(v);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String resolved = addresses.resolve(m.group());
      m.appendReplacement(out, Matcher.quoteReplacement(resolved != null ? resolved : m.group()));
    }
    m.appendTail(out);
    return out.toString();
  }
}
