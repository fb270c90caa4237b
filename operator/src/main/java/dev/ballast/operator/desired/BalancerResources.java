package dev.ballast.operator.desired;

import dev.ballast.contracts.env.ProcessEnv;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import dev.ballast.operator.config.OperatorSettings;
import dev.ballast.operator.world.NodeState;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import java.util.List;

/**
 * The job's balancer: a Deployment of the Ballast agent in its balancer role (one replica while the job
 * has a world to plan for, none while it is Pending or Suspended), a Service for sidecars to stream to,
 * and its identity (ServiceAccount bound to the release's balancer ClusterRole in the job's namespace only).
 */
public final class BalancerResources {
  private BalancerResources() {}

  /**
   * In apply order: identity first, so the Deployment's pods can start with their permissions.
   *
   * @param tlsSerial the serial of the balancer's current certificate (Secret {@code <job>-balancer-tls}) */
  public static List<HasMetadata> build(TrainingJob job, OperatorSettings settings, Phase phase, String tlsSerial) {
    return List.of(serviceAccount(job), roleBinding(job, settings), service(job, settings),
        deployment(job, settings, runs(phase) ? 1 : 0, tlsSerial));
  }

  /**
   * Whether the balancer runs in this phase: not while the job waits for its first world or is suspended
   * (nothing to plan for; its load history waits in its ConfigMap). Between two worlds it keeps running, so
   * the next world's first plan is ready before that world's first step.
   */
  public static boolean runs(Phase phase) {
    return phase != Phase.Pending && phase != Phase.Suspended;
  }

  static ServiceAccount serviceAccount(TrainingJob job) {
    String name = job.getMetadata().getName();
    ServiceAccount sa = new ServiceAccount();
    sa.setMetadata(Owners.childMeta(job, Names.balancer(name), Labels.forRole(name, Labels.ROLE_BALANCER)));
    return TemplateHash.stamp(sa);
  }

  static RoleBinding roleBinding(TrainingJob job, OperatorSettings settings) {
    String name = job.getMetadata().getName();
    return TemplateHash.stamp(new RoleBindingBuilder()
        .withMetadata(Owners.childMeta(job, Names.balancer(name), Labels.forRole(name, Labels.ROLE_BALANCER)))
        .withNewRoleRef()
        .withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole").withName(settings.balancerClusterRole())
        .endRoleRef()
        .addNewSubject()
        .withKind("ServiceAccount").withName(Names.balancer(name)).withNamespace(job.getMetadata().getNamespace())
        .endSubject()
        .build());
  }

  static Service service(TrainingJob job, OperatorSettings settings) {
    String name = job.getMetadata().getName();
    return TemplateHash.stamp(new ServiceBuilder()
        .withMetadata(Owners.childMeta(job, Names.balancer(name), Labels.forRole(name, Labels.ROLE_BALANCER)))
        .withNewSpec()
        .withSelector(Labels.forRole(name, Labels.ROLE_BALANCER))
        .addNewPort().withName("grpc").withPort(settings.balancerGrpcPort())
        .withNewTargetPort(settings.balancerGrpcPort()).endPort()
        .addNewPort().withName("http").withPort(settings.balancerHttpPort())
        .withNewTargetPort(settings.balancerHttpPort()).endPort()
        .endSpec()
        .build());
  }

  static Deployment deployment(TrainingJob job, OperatorSettings settings, int replicas, String tlsSerial) {
    String name = job.getMetadata().getName();
    String namespace = job.getMetadata().getNamespace();
    var labels = Labels.forRole(name, Labels.ROLE_BALANCER);
    return TemplateHash.stamp(new DeploymentBuilder()
        .withMetadata(Owners.childMeta(job, Names.balancer(name), labels))
        .withNewSpec()
        .withReplicas(replicas)
        .withNewStrategy().withType("Recreate").endStrategy() // never two balancers issuing plans at once
        .withNewSelector().withMatchLabels(labels).endSelector()
        .withNewTemplate()
        .withNewMetadata().withLabels(labels).addToAnnotations(BalancerTls.SERIAL_ANNOTATION, tlsSerial).endMetadata()
        .withNewSpec()
        .withServiceAccountName(Names.balancer(name))
        .withTolerations(lostNodeTolerations(job))
        .withSecurityContext(RestrictedSecurity.pod())
        .withVolumes(RestrictedSecurity.tmpVolume())
        .addNewContainer()
        .withName("balancer")
        .withImage(settings.balancerImage())
        .withArgs("balancer")
        .addNewPort().withName("grpc").withContainerPort(settings.balancerGrpcPort()).endPort()
        .addNewPort().withName("http").withContainerPort(settings.balancerHttpPort()).endPort()
        .addNewPort().withName("health").withContainerPort(ProcessEnv.HEALTH_PORT).endPort()
        .addNewEnv().withName(ProcessEnv.ROLE).withValue("balancer").endEnv()
        .addNewEnv().withName(ProcessEnv.JOB).withValue(name).endEnv()
        .addNewEnv().withName(ProcessEnv.NAMESPACE).withValue(namespace).endEnv()
        .addNewEnv().withName(ProcessEnv.WORLD_CONFIGMAP).withValue(Names.worldConfigMap(name)).endEnv()
        .addNewEnv().withName(ProcessEnv.GRPC_PORT_VAR).withValue(Integer.toString(settings.balancerGrpcPort())).endEnv()
        .addNewEnv().withName(ProcessEnv.HTTP_PORT_VAR).withValue(Integer.toString(settings.balancerHttpPort())).endEnv()
        .addToEnv(
            WorkerPods.secretEnv(ProcessEnv.TOKEN, Names.sidecarSecret(name, job.getMetadata().getUid()),
                SidecarSecret.TOKEN_KEY),
            WorkerPods.secretEnv(ProcessEnv.TLS_CERT, Names.balancerTls(name), BalancerTls.TLS_CERT),
            WorkerPods.secretEnv(ProcessEnv.TLS_KEY, Names.balancerTls(name), BalancerTls.TLS_KEY))
        .withNewReadinessProbe()
        .withNewHttpGet().withPath(WorkerPods.AGENT_READY_PATH).withNewPort(ProcessEnv.HEALTH_PORT).endHttpGet()
        .withPeriodSeconds(5)
        .endReadinessProbe()
        .withNewResources()
        .addToRequests("cpu", new Quantity("500m")).addToRequests("memory", new Quantity("512Mi"))
        .addToLimits("memory", new Quantity("1Gi"))
        .endResources()
        .withSecurityContext(RestrictedSecurity.container())
        .withVolumeMounts(RestrictedSecurity.tmpMount())
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build());
  }

  /**
   * The balancer leaves a NotReady or unreachable node when the job counts that node as lost
   * ({@code spec.recovery.nodeLostAfterSeconds}), not after Kubernetes' default five minutes: its Deployment then starts
   * a new balancer at once, which plans the next world from the persisted load history. A node that is deleted or
   * out of service has its balancer pod force-deleted by the operator, as its workers are.
   */
  static List<Toleration> lostNodeTolerations(TrainingJob job) {
    long seconds = job.getSpec().recovery.nodeLostAfterSeconds;
    return NodeState.READINESS_TAINTS.stream().sorted()
        .map(key -> new TolerationBuilder().withKey(key).withOperator("Exists").withEffect("NoExecute")
            .withTolerationSeconds(seconds).build())
        .toList();
  }
}
