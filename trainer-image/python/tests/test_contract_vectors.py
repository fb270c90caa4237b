"""The golden vectors of contracts/vectors (docs/contracts.md) that the Java contracts and client pass too: world
documents, plan versions and heads, adoption decisions, environment names. A missing vector file fails."""
import json

import pytest

from ballast_client import adoption, env, versions, world
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
