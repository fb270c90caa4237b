"""Killing and restarting real agent processes (this module has its own processes, see conftest.agents).

A restarted balancer continues above the persisted plan sequence (never reusing a version) and its first plan
starts a new chain; a restarted sidecar comes back empty, reconnects and is resynced; ranks keep the plan they
adopted in the meantime and never split.
"""
import json
import time
import urllib.request

from ballast_client import SidecarClient

from conftest import balancer_get, wait_http


def balancer_status(agents):
    return balancer_get(agents, "/v1/status")


def feed(clients, generation, steps, ranks_of_pod):
    for step in steps:
        for pod, ranks in enumerate(ranks_of_pod):
            for r in ranks:
                clients[pod].send_report_now(generation, step, r, [[40 + (700 if e == step % 8 else 0) for e in range(8)]] * 2)


def current_generation(agents):
    return json.loads((agents["work"] / "world.json").read_text())


def ranks_by_pod(world):
    return [[n["nodeRank"] * 2, n["nodeRank"] * 2 + 1] for n in sorted(world["nodes"], key=lambda n: n["index"])]


def test_balancer_restart_never_reuses_a_version(agents):
    clients = [SidecarClient(u) for u in agents["sidecars"]]
    world = current_generation(agents)
    gen = world["generation"]
    feed(clients, gen, range(3000, 3010), ranks_by_pod(world))
    # a plan from these reports reaches the sidecars within seconds (longer on a loaded machine)
    deadline = time.time() + 30
    newest_before = clients[0].heads(gen, 10**9)[0]
    while time.time() < deadline and newest_before is None:
        time.sleep(0.3)
        newest_before = clients[0].heads(gen, 10**9)[0]
    assert newest_before is not None
    time.sleep(2)  # let the balancer settle what these reports trigger before its state is read
    before = balancer_status(agents)
    newest_before = clients[0].heads(gen, 10**9)[0]
    reserved = json.loads((agents["work"] / "status.json").read_text())["planSequence"]

    agents["restart"]("balancer")
    assert wait_http(agents["balancer_health"] + "/q/health/ready", time.time() + 90), "balancer came back"
    deadline = time.time() + 60
    while time.time() < deadline and not all(c.status()["connected"] for c in clients):
        time.sleep(0.3)
    assert all(c.status()["connected"] for c in clients), "sidecars reconnected"
    # Until the new balancer publishes, the sidecars keep serving what they hold; the new balancer may already have
    # published (it plans at once from the load history it restored), and then only past the old one's reservation.
    held = clients[0].heads(gen, 10**9)[0]
    assert held == newest_before or held.sequence > reserved, (held, newest_before, reserved)
    feed(clients, gen, range(3010, 3020), ranks_by_pod(world))
    deadline = time.time() + 30
    after = newest_before
    while time.time() < deadline and after == newest_before:
        after = clients[0].heads(gen, 10**9)[0]
        time.sleep(0.3)
    assert after is not None and after.sequence > reserved >= newest_before.sequence, (reserved, newest_before, after)
    assert balancer_status(agents)["balancerId"] != before["balancerId"]
    # The new balancer's first plan started a chain: the old balancer's plans are gone from the sidecars.
    assert clients[0].status()["oldestHeld"] != str(newest_before)


def test_sidecar_restart_comes_back_and_resyncs(agents):
    clients = [SidecarClient(u) for u in agents["sidecars"]]
    world = current_generation(agents)
    gen = world["generation"]
    newest = clients[1].heads(gen, 10**9)[0]
    assert newest is not None
    agents["restart"]("sidecar1")
    assert wait_http(agents["sidecars"][1] + "/healthz", time.time() + 90), "sidecar came back"
    # The balancer may still publish plans from the previous test's reports while sidecar1 is down, so the resynced
    # sidecar must come back holding what its peer holds, at or above what it held before the restart.
    deadline = time.time() + 30
    got = peer = None
    while time.time() < deadline and (got is None or got != peer):
        got, peer = clients[1].heads(gen, 10**9)[0], clients[0].heads(gen, 10**9)[0]
        time.sleep(0.3)
    assert got is not None and got == peer, ("the restarted sidecar was resynced with the retained plans", got, peer)
    assert got.sequence >= newest.sequence, (got, newest)
    assert clients[1].status()["connected"]
