package dev.ballast.planner.ballast;

/** One slot change on one GPU: {@code removed} leaves and {@code added} arrives (-1: none), so a copy is swapped, added or dropped. */
public record SlotChange(int gpu, int removed, int added) {
    /** Whether the change places a new copy (only those are priced: dropping a replica moves nothing). */
    public boolean addsCopy() {
        return added >= 0;
    }
}
