import json
import re
from pathlib import Path

import pyarrow.parquet as pq


def test_run_writes_every_output_and_prints_a_summary(cli, small_scenario, tmp_path):
    out = tmp_path / "o"
    p = cli("run", small_scenario, "-o", out, check=0)
    assert "per class:" in p.stdout and "hi read" in p.stdout
    s = json.loads((out / "summary.json").read_text())
    run = json.loads((out / "run.json").read_text())
    assert s["conservation"] == "ok"
    assert set(s["classes"]) == {"high", "low"}
    for op in ("read", "write"):
        d = s["classes"]["high"][op]
        assert set(d["lat_us"]) >= {"mean", "p50", "p90", "p99", "p99_9"}
    h = s["hosts"]["host0"]
    assert h["all"]["ios"] == s["classes"]["high"]["all"]["ios"] + s["classes"]["low"]["all"]["ios"]
    assert run["events_per_cpu_s"] > 0 and run["peak_rss_mb"] > 0 and "wall_s" in run
    req = pq.read_table(out / "requests.parquet")
    assert req.num_rows == s["requests"]["completed"]
    assert {"t_arrive_ps", "t_dispatch_ps", "t_dev_start_ps", "t_complete_ps", "latency_us"} <= set(req.column_names)
    ts = pq.read_table(out / "timeseries.parquet")
    assert ts.num_rows > 0 and set(ts.column_names) >= {"time_s", "entity", "metric", "value"}
    assert not list(out.glob("*.partial"))


def test_same_seed_gives_byte_identical_summary(cli, small_scenario, tmp_path):
    cli("run", small_scenario, "-o", tmp_path / "a", "-q", check=0)
    cli("run", small_scenario, "-o", tmp_path / "b", "-q", check=0)
    cli("run", small_scenario, "-o", tmp_path / "c", "-q", "--seed", "4", check=0)
    a, b, c = ((tmp_path / x / "summary.json").read_bytes() for x in "abc")
    assert a == b
    assert a != c


def test_set_overrides_and_seed(cli, small_scenario, tmp_path):
    cli("run", small_scenario, "-o", tmp_path / "o", "-q", "--seed", "9", "--set", "run.duration=5ms", "--set", "workload[1].class=medium", check=0)
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert s["seed"] == 9
    assert "medium" in s["classes"]
    assert s["config"]["run"]["duration"] == "5ms"


def test_validate_ok_and_bad_input_exit_2_naming_file_line_and_key(cli, small_scenario, tmp_path):
    assert "OK" in cli("validate", small_scenario, check=0).stdout
    bad = tmp_path / "bad.toml"
    bad.write_text(small_scenario.read_text().replace('mean = "50us"', 'mean = "50 furlongs"').replace("read_fraction = 0.7", "read_fraction = 7"))
    p = cli("validate", bad, check=2)
    assert "bad.toml:12:24" in p.stderr and "device[0].read.mean" in p.stderr, p.stderr
    assert "bad.toml:19:1: workload[0].read_fraction" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr
    unknown = tmp_path / "unknown.toml"
    unknown.write_text(small_scenario.read_text().replace("servers = 4", "servers = 4\nspeed = 3"))
    p = cli("run", unknown, check=2)
    assert "unknown.toml:" in p.stderr and "speed" in p.stderr
    p = cli("run", tmp_path / "missing.toml", check=2)
    assert "missing.toml" in p.stderr
    typo = tmp_path / "syntax.toml"
    typo.write_text("schema = 1\n[run\n")
    p = cli("validate", typo, check=2)
    assert "syntax.toml:2" in p.stderr


def test_inconsistent_references_are_reported(cli, small_scenario, tmp_path):
    bad = tmp_path / "refs.toml"
    bad.write_text(small_scenario.read_text().replace('device = "d0"\nclass = "low"', 'device = "d9"\nclass = "low"'))
    p = cli("validate", bad, check=2)
    assert "no device or volume named 'd9'" in p.stderr


def test_fio_json_output(cli, small_scenario, tmp_path):
    cli("run", small_scenario, "-o", tmp_path / "o", "-q", "--set", "output.fio_json=true", check=0)
    f = json.loads((tmp_path / "o" / "fio.json").read_text())
    names = {j["jobname"] for j in f["jobs"]}
    assert names == {"hi", "lo"}
    job = next(j for j in f["jobs"] if j["jobname"] == "hi")
    assert job["read"]["clat_ns"]["percentile"]["99.000000"] > 0


def test_report_writes_self_contained_html(cli, small_scenario, tmp_path):
    cli("run", small_scenario, "-o", tmp_path / "o", "-q", check=0)
    cli("report", tmp_path / "o", check=0)
    html = (tmp_path / "o" / "report.html").read_text()
    assert "<svg" in html and "per class" in html and "<img" not in html
    assert cli("report", tmp_path / "nothing-here", check=2).stderr.startswith("nestsim: error")


def test_bad_end_to_end_placement_names_its_key(cli, tmp_path):
    from conftest import ROOT
    text = (ROOT / "examples" / "demo.toml").read_text()
    bad = tmp_path / "e2e.toml"
    bad.write_text(text.replace('server = "h13"', 'server = "c0"').replace('transport = "qtcp"', 'transport = "tcp"'))
    p = cli("validate", bad, check=2)
    assert "device[1].server" in p.stderr and "that is a switch" in p.stderr, p.stderr
    assert "nvmeof.transport" in p.stderr and "not a transport" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


def test_a_coordinator_budget_is_enforced_and_reported_and_a_bad_one_names_its_key(cli, small_scenario, tmp_path):
    text = small_scenario.read_text() + '\n[[coordinator]]\nname = "cap"\nkind = "fixed-budget"\nperiod = "1ms"\nios = 2\n'
    sc = tmp_path / "capped.toml"
    sc.write_text(text)
    cli("run", small_scenario, "-o", tmp_path / "free", "-q", check=0)
    cli("run", sc, "-o", tmp_path / "capped", "-q", check=0)
    free = json.loads((tmp_path / "free" / "summary.json").read_text())
    capped = json.loads((tmp_path / "capped" / "summary.json").read_text())
    assert capped["conservation"] == "ok"
    assert "coordinators" not in free and capped["coordinators"]["cap"]["kind"] == "fixed-budget"
    adm = capped["hosts"]["host0"]["admission"]
    assert adm["waited"] > 0 and adm["budgets"] >= 1
    # At most 2 requests per ms get past the gate.
    assert capped["requests"]["completed"] <= 2 * (capped["sim_time_s"] * 1000 + 1)
    assert capped["requests"]["completed"] < free["requests"]["completed"]
    bad = tmp_path / "bad.toml"
    bad.write_text(small_scenario.read_text() + '\n[[coordinator]]\nname = "cap"\nkind = "fixed-budget"\nios = 2\n')
    p = cli("validate", bad, check=2)
    assert "coordinator[0].period" in p.stderr, p.stderr


def test_a_path_the_os_refuses_is_bad_input_not_an_internal_error(cli, small_scenario, tmp_path):
    # Issue 63, S3: a path component over 255 bytes gave exit 70 "internal error".
    long = "a" * 300
    for args in (("replay", f"{long}/t.csv", "--format", "msr", "--device", "ideal"), ("run", f"{long}.toml"),
                 ("sweep", f"{long}.toml"), ("run", small_scenario, "-o", tmp_path / long / "out")):
        p = cli(*args)
        assert p.returncode == 2, (args[0], p.returncode, p.stderr)
        assert "internal error" not in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_a_failed_builtin_check_exits_3_and_says_where_the_outputs_are(capsys, tmp_path):
    from nestsim.cli import _checked

    assert _checked({"conservation": "ok"}, tmp_path) == 0
    assert _checked({"conservation": "ok", "network": {"conservation": "ok"}}, tmp_path) == 0
    assert _checked({"conservation": "ok", "network": {"conservation": "3 packets lost in lossless mode"}}, tmp_path) == 3
    assert _checked({"conservation": "device 'd': 1 in flight, 0 observed"}, tmp_path) == 3
    err = capsys.readouterr().err
    assert "lossless mode" in err and "device 'd'" in err and str(tmp_path) in err


def test_haechi_on_the_packet_fabric_runs_in_a_world_scenario(cli, tmp_path):
    """A scenario with a [network] and a [haechi] table is a World run: the Haechi clients' table
    beside the storage tables and the network's flows, `haechi` in summary.json, and a bad
    client host named by file and key."""
    from conftest import ROOT
    ex = ROOT / "examples" / "haechi-fabric.toml"
    assert cli("validate", ex, check=0).stdout.strip().endswith("OK")
    p = cli("run", ex, "-o", tmp_path / "w", check=0)
    assert "Haechi run on the packet fabric" in p.stdout and "haechi:r0>s0" in p.stdout and "st-s4" in p.stdout
    s = json.loads((tmp_path / "w" / "summary.json").read_text())
    h = s["haechi"]
    assert h["wire"] == "fabric" and h["conservation"]["ok"] and s["conservation"] == "ok"
    assert sum(h["per_period_total"][2:]) > 0 and s["requests"]["completed"] > 0
    bad = tmp_path / "bad.toml"
    bad.write_text(ex.read_text().replace('host = "s2"\npattern', 'host = "s42"\npattern', 1))
    p = cli("validate", bad, check=2)
    assert str(bad) in p.stderr and "haechi.clients[2].host" in p.stderr and "s42" in p.stderr, p.stderr


def test_a_haechi_file_runs_validates_and_names_its_errors(cli, tmp_path):
    """`nestsim run|validate` on a file with a [haechi] table: a readable per-client table, the
    usual summary.json / run.json, and a bad key named with the file, its line and the key."""
    from conftest import ROOT
    ex = ROOT / "examples" / "haechi.toml"
    assert cli("validate", ex, check=0).stdout.strip().endswith("OK")
    p = cli("run", ex, "-o", tmp_path / "h", check=0)
    assert "qos = haechi" in p.stdout and "C10" in p.stdout and "conservation: ok" in p.stdout
    s = json.loads((tmp_path / "h" / "summary.json").read_text())
    assert s["kind"] == "haechi" and s["conservation"] == "ok" and s["requests"]["completed"] > 6_000_000
    # Uniform reservations at 90 %: every client meets its 141.3 K in every measured period.
    for c in s["haechi"]["clients"]:
        assert min(c["per_period"][1:]) >= 141_300, c["name"]
    assert set(json.loads((tmp_path / "h" / "run.json").read_text())) >= {"wall_s", "cpu_s", "events_per_cpu_s"}
    bad = tmp_path / "bad.toml"
    bad.write_text(ex.read_text().replace("reservation = 141_300\ndemand", "reservaton = 141_300\ndemand", 1))
    p = cli("validate", bad, check=2)
    assert str(bad) in p.stderr and "reservaton" in p.stderr and "line" in p.stderr, p.stderr
    neg = tmp_path / "neg.toml"
    neg.write_text(ex.read_text().replace('pattern = "burst"\nreservation = 141_300\ndemand = 298_300', 'pattern = "constant"\nreservation = 1', 1))
    p = cli("run", neg, "-o", tmp_path / "n", check=2)
    assert "haechi.clients[0].demand" in p.stderr, p.stderr
    assert "no --seed" in cli("run", ex, "--seed", "3", "-o", tmp_path / "s", check=2).stderr
    # The report shows its table; compare says it reads World runs.
    cli("report", tmp_path / "h", check=0)
    assert "C10" in (tmp_path / "h" / "report.html").read_text()
    assert "Haechi run" in cli("compare", tmp_path / "h", tmp_path / "h", check=2).stderr


def test_outputs_say_where_they_came_from(cli, small_scenario, tmp_path):
    """run.json, both Parquet tables and the report carry the provenance: NeSt's version and git
    commit, the scenario, seed, command line and start time; the output layout has a version."""
    import subprocess

    import pyarrow.parquet as pq
    from conftest import ROOT

    cli("run", small_scenario, "-o", tmp_path / "o", "-q", "--seed", "9", check=0)
    info = json.loads((tmp_path / "o" / "run.json").read_text())
    p = info["provenance"]
    assert info["output_schema"] == 1 and p["seed"] == 9 and p["scenario"] == str(Path(small_scenario).resolve())
    assert p["command"].startswith("nestsim run ") and "--seed 9" in p["command"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", p["started_utc"])
    commit = p["git_commit"]
    if (ROOT / ".git").exists() and commit != "unknown":
        # The commit the package was built from: this checkout's HEAD or one before it.
        assert subprocess.run(["git", "merge-base", "--is-ancestor", commit, "HEAD"], cwd=ROOT).returncode == 0, commit
    for table in ("requests.parquet", "timeseries.parquet"):
        meta = json.loads(pq.read_schema(tmp_path / "o" / table).metadata[b"nestsim"])
        assert meta["output_schema"] == 1 and meta["seed"] == 9 and meta["git_commit"] == commit and meta["command"] == p["command"]
    cli("report", tmp_path / "o", check=0)
    html = (tmp_path / "o" / "report.html").read_text()
    assert f"commit {commit}" in html and "--seed 9" in html


def test_a_scenario_with_several_mistakes_gets_them_all_at_once_with_the_lines_shown(cli, tmp_path):
    (tmp_path / "bad.toml").write_text('schema = 1\nname = "x"\n[run]\nduraton = "1ms"\nseed = "eight"\n[[device]]\nname = "d"\n'
                                       'kind = "idael"\n')
    err = cli("validate", "bad.toml", check=2).stderr
    assert err.startswith("nestsim: error: bad.toml:4:1: run.duraton: unknown field"), err
    assert "bad.toml:5:8: run.seed: invalid type" in err and "did you mean `ideal`?" in err and "did you mean `duration`?" in err
    assert '  8 | kind = "idael"\n    |        ^' in err, err
    assert "missing field" not in err, "no follow-on errors"


def test_the_report_shows_classes_in_priority_order_the_path_the_network_and_the_scenario_as_toml(cli, tmp_path):
    """The report has the latency decomposition and per-flow network tables, classes urgent first,
    and the scenario as TOML that reads back to the same document."""
    import tomllib

    from conftest import ROOT

    from nestsim.report import to_toml

    cli("run", ROOT / "examples" / "demo.toml", "-o", tmp_path / "d", "-q", "--set", "run.duration=30ms", "--set", "run.warmup=5ms",
        check=0)
    cli("report", tmp_path / "d", check=0)
    html = (tmp_path / "d" / "report.html").read_text()
    assert "latency decomposition per class" in html and "<h3>network</h3>" in html and "scenario (TOML)" in html
    # The scenario's question (its description) and a headline: each class's p99 and sample count.
    assert "<p class='question'>k=4 fat-tree" in html and "<p class='headline'><b>urgent p99 " in html and "(n = " in html
    per_class = html.split("<h3>per class</h3>", 1)[1].split("</table>", 1)[0]
    order = [c for c in ("urgent", "high", "medium", "low") if f"<td>{c}</td>" in per_class]
    assert order == sorted(order, key=["urgent", "high", "medium", "low"].index) and len(order) >= 3, order
    assert per_class.index("<td>urgent</td>") < per_class.index("<td>high</td>") < per_class.index("<td>low</td>")
    config = json.loads((tmp_path / "d" / "summary.json").read_text())["config"]
    assert tomllib.loads(to_toml(config)) == config
    for example in sorted((ROOT / "examples").glob("*.toml")):
        doc = tomllib.loads(example.read_text())
        assert tomllib.loads(to_toml(doc)) == doc, example.name


def test_a_missing_optional_package_is_named_not_called_a_bug(monkeypatch, capsys, small_scenario):
    """Issue 62, finding 8: scikit-learn missing for src-tpm was "internal error (a NeSt bug …)"."""
    from nestsim import cli as nest_cli

    def needs_sklearn(_a):
        raise ModuleNotFoundError("No module named 'sklearn'", name="sklearn")

    monkeypatch.setattr(nest_cli, "cmd_validate", needs_sklearn)
    assert nest_cli.main(["validate", str(small_scenario)]) == 2
    err = capsys.readouterr().err
    assert "optional package 'scikit-learn'" in err and "nestsim[src]" in err and "bug" not in err, err

    def needs_something_else(_a):
        raise ModuleNotFoundError("No module named 'nestsim.gone'", name="nestsim.gone")

    monkeypatch.setattr(nest_cli, "cmd_validate", needs_something_else)
    assert nest_cli.main(["validate", str(small_scenario)]) == 70  # NeSt's own module missing: a bug


def test_every_argument_has_help_and_experiment_takes_jobs():
    """Issue 62, finding 10: `-q` and positional arguments had no help; `experiment` had no -j."""
    import argparse

    from nestsim import cli as nest_cli

    parser = nest_cli.build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = [f"{name} {a.dest}" for name, sp in subs.choices.items() for a in sp._actions
               if not isinstance(a, argparse._HelpAction) and not a.help]
    assert not missing, missing
    # Every command's --help renders (a positional with a tuple metavar made argparse raise).
    for name, sp in subs.choices.items():
        assert sp.format_help().startswith("usage:"), name
    a = parser.parse_args(["experiment", "qtcp-bandwidth", "-j", "3"])
    assert a.jobs == 3


def test_an_ssd_bound_by_its_cache_dram_is_warned_about(cli, tmp_path):
    """Issue 62, finding 7: mqsim-default's DRAM (MQSim's stock 100 MT/s × 1 B) bounds a write
    burst long before its flash; the run says so instead of reading like a broken model."""
    (tmp_path / "w.fio").write_text("[global]\nsize=64m\n\n[w]\nrw=randwrite\nbs=4k\niodepth=32\n")
    p = cli("fio", "w.fio", "--device", "ssd:mqsim-default", "--runtime", "5ms", "-o", "slow", check=0)
    s = json.loads((tmp_path / "slow" / "summary.json").read_text())
    assert s["devices"]["dev0"]["ssd"]["dram_utilization"] > 0.8
    assert any("bound by its cache DRAM" in w and "200 MB/s" in w for w in s["warnings"]), s["warnings"]
    assert "write amplification — (no page programmed)" in p.stdout
    cli("fio", "w.fio", "--device", "ssd:consumer-nvme", "--runtime", "5ms", "-o", "fast", check=0)
    s = json.loads((tmp_path / "fast" / "summary.json").read_text())
    assert not any("cache DRAM" in w for w in s["warnings"]), s["warnings"]


OVERLOADED = """
schema = 1
name = "over"
[run]
seed = 1
duration = "60ms"
warmup = "10ms"
[[class]]
name = "only"
priority = "high"
[[device]]
name = "d0"
kind = "ideal"
servers = 1
read = { dist = "fixed", value = "100us" }
write = { dist = "fixed", value = "100us" }
[[workload]]
name = "w"
device = "d0"
class = "only"
arrival = { kind = "poisson", rate_iops = 20000 }
size = { dist = "fixed", bytes = "4KiB" }
"""


def test_throughput_columns_say_what_was_carried_and_what_was_offered(cli, tmp_path):
    """Issue 62, finding 4: one 100 µs server carries 10 K IOPS of the 20 K offered. The carried
    rate is what completed in the window; the offered rate stands beside it."""
    (tmp_path / "over.toml").write_text(OVERLOADED)
    p = cli("run", "over.toml", "-o", "o", check=0)
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    a = s["classes"]["only"]["all"]
    assert abs(a["carried_iops"] / 10_000 - 1) < 0.02, a["carried_iops"]
    assert abs(s["classes"]["only"]["offered_gbps"] - 20_000 * 4096 * 8 / 1e9) < 1e-6
    assert abs(s["workloads"]["w"]["offered_gbps"] - s["classes"]["only"]["offered_gbps"]) < 1e-9
    assert "offered Gb/s (open-loop workloads): only 0.655 (carried 0.32" in p.stdout, p.stdout
    assert any(w.startswith("overloaded:") for w in s["warnings"])
