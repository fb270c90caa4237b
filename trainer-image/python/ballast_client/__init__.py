"""Ballast trainer client: talks to the pod's sidecar, implements the plan-adoption rule and the quota rule.

Standard library only; ``adoption.torch_allreduce_min`` imports torch lazily when a trainer asks for it.
"""
from .adoption import PlanAdopter, contribution, decide, torch_allreduce_min
from .quota import QuotaResult
from .quota import apply as quota_apply
from .quota import for_layer as quota_for_layer
from .sidecar import SidecarClient, SidecarError
from .versions import PlanVersion

__all__ = ["PlanAdopter", "PlanVersion", "QuotaResult", "SidecarClient", "SidecarError", "contribution", "decide",
           "quota_apply", "quota_for_layer", "torch_allreduce_min"]
__version__ = "0.1.0"
