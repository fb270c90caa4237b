"""The world document (ConfigMap ``<job>-world``, key ``world.json``; docs/contracts.md), as the Java contracts'
WorldDocumentJson reads and writes it: the same checks, the same canonical encoding, the same golden vectors
(contracts/vectors/world-documents.json).

Generation 0 (nothing committed yet) has no workers and no spec; a committed world has both, the spec frozen when
the operator committed the world.
"""
from __future__ import annotations

import json
import math
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import List, NamedTuple, Optional

CONFIG_MAP_KEY = "world.json"
MODES = ("replicate", "fssdp", "off")
PLANNERS = ("ballast", "ballast-routed", "eplb", "static")
_INT_MAX = (1 << 31) - 1
_LONG_MAX = (1 << 63) - 1

# (section, JSON field, attribute, smallest, largest): the spec's integer fields in their encoding order.
_SPEC_INTS = (
    ("parallelism", "expert", "expert_parallel", 1, _INT_MAX),
    ("parallelism", "pipeline", "pipeline", 1, _INT_MAX),
    ("model", "moeLayers", "moe_layers", 1, _INT_MAX),
    ("model", "experts", "experts", 1, _INT_MAX),
    ("model", "topK", "top_k", 1, _INT_MAX),
    ("model", "sharedExperts", "shared_experts", 0, _INT_MAX),
    ("model", "hiddenSize", "hidden_size", 1, _INT_MAX),
    ("model", "ffnHiddenSize", "ffn_hidden_size", 1, _INT_MAX),
    ("model", "bytesPerParam", "bytes_per_param", 1, 8),
    ("balancer", "redundantSlotsPerGpu", "redundant_slots_per_gpu", 0, _INT_MAX),
    ("balancer", "replanEverySteps", "replan_every_steps", 1, _INT_MAX),
    ("balancer", "memoryBudgetBytes", "memory_budget_bytes", 0, _LONG_MAX),
)

# spec.balancer.hardware's rates in their encoding order (the section is optional; when present every rate is
# required and positive, gemmEfficiency at most 1).
_HARDWARE = (("nvlinkGBps", "nvlink_gbps"), ("nicGBps", "nic_gbps"), ("crossRackGBps", "cross_rack_gbps"),
             ("peakTflops", "peak_tflops"), ("gemmEfficiency", "gemm_efficiency"))


class HardwareSpec(NamedTuple):
    """The rates the balancer's cost model prices plans with (GB/s per GPU and direction, TFLOP/s, a fraction)."""
    nvlink_gbps: float
    nic_gbps: float
    cross_rack_gbps: float
    peak_tflops: float
    gemm_efficiency: float


DEFAULT_HARDWARE = HardwareSpec(450.0, 50.0, 25.0, 989.0, 0.6)


class PlanningSpec(NamedTuple):
    """Every spec field that shapes plans, frozen at commit (memory_budget_bytes 0: no cap)."""
    expert_parallel: int
    pipeline: int
    moe_layers: int
    experts: int
    top_k: int
    shared_experts: int
    hidden_size: int
    ffn_hidden_size: int
    bytes_per_param: int
    redundant_slots_per_gpu: int
    replan_every_steps: int
    memory_budget_bytes: int
    mode: str
    planner: str
    hardware: HardwareSpec


class WorldWorker(NamedTuple):
    """One worker pod: GPU rank = node_rank × gpus_per_worker + local rank; domain and rack "" when unlabelled."""
    index: int
    pod: str
    node_rank: int
    node: str
    domain: str = ""
    rack: str = ""


class WorldDocument(NamedTuple):
    job: str
    namespace: str
    generation: int
    gpus_per_worker: int
    spec: Optional[PlanningSpec]
    nodes: List[WorldWorker]  # node-rank order

    def by_pod_index(self, index: int) -> Optional[WorldWorker]:
        return next((n for n in self.nodes if n.index == index), None)


def _fail(path: str, message: str):
    raise ValueError(f"{CONFIG_MAP_KEY}{' ' + path if path else ''}: {message}")


def _object(value, path: str) -> dict:
    if not isinstance(value, dict):
        _fail("", f"{path or 'the document'} must be a JSON object")
    return value


def _int(obj: dict, key: str, path: str, lo: int, hi: int) -> int:
    v = obj.get(key)
    if v is None:
        _fail(path, f'missing field "{key}"')
    if isinstance(v, bool) or not isinstance(v, int):
        _fail(path, f'field "{key}" must be an integer, got {v!r}')
    if not lo <= v <= hi:
        _fail(path, f'field "{key}" = {v} is outside [{lo}, {hi}]')
    return v


def _number(obj: dict, key: str, path: str) -> float:
    v = obj.get(key)
    if v is None:
        _fail(path, f'missing field "{key}"')
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        _fail(path, f'field "{key}" must be a number, got {v!r}')
    return float(v)


def _hardware(balancer: dict) -> HardwareSpec:
    """The one optional section: a world written before it existed means the defaults (an H100 SXM node)."""
    if "hardware" not in balancer:
        return DEFAULT_HARDWARE
    path = "spec.balancer.hardware"
    h = _object(balancer["hardware"], path)
    values = {attr: _number(h, key, path) for key, attr in _HARDWARE}
    for key, attr in _HARDWARE[:-1]:
        if not 0 < values[attr] < math.inf:
            _fail(path, f"{key} must be a positive number, got {values[attr]}")
    if not 0 < values["gemm_efficiency"] <= 1:
        _fail(path, f"gemmEfficiency must be in (0, 1], got {values['gemm_efficiency']}")
    return HardwareSpec(**values)


def _number_text(v: float) -> str:
    """As the Java JsonWriter writes a double: integral values as integers, others with 6 significant digits."""
    if v == math.floor(v) and abs(v) < 1e15:
        return str(int(v))
    return format(Context(prec=6, rounding=ROUND_HALF_UP).plus(Decimal(v)).normalize(), "f")


def _str(obj: dict, key: str, path: str, required: bool = True) -> str:
    v = obj.get(key)
    if v is None and not required:
        return ""
    if not isinstance(v, str):
        _fail(path, f'missing field "{key}"' if v is None else f'field "{key}" must be a string')
    return v


def _spec(raw) -> PlanningSpec:
    s = _object(raw, "spec")
    sections = {name: _object(s.get(name), f"spec.{name}") for name in ("parallelism", "model", "balancer")}
    ints = {attr: _int(sections[sec], key, f"spec.{sec}", lo, hi) for sec, key, attr, lo, hi in _SPEC_INTS}
    mode = _str(sections["balancer"], "mode", "spec.balancer")
    planner = _str(sections["balancer"], "planner", "spec.balancer")
    if ints["top_k"] > ints["experts"]:
        _fail("spec", f"model.topK ({ints['top_k']}) must not exceed model.experts ({ints['experts']})")
    if mode not in MODES:
        _fail("spec", f"balancer.mode must be one of {list(MODES)}, got {mode!r}")
    if planner not in PLANNERS:
        _fail("spec", f"balancer.planner must be one of {list(PLANNERS)}, got {planner!r}")
    return PlanningSpec(mode=mode, planner=planner, hardware=_hardware(sections["balancer"]), **ints)


def decode(text: str) -> WorldDocument:
    """Reads and checks a world document; ValueError names the field at fault."""
    try:
        raw = json.loads(text)
    except ValueError as e:
        _fail("", f"malformed JSON: {e}")
    m = _object(raw, "")
    generation = _int(m, "generation", "", 0, _LONG_MAX)
    gpus_per_worker = _int(m, "gpusPerWorker", "", 1, 1 << 10)
    spec = None if m.get("spec") is None else _spec(m["spec"])
    raw_nodes = m.get("nodes")
    if not isinstance(raw_nodes, list):
        _fail("", 'missing field "nodes"' if raw_nodes is None else 'field "nodes" must be an array')
    nodes = []
    for i, n in enumerate(raw_nodes):
        at = f"nodes[{i}]"
        n = _object(n, at)
        nodes.append(WorldWorker(_int(n, "index", at, 0, _INT_MAX), _str(n, "pod", at),
                                 _int(n, "nodeRank", at, 0, _INT_MAX), _str(n, "node", at),
                                 _str(n, "domain", at, False), _str(n, "rack", at, False)))
    nodes.sort(key=lambda n: n.node_rank)
    if [n.node_rank for n in nodes] != list(range(len(nodes))):
        _fail("", f"node ranks must be 0..{len(nodes) - 1} without repeats")
    if nodes and spec is None:
        _fail("", "a world with workers must carry its spec")
    return WorldDocument(_str(m, "job", ""), _str(m, "namespace", ""), generation, gpus_per_worker, spec, nodes)


def encode(w: WorldDocument) -> str:
    """The canonical encoding: fixed field order, empty domain and rack left out, no spaces."""
    hardware = None
    doc = {"job": w.job, "namespace": w.namespace, "generation": w.generation, "gpusPerWorker": w.gpus_per_worker}
    if w.spec is not None:
        spec = {"parallelism": {}, "model": {}, "balancer": {}}
        for sec, key, attr, _, _ in _SPEC_INTS:
            spec[sec][key] = getattr(w.spec, attr)
        spec["balancer"] = {"mode": w.spec.mode, "planner": w.spec.planner, **spec["balancer"], "hardware": None}
        doc["spec"] = spec
        hardware = "{" + ",".join(f'"{key}":{_number_text(getattr(w.spec.hardware, attr))}'
                                  for key, attr in _HARDWARE) + "}"
    doc["nodes"] = [{"index": n.index, "pod": n.pod, "nodeRank": n.node_rank, "node": n.node,
                     **({"domain": n.domain} if n.domain else {}), **({"rack": n.rack} if n.rack else {})}
                    for n in w.nodes]
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    # json.dumps writes floats as repr does; the hardware rates take the Java writer's form, spliced in.
    return text if hardware is None else text.replace('"hardware":null', '"hardware":' + hardware, 1)
