package dev.ballast.agent.runtime;

import dev.ballast.agent.AgentEnv;
import dev.ballast.agent.sidecar.PlanStore;
import dev.ballast.agent.sidecar.SidecarCore;
import dev.ballast.agent.sidecar.SidecarIdentity;
import dev.ballast.agent.sidecar.SidecarLink;
import dev.ballast.agent.wire.StreamTls;
import dev.ballast.contracts.env.ProcessEnv;

import java.util.logging.Logger;

/** Wires the sidecar role: identity from the downward API, the plan store, and the link to the balancer. */
public final class SidecarRuntime implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(SidecarRuntime.class.getName());

    private SidecarCore core;
    private SidecarLink link;

    public void start() {
        String job = AgentEnv.require(ProcessEnv.JOB);
        String podName = AgentEnv.get(ProcessEnv.POD_NAME, job + "-worker-" + AgentEnv.require(ProcessEnv.POD_INDEX));
        SidecarIdentity id = new SidecarIdentity(job, AgentEnv.require(ProcessEnv.NAMESPACE),
                AgentEnv.intValue(ProcessEnv.POD_INDEX, -1), podName, AgentEnv.get(ProcessEnv.TOKEN, ""));
        if (id.podIndex() < 0) {
            throw new IllegalStateException("environment variable BALLAST_POD_INDEX is required");
        }
        core = new SidecarCore(id, AgentEnv.intValue(ProcessEnv.PLAN_CAPACITY, PlanStore.DEFAULT_CAPACITY),
                SidecarCore.DEFAULT_OUTBOX_CAPACITY, System::nanoTime);
        String balancerHost = ProcessEnv.balancerHost(job, id.namespace());
        String address = AgentEnv.get(ProcessEnv.BALANCER_ADDRESS, balancerHost + ":" + ProcessEnv.BALANCER_GRPC_PORT);
        String ca = AgentEnv.get(ProcessEnv.TLS_CA, null);
        if (ca == null) {
            LOG.warning("no " + ProcessEnv.TLS_CA + ": the stream to the balancer is plaintext"
                    + " (the operator always sets it; this is for runs without a cluster)");
        }
        // the balancer's certificate must be the job CA's, for the balancer's Service name, whatever address is dialled
        link = new SidecarLink(core, address, ca == null ? null : new StreamTls.Trust(ca, balancerHost));
        link.start();
        LOG.info("sidecar of " + id.namespace() + "/" + podName + " (pod index " + id.podIndex() + ") streaming to " + address
                + (ca == null ? " in plaintext" : " with TLS, trusting the job's CA for " + balancerHost));
    }

    public SidecarCore core() {
        return core;
    }

    public SidecarLink link() {
        return link;
    }

    @Override
    public void close() {
        if (link != null) {
            link.close();
        }
    }
}
