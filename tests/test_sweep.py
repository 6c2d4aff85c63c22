import json
import os
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest

from conftest import ROOT, nestsim_cmd

SWEEP = """
[sweep]
scenario = "{scenario}"
seeds = 3
[[sweep.axis]]
key = "workload[1].arrival.bandwidth"
values = ["6Gbps", "14Gbps"]
[[sweep.axis]]
key = "host[0].queue_depth"
values = [4, 8]
"""


@pytest.fixture
def sweep_file(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(SWEEP.format(scenario=ROOT / "examples" / "storage-classes.toml") + "\n")
    return p


def _table(out):
    t = pq.read_table(out / "sweep.parquet").to_pydict()
    return t


def test_grid_of_two_parameters_and_three_seeds(cli, sweep_file, tmp_path):
    out = tmp_path / "sw"
    p = cli("sweep", sweep_file, "-o", out, "-q", check=0)
    assert "12 runs: 12 run now, 0 already complete" in p.stdout
    t = _table(out)
    assert len(t["run_id"]) == 12
    assert sorted(set(t["seed"])) == [1, 2, 3]
    assert set(t["param.host[0].queue_depth"]) == {"4", "8"}
    # The swept parameter reached the model: High's throughput follows its offered load.
    hi = {(bw, qd): [] for bw in t["param.workload[1].arrival.bandwidth"] for qd in t["param.host[0].queue_depth"]}
    for bw, qd, g in zip(t["param.workload[1].arrival.bandwidth"], t["param.host[0].queue_depth"], t["high.all.bw_gbps"]):
        hi[(bw, qd)].append(g)
    assert min(hi[('"14Gbps"', "8")]) > 1.8 * max(hi[('"6Gbps"', "8")])
    # Rerunning finds everything complete and verified.
    p = cli("sweep", sweep_file, "-o", out, "-q", check=0)
    assert "0 run now, 12 already complete" in p.stdout
    assert _table(out) == t


def test_an_edited_base_scenario_reruns_every_run(cli, tmp_path):
    """Issue 63: after the base scenario was edited, resume said "0 run now, 12 already complete"
    and kept the stale results. Each run records the scenario's digest."""
    base = tmp_path / "base.toml"
    base.write_text((ROOT / "examples" / "storage-classes.toml").read_text())
    sw = tmp_path / "s.toml"
    sw.write_text(f'[sweep]\nscenario = "{base}"\nseeds = 2\n')
    out = tmp_path / "sw"
    assert "2 run now, 0 already complete" in cli("sweep", sw, "-o", out, "-q", check=0).stdout
    assert "0 run now, 2 already complete" in cli("sweep", sw, "-o", out, "-q", check=0).stdout
    base.write_text(base.read_text() + "\n# edited\n")
    assert "2 run now, 0 already complete" in cli("sweep", sw, "-o", out, "-q", check=0).stdout


def test_resumes_after_being_killed(sweep_file, tmp_path):
    out = tmp_path / "sw"
    proc = subprocess.Popen(nestsim_cmd() + ["sweep", str(sweep_file), "-o", str(out), "-q", "-j", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(list(out.glob("runs/*/summary.json"))) < 2:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    # Complete = sealed (the summary's digest in sweep_run.json, written after summary.json): a
    # run killed between the two is run again, rightly.
    finished = sum(1 for m in out.glob("runs/*/sweep_run.json") if "summary_sha256" in json.loads(m.read_text()))
    assert 1 <= finished < 12, finished
    assert not (out / "sweep.parquet").exists()
    p = subprocess.run(nestsim_cmd() + ["sweep", str(sweep_file), "-o", str(out), "-q"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert f"{12 - finished} run now, {finished} already complete" in p.stdout
    resumed = _table(out)
    clean = tmp_path / "clean"
    subprocess.run(nestsim_cmd() + ["sweep", str(sweep_file), "-o", str(clean), "-q"], check=True, capture_output=True, timeout=300)
    assert resumed == _table(clean), "a resumed sweep gives the same sweep.parquet as an uninterrupted one"


def test_a_tampered_run_is_not_trusted(cli, sweep_file, tmp_path):
    out = tmp_path / "sw"
    cli("sweep", sweep_file, "-o", out, "-q", check=0)
    (out / "runs" / "r0003" / "summary.json").write_text("{ truncated")
    meta = out / "runs" / "r0005" / "sweep_run.json"
    m = json.loads(meta.read_text())
    m["seed"] = 99
    meta.write_text(json.dumps(m))
    # An edit that still parses (found by fuzzing: it used to be trusted).
    edited = out / "runs" / "r0007" / "summary.json"
    sm = json.loads(edited.read_text())
    sm["events"] += 1
    edited.write_text(json.dumps(sm))
    p = cli("sweep", sweep_file, "-o", out, "-q", check=0)
    assert "3 run now, 9 already complete" in p.stdout


def test_bad_sweep_files_exit_2(cli, tmp_path, sweep_file):
    bad = tmp_path / "bad.toml"
    bad.write_text(sweep_file.read_text().replace('values = [4, 8]', 'values = [0, 8]'))
    p = cli("sweep", bad, "-o", tmp_path / "o", check=2)
    assert "queue_depth" in p.stderr
    bad.write_text("[sweep]\nscenario = 'nope.toml'\n")
    assert "does not exist" in cli("sweep", bad, check=2).stderr
    bad.write_text(sweep_file.read_text() + "\nextra = 1\n")
    err = cli("sweep", bad, check=2).stderr
    assert "sweep.axis[1]: unknown key(s) ['extra']" in err
    # The line of the table the key is in (the second [[sweep.axis]]).
    axis1 = [i + 1 for i, ln in enumerate(bad.read_text().splitlines()) if ln.strip() == "[[sweep.axis]]"][1]
    assert f"{bad}:{axis1}: sweep.axis[1]" in err, err
    bad.write_text(sweep_file.read_text().replace("seeds = 3", "seeds = 3\nextra = 1"))
    assert "sweep: unknown key(s) ['extra']" in cli("sweep", bad, check=2).stderr


def test_python_api(sweep_file, tmp_path):
    import nestsim
    res = nestsim.sweep(sweep_file, tmp_path / "api", workers=2, quiet=True)
    assert res == {"runs": 12, "ran": 12, "skipped": 0, "out": str(tmp_path / "api"), "backend": "local"}


def test_ray_backend_gives_the_same_sweep_parquet_and_resumes_after_being_killed(cli, sweep_file, tmp_path):
    # A local Ray (started and stopped by the sweep); the same runs as the process pool.
    local = tmp_path / "local"
    cli("sweep", sweep_file, "-o", local, "-q", check=0)
    out = tmp_path / "ray"
    proc = subprocess.Popen(nestsim_cmd() + ["sweep", str(sweep_file), "-o", str(out), "-q", "--backend", "ray", "-j", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(list(out.glob("runs/*/summary.json"))) < 2 and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    # Complete = sealed (the summary's digest in sweep_run.json, written after summary.json): a
    # run killed between the two is run again, rightly.
    finished = sum(1 for m in out.glob("runs/*/sweep_run.json") if "summary_sha256" in json.loads(m.read_text()))
    assert 1 <= finished < 12, (finished, proc.stderr.read().decode())
    assert not (out / "sweep.parquet").exists()
    # Every run Ray was handed but did not land is marked as started, not complete.
    assert len(list(out.glob("runs/*/sweep_run.json"))) == 12
    p = cli("sweep", sweep_file, "-o", out, "-q", "--backend", "ray", check=0)
    assert f"{12 - finished} run now, {finished} already complete" in p.stdout
    assert _table(out) == _table(local)


def test_backend_options_are_checked(cli, sweep_file, tmp_path):
    assert "--address is for --backend ray" in cli("sweep", sweep_file, "--address", "ray://x:1", check=2).stderr
    assert "invalid choice" in cli("sweep", sweep_file, "--backend", "slurm", check=2).stderr
