"""Plan versions (worldGeneration, sequence): text form "g.s" and the 64-bit integer the adoption all-reduce uses.

The integer is ``generation << 40 | sequence`` (same as the Java client's PlanVersions), so integer order is version
order; ``NONE`` (-1) stands for "no plan" and is lower than every version.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

SEQUENCE_BITS = 40
NONE = -1
_MAX_SEQUENCE = (1 << SEQUENCE_BITS) - 1
_MAX_GENERATION = (1 << (63 - SEQUENCE_BITS)) - 1


class PlanVersion(NamedTuple):
    generation: int
    sequence: int

    def __str__(self) -> str:
        return f"{self.generation}.{self.sequence}"


def parse(text: str) -> PlanVersion:
    parts = text.split(".") if isinstance(text, str) else []
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise ValueError(f"plan version must look like '<generation>.<sequence>', got {text!r}")
    return PlanVersion(int(parts[0]), int(parts[1]))


def static_of(generation: int) -> PlanVersion:
    """The static layout of a generation: sequence 0, never published by the balancer."""
    return PlanVersion(generation, 0)


def encode(v: Optional[PlanVersion]) -> int:
    if v is None:
        return NONE
    if not (0 <= v.sequence <= _MAX_SEQUENCE and 0 <= v.generation <= _MAX_GENERATION):
        raise ValueError(f"plan version {v} does not fit the 64-bit encoding")
    return (v.generation << SEQUENCE_BITS) | v.sequence


def decode(x: int) -> Optional[PlanVersion]:
    if x == NONE:
        return None
    if x < 0:
        raise ValueError(f"not an encoded plan version: {x}")
    return PlanVersion(x >> SEQUENCE_BITS, x & _MAX_SEQUENCE)
