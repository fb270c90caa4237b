"""A new world generation through real processes: the balancer re-reads the world, tells the sidecars, refuses the
old generation's reports, and publishes the new generation's first plan from the load history at once."""
import json
import time
import urllib.error
import urllib.request

from ballast_client import SidecarClient
from ballast_client.sidecar import SidecarError
from ballast_client.versions import PlanVersion


def generation(client):
    """The world generation a sidecar holds, or None while it has none yet (it answers 503 until the balancer's
    first world reaches it, which can be after its health endpoint is up)."""
    try:
        return client.world()["generation"]
    except SidecarError as e:
        if e.status == 503:
            return None
        raise


def wait_for_generation(clients, gen, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline and not all(generation(c) == gen for c in clients):
        time.sleep(0.2)
    return all(generation(c) == gen for c in clients)


def test_new_generation_first_plan_comes_from_history(agents):
    work = agents["work"]
    clients = [SidecarClient(u) for u in agents["sidecars"]]
    assert wait_for_generation(clients, 1), "sidecars learned the first world"
    # Make sure the balancer has some history (the other process tests normally did this already).
    for step in range(1000, 1006):
        for r in range(4):
            clients[r // 2].send_report_now(1, step, r, [[50 + (900 if e == 3 else 0) for e in range(8)]] * 2)
    world = json.loads((work / "world.json").read_text())
    world["generation"] = 2
    world["nodes"][0]["nodeRank"], world["nodes"][1]["nodeRank"] = 1, 0  # re-ranked: pod 1 is now node rank 0
    (work / "world.json").write_text(json.dumps(world))
    deadline = time.time() + 30
    heads = (None, None)
    while time.time() < deadline:
        if all(generation(c) == 2 for c in clients):
            heads = clients[0].heads(2, 0)
            if heads[0] is not None:
                break
        time.sleep(0.2)
    assert wait_for_generation(clients, 2, 1), "sidecars learned the new world"
    newest = heads[0]
    assert newest is not None and newest.generation == 2, "first plan of generation 2, before any of its steps"
    assert clients[1].heads(2, 0)[0] == newest
    plan = clients[0].plan(newest)
    assert plan["worldGeneration"] == 2 and plan["earliestStep"] == 0
    # The old generation's reports are refused with a clear status; the new numbering is enforced.
    try:
        clients[0].send_report_now(1, 2000, 0, [[1] * 8] * 2)
        raise AssertionError("a generation-1 report was accepted")
    except Exception as e:  # noqa: BLE001
        assert getattr(e, "status", None) == 409 and "stale" in str(e)
    clients[1].send_report_now(2, 0, 0, [[1] * 8] * 2)   # pod 1 is node rank 0 now: GPU ranks 0..1
    try:
        clients[0].send_report_now(2, 0, 0, [[1] * 8] * 2)
        raise AssertionError("pod 0 reported a rank of pod 1")
    except Exception as e:  # noqa: BLE001
        assert getattr(e, "status", None) == 400 and "not a rank of this pod" in str(e)
    assert newest > PlanVersion(1, 10**9) or newest.generation == 2
