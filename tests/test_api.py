import nestsim
import pytest
from conftest import SMALL

import tomllib


def test_run_from_dict_returns_tables():
    sc = tomllib.loads(SMALL)
    res = nestsim.run(sc, seed=5)
    assert res.summary["seed"] == 5
    assert res.requests.num_rows == res.summary["requests"]["completed"]
    lat = res.requests.column("latency_us").to_pylist()
    assert min(lat) > 0
    # Stage timestamps are ordered for every request.
    t = res.requests.to_pydict()
    for a, d, s, c in zip(t["t_arrive_ps"], t["t_dispatch_ps"], t["t_dev_start_ps"], t["t_complete_ps"]):
        assert a <= d <= s <= c
    assert res.timeseries.num_rows > 0


def test_bad_dict_raises_config_error():
    sc = tomllib.loads(SMALL)
    sc["workload"][0]["arrival"]["rate_iops"] = -5
    with pytest.raises(nestsim.ConfigError, match="rate_iops"):
        nestsim.run(sc)


def test_summary_matches_the_request_table():
    res = nestsim.run(tomllib.loads(SMALL), overrides=["run.warmup=0ms"])
    t = res.requests.to_pydict()
    hi_reads = [l for l, w, o in zip(t["latency_us"], t["workload"], t["op"]) if w == "hi" and o == "read"]
    s = res.summary["workloads"]["hi"]["read"]
    assert s["ios"] == len(hi_reads)
    assert abs(s["lat_us"]["mean"] - sum(hi_reads) / len(hi_reads)) < 1e-3
    exact_p99 = sorted(hi_reads)[int(0.99 * len(hi_reads) + 0.999999) - 1]
    assert abs(s["lat_us"]["p99"] - exact_p99) / exact_p99 < 0.01


def test_host_cache_hits_show_in_the_requests_table():
    sc = {
        "schema": 1,
        "host": [{"name": "h", "cache": {"algorithm": "arc", "blocks": 64}}],
        "device": [{"name": "d", "kind": "ideal", "servers": 2, "read": {"dist": "fixed", "value": "10us"},
                    "write": {"dist": "fixed", "value": "10us"}}],
        "workload": [{"name": "w", "device": "d", "host": "h", "arrival": {"kind": "constant", "rate_iops": 1000},
                      "size": {"dist": "fixed", "bytes": "4KiB"}, "read_fraction": 1.0,
                      "address": {"pattern": "sequential"}, "range": "128KiB", "max_ios": 200}],
    }
    r = nestsim.run(sc)
    t = r.requests
    assert t.num_rows == 200 and "cache_hit_blocks" in t.column_names
    hit = t.column("cache_hit_blocks").to_numpy()
    lat = t.column("latency_us").to_numpy()
    c = r.summary["hosts"]["h"]["cache"]
    assert int(hit.sum()) == c["hits"] == 200 - 32
    # A hit costs lookup + copy (~1.1 µs), far below the 10 µs device read of a miss.
    assert lat[hit == 1].max() < 2.0 < 10.0 <= lat[hit == 0].min()


def test_end_to_end_demo_decomposes_every_request():
    from conftest import ROOT
    res = nestsim.run(ROOT / "examples" / "demo.toml", overrides=["run.duration=25ms", "run.warmup=5ms"])
    s = res.summary
    assert s["conservation"] == "ok"
    assert s["nvmeof"]["commands_sent"] == s["nvmeof"]["responses_received"] + s["nvmeof"]["in_flight"]
    t = res.requests.to_pydict()
    parts = [c for c in t if c.endswith("_us") and c != "latency_us" and not c.startswith("ssd_")]
    assert parts == [f"{p}_us" for p in nestsim.runner.PARTS]
    # Inside the SSDs, the SSD parts add up to the device part; other devices have none.
    ssd = [f"ssd_{p}_us" for p in nestsim.runner.SSD_PARTS]
    for i, dev in enumerate(t["device_us"]):
        inside = sum(t[c][i] for c in ssd)
        assert inside == 0 or abs(inside - dev) < 1e-3, (i, inside, dev)
    assert any(sum(t[c][i] for c in ssd) > 0 for i in range(len(t["device_us"])))
    for i, lat in enumerate(t["latency_us"]):
        ps = [t[c][i] for c in parts]
        assert min(ps) >= 0 and abs(sum(ps) - lat) < 1e-3, (i, ps, lat)
        # Storage requests cross the network both ways.
        if t["class"][i] == "high":
            assert t["fwd_network_us"][i] > 0 and t["back_network_us"][i] > 0
    # PM requests reach a sub-µs device.
    pm = s["classes"]["urgent"]["all"]["decomposition_us"]
    assert pm["device"] < 1.0
    assert abs(sum(pm.values()) - s["classes"]["urgent"]["all"]["lat_us"]["mean"]) < 0.01


def test_requests_mark_the_measured_window_and_a_result_prints_short():
    # SMALL: warm-up 2 ms of a 20 ms run; with a 3 ms wrap-up the window is [2, 17) ms.
    res = nestsim.run(tomllib.loads(SMALL), overrides=["run.wrapup=3ms"])
    t = res.requests.to_pydict()
    inside = [2e9 <= a < 17e9 for a in t["t_arrive_ps"]]
    assert t["in_window"] == inside and 0 < sum(inside) < len(inside)
    assert sum(inside) == res.summary["requests"]["measured"], "the flag is what the summary counts"
    r = repr(res)
    assert len(r) < 400 and r.startswith("RunResult('small', seed 3") and "high:" in r and "p99" in r, r


def test_the_python_tour_notebook_runs(tmp_path, monkeypatch):
    """examples/python-tour.ipynb: every code cell runs, in order, in one namespace, from a copy of
    examples/ (what a reader does with "Run all"); its last expression of each cell is evaluated."""
    import ast
    import json as _json
    import shutil

    import matplotlib

    from conftest import ROOT

    matplotlib.use("Agg")
    work = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", work)
    monkeypatch.chdir(work)
    nb = _json.loads((work / "python-tour.ipynb").read_text())
    ns: dict = {}
    ran = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        tree = ast.parse("".join(cell["source"]))
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, "python-tour.ipynb", "exec"), ns)
        if last is not None:
            repr(eval(compile(ast.Expression(last.value), "python-tour.ipynb", "eval"), ns))
        ran += 1
    assert ran >= 6
    # What the tour shows holds: the runs finished, the comparison names the changed keys.
    assert ns["qos"].summary["requests"]["in_flight"] == 0 or ns["qos"].summary["warnings"]
    assert any("qos" in k for k in ns["cmp"].config_diff), ns["cmp"].config_diff
    assert ns["figs"], "the run has figures"


def test_plot_writes_a_results_figures_and_refuses_an_in_memory_one(tmp_path):
    import pytest

    res = nestsim.run({"schema": 1, "run": {"duration": "5ms"}, "device": [{"name": "d", "kind": "ideal", "read": {"dist": "fixed", "value": "50us"}, "write": {"dist": "fixed", "value": "20us"}}],
                       "workload": [{"name": "w", "device": "d", "arrival": {"kind": "poisson", "rate_iops": 20000}}]},
                      out_dir=tmp_path / "r", progress=False)
    paths = nestsim.plot(res)
    assert paths and {p.suffix for p in paths} == {".png", ".svg", ".pdf"} and all(p.parent == tmp_path / "r" / "plots" for p in paths)
    assert sorted(nestsim.plot(tmp_path / "r")) == sorted(paths), "a directory works the same"
    with pytest.raises(ValueError, match="out_dir"):
        nestsim.plot(nestsim.run({"schema": 1, "run": {"duration": "1ms"}, "device": [{"name": "d", "kind": "ideal", "read": {"dist": "fixed", "value": "50us"}, "write": {"dist": "fixed", "value": "20us"}}],
                                  "workload": [{"name": "w", "device": "d", "arrival": {"kind": "poisson", "rate_iops": 1000}}]}))


def test_a_dict_scenarios_errors_name_the_key_not_a_line_of_its_serialisation():
    import re

    with pytest.raises(nestsim.ConfigError) as e:
        nestsim.run({"schema": 1, "run": {"duration": "1ms"}, "device": [{"name": "d", "kind": "ideal"}],
                     "workload": [{"name": "w", "device": "d", "arrival": {"kind": "poisson", "rate_iops": 1000}}]})
    assert "<dict>: device[0]: missing field `read`" in str(e.value), e.value
    assert not re.search(r"<dict>:\d", str(e.value))


def test_a_workload_that_issues_nothing_is_named_in_a_warning():
    """Issue 63, S12: a run whose workload never issues a request exits 0 with empty statistics;
    the summary says so instead of leaving a reader to take the zeros for a result."""
    import nestsim

    sc = {"schema": 1, "name": "late", "run": {"seed": 1, "duration": "5ms"},
          "device": [{"name": "d", "kind": "ideal", "servers": 1, "read": {"dist": "fixed", "value": "10us"},
                      "write": {"dist": "fixed", "value": "10us"}}],
          "workload": [{"name": "early", "device": "d", "class": "high", "arrival": {"kind": "poisson", "rate_iops": 10000}},
                       {"name": "late", "device": "d", "class": "low", "start": "1s",
                        "arrival": {"kind": "poisson", "rate_iops": 10000}}]}
    warnings = nestsim.run(sc).summary["warnings"]
    silent = [w for w in warnings if w.startswith("no request issued")]
    assert len(silent) == 1 and "late" in silent[0] and "early" not in silent[0], warnings


@pytest.mark.parametrize("example", ["demo.toml", "plmc.toml", "storage-classes.toml", "ssd-gc.toml", "e2e-throughput.toml"])
def test_summary_json_is_byte_for_byte_what_pythons_json_writes(example, tmp_path):
    """The engine writes summary.json itself (issue 64: Python's encoder with an indent was half
    of a 10,000-drive run's CLI time); the bytes must stay json.dumps(indent=2, sort_keys=True)'s."""
    import json
    from pathlib import Path

    from conftest import ROOT

    res = nestsim.run(str(ROOT / "examples" / example), out_dir=tmp_path, progress=False, overrides=["run.duration=30ms", "run.warmup=0ms"])
    text = (Path(tmp_path) / "summary.json").read_text()
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"
    assert json.loads(text) == res.summary


def test_the_summary_is_parsed_on_first_use_and_the_head_agrees_with_it(small_scenario, tmp_path):
    """A run keeps the engine's summary text until the summary is read (a command that only writes
    summary.json never parses it back: 1.5 CPU-s on a 10,000-drive run, issue 64); what run.json
    and the exit status need comes with it, read from the same summary."""
    import json

    from nestsim import runner

    res = runner.run(small_scenario, out_dir=tmp_path / "o", progress=False, keep_tables=False)
    assert res._summary is None and res._summary_text is not None
    s = res.summary
    assert s == json.loads((tmp_path / "o" / "summary.json").read_text()) and res._summary_text is None
    h = res.head
    assert (h["events"], h["completed"], h["sim_time_s"], h["seed"], h["scenario"], h["conservation"]) == (
        s["events"], s["requests"]["completed"], s["sim_time_s"], s["seed"], s["scenario"], s["conservation"])
    assert h["network_conservation"] == s.get("network", {}).get("conservation") and h["stopped"] is None
    run = json.loads((tmp_path / "o" / "run.json").read_text())
    assert run["events"] == s["events"] and run["sim_time_s"] == s["sim_time_s"]
