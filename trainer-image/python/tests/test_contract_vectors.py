"""The golden vectors of contracts/vectors (docs/contracts.md) that the Java contracts and client pass too: world
documents, plan versions and heads, adoption decisions, environment names, load-report bodies. A missing vector file
fails."""
import json

import pytest

from ballast_client import SidecarClient, adoption, env, sidecar, versions, world
from ballast_client.versions import PlanVersion

from conftest import vectors


def version(text):
    return None if text is None else versions.parse(text)


def test_world_documents_decode_and_reencode_canonically():
    v = vectors("world-documents.json")
    assert len(v["valid"]) >= 3
    for case in v["valid"]:
        assert world.encode(world.decode(case["input"])) == case["canonical"], case["name"]


def test_bad_world_documents_are_refused_naming_the_field():
    v = vectors("world-documents.json")
    assert len(v["invalid"]) >= 10
    for case in v["invalid"]:
        with pytest.raises(ValueError) as e:
            world.decode(case["input"])
        for mention in case["errorMentions"]:
            assert mention in str(e.value), (case["name"], str(e.value))


def test_plan_version_encodings_both_ways():
    v = vectors("plan-versions.json")
    assert versions.SEQUENCE_BITS == v["sequenceBits"]
    for case in v["encodings"]:
        assert versions.encode(version(case["version"])) == case["encoded"], case
        assert versions.decode(case["encoded"]) == version(case["version"]), case
    for text in v["unencodable"]:
        with pytest.raises(ValueError, match="does not fit"):
            versions.encode(versions.parse(text))
    for x in v["undecodable"]:
        with pytest.raises(ValueError):
            versions.decode(x)


def test_integer_order_is_version_order():
    ordered = [versions.parse(t) for t in vectors("plan-versions.json")["ordered"]]
    assert ordered == sorted(ordered)
    encoded = [versions.encode(p) for p in ordered]
    assert encoded == sorted(set(encoded))


def test_plan_version_text_form():
    v = vectors("plan-versions.json")
    for case in v["texts"]:
        assert versions.parse(case["text"]) == PlanVersion(case["generation"], case["sequence"])
    for bad in v["badTexts"]:
        with pytest.raises(ValueError, match="plan version"):
            versions.parse(bad)


def test_plan_heads_bodies():
    for case in vectors("plan-versions.json")["heads"]:
        assert versions.parse_heads(json.loads(case["json"])) == (version(case["newest"]), version(case["oldest"]))


def test_adoption_decisions():
    v = vectors("adoption.json")
    assert len(v["decisions"]) >= 10
    for case in v["decisions"]:
        contributions = [adoption.contribution(version(r["newest"]), version(r["oldest"])) for r in case["ranks"]]
        assert contributions == [r["contribution"] for r in case["ranks"]], case["name"]
        reduced = [min(c[0] for c in contributions), min(c[1] for c in contributions)]
        assert reduced == case["reduced"], case["name"]
        assert adoption.decide(versions.parse(case["current"]), reduced) == version(case["adopt"]), case["name"]
    for bad in v["badReduced"]:
        with pytest.raises(ValueError, match="2 values"):
            adoption.decide(PlanVersion(1, 0), bad)


def test_environment_names_and_the_default_sidecar_url():
    v = vectors("environment.json")
    names = {k: val for k, val in vars(env).items() if k.isupper() and isinstance(val, str) and k != "DEFAULT_SIDECAR_URL"}
    assert len(names) >= 5
    for constant, name in names.items():
        assert v["names"].get(constant) == name, constant
    assert env.SIDECAR_PORT == v["ports"]["SIDECAR_PORT"]
    assert env.DEFAULT_SIDECAR_URL == v["sidecarUrl"]


def test_load_reports_encode_to_the_canonical_body():
    v = vectors("load-reports.json")
    assert len(v["valid"]) >= 5
    for case in v["valid"]:
        r = case["report"]
        body = sidecar.encode_report(r["worldGeneration"], r["step"], r["gpuRank"], r["counts"], r["firstLayer"],
                                     version(r.get("adopted")), r.get("stepSeconds"), r.get("computeSeconds"))
        assert body == case["canonical"], case["name"]
        assert json.loads(body)["counts"] == r["counts"]


def test_bad_timings_are_refused_by_the_report_call_naming_the_field():
    v = vectors("load-reports.json")
    assert len(v["badTimings"]) >= 5
    client = SidecarClient("http://127.0.0.1:9")  # never reached: the call refuses before queueing
    try:
        for case in v["badTimings"]:
            with pytest.raises(ValueError) as e:
                client.report(1, 1, 0, [[1]], step_seconds=float(case["stepSeconds"]),
                              compute_seconds=float(case["computeSeconds"]))
            for mention in case["errorMentions"]:
                assert mention in str(e.value), (case["name"], str(e.value))
        assert client.flush(1.0) and client.sent + client.dropped + client.refused == 0, "nothing was queued"
    finally:
        client.close()
