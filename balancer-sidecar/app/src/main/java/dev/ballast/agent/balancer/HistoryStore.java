package dev.ballast.agent.balancer;

/** Where the balancer's load history persists (docs/contracts.md): a ConfigMap in a cluster, nowhere otherwise. */
public interface HistoryStore {
    /** The persisted history document's text, or null when none was ever written. */
    String load();

    /** Persists the document; throws when it could not. */
    void write(String json);

    /** Keeps nothing: a balancer outside a cluster (file mode) starts from nothing each time. */
    HistoryStore NONE = new HistoryStore() {
        @Override
        public String load() {
            return null;
        }

        @Override
        public void write(String json) {
        }
    };
}
