package dev.ballast.contracts.access;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * What the API server answered for a token, kept {@link #TTL_NANOS} (a page polls every few seconds; a revoked right
 * or token takes effect within that time). Keeps only a digest of each token, and only the newest
 * {@link #MAX_ENTRIES}. Thread-safe.
 */
public final class TokenCache<T> {
    public static final long TTL_NANOS = 30_000_000_000L;
    public static final int MAX_ENTRIES = 256;

    private record Entry<T>(T value, long until) {
    }

    private final LongSupplier clock;
    private final Map<String, Entry<T>> recent = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Entry<T>> eldest) {
            return size() > MAX_ENTRIES;
        }
    };

    public TokenCache(LongSupplier nanoClock) {
        this.clock = nanoClock;
    }

    /** The kept answer for {@code token}, or {@code ask}'s (which may block and throw; nothing is kept then). */
    public T get(String token, Function<String, T> ask) {
        String key = BearerToken.digest(token);
        long now = clock.getAsLong();
        synchronized (recent) {
            Entry<T> e = recent.get(key);
            if (e != null && now - e.until() < 0) {
                return e.value();
            }
        }
        T value = ask.apply(token);
        synchronized (recent) {
            recent.put(key, new Entry<>(value, now + TTL_NANOS));
        }
        return value;
    }
}
