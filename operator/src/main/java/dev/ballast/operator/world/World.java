package dev.ballast.operator.world;

import java.util.Comparator;
import java.util.List;

/** A world generation: its seats in node-rank order. */
public record World(long generation, List<Seat> seats) {
  public World {
    seats = seats.stream().sorted(Comparator.comparingInt(Seat::nodeRank)).toList();
  }

  public int size() {
    return seats.size();
  }

  /** The seat of node rank 0, whose pod hosts the rendezvous (MASTER_ADDR). */
  public Seat master() {
    return seats.get(0);
  }
}
