package dev.ballast.agent.dashboard;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Decides who may see this job's page, asking the API server once per token and {@link #TTL_NANOS} (a page polls every
 * two seconds; a revoked right or token takes effect within that time). Keeps only a digest of each token, and only
 * the newest {@link #MAX_ENTRIES}. Thread-safe.
 */
public final class ViewerGate {
    static final long TTL_NANOS = 30_000_000_000L;
    static final int MAX_ENTRIES = 256;

    private record Entry(ViewerDecision decision, long until) {
    }

    private final AccessReview review;
    private final String namespace;
    private final String job;
    private final LongSupplier clock;
    private final Map<String, Entry> recent = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
            return size() > MAX_ENTRIES;
        }
    };

    public ViewerGate(AccessReview review, String namespace, String job, LongSupplier nanoClock) {
        this.review = review;
        this.namespace = namespace;
        this.job = job;
        this.clock = nanoClock;
    }

    /** The decision for a request with this Authorization header (null: none). Blocks while asking the API server. */
    public ViewerDecision decide(String authorization) {
        String token = ViewerDecision.tokenOf(authorization);
        if (token == null) {
            return ViewerDecision.signInFirst();
        }
        String key = digest(token);
        long now = clock.getAsLong();
        synchronized (recent) {
            Entry e = recent.get(key);
            if (e != null && now - e.until() < 0) {
                return e.decision();
            }
        }
        ViewerDecision d = ViewerDecision.of(review.review(token, namespace, job), namespace, job);
        synchronized (recent) {
            recent.put(key, new Entry(d, now + TTL_NANOS));
        }
        return d;
    }

    private static String digest(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
