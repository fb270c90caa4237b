"""The Python client against real agent processes: one balancer (file mode) and two sidecars (2 GPU ranks each)."""
import json
import threading
import time
import urllib.error
import urllib.request

import pytest

from ballast_client import PlanAdopter, SidecarClient, SidecarError
from ballast_client.versions import PlanVersion

from conftest import balancer_get, vectors
from test_adoption import Barrier


def counts(step, rank, layers=2, experts=8):
    hot = (step // 5 + rank) % experts
    return [[100 + (900 if e == hot else 0) + (step + l + e) % 7 for e in range(experts)] for l in range(layers)]


def post_raw(url, data: bytes):
    req = urllib.request.Request(url + "/v1/loads", data=data, method="POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_health_world_and_empty_heads(agents):
    c = SidecarClient(agents["sidecars"][0])
    assert c.health()["status"] == "ok"
    deadline = time.time() + 30
    while c.status()["worldGeneration"] != 1 and time.time() < deadline:
        time.sleep(0.2)
    w = c.world()
    assert w["generation"] == 1 and [n["index"] for n in w["nodes"]] == [0, 1]
    assert c.heads(7, 0) == (None, None) or c.heads(7, 0)[0] is None


@pytest.mark.parametrize("body,status,message", [
    (b'{"worldGeneration":1,"step":', 400, "malformed JSON"),
    (b'{"worldGeneration":1,"step":-1,"gpuRank":0,"counts":[[1,2,3,4,5,6,7,8],[1,2,3,4,5,6,7,8]]}', 400, "negative"),
    (b'{"worldGeneration":1,"step":1,"gpuRank":0,"counts":[[1,2,3,4,5,6,7,8],[1,2,3]]}', 400, "counts[1] has 3 entries"),
    (b'{"worldGeneration":1,"step":1,"gpuRank":0,"counts":[[1,2,3,4,5,6,7,8],[1,2,3,4,5,6,7,-8]]}', 400, "is negative"),
    (b'{"worldGeneration":1,"step":1,"gpuRank":0,"counts":[[1,2,3,4,5,6,7,8],[1,2,3,4,5,6,7,8.5]]}', 400, "must be an integer"),
    (b'{"worldGeneration":1,"step":1,"gpuRank":0,"counts":[[1,2,3,4,5,6,7],[1,2,3,4,5,6,7]]}', 400, "the model has 8"),
    (b'{"worldGeneration":1,"step":1,"gpuRank":3,"counts":[[1,2,3,4,5,6,7,8],[1,2,3,4,5,6,7,8]]}', 400, "not a rank of this pod"),
    (b'{"worldGeneration":0,"step":1,"gpuRank":0,"counts":[[1,2,3,4,5,6,7,8],[1,2,3,4,5,6,7,8]]}', 409, "stale"),
])
def test_bad_reports_are_refused_clearly_and_nothing_is_stored(agents, body, status, message):
    url = agents["sidecars"][0]
    c = SidecarClient(url)
    deadline = time.time() + 30
    while c.status()["worldGeneration"] != 1 and time.time() < deadline:
        time.sleep(0.2)
    before = c.status()["reportsAccepted"]
    code, text = post_raw(url, body)
    assert code == status, text
    assert message in json.loads(text)["error"]
    after = c.status()
    assert after["reportsAccepted"] == before
    assert after["connected"], "the sidecar keeps its balancer connection"


def test_the_vectors_refused_bodies_are_refused_by_a_real_sidecar(agents):
    url = agents["sidecars"][0]
    for case in vectors("load-reports.json")["refusedBodies"]:
        code, text = post_raw(url, case["body"].encode())
        assert code == case["status"], (case["name"], text)
        for mention in case["errorMentions"]:
            assert mention in json.loads(text)["error"], (case["name"], text)


def test_oversized_reports_are_refused(agents):
    url = agents["sidecars"][0]
    rows = ",".join("[" + ",".join(["0"] * 1024) + "]" for _ in range(65))  # 66,560 counts > 65,536
    code, text = post_raw(url, ('{"worldGeneration":1,"step":1,"gpuRank":0,"counts":[' + rows + ']}').encode())
    assert code == 413 and "the limit is 65536" in json.loads(text)["error"]
    code, _ = post_raw(url, b'{"pad":"' + b"x" * (5 << 20) + b'"}')
    assert code == 413  # body over the 4 MiB limit


def test_report_call_is_asynchronous():
    c = SidecarClient("http://127.0.0.1:9")  # nothing listens there
    t0 = time.perf_counter()
    for step in range(1000):
        c.report(1, step, 0, counts(step, 0))
    per_call = (time.perf_counter() - t0) / 1000
    assert per_call < 0.005, f"report() took {per_call * 1e6:.0f} µs per call"
    c.close()


def test_ranks_adopt_the_same_plans_from_real_sidecars(agents):
    urls = agents["sidecars"]
    clients = [SidecarClient(urls[r // 2]) for r in range(4)]
    ar = Barrier(4)
    adopters = [PlanAdopter(clients[r], ar, 1) for r in range(4)]
    versions_seen = [[] for _ in range(4)]
    errors = []

    def rank_loop(r):
        try:
            for step in range(40):
                adopters[r].at_step_boundary(step)
                versions_seen[r].append(adopters[r].current_version)
                # the rank with the hot expert under the static layout is the slowest until a plan is adopted
                slow = 0.2 if adopters[r].current_version == PlanVersion(1, 0) and r == 0 else 0.1
                clients[r].report(1, step, r, counts(step, r), adopted=adopters[r].current_version,
                                  step_seconds=slow, compute_seconds=slow / 2)
                time.sleep(0.05)
        except Exception as e:  # noqa: BLE001 - surfaced by the assertion below
            errors.append(e)

    threads = [threading.Thread(target=rank_loop, args=(r,)) for r in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for step in range(40):
        assert len({versions_seen[r][step] for r in range(4)}) == 1, step
    final = versions_seen[0][-1]
    assert final > PlanVersion(1, 0), "a balancer plan was adopted"
    assert all(a <= b for a, b in zip(versions_seen[0], versions_seen[0][1:])), "never goes back"
    plan = clients[0].plan(final)
    assert plan["format"] == "ballast-plan/v1" and plan["worldGeneration"] == 1 and plan["ep"] == 4
    for c in clients:
        assert c.flush()
        assert c.refused == 0, c.last_error
    st = balancer_get(agents, "/v1/status")
    assert st["plansPublished"] >= 2 and st["sidecars"] == 2
    # The balancer's status (here its file) reports what the ranks' reports measured, beside its prediction.
    measured = {}
    deadline = time.time() + 15
    while "stepSecondsAfter" not in measured and time.time() < deadline:
        time.sleep(0.3)
        status = json.loads((agents["work"] / "status.json").read_text())
        measured = status.get("measured", {})
    assert measured.get("stepSecondsAfter") == pytest.approx(0.1), measured
    assert measured["imbalanceBefore"] > 1 and "imbalanceAfter" in measured, measured
    if "stepSecondsBefore" in measured:  # absent when the first plan came in time for step 0
        assert measured["stepSecondsBefore"] > measured["stepSecondsAfter"]
    assert balancer_get(agents, "/v1/plan")["format"] == "ballast-plan/v1"
    # without the job's token the balancer's API refuses, saying what to send
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(agents["balancer"] + "/v1/status", timeout=5)
    assert refused.value.code == 401
    assert "Authorization: Bearer" in json.loads(refused.value.read())["error"]
