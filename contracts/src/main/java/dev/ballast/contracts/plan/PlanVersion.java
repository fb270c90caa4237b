package dev.ballast.contracts.plan;

/** Plan version (worldGeneration, sequence), ordered lexicographically (docs/protocol.md). */
public record PlanVersion(long worldGeneration, long sequence) implements Comparable<PlanVersion> {
    public PlanVersion {
        if (worldGeneration < 0 || sequence < 0) {
            throw new IllegalArgumentException("plan version parts must be >= 0");
        }
    }

    @Override
    public int compareTo(PlanVersion o) {
        int c = Long.compare(worldGeneration, o.worldGeneration);
        return c != 0 ? c : Long.compare(sequence, o.sequence);
    }

    @Override
    public String toString() {
        return worldGeneration + "." + sequence;
    }
}
