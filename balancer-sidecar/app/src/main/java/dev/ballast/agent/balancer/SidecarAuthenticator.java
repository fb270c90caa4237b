package dev.ballast.agent.balancer;

import dev.ballast.agent.proto.ErrorNotice;
import dev.ballast.agent.proto.Hello;
import dev.ballast.agent.wire.Protocol;
import dev.ballast.contracts.world.WorldDocument;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Decides whether a sidecar's hello may open a session: a protocol this balancer speaks, the job's token (compared
 * in constant time), this balancer's job, and a pod of the current world. Pure apart from the token it holds.
 */
final class SidecarAuthenticator {
    private final String job;
    private final String namespace;
    private final byte[] token;

    SidecarAuthenticator(String job, String namespace, String token) {
        if (token == null || token.isEmpty()) {
            throw new IllegalArgumentException("the balancer needs the job's sidecar token (BALLAST_TOKEN)");
        }
        this.job = job;
        this.namespace = namespace;
        this.token = token.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Null when the sidecar may join; otherwise why not. {@code world} is null (or empty) until one is committed (a
     * committed world always carries its spec).
     */
    Refusal check(Hello h, WorldDocument world) {
        if (h.getProtocolVersion() < Protocol.MIN_SUPPORTED || h.getProtocolVersion() > Protocol.VERSION) {
            return new Refusal(ErrorNotice.Code.INCOMPATIBLE_PROTOCOL, "sidecar speaks protocol " + h.getProtocolVersion()
                    + " but this balancer supports " + Protocol.MIN_SUPPORTED + ".." + Protocol.VERSION
                    + "; run the same ballast/agent image version for sidecars and the balancer");
        }
        if (h.getToken().isEmpty()) {
            return new Refusal(ErrorNotice.Code.UNAUTHENTICATED, "no credentials: hello carries no token");
        }
        if (!MessageDigest.isEqual(token, h.getToken().getBytes(StandardCharsets.UTF_8))) {
            return new Refusal(ErrorNotice.Code.UNAUTHENTICATED, "wrong token for job " + namespace + "/" + job);
        }
        if (!job.equals(h.getJob()) || !namespace.equals(h.getNamespace())) {
            return new Refusal(ErrorNotice.Code.WRONG_JOB, "this balancer serves " + namespace + "/" + job + ", not "
                    + h.getNamespace() + "/" + h.getJob());
        }
        if (world == null || world.nodes().isEmpty()) {
            return new Refusal(ErrorNotice.Code.NO_WORLD, "no world committed yet; retry later");
        }
        if (world.byPodIndex(h.getPodIndex()) == null) {
            boolean stale = h.getWorldGeneration() > 0 && h.getWorldGeneration() < world.generation();
            return new Refusal(stale ? ErrorNotice.Code.STALE_GENERATION : ErrorNotice.Code.NOT_IN_WORLD,
                    "pod index " + h.getPodIndex() + (stale ? " of world generation " + h.getWorldGeneration() : "")
                            + " is not part of world generation " + world.generation());
        }
        return null;
    }
}
