"""The Python quota rule against the shared vectors the Java QuotaRule also passes (docs/quota-rule.md)."""
import pytest

from ballast_client import quota

from conftest import vectors


def load():
    return vectors("quota-rule.json")["vectors"]


def test_every_shared_vector():
    vectors = load()
    assert len(vectors) >= 10
    for v in vectors:
        r = quota.apply(v["node"], v["rack"], v["placement"], v["counts"], v["capacity"], v.get("routes"))
        ex = v["expected"]
        assert r.threshold == ex["threshold"], v["name"]
        assert r.capacity_exceeded == ex["capacityExceeded"], v["name"]
        assert r.gpu_load == ex["gpuLoad"], v["name"]
        assert r.copies == ex["copies"], v["name"]
        assert r.flows == ex["flows"], v["name"]


def test_conservation_on_every_vector():
    for v in load():
        r = quota.apply(v["node"], v["rack"], v["placement"], v["counts"], v["capacity"], v.get("routes"))
        sent = {}
        for e, s, g, t in r.flows:
            sent[(s, e)] = sent.get((s, e), 0) + t
        for s, row in enumerate(v["counts"]):
            for e, c in enumerate(row):
                assert sent.get((s, e), 0) == c, (v["name"], s, e)
        assert max(r.gpu_load) <= r.threshold


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="negative count"):
        quota.apply([0, 0], [0, 0], [[0], [1]], [[1, -1], [0, 0]])
    with pytest.raises(ValueError, match="expert 1 has no copy"):
        quota.apply([0, 0], [0, 0], [[0], [0]], [[1, 1], [0, 0]])
    with pytest.raises(ValueError, match="must be an integer"):
        quota.apply([0, 0], [0, 0], [[0], [1]], [[1, 1.5], [0, 0]])
    with pytest.raises(ValueError, match="source 1, expert 0: weights sum to 0"):
        quota.apply([0, 0], [0, 0], [[0], [0, 1]], [[1, 1], [1, 1]], routes=[[1, 1], [0, 0]])
    with pytest.raises(ValueError, match="routes of source 0: 3 weights for 2 copies"):
        quota.apply([0, 0], [0, 0], [[0], [0, 1]], [[1, 1], [1, 1]], routes=[[1, 1, 1], [1, 1]])


def test_planned_split_vectors_cover_the_remainder_and_capacity():
    names = {v["name"] for v in load() if v.get("routes")}
    assert {"planned-split", "planned-split-over-capacity"} <= names and len(names) >= 8


def test_static_layout_and_plan_json_entry_point():
    counts = [[5, 1, 0, 2], [3, 3, 3, 3]]
    r = quota.for_layer(None, 0, 0, [0, 0], [0, 0], counts, experts=4)
    assert quota.static_placement(2, 4) == [[0, 1], [2, 3]]
    assert r.gpu_load == [5 + 1 + 3 + 3, 0 + 2 + 3 + 3]
    plan = {"layers": [{"layer": 0, "groups": [{"copy": 0, "gpus": [[0, 1, 2], [2, 3]]}]}]}
    r2 = quota.for_layer(plan, 0, 0, [0, 0], [0, 0], counts)
    assert sum(r2.gpu_load) == sum(map(sum, counts)) and max(r2.gpu_load) <= max(r.gpu_load)
    # v4: the group's routes send expert 2's tokens (copies on GPUs 0 and 1) by weight 1:3 instead of by the rule.
    plan["layers"][0]["groups"][0]["routes"] = [[1, 3], [1, 3]]
    r3 = quota.for_layer(plan, 0, 0, [0, 0], [0, 0], counts)
    assert [f for f in r3.flows if f[0] == 2] == [[2, 1, 0, 1], [2, 1, 1, 2]]
    plan["layers"][0]["groups"][0]["routes"] = []
    assert quota.for_layer(plan, 0, 0, [0, 0], [0, 0], counts) == r2
