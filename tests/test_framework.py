"""The experiment framework: parallel runs, claims as expectations, the shared conservation claim."""

import pytest

from nestsim.experiments.framework import conservation_claim, expect, run_all


def _tiny(seed):
    return {"schema": 1, "name": "tiny", "run": {"seed": seed, "duration": "20ms"},
            "device": [{"name": "d", "kind": "ideal", "servers": 2, "read": {"dist": "exp", "mean": "50us"},
                        "write": {"dist": "exp", "mean": "50us"}}],
            "workload": [{"name": "w", "device": "d", "class": "high", "arrival": {"kind": "poisson", "rate_iops": 20000},
                          "size": {"dist": "fixed", "bytes": "4KiB"}}]}


def test_run_all_in_parallel_gives_what_one_by_one_gives(tmp_path):
    scenarios = {f"s{k}": _tiny(k) for k in (1, 2, 3)}
    par = run_all(tmp_path / "par", scenarios, workers=3)
    ser = run_all(tmp_path / "ser", scenarios, workers=1)
    assert list(par) == ["s1", "s2", "s3"]
    assert par == ser
    assert par["s1"]["fingerprint"] != par["s2"]["fingerprint"], "each scenario ran with its own seed"
    for k in scenarios:
        assert (tmp_path / "par" / k / "summary.json").read_bytes() == (tmp_path / "ser" / k / "summary.json").read_bytes()


def test_run_all_reports_a_bad_scenario(tmp_path):
    import nestsim

    bad = _tiny(1)
    bad["workload"][0]["device"] = "nope"
    with pytest.raises(nestsim.ConfigError, match="nope"):
        run_all(tmp_path, {"good": _tiny(1), "bad": bad}, workers=2)


def test_expect_judges_the_mean_over_seeds_and_refuses_too_few():
    c = expect("r", "src", "ratio is 3", [2.9, 3.2, 3.05], target=3.0, tol=0.1, min_seeds=3)
    assert c.holds is True
    assert "mean of 3 seeds" in c.measured and "2.9–3.2" in c.measured
    assert "3 ± 10%" in c.expected and "≥ 3 seeds" in c.expected
    c = expect("r", "src", "ratio is 3", [2.9, 3.2], target=3.0, tol=0.1, min_seeds=3)
    assert c.holds is None and "needs 3" in c.why
    c = expect("r", "src", "ratio is 3", 2.5, target=3.0, tol=0.1, why="too low because …")
    assert c.holds is False and c.why == "too low because …"
    assert expect("a", "s", "fast", 40.0, at_most=50.0, unit=" µs").holds is True
    assert expect("a", "s", "fast", 40.0, at_least=50.0, at_most=90.0).holds is False
    assert expect("a", "s", "near", 3.3, target=3.0, tol=0.25, relative=False).holds is False
    with pytest.raises(ValueError):
        expect("a", "s", "no condition", 1.0)


def test_the_conservation_claim_names_every_failing_run():
    ok = {"conservation": "ok", "network": {"packets": {"dropped": 0}}}
    assert conservation_claim({"a": ok, "b": {"conservation": "ok"}}).holds is True
    c = conservation_claim({"a": ok, "b": {"conservation": "ok", "network": {"packets": {"dropped": 3}}},
                            "c": {"conservation": "workload 'w': 1 lost"}})
    assert c.holds is False
    assert c.measured.startswith("1/3 runs ok") and "b: ok, 3 dropped" in c.measured and "c: workload 'w': 1 lost" in c.measured


def _claims_table_script():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "scripts" / "claims_table.py"
    spec = importlib.util.spec_from_file_location("claims_table", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_claims_table_counts_source_claims_apart_from_own_checks(tmp_path):
    import json

    from nestsim.experiments import EXPERIMENTS

    ct = _claims_table_script()
    for i, name in enumerate(sorted(EXPERIMENTS)):
        d = tmp_path / name
        d.mkdir()
        claims = [{"id": "a", "source": "QTCP paper Fig 5", "claim": "x | y", "expected": "e", "measured": "m", "holds": i % 2 == 0},
                  {"id": "b", "source": "NeSt: fixed point", "claim": "z", "expected": "e", "measured": "m", "holds": True}]
        if i % 2:
            claims[0]["why"] = "because"
            claims[0]["cause"] = "model"
        (d / "claims.json").write_text(json.dumps({"experiment": name, "claims": claims}))
    out = tmp_path / "claims.md"
    assert ct.main(["--from", str(tmp_path), "-o", str(out)]) == 0
    text = out.read_text()
    n = len(EXPERIMENTS)
    assert f"The sources' claims: {n} — {(n + 1) // 2} hold, {n // 2} do not hold, 0 not evaluated" in text
    assert f"the DCTCP analysis, NeSt's analyses beside the runs): {n} — {n} hold" in text
    assert f"| QTCP paper (seed 001) | {n} | {(n + 1) // 2} | {n // 2} | 0 |" in text and "| Haechi paper | 0 | 0 | 0 | 0 |" in text
    assert text.count("## `") == n and "x \\| y" in text and "| model | because |" in text
    # Each failing source claim counted under the cause its experiment names.
    assert f"| QTCP paper (seed 001) | {n // 2} | 0 | 0 | 0 | 0 | 0 |" in text
    # --update keeps the rows of an experiment it has no new claims.json for, exactly as they were
    # (escaped bars, why, the mechanism-off column), and takes the new ones of the others.
    first, second = sorted(EXPERIMENTS)[:2]
    docs = json.loads((tmp_path / first / "claims.json").read_text())
    docs["claims"][0]["ablation"] = {"off": "plain: run", "holds": True}
    docs["claims"][0]["calibration"] = "a cost fitted to it"
    (tmp_path / first / "claims.json").write_text(json.dumps(docs))
    assert ct.main(["--from", str(tmp_path), "-o", str(out)]) == 0
    before = out.read_text()
    assert "marked *calibration target*): 1." in before and "x \\| y *(calibration target)* |" in before
    (tmp_path / first / "claims.json").unlink()
    assert ct.main(["--update", str(tmp_path), "-o", str(out)]) == 0
    assert out.read_text() == before
    docs = json.loads((tmp_path / second / "claims.json").read_text())
    docs["claims"][1]["holds"] = False
    (tmp_path / second / "claims.json").write_text(json.dumps(docs))
    assert ct.main(["--update", str(tmp_path), "-o", str(out)]) == 0
    assert out.read_text() != before and "| plain: run: also holds |" in out.read_text()
    assert "marked *calibration target*): 1." in out.read_text(), "a kept row keeps its mark"

    # A missing experiment is named, with exit status 2.
    assert ct.main(["--from", str(tmp_path), "-o", str(out)]) == 2


def test_docs_claims_table_lists_every_experiment():
    from pathlib import Path

    from nestsim.experiments import EXPERIMENTS

    text = (Path(__file__).resolve().parent.parent / "docs" / "claims.md").read_text()
    missing = [n for n in EXPERIMENTS if f"## `{n}`" not in text]
    assert not missing, f"regenerate docs/claims.md (scripts/claims_table.py --run DIR): {missing}"


def test_a_claim_that_also_holds_with_its_mechanism_off_is_not_counted_as_held(tmp_path):
    import json

    from nestsim.claims import Claim, ablation, render_claims, write_claims

    doc = write_claims(tmp_path, "x", [
        Claim("real", "s", "c", "e", "m", True, ablation=ablation("DCTCP", False)),
        Claim("vacuous", "s", "c", "e", "m", True, ablation=ablation("no QoS", True)),
        Claim("plain", "s", "c", "e", "m", True),
    ])
    by_id = {c["id"]: c for c in json.loads((tmp_path / "claims.json").read_text())["claims"]}
    assert by_id["real"]["holds"] is True and "why" not in by_id["real"]
    assert by_id["real"]["ablation"] == {"off": "DCTCP", "holds": False}
    v = by_id["vacuous"]
    assert v["holds"] is None and "also holds with the mechanism off (no QoS)" in v["why"]
    assert "ablation" not in by_id["plain"]
    text = render_claims(doc)
    assert "mechanism off (DCTCP): does not hold, as it should" in text
    assert "mechanism off (no QoS): also holds" in text


def test_an_experiment_or_a_sweep_counts_its_finished_runs_on_a_terminal(monkeypatch, capsys):
    import sys

    from nestsim.progress import RunsDone

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    done = RunsDone(3, 2)
    done.one("a")
    done.one("b")
    done.close()
    err = capsys.readouterr().err
    assert "1/3 runs done on 2 worker(s)" in err and "2/3 runs done" in err and "(last: b)" in err and "ETA" in err
    resumed = RunsDone(4, 2, skipped=5)
    resumed.one()
    resumed.close()
    assert "1/4 runs done on 2 worker(s), 5 already complete" in capsys.readouterr().err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    quiet = RunsDone(3, 2)
    quiet.one("a")
    quiet.close()
    assert capsys.readouterr().err == ""


def test_progress_says_when_a_run_drains_and_can_go_to_a_log(monkeypatch, capsys):
    """Issue 63 item 2 / issue 62 finding 10: past its duration a run drains for a time nobody knows,
    so the line says so instead of "100 % ETA 0"; NEST_PROGRESS=1 prints plain lines where stderr
    is not a terminal (CI logs), NEST_PROGRESS=0 silences a terminal."""
    import sys

    from nestsim import progress

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    bar = progress.Progress(delay_s=0)
    bar.update(0.5, 0.05, 1000, 10)
    bar.update(1.0, 0.7, 2000, 20)
    bar.close()
    err = capsys.readouterr().err
    assert "50.0%  ETA" in err and "draining past the duration  sim 0.7000s" in err and "100.0%" not in err
    monkeypatch.setenv("NEST_PROGRESS", "0")
    bar = progress.Progress(delay_s=0)
    bar.update(0.5, 0.05, 1000, 10)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    monkeypatch.setenv("NEST_PROGRESS", "1")
    monkeypatch.setattr(progress, "LOG_EVERY_S", 0.0)
    bar = progress.Progress(delay_s=0)
    bar.update(0.25, 0.025, 500, 5)
    bar.update(0.5, 0.05, 1000, 10)
    bar.close()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and lines[0].startswith(" 25.0%") and "\r" not in "".join(lines)


def test_a_region_map_sweeps_marks_the_reference_and_renders(tmp_path):
    import copy
    import json

    from nestsim.claims import render_claims, write_claims
    from nestsim.experiments.regions import Axis, reference_value, region_map

    def build(rate, servers):
        sc = copy.deepcopy(_tiny(1))
        sc["workload"][0]["arrival"]["rate_iops"] = rate
        sc["device"][0]["servers"] = int(servers)
        return sc

    doc = region_map(tmp_path, "lat-vs-load", title="latency against load",
                     x=Axis("rate", "arrival rate (IOPS)", [5000, 20000, 35000]),
                     series=Axis("servers", "servers", [1, 2]), build=build,
                     measure=lambda s, d, at: {"mean": s["workloads"]["w"]["all"]["lat_us"]["mean"]},
                     ylabel="mean latency (µs)", reference={"rate": 20000, "servers": 2},
                     holds=lambda c, y, _: y < 100.0, effect="mean below 100 µs")
    assert [c["label"] for c in doc["curves"]] == ["servers 1 mean", "servers 2 mean"]
    one, two = (c["values"] for c in doc["curves"])
    # Queueing theory, not a recorded number: latency grows with load, and one server is slower
    # than two at every load.
    assert one == sorted(one) and two == sorted(two)
    assert all(a > b for a, b in zip(one, two))
    # At 35 K IOPS one 50 µs server is overloaded (ρ = 1.75): the effect is absent there.
    assert doc["curves"][0]["holds"][-1] is False and doc["curves"][1]["holds"][0] is True
    assert reference_value(doc, "mean") == two[1]
    ran = json.loads((tmp_path / "regions" / "lat-vs-load" / "rate=20000,servers=2" / "summary.json").read_text())
    assert ran["workloads"]["w"]["all"]["lat_us"]["mean"] == two[1]
    assert json.loads((tmp_path / "lat-vs-load.region.json").read_text()) == doc
    assert (tmp_path / "lat-vs-load.png").exists()
    text = render_claims(write_claims(tmp_path, "x", [], regions=[doc]))
    assert "| servers 2 mean ★ |" in text and "20000 ★" in text and "✓" in text
    with pytest.raises(ValueError, match="not swept"):
        region_map(tmp_path, "bad", title="t", x=Axis("rate", "r", [1, 2]), build=build, measure=lambda s, d, at: 0.0,
                   ylabel="y", reference={"rate": 3}, effect="e")
