package dev.ballast.agent.balancer;

import dev.ballast.agent.proto.ErrorNotice;

/** Why the balancer will not take a sidecar's message, in the sidecar's terms; it goes back as an {@link ErrorNotice}. */
record Refusal(ErrorNotice.Code code, String message) {
    ErrorNotice notice(boolean fatal) {
        return ErrorNotice.newBuilder().setCode(code).setMessage(message).setFatal(fatal).build();
    }
}
