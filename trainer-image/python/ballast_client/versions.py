"""Plan versions (worldGeneration, sequence): text form "g.s" and the 64-bit integer the adoption all-reduce uses.

The integer is ``generation << 40 | sequence`` (same as the Java client's PlanVersions), so integer order is version
order; ``NONE`` (-1) stands for "no plan" and is lower than every version.
"""
from __future__ import annotations

from typing import NamedTuple, Optional, Tuple

SEQUENCE_BITS = 40
NONE = -1
_MAX_SEQUENCE = (1 << SEQUENCE_BITS) - 1
_MAX_GENERATION = (1 << (63 - SEQUENCE_BITS)) - 1
_INT64_MAX = (1 << 63) - 1


class PlanVersion(NamedTuple):
    generation: int
    sequence: int

    def __str__(self) -> str:
        return f"{self.generation}.{self.sequence}"


def parse(text: str) -> PlanVersion:
    """"generation.sequence", e.g. "3.17": two runs of ASCII digits, each below 2^63, joined by one dot."""
    parts = text.split(".") if isinstance(text, str) else []
    if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts):
        raise ValueError(f"plan version must look like '<generation>.<sequence>', got {text!r}")
    generation, sequence = int(parts[0]), int(parts[1])
    if max(generation, sequence) > _INT64_MAX:
        raise ValueError(f"plan version {text!r} has a part of 2^63 or more")
    return PlanVersion(generation, sequence)


def parse_heads(body: dict) -> Tuple[Optional[PlanVersion], Optional[PlanVersion]]:
    """(newest, oldest) from the sidecar's GET /v1/plans/heads body; null stands for "none"."""
    def version(key):
        v = body.get(key)
        if v is not None and not isinstance(v, str):
            raise ValueError(f'plan heads: field "{key}" must be a plan version string or null, got {v!r}')
        return None if v is None else parse(v)
    return version("newest"), version("oldest")


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
