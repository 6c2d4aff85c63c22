import json


def test_experiment_list_and_engine_validation_claims_hold(cli, tmp_path):
    assert "engine-validation" in cli("experiment", "list", check=0).stdout
    out = tmp_path / "ev"
    p = cli("experiment", "engine-validation", "-o", out, check=0)
    doc = json.loads((out / "claims.json").read_text())
    assert doc["experiment"] == "engine-validation"
    assert len(doc["claims"]) >= 5
    for c in doc["claims"]:
        assert set(c) >= {"id", "source", "claim", "expected", "measured", "holds"}
        assert isinstance(c["holds"], bool), c
        assert c["holds"], c  # the engine must reproduce textbook queues
    assert "holds" in p.stdout
    cli("experiment", "no-such-thing", check=2)
