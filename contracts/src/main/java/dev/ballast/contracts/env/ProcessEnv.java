package dev.ballast.contracts.env;

/**
 * The environment variables the operator sets in worker and balancer pods and the agent and trainers read, and the
 * default ports (docs/protocol.md, "Environment"; vectors: contracts/vectors/environment.json, which the Python
 * client is checked against).
 */
public final class ProcessEnv {
    private ProcessEnv() {
    }

    // ---- default ports (the operator's settings may change the first four; the pods are told through env)
    /** Trainer API of the sidecar, on the pod's loopback only (the trainer is its one client). */
    public static final int SIDECAR_PORT = 8470;
    /** The balancer's gRPC port for sidecars. */
    public static final int BALANCER_GRPC_PORT = 8471;
    /** The balancer's HTTP port: plan, loads and status for the dashboard, behind the job's token. */
    public static final int BALANCER_HTTP_PORT = 8472;
    /** Health and readiness of both roles, for the kubelet's probes on the pod IP; it serves nothing else. */
    public static final int HEALTH_PORT = 8473;
    /** torchrun's rendezvous port on the node-rank-0 pod. */
    public static final int MASTER_PORT = 29500;

    // ---- agent (both roles)
    public static final String ROLE = "BALLAST_ROLE";
    public static final String JOB = "BALLAST_JOB";
    public static final String NAMESPACE = "BALLAST_NAMESPACE";
    public static final String TOKEN = "BALLAST_TOKEN";
    /** Address of the listeners other pods and the kubelet reach (health, the balancer's gRPC and HTTP); 0.0.0.0. */
    public static final String BIND_ADDRESS = "BALLAST_BIND_ADDRESS";
    public static final String HEALTH_PORT_VAR = "BALLAST_HEALTH_PORT";
    // ---- TLS of the sidecar-balancer stream (docs/security.md), PEM text from the job's Secret <job>-balancer-tls
    /** Balancer: its certificate (signed by the job's CA). Unset: the stream is plaintext (runs without an operator). */
    public static final String TLS_CERT = "BALLAST_TLS_CERT";
    /** Balancer: the certificate's PKCS#8 private key. */
    public static final String TLS_KEY = "BALLAST_TLS_KEY";
    /** Sidecar: the job's CA, the only issuer it accepts for {@link #balancerHost}. Unset: plaintext. */
    public static final String TLS_CA = "BALLAST_TLS_CA";

    // ---- sidecar role
    public static final String POD_INDEX = "BALLAST_POD_INDEX";
    public static final String POD_NAME = "BALLAST_POD_NAME";
    public static final String BALANCER_ADDRESS = "BALLAST_BALANCER_ADDRESS";
    public static final String SIDECAR_PORT_VAR = "BALLAST_SIDECAR_PORT";
    /** Address of the trainer API: the pod's loopback, {@link #LOOPBACK}, unless set. */
    public static final String TRAINER_API_ADDRESS = "BALLAST_TRAINER_API_ADDRESS";
    public static final String PLAN_CAPACITY = "BALLAST_PLAN_CAPACITY";

    // ---- balancer role
    public static final String WORLD_CONFIGMAP = "BALLAST_WORLD_CONFIGMAP";
    public static final String GRPC_PORT_VAR = "BALLAST_GRPC_PORT";
    public static final String HTTP_PORT_VAR = "BALLAST_HTTP_PORT";
    /** File mode (no cluster): the world document from a file, status to a file. */
    public static final String WORLD_FILE = "BALLAST_WORLD_FILE";
    public static final String STATUS_FILE = "BALLAST_STATUS_FILE";

    // ---- trainer container (besides POD_INDEX, JOB and NAMESPACE)
    public static final String SIDECAR_URL = "BALLAST_SIDECAR_URL";
    public static final String WORLD_GENERATION = "BALLAST_WORLD_GENERATION";
    public static final String GPUS_PER_WORKER = "BALLAST_GPUS_PER_WORKER";
    /** The pod's IP (downward API status.podIP): the address the trainer's collectives advertise to their peers. */
    public static final String POD_IP = "BALLAST_POD_IP";
    public static final String CHECKPOINT_DIR = "BALLAST_CHECKPOINT_DIR";
    /** Seconds a voluntary stop leaves the trainer between SIGTERM and SIGKILL to checkpoint (docs/elastic.md). */
    public static final String CHECKPOINT_TIMEOUT_SECONDS = "BALLAST_CHECKPOINT_TIMEOUT_SECONDS";
    public static final String MASTER_ADDR = "MASTER_ADDR";
    public static final String MASTER_PORT_VAR = "MASTER_PORT";
    public static final String NNODES = "NNODES";
    public static final String NODE_RANK = "NODE_RANK";
    public static final String NPROC_PER_NODE = "NPROC_PER_NODE";
    public static final String WORLD_SIZE = "WORLD_SIZE";

    /** Where the trainer API listens by default, and where the trainer reaches it. */
    public static final String LOOPBACK = "127.0.0.1";
    /** Where the pod-facing listeners bind by default: every interface of the pod. */
    public static final String ALL_INTERFACES = "0.0.0.0";

    /** The name of a job's balancer (its Service, Deployment, ServiceAccount and TLS certificate). */
    public static String balancerService(String job) {
        return job + "-balancer";
    }

    /** The balancer's host as sidecars reach it, and the name its certificate is checked against. */
    public static String balancerHost(String job, String namespace) {
        return balancerService(job) + "." + namespace + ".svc";
    }

    /** The sidecar's trainer API as the trainer reaches it (the value of {@link #SIDECAR_URL}). */
    public static String sidecarUrl(int sidecarPort) {
        return "http://" + LOOPBACK + ":" + sidecarPort;
    }
}
