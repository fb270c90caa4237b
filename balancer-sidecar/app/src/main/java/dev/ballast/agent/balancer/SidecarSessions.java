package dev.ballast.agent.balancer;

import dev.ballast.agent.proto.BalancerMessage;
import dev.ballast.agent.proto.ErrorNotice;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/** The open sidecar streams, by id, and which pod each authenticated one speaks for. Not thread-safe. */
final class SidecarSessions {
    private static final Logger LOG = Logger.getLogger(SidecarSessions.class.getName());

    /** One stream; its pod fields are set once its hello is accepted. */
    static final class Sidecar {
        final long id;
        final SidecarSession session;
        boolean authenticated;
        int podIndex = -1;
        int nodeRank = -1;
        /** Its world is held back until the first plan of the generation, on its way, is sent ahead of it. */
        boolean worldHeldBack;
        /** Its latest health message and when it arrived (the loop's clock); null before the first. */
        dev.ballast.agent.proto.SidecarHealth latestHealth;
        long latestHealthAt;

        Sidecar(long id, SidecarSession session) {
            this.id = id;
            this.session = session;
        }

        void send(BalancerMessage m) {
            session.send(m);
        }

        /** A non-fatal error: the stream stays open. */
        void warn(Refusal why) {
            session.send(BalancerMessage.newBuilder().setError(why.notice(false)).build());
        }
    }

    private final Map<Long, Sidecar> byId = new LinkedHashMap<>();
    private long nextId = 1;
    private long hellosRefused;
    private final Map<ErrorNotice.Code, Long> refusals = new EnumMap<>(ErrorNotice.Code.class);

    long open(SidecarSession s) {
        long id = nextId++;
        byId.put(id, new Sidecar(id, s));
        return id;
    }

    /** The stream, or null once it is closed or refused. */
    Sidecar get(long id) {
        return byId.get(id);
    }

    void closed(long id) {
        byId.remove(id);
    }

    /** The authenticated sidecars, as a copy (refusing one while iterating is fine). */
    List<Sidecar> authenticated() {
        return byId.values().stream().filter(s -> s.authenticated).toList();
    }

    void broadcast(BalancerMessage m) {
        for (Sidecar s : byId.values()) {
            if (s.authenticated) {
                s.send(m);
            }
        }
    }

    /** Closes the stream with a fatal error and forgets it. */
    void refuse(long id, Refusal why) {
        Sidecar s = byId.remove(id);
        if (s == null) {
            return;
        }
        if (!s.authenticated) {
            hellosRefused++;
        }
        refusals.merge(why.code(), 1L, Long::sum);
        LOG.info("refusing sidecar stream: " + why.code() + ": " + why.message());
        s.session.close(why.notice(true));
    }

    /** A non-fatal refusal of one message: the stream stays open. */
    void warn(Sidecar s, Refusal why) {
        refusals.merge(why.code(), 1L, Long::sum);
        s.warn(why);
    }

    /** Messages and streams refused so far, by code (fatal and not). */
    Map<ErrorNotice.Code, Long> refusals() {
        return Map.copyOf(refusals);
    }

    int authenticatedCount() {
        return (int) byId.values().stream().filter(s -> s.authenticated).count();
    }

    long hellosRefused() {
        return hellosRefused;
    }
}
