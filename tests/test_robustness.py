"""Issue 25: budgets that stop a run cleanly with partial outputs, memory estimates that refuse a
scenario before it is built, the internal-error boundary (a Rust panic or an unexpected Python
exception is exit 70 with the input named), and the sweep file's own limits."""

import json
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import nestsim
from nestsim import _native, cli as nest_cli

from conftest import ROOT, SMALL

OVERLOAD = SMALL.replace('rate_iops = 20000', 'rate_iops = 2000000').replace('duration = "20ms"', 'duration = "10s"')


def test_max_events_stops_cleanly_with_partial_outputs_and_the_same_summary_twice(tmp_path, cli):
    (tmp_path / "s.toml").write_text(SMALL.replace('duration = "20ms"', 'duration = "1s"'))
    outs = []
    for i in range(2):
        p = cli("run", "s.toml", "-q", "-o", f"o{i}", "--max-events", 20000)
        assert p.returncode == 4, p.stderr
        assert "stopped after 20,000 events (--max-events)" in p.stderr
        s = json.loads((tmp_path / f"o{i}" / "summary.json").read_text())
        assert s["stopped"]["by"] == "events" and s["events"] == 20000
        # Partial, and says so: requests still in flight are counted, not lost.
        assert s["requests"]["issued"] == s["requests"]["completed"] + s["requests"]["in_flight"]
        assert 0 < s["sim_time_s"] < 1
        assert pq.read_table(tmp_path / f"o{i}" / "requests.parquet").num_rows == s["requests"]["completed"]
        outs.append(s)
    assert outs[0] == outs[1]


def test_a_run_that_outgrows_max_memory_stops_and_names_the_workload(tmp_path, cli):
    # 2M IOPS offered to a device that serves ~80K: requests pile up without bound.
    (tmp_path / "s.toml").write_text(OVERLOAD)
    p = cli("run", "s.toml", "-q", "-o", "o", "--max-memory", "150MiB")
    assert p.returncode == 4, p.stderr
    assert "over the memory limit" in p.stderr and "workload 'hi'" in p.stderr, p.stderr
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert s["stopped"]["by"] == "memory" and s["stopped"]["rss_bytes"] > s["stopped"]["limit_bytes"]
    assert s["workloads"]["hi"]["in_flight"] > 100_000


def test_max_wall_stops_a_long_run(tmp_path):
    # 60 simulated seconds take seconds of CPU; the budget is checked after each step.
    text = OVERLOAD.replace('rate_iops = 2000000', 'rate_iops = 20000').replace('duration = "10s"', 'duration = "60s"')
    res = nestsim.run(nestsim_toml(tmp_path, text), budget=nestsim.Budget(wall_s=0.1), keep_tables=False)
    assert res.summary["stopped"]["by"] == "wall_s"
    assert 0 < res.summary["sim_time_s"] < 60


def nestsim_toml(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "scenario.toml"
    p.write_text(text)
    return p


@pytest.mark.parametrize("arg,value,message", [
    ("--max-events", "0", "above 0"),
    ("--max-wall", "-1", "above 0"),
    ("--max-memory", "12 parsecs", "expected a size"),
    ("--max-memory", "10KB", "at least 1 MiB"),
])
def test_budget_arguments_are_checked(tmp_path, cli, arg, value, message):
    (tmp_path / "s.toml").write_text(SMALL)
    p = cli("run", "s.toml", arg, value)
    assert p.returncode == 2 and message in p.stderr


def test_an_ssd_too_big_for_the_memory_limit_is_refused_before_it_is_built(tmp_path, cli):
    text = (ROOT / "examples" / "ssd-smoke.toml").read_text().replace("blocks_per_plane = 64", "blocks_per_plane = 200000")
    (tmp_path / "big.toml").write_text(text)
    p = cli("run", "big.toml", "-q", "--max-memory", "2GiB")
    assert p.returncode == 2
    assert "big.toml:" in p.stderr and "device[0].geometry" in p.stderr and "over the memory limit of 2.0 GiB" in p.stderr, p.stderr
    # A drive cache of a terabyte is blamed on the cache.
    text = (ROOT / "examples" / "ssd-smoke.toml").read_text().replace("[[workload]]", "cache = { capacity = \"1TiB\" }\n\n[[workload]]", 1)
    (tmp_path / "cache.toml").write_text(text)
    with pytest.raises(nestsim.ConfigError, match=r"device\[0\]\.cache.*cache slots"):
        nestsim.run(tmp_path / "cache.toml", budget=nestsim.Budget(memory_bytes=2**30), keep_tables=False)


@pytest.mark.parametrize("skew,message", [
    ("hot_fraction = 0.1", "device[0].precondition: expected hot_fraction and hot_share together"),
    ("hot_fraction = 1.5, hot_share = 0.9", "device[0].precondition.hot_fraction: expected a fraction in (0, 1)"),
    ("hot_fraction = 0.1, hot_share = -1", "device[0].precondition.hot_share: expected a fraction in [0, 1]"),
    ("cmt_warm = [0.5, 1.5]", "device[0].precondition.cmt_warm: expected shares of the mapping cache between 0 and 1, got 1.5"),
    ("cmt_warm = \"all\"", "device[0]: precondition.cmt_warm: a share of the mapping cache (0 to 1), or a list of them"),
])
def test_a_hot_cold_preconditioning_skew_is_checked(tmp_path, cli, skew, message):
    text = (ROOT / "examples" / "ssd-smoke.toml").read_text().replace("overwrites = 1.0 }", f"overwrites = 1.0, {skew} }}")
    (tmp_path / "hot.toml").write_text(text)
    p = cli("validate", "hot.toml")
    assert p.returncode == 2 and "hot.toml" in p.stderr and message in p.stderr, p.stderr
    # Both given and in range: valid, and the run preconditions with the skew.
    (tmp_path / "ok.toml").write_text(text.replace(skew, "hot_fraction = 0.1, hot_share = 0.9"))
    assert cli("validate", "ok.toml").returncode == 0

def test_a_fabric_whose_routing_tables_would_not_fit_is_refused_at_validation(tmp_path, cli):
    # Tables per ToR: a 200,000-sender dumbbell has one ToR, and validates at once.
    text = (ROOT / "examples" / "dctcp-dumbbell.toml").read_text().replace("senders = 3", "senders = 200000")
    (tmp_path / "db.toml").write_text(text)
    p = cli("validate", "db.toml")
    assert p.returncode == 0, p.stderr
    # A k = 64 fat-tree's (70,656 nodes × 2,048 ToRs × 2 B ≈ 289 MB) is over a 100 MiB limit.
    (tmp_path / "k64.toml").write_text((ROOT / "examples" / "e2e-throughput.toml").read_text().replace("\nk = 4", "\nk = 64"))
    p = cli("run", "k64.toml", "--max-memory", "100MiB")
    assert p.returncode == 2 and "network.topology" in p.stderr and "routing tables" in p.stderr, p.stderr
    (tmp_path / "ft.toml").write_text((ROOT / "examples" / "e2e-throughput.toml").read_text().replace("\nk = 4", "\nk = 2000"))
    p = cli("validate", "ft.toml")
    assert p.returncode == 2 and "2000000000 hosts: at most 1000000" in p.stderr, p.stderr


def test_a_rust_panic_is_an_internal_error_naming_where():
    with pytest.raises(nestsim.InternalError, match=r"internal error in the panic probe .*panicked at crates/nest-py/src/lib\.rs:\d+:\d+: a deliberate panic"):
        _native._panic_probe()
    # Not a BaseException that `except Exception` would miss.
    assert issubclass(nestsim.InternalError, Exception)


def test_the_cli_reports_internal_errors_with_the_command_and_exit_70(monkeypatch, capsys):
    def boom(a):
        raise KeyError("no such thing")
    monkeypatch.setattr(nest_cli, "cmd_validate", boom)
    assert nest_cli.main(["validate", "x.toml"]) == 70
    err = capsys.readouterr().err
    assert "internal error" in err and "KeyError" in err and "nestsim validate x.toml" in err
    assert "Traceback" not in err

    def panicked(a):
        _native._panic_probe()
    monkeypatch.setattr(nest_cli, "cmd_validate", panicked)
    assert nest_cli.main(["validate", "y.toml"]) == 70
    assert "a deliberate panic" in capsys.readouterr().err


def test_type_errors_inside_device_tables_name_the_key(tmp_path):
    text = SMALL.replace("servers = 4", 'servers = "four"')
    with pytest.raises(nestsim.ConfigError, match=r"scenario\.toml:\d+:\d+: device\[0\]\.servers: invalid type: string \"four\""):
        nestsim.run(nestsim_toml(tmp_path, text))
    with pytest.raises(nestsim.ConfigError, match=r"--set device\[0\]\.servers=0\.5"):
        nestsim.run(nestsim_toml(tmp_path, SMALL), overrides=["run.duration=1ms", "device[0].servers=0.5"])


SWEEP = """[sweep]
scenario = "s.toml"
seeds = 2
[[sweep.axis]]
key = "device[0].servers"
values = [2, 4]
"""


def test_sweep_dry_run_checks_every_combination_and_runs_nothing(tmp_path, cli):
    (tmp_path / "s.toml").write_text(SMALL)
    (tmp_path / "sw.toml").write_text(SWEEP)
    p = cli("sweep", "sw.toml", "--dry-run", "-o", "out", check=0)
    assert "OK, 4 runs" in p.stdout and not (tmp_path / "out").exists()
    (tmp_path / "bad.toml").write_text(SWEEP.replace("[2, 4]", '[2, "x"]'))
    p = cli("sweep", "bad.toml", "--dry-run")
    assert p.returncode == 2 and "bad.toml: run r0002 (device[0].servers='x')" in p.stderr, p.stderr


def test_sweep_limits_and_non_utf8_files(tmp_path, cli):
    (tmp_path / "s.toml").write_text(SMALL)
    (tmp_path / "huge.toml").write_text(SWEEP.replace("seeds = 2", "seeds = 1000000000000"))
    p = cli("sweep", "huge.toml", "--dry-run")
    assert p.returncode == 2 and "huge.toml" in p.stderr and "seeds" in p.stderr
    (tmp_path / "grid.toml").write_text(SWEEP.replace("values = [2, 4]", f"values = {list(range(1, 60000))}"))
    p = cli("sweep", "grid.toml", "--dry-run")
    assert p.returncode == 2 and "over the limit of 100,000" in p.stderr, p.stderr
    (tmp_path / "bin.toml").write_bytes(SWEEP.encode().replace(b"seeds", b"se\xffeds"))
    p = cli("sweep", "bin.toml", "--dry-run")
    assert p.returncode == 2 and "bin.toml:3: not UTF-8" in p.stderr, p.stderr


def test_mqsim_errors_in_the_converted_scenario_name_the_ssdconfig(tmp_path, cli):
    fx = ROOT / "tests" / "fixtures" / "mqsim"
    xml = (fx / "ssdconfig-small.xml").read_text()
    import re
    bad = re.sub(r"<Block_No_Per_Plane>\d+</Block_No_Per_Plane>", "<Block_No_Per_Plane>99999999999</Block_No_Per_Plane>", xml)
    assert bad != xml
    (tmp_path / "ssd.xml").write_text(bad)
    p = cli("run", "--mqsim", "ssd.xml", fx / "workload-small.xml", "--trace-dir", fx, "-q")
    assert p.returncode == 2 and "ssd.xml (converted)" in p.stderr and "<dict>" not in p.stderr, p.stderr


def test_max_wall_holds_while_a_large_drive_is_preconditioned(tmp_path, cli):
    # Found by the mutation test: 128,000 blocks per plane, preconditioned, took minutes to
    # build before the first event, past any --max-wall.
    big = ROOT / "tests" / "fixtures" / "mutation" / "scenario--plmc.toml--128000-blocks-per-plane-precondition"
    (tmp_path / "big.toml").write_text(big.read_text())
    p = cli("run", "big.toml", "-q", "-o", "o", "--max-wall", "0.5")
    assert p.returncode == 4, p.stderr
    assert "while preconditioning the drive" in p.stderr and "no outputs" in p.stderr
    with pytest.raises(nestsim.Stopped):
        nestsim.run(tmp_path / "big.toml", budget=nestsim.Budget(wall_s=0.2), keep_tables=False)


def test_max_wall_holds_while_a_large_fabric_routes_are_computed(tmp_path, cli):
    # Found by nest-fuzz: a k = 94 fat-tree (207,646 hosts) spent 134 CPU-s in `validate`
    # proving its routes and as long again building them before the first event, past any
    # --max-wall. Now validation trusts the generators (connected by construction) and the route
    # search stops at the deadline.
    k94 = ROOT / "tests" / "fixtures" / "mutation" / "scenario--demo.toml--fat-tree-k94-validation-routes"
    (tmp_path / "k94.toml").write_text(k94.read_text())
    p = cli("validate", "k94.toml")
    assert p.returncode == 0, p.stderr
    p = cli("run", "k94.toml", "-q", "-o", "o", "--max-wall", "0.5")
    assert p.returncode == 4, p.stderr
    assert "while computing the routes of 218691 nodes" in p.stderr and "no outputs" in p.stderr, p.stderr


def test_a_trace_time_scale_past_the_engines_span_is_refused_naming_the_key(tmp_path, cli):
    # Found by the mutation test: time_scale = 1e12 (or 2^63, 1e308) validated and the replay
    # then failed mid-run naming the trace, not the key that scaled it.
    (tmp_path / "t.trace").write_text("".join(f"{0.5 * i:.3f} 0 {8 * i} 16 {i % 2}\n" for i in range(20)))
    text = lambda scale: ('schema = 1\n[[device]]\nname = "d"\nkind = "ideal"\nread = { dist = "fixed", value = "10us" }\n'
                          'write = { dist = "fixed", value = "10us" }\n[[workload]]\nname = "w"\ndevice = "d"\n'
                          f'trace = {{ path = "t.trace", format = "disksim", time_scale = {scale} }}\n')
    for scale in ("1e12", "9223372036854775807", "1e308"):
        (tmp_path / "s.toml").write_text(text(scale))
        p = cli("validate", "s.toml")
        assert p.returncode == 2 and "s.toml" in p.stderr and "workload[0].trace.time_scale" in p.stderr and "at most 1e6" in p.stderr, p.stderr
    (tmp_path / "s.toml").write_text(text("1e6"))
    assert cli("validate", "s.toml").returncode == 0


def test_a_graph_with_a_host_cut_off_is_refused_at_validation(tmp_path, cli):
    # Validation proves only a user's graph connected (the generators are by construction).
    nodes = "".join(f'[[network.node]]\nname = "{n}"\nkind = "{k}"\n' for n, k in (("a", "host"), ("b", "host"), ("c", "host"), ("s1", "switch"), ("s2", "switch")))
    links = "".join(f'[[network.link]]\na = "{a}"\nb = "{b}"\n' for a, b in (("a", "s1"), ("b", "s1"), ("c", "s2")))
    flow = '[[flow]]\nname = "f"\nsrc = "a"\ndst = "c"\nclass = "best_effort"\ntransport = "dctcp"\n'
    (tmp_path / "g.toml").write_text('schema = 1\n[run]\nduration = "1ms"\n' + flow + '[network]\ntopology = "graph"\n' + nodes + links)
    p = cli("validate", "g.toml")
    assert p.returncode == 2 and "network.topology" in p.stderr and "cannot reach host 'c'" in p.stderr, p.stderr
    (tmp_path / "g2.toml").write_text((tmp_path / "g.toml").read_text() + '[[network.link]]\na = "s1"\nb = "s2"\n')
    assert cli("validate", "g2.toml").returncode == 0


def test_a_sweep_run_stopped_at_its_budget_is_not_sealed_as_done(tmp_path, monkeypatch):
    import importlib
    runner = importlib.import_module("nestsim.runner")
    sweep = importlib.import_module("nestsim.sweep")  # the module; `nestsim.sweep` is its run_sweep

    real = runner.run

    def stopped(*a, **kw):
        res = real(*a, **kw)
        res.summary["stopped"] = {"by": "memory", "at_sim_s": 0.001}
        return res

    (tmp_path / "s.toml").write_text(SMALL)
    monkeypatch.setattr(runner, "run", stopped)
    with pytest.raises(nestsim.SimError, match="not counted as done"):
        sweep._run_one(str(tmp_path / "s.toml"), str(tmp_path / "r0000"), 1, {}, False)
    assert not sweep._is_complete(tmp_path / "r0000", sweep.RunSpec("r0000", 1, {}))


def test_an_idle_gap_costs_nothing(cli, tmp_path):
    """Issue 63, S1: one record 10⁶ s after the others made the run sample the idle gap tick by tick
    (and, once the sampler skipped it, the time series ask for a row per empty interval)."""
    import json

    import pyarrow.parquet as pq

    trace = tmp_path / "far.csv"
    trace.write_text("0,R,0,4096,0\n0,R,4096,4096,1000\n0,R,0,4096,1000000000000\n")
    cli("replay", trace, "--format", "alibaba", "--device", "ideal", "-o", tmp_path / "out", check=0)
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert s["requests"]["completed"] == 3 and s["sim_time_s"] >= 1e6
    # A handful of sampling ticks, not 10⁹: each series resumes with one row after the gap.
    assert s["events"] < 100, s["events"]
    t = pq.read_table(tmp_path / "out" / "timeseries.parquet").to_pydict()
    assert len(t["time_s"]) < 100 and max(t["time_s"]) == 1e6


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_a_signal_stops_a_run_cleanly_with_its_summary(tmp_path, sig):
    """Issue 63: SIGTERM (143) and Ctrl-C (130) wrote no summary. Now either is a clean stop."""
    import signal
    import subprocess
    import time

    from conftest import nestsim_cmd

    sc = tmp_path / "long.toml"
    sc.write_text(SMALL.replace('duration = "20ms"', 'duration = "5000s"'))
    out = tmp_path / "out"
    p = subprocess.Popen(nestsim_cmd() + ["run", str(sc), "-o", str(out), "--quiet"], stderr=subprocess.PIPE, text=True)
    # Wait until the run steps (its partial outputs exist), then signal it.
    for _ in range(600):
        if (out / "requests.parquet.partial").exists() or p.poll() is not None:
            break
        time.sleep(0.1)
    time.sleep(0.5)
    p.send_signal(getattr(signal, sig))
    _, err = p.communicate(timeout=120)
    assert p.returncode == 4, (p.returncode, err)
    assert f"stopped by {sig}" in err, err
    s = json.loads((out / "summary.json").read_text())
    assert s["finished"] == "stopped" and s["stopped"]["by"] == "signal" and s["stopped"]["signal"] == sig
    assert s["requests"]["completed"] > 0 and s["conservation"] == "ok"
    assert (out / "requests.parquet").exists()
    # run.json states the limits the run was held to; the memory default is what was available.
    budget = json.loads((out / "run.json").read_text())["budget"]
    assert budget["events"] is None and budget["wall_s"] is None and 0 < budget["memory_bytes"]
