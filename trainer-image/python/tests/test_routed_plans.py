"""A ballast-routed balancer's plans reach the ranks as ballast-plan/v4, and the rule routes by their planned split."""
import time

from ballast_client import SidecarClient, quota
from ballast_client.versions import PlanVersion

from conftest import balancer_get

PLANNER = "ballast-routed"
NODE, RACK = [0, 0, 1, 1], [0, 0, 0, 0]


def counts(step, rank, layers=2, experts=8):
    hot = (rank + step // 10) % experts
    return [[200 + (3000 if e == hot else 0) + 40 * ((e * 3 + l + rank) % 5) for e in range(experts)]
            for l in range(layers)]


def test_a_routed_plan_reaches_the_ranks_and_its_split_routes_their_tokens(agents):
    clients = [SidecarClient(agents["sidecars"][r // 2]) for r in range(4)]
    deadline = time.time() + 30
    while clients[0].status()["worldGeneration"] != 1 and time.time() < deadline:
        time.sleep(0.2)
    plan = None
    deadline = time.time() + 90
    step = 0
    while plan is None and time.time() < deadline:
        for r in range(4):
            clients[r].report(1, step, r, counts(step, r))
        for c in clients:
            c.flush()
        step += 1
        time.sleep(0.1)
        try:
            latest = balancer_get(agents, "/v1/plan")
        except OSError:
            continue
        if latest.get("format") == "ballast-plan/v4":
            plan = latest
    assert plan is not None, "no ballast-plan/v4 plan within 90 s"
    assert plan["planner"] == "ballast-routed"
    # What a trainer gets from its sidecar is the same plan.
    held = clients[0].plan(PlanVersion(plan["worldGeneration"], plan["sequence"]))
    assert held == plan
    routed = [l for l in range(2) if plan["layers"][l]["groups"][0]["routes"]]
    assert routed, plan
    layer = routed[0]
    group = plan["layers"][layer]["groups"][0]
    step_counts = [counts(step, r)[layer] for r in range(4)]
    by_plan = quota.for_layer(plan, layer, 0, NODE, RACK, step_counts)
    assert by_plan == quota.apply(NODE, RACK, group["gpus"], step_counts, routes=group["routes"])
    by_rule = quota.apply(NODE, RACK, group["gpus"], step_counts)
    assert by_plan.flows != by_rule.flows, "the planned split, not the rule, routed the step"
    assert sum(by_plan.gpu_load) == sum(map(sum, step_counts))
