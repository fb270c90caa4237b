package dev.ballast.agent.sim;

import dev.ballast.agent.balancer.HistoryStore;

import java.util.ArrayList;
import java.util.List;

/** The load history kept in memory: survives a simulated balancer restart like the history ConfigMap does. */
public final class MemoryHistoryStore implements HistoryStore {
    public final List<String> writes = new ArrayList<>();
    public String text;

    @Override
    public synchronized String load() {
        return text;
    }

    @Override
    public synchronized void write(String json) {
        writes.add(json);
        text = json;
    }
}
