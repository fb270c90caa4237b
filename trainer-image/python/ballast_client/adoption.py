"""The plan-adoption rule (docs/protocol.md), the same as the Java client's AdoptionRule/PlanAdopter (both pass
contracts/vectors/adoption.json).

At an optimizer-step boundary (never between micro-batches) every rank contributes ``(newest, -oldest)``; one
element-wise MIN all-reduce gives ``v = min newest`` and ``o = max oldest``; every rank adopts ``v`` when ``v >= o``
and ``v`` is newer than its current plan, else keeps its current plan.
"""
from __future__ import annotations

from typing import Callable, List, Optional, Sequence

from . import versions
from .versions import PlanVersion

INT64_MAX = (1 << 63) - 1

AllReduceMin = Callable[[List[int]], List[int]]


def contribution(newest: Optional[PlanVersion], oldest: Optional[PlanVersion]) -> List[int]:
    """This rank's all-reduce input. A rank that holds no plan contributes "no newest" and an infinite oldest."""
    return [versions.encode(newest), -(INT64_MAX if oldest is None else versions.encode(oldest))]


def decide(current: PlanVersion, reduced: Sequence[int]) -> Optional[PlanVersion]:
    """The version to adopt from the reduced pair, or None to keep the current plan (a pure function)."""
    if len(reduced) != 2:
        raise ValueError(f"the adoption all-reduce carries 2 values, got {len(reduced)}")
    v, o = int(reduced[0]), -int(reduced[1])
    if v == versions.NONE or v < o:
        return None
    candidate = versions.decode(v)
    if candidate.generation != current.generation or candidate <= current:
        return None
    return candidate


def torch_allreduce_min(group=None) -> AllReduceMin:
    """An AllReduceMin over torch.distributed (imported only when called; the client itself needs no torch)."""
    import torch  # noqa: PLC0415 - lazy on purpose
    import torch.distributed as dist  # noqa: PLC0415

    def reduce(values: List[int]) -> List[int]:
        backend = dist.get_backend(group)
        device = torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else torch.device("cpu")
        t = torch.tensor(values, dtype=torch.int64, device=device)
        dist.all_reduce(t, op=dist.ReduceOp.MIN, group=group)
        return [int(x) for x in t.tolist()]

    return reduce


class PlanAdopter:
    """One rank's side of the rule for one world generation; keeps the adopted plan itself.

    ``sidecar`` needs ``heads(generation, step) -> (newest, oldest)`` and ``plan(version) -> dict or None``
    (the :class:`ballast_client.SidecarClient` has both).
    """

    def __init__(self, sidecar, all_reduce_min: AllReduceMin, generation: int):
        self.sidecar = sidecar
        self.all_reduce_min = all_reduce_min
        self.generation = generation
        self.current_version = versions.static_of(generation)
        self.current_plan = None  # None: the static layout
        self.adopted_at_step = -1

    def at_step_boundary(self, step: int):
        newest, oldest = self.sidecar.heads(self.generation, step)
        adopt = decide(self.current_version, self.all_reduce_min(contribution(newest, oldest)))
        if adopt is not None:
            plan = self.sidecar.plan(adopt)
            if plan is None:
                raise RuntimeError(f"ranks agreed on plan {adopt} at step {step} but this rank's sidecar does not hold it")
            self.current_plan = plan
            self.current_version = adopt
            self.adopted_at_step = step
        return self.current_plan
