package dev.ballast.agent.sim;

import dev.ballast.agent.balancer.StatusStore;
import dev.ballast.contracts.status.BalancerStatus;

import java.util.ArrayList;
import java.util.List;

/** status.balancer kept in memory: survives a simulated balancer restart like the TrainingJob's status does. */
public final class MemoryStatusStore implements StatusStore {
    public final List<BalancerStatus> writes = new ArrayList<>();

    @Override
    public synchronized long loadPlanSequence() {
        return writes.isEmpty() ? 0 : writes.get(writes.size() - 1).planSequence();
    }

    @Override
    public synchronized void write(BalancerStatus status) {
        writes.add(status);
    }

    public synchronized BalancerStatus last() {
        return writes.isEmpty() ? null : writes.get(writes.size() - 1);
    }
}
