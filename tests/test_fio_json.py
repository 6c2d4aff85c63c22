"""fio.json is fio's JSON output: the same keys as fio 3.33 writes (tests/fixtures/fio-json, written
by fio itself), values that follow from the run's own requests, and a common consumer (fio-plot)
reads it."""

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

FIX = Path(__file__).resolve().parent / "fixtures" / "fio-json"

JOB = """
[global]
size=16m
bs=4k
iodepth=8
numjobs=1

[rr]
rw=randread

[mix]
rw=randrw
rwmixread=70
bs=16k
"""

SCENARIO = """
schema = 1
name = "two"
[run]
seed = 2
duration = "30ms"
warmup = "5ms"
[[host]]
name = "h0"
queue_depth = 16
[[device]]
name = "d0"
kind = "ideal"
servers = 4
read = { dist = "exp", mean = "60us" }
write = { dist = "fixed", value = "20us" }
[[workload]]
name = "open"
device = "d0"
arrival = { kind = "poisson", rate_iops = 40000 }
read_fraction = 0.6
[[workload]]
name = "closed"
device = "d0"
arrival = { kind = "burst", outstanding = 4 }
size = { dist = "fixed", bytes = "8KiB" }
"""


def keys(d, prefix=""):
    """Every key path of a JSON document; a list of dicts has the union of its elements' keys."""
    out = set()
    for k, v in d.items():
        p = f"{prefix}.{k}"
        out.add(p)
        if isinstance(v, dict) and k not in ("job options", "global options", "percentile"):
            out |= keys(v, p)
        elif isinstance(v, list):
            for e in v:
                if isinstance(e, dict):
                    out |= keys(e, p + "[]")
    return out


def test_fio_json_has_fios_keys_job_by_job(cli, tmp_path):
    (tmp_path / "jobs.fio").write_text(JOB)
    cli("fio", "jobs.fio", "--device", "ssd:mqsim-default", "-o", "f", "-q", check=0)
    ours = json.loads((tmp_path / "f" / "fio.json").read_text())
    null = json.loads((FIX / "fio-3.33-null.json").read_text())
    disk = json.loads((FIX / "fio-3.33-psync.json").read_text())
    assert keys(ours) == keys(null) | keys(disk), (keys(null) | keys(disk)) ^ keys(ours)
    assert set(ours) == set(null) | {"disk_util"}
    fio_pct = set(null["jobs"][0]["read"]["clat_ns"]["percentile"])
    for job in ours["jobs"]:
        assert set(job) == set(null["jobs"][0])
        for d in ("read", "write", "trim"):
            assert set(job[d]) == set(null["jobs"][0][d]), d
        assert set(job["read"]["clat_ns"]["percentile"]) == fio_pct, "fio's 17 default percentiles"
        for k in ("latency_ns", "latency_us", "latency_ms", "iodepth_level", "iodepth_submit", "iodepth_complete"):
            assert set(job[k]) == set(null["jobs"][0][k]), k
    assert set(ours["disk_util"][0]) == set(disk["disk_util"][0])
    # The job file's options, as fio prints them: [global] apart, each job its own.
    assert ours["global options"] == {"size": "16m", "bs": "4k", "iodepth": "8", "numjobs": "1"}
    by = {j["jobname"]: j for j in ours["jobs"]}
    assert by["jobs.mix"]["job options"] == {"rw": "randrw", "rwmixread": "70", "bs": "16k"}
    assert by["jobs.rr"]["write"]["total_ios"] == 0 and by["jobs.rr"]["read"]["total_ios"] > 0
    # iodepth=8, closed loop: every I/O was dispatched with 8 of the job's in flight.
    assert by["jobs.rr"]["iodepth_level"]["8"] == 100.0


def test_fio_json_values_follow_from_the_runs_requests(cli, tmp_path):
    (tmp_path / "two.toml").write_text(SCENARIO)
    cli("run", "two.toml", "--fio-json", "-o", "r", "-q", check=0)
    doc = json.loads((tmp_path / "r" / "fio.json").read_text())
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    t = pq.read_table(tmp_path / "r" / "requests.parquet").to_pydict()
    by = {j["jobname"]: j for j in doc["jobs"]}
    assert set(by) == set(summary["workloads"])
    for name, job in by.items():
        for op in ("read", "write"):
            m = [i for i in range(len(t["seq"])) if t["workload"][i] == name and t["op"][i] == op and t["in_window"][i]]
            d = job[op]
            assert d["total_ios"] == summary["workloads"][name][op]["ios"] == len(m)
            if not m:
                continue
            lat = np.array([t["t_complete_ps"][i] - t["t_arrive_ps"][i] for i in m]) // 1000
            clat = np.array([t["t_complete_ps"][i] - t["t_dispatch_ps"][i] for i in m]) // 1000
            assert d["lat_ns"]["N"] == d["clat_ns"]["N"] == d["slat_ns"]["N"] == len(m)
            assert (d["lat_ns"]["min"], d["lat_ns"]["max"]) == (lat.min(), lat.max())
            assert abs(d["lat_ns"]["mean"] - (d["slat_ns"]["mean"] + d["clat_ns"]["mean"])) < 1.0, "lat = slat + clat"
            for p, v in d["clat_ns"]["percentile"].items():
                assert v == int(np.percentile(clat, float(p), method="inverted_cdf")), p
            assert d["bw_samples"] == d["iops_samples"] == 25, "one sample per 1 ms interval of the 25 ms window"
            assert d["iops_min"] <= d["iops_mean"] <= d["iops_max"]
        total = sum(job[k][b] for k in ("latency_ns", "latency_us", "latency_ms") for b in job[k])
        assert abs(total - 100.0) < 1e-3 and abs(sum(job["iodepth_level"].values()) - 100.0) < 1e-3
    # A scenario's own workloads are said in fio's option names.
    assert by["closed"]["job options"]["iodepth"] == "4" and by["closed"]["job options"]["rw"] == "randread"
    assert by["open"]["job options"]["rw"] == "randrw" and by["open"]["job options"]["rwmixread"] == "60"
    # Never more than its 4 in flight; fewer only while some of them wait in the shared host queue.
    lv = by["closed"]["iodepth_level"]
    assert lv["4"] > 99.0 and lv["8"] == lv["16"] == lv["32"] == lv[">=64"] == 0.0
    assert sum(b for j in by.values() for b in [j["read"]["bw_agg"]]) == 100.0
    du = doc["disk_util"][0]
    assert du["name"] == "d0" and du["read_ios"] + du["write_ios"] == sum(t["in_window"])
    assert 0 < du["util"] <= 100


def test_fio_plot_reads_it(cli, tmp_path):
    """fio-plot (a common fio JSON consumer) finds and parses the file as it does fio's."""
    from fio_plot.fiolib import jsonimport, jsonparsing

    (tmp_path / "jobs.fio").write_text(JOB.replace("[mix]\nrw=randrw\nrwmixread=70\nbs=16k\n", ""))
    cli("fio", "jobs.fio", "--device", "ideal", "-o", "f", "-q", check=0)
    settings = {"input_directory": [str(tmp_path / "f")], "rw": "randread", "iodepth": [8], "numjobs": [1], "filter": ["read", "write"]}
    ds = jsonimport.list_json_files(settings)
    assert [Path(f).name for f in ds[0]["files"]] == ["fio.json"]
    ds = jsonparsing.parse_json_data(settings, jsonimport.import_json_dataset(settings, ds))
    row = ds[0]["data"][0]
    doc = json.loads((tmp_path / "f" / "fio.json").read_text())
    assert row["iops"] == doc["jobs"][0]["read"]["iops"] > 0 and row["lat"] == doc["jobs"][0]["read"]["lat_ns"]["mean"]


def test_fio_json_keys_match_the_installed_fios(cli, tmp_path):
    """The same comparison against the fio on this machine (Debian's package; .ci/run installs it),
    so a newer fio's keys show up here."""
    import shutil
    import subprocess

    import pytest

    if shutil.which("fio") is None:
        pytest.skip("fio is not installed (Debian: apt-get install fio); the stored fio 3.33 output is compared above")
    (tmp_path / "null.fio").write_text((FIX / "null.fio").read_text())
    real = json.loads(subprocess.run(["fio", "--output-format=json", "null.fio"], cwd=tmp_path, capture_output=True, text=True,
                                     check=True, timeout=120).stdout)
    (tmp_path / "jobs.fio").write_text(JOB)
    cli("fio", "jobs.fio", "--device", "ideal", "-o", "f", "-q", check=0)
    ours = json.loads((tmp_path / "f" / "fio.json").read_text())
    assert [j["jobname"] for j in ours["jobs"]] == ["jobs.rr", "jobs.mix"], "fio's order: the job file's"
    assert keys(ours) - {p for p in keys(ours) if p.startswith(".disk_util")} == keys(real), keys(real) ^ keys(ours)


def test_a_single_job_keeps_its_name_and_options_and_clones_find_their_job(cli, tmp_path):
    """Issue 62, item 5: one job in a file is the workload named after the file, yet fio.json names
    it after its section with its own options (as fio does); numjobs clones carry their job's
    options; a trace replay says `read_iolog`, not a synthetic `randread`/`4KiB`."""
    (tmp_path / "one.fio").write_text("[global]\nsize=8m\niodepth=4\n\n[reader]\nrw=randread\nbs=8k\n")
    cli("fio", "one.fio", "--device", "ideal", "-o", "one", "-q", check=0)
    job, = json.loads((tmp_path / "one" / "fio.json").read_text())["jobs"]
    assert job["jobname"] == "reader" and job["job options"] == {"rw": "randread", "bs": "8k"}
    (tmp_path / "two.fio").write_text("[global]\nsize=8m\n\n[w]\nrw=randwrite\nnumjobs=2\niodepth=2\n")
    cli("fio", "two.fio", "--device", "ideal", "-o", "two", "-q", check=0)
    jobs = json.loads((tmp_path / "two" / "fio.json").read_text())["jobs"]
    assert len(jobs) == 2 and all(j["job options"] == {"rw": "randwrite", "numjobs": "2", "iodepth": "2"} for j in jobs)


def test_a_trace_replays_fio_options_name_the_log(tmp_path):
    from nestsim.fio_json import scenario_options

    w = {"name": "t", "trace": {"path": "traces/x.csv", "format": "msr"}}
    assert scenario_options(w, 16) == {"read_iolog": "traces/x.csv", "numjobs": "1", "iodepth": "16"}


LOG_JOB = """
[global]
size=16m
runtime=10ms
time_based=1

[a]
rw=randrw
bs=4k
iodepth=4
numjobs=2
write_lat_log=lg
write_bw_log=lg
write_iops_log=lg

[b]
rw=read
bs=64k
iodepth=2
write_bw_log
write_lat_log=avg/b
log_avg_msec=2
"""


def _log(path):
    rows = [[int(x) for x in line.split(", ")] for line in path.read_text().splitlines()]
    assert rows and all(len(r) == 5 for r in rows), path
    return np.array(rows)


def test_fio_logs_are_fios_files_with_the_runs_requests(cli, tmp_path):
    """Issue 62, item 5: write_lat_log / write_bw_log / write_iops_log give fio 3.33's files (P_lat.N.log,
    N the job's number, clones one each; a bare option is named after the job): one line per I/O
    — time ms, value, direction, block size, priority — holding the run's own requests; with
    log_avg_msec, one line per direction per window."""
    (tmp_path / "logs.fio").write_text(LOG_JOB)
    cli("fio", "logs.fio", "--device", "ideal", "-o", "f", "-q", check=0)
    out = tmp_path / "f"
    names = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.log"))
    assert names == sorted([f"lg_{k}.{n}.log" for k in ("lat", "clat", "slat", "bw", "iops") for n in (1, 2)]
                           + ["b_bw.3.log"] + [f"avg/b_{k}.3.log" for k in ("lat", "clat", "slat")]), names
    t = pq.read_table(out / "requests.parquet").to_pydict()
    wl = np.array(t["workload"])
    first = sorted(set(wl))[0]  # logs.a.0: job 1
    m = wl == first
    lat = _log(out / "lg_lat.1.log")
    want = (np.array(t["t_complete_ps"])[m] - np.array(t["t_arrive_ps"])[m]) // 1000
    assert sorted(lat[:, 1]) == sorted(want) and len(lat) == m.sum()
    assert sorted(lat[:, 0]) == sorted(np.array(t["t_complete_ps"])[m] // 10**9)
    assert set(lat[:, 2]) == {0, 1} and set(lat[:, 3]) == {4096} and set(lat[:, 4]) == {0}
    assert (np.diff(lat[:, 0]) >= 0).all(), "in time order"
    clat, bw, iops = (_log(out / f"lg_{k}.1.log") for k in ("clat", "bw", "iops"))
    assert (bw[:, 1] == 4096 * 10**6 // clat[:, 1]).all() and set(iops[:, 1]) == {1}
    slat = _log(out / "lg_slat.1.log")
    assert (slat[:, 1] + clat[:, 1] == lat[:, 1]).all()
    # Averaged: a line per 2 ms window, at its end, block size 0; KiB/s over the window.
    avg = _log(out / "b_bw.3.log")
    assert list(avg[:, 0]) == list(range(2, 2 * len(avg) + 1, 2)) and set(avg[:, 3]) == {0}
    mb = wl == "logs.b"
    done = np.array(t["t_complete_ps"])[mb]
    first_window = (done < 2 * 10**9).sum() * 64 * 1024 / 1024 / 0.002
    assert avg[0, 1] == int(first_window)


def test_json_plus_bins_are_fios_histogram(cli, tmp_path):
    """`--output-format json+`: each direction's clat_ns gets fio's `bins` (64 buckets per power of
    two, keyed by the bucket's middle): they count the window's I/Os, and every key is a bucket
    value of fio's — checked against buckets fio itself printed, and against the installed fio."""
    import shutil
    import subprocess

    from nestsim.fio_logs import bins, plat_idx, plat_val

    # Buckets fio 3.33 printed (a null-engine run): each is its own bucket's value.
    for v in (540, 556, 564, 572, 836, 1033, 68213):
        b = plat_val(int(plat_idx(np.array([v]))[0]))
        assert abs(b - v) <= v / 64 and plat_val(int(plat_idx(np.array([b]))[0])) == b
    assert [plat_val(int(i)) for i in plat_idx(np.arange(128))] == list(range(128)), "exact below 128 ns"
    # 512–1023 ns: buckets of 8 ns, [536, 544) is 540's.
    assert [plat_val(int(i)) for i in plat_idx(np.array([535, 536, 543, 544]))] == [532, 540, 540, 548]
    (tmp_path / "jobs.fio").write_text(JOB)
    cli("fio", "jobs.fio", "--device", "ideal", "-o", "plus", "-q", "--output-format", "json+", check=0)
    doc = json.loads((tmp_path / "plus" / "fio.json").read_text())
    for j in doc["jobs"]:
        for op in ("read", "write"):
            c = j[op]["clat_ns"]
            assert sum(c.get("bins", {}).values()) == c["N"], (j["jobname"], op)
            assert all(plat_val(int(plat_idx(np.array([int(k)]))[0])) == int(k) for k in c["bins"])
    assert bins(np.array([540, 541, 100, 100])) == {"100": 2, "540": 2}
    if shutil.which("fio"):
        (tmp_path / "null.fio").write_text((FIX / "null.fio").read_text())
        real = json.loads(subprocess.run(["fio", "--output-format=json+", "null.fio"], cwd=tmp_path, capture_output=True, text=True,
                                         check=True, timeout=120).stdout)
        keys_seen = [int(k) for j in real["jobs"] for op in ("read", "write") for k in j[op]["clat_ns"].get("bins", {})]
        assert keys_seen and all(plat_val(int(plat_idx(np.array([k]))[0])) == k for k in keys_seen)
