package dev.ballast.agent.balancer;

import dev.ballast.agent.proto.BalancerMessage;
import dev.ballast.agent.proto.ErrorNotice;

/** One sidecar's stream as the balancer sees it (gRPC in production, an in-process link in tests). */
public interface SidecarSession {
    void send(BalancerMessage m);

    /** Sends nothing more and closes the stream (after the error, when there is one). */
    void close(ErrorNotice why);
}
