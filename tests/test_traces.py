"""Every reference trace sample replays, and the I/O count in summary.json equals the number of
I/O records, counted here independently of the Rust readers (simple per-format rules from
shared/traces/README.md)."""

import json

import pytest
from nestsim import _native


def _csv_rows(path, header):
    lines = path.read_text().splitlines()
    return [l.split(",") for l in (lines[1:] if header else lines) if l.strip()]


def count_systor(p):
    return sum(1 for r in _csv_rows(p, True) if r[2] in ("R", "W") and int(r[5]) > 0)


def count_msr(p):
    return sum(1 for r in _csv_rows(p, False) if int(r[5]) > 0)


def count_tencent(p):
    return sum(1 for r in _csv_rows(p, False) if int(r[2]) > 0)


def count_cloudphysics(p):
    return sum(1 for r in _csv_rows(p, True) if r[2].lower() in ("28", "2a", "08", "0a", "88", "8a", "a8", "aa") and int(r[3]) > 0)


def count_ws5(p):
    return sum(1 for l in p.read_text().splitlines() if l.strip() and int(l.split()[3]) > 0)


def count_blkparse(p):
    chosen, n = None, 0
    for l in p.read_text().splitlines():
        f = l.split()
        if len(f) < 10 or "," not in f[0] or f[5] not in ("Q", "D", "C"):
            continue
        chosen = chosen or f[5]
        if f[5] == chosen and "D" not in f[6] and ("R" in f[6] or "W" in f[6]) and int(f[9]) > 0:
            n += 1
    return n


SAMPLES = [
    ("snia_systor17_sample/systor17-traces-sample.csv", "systor17", count_systor),
    ("snia_systor17_sample/systor17-additional-sample.csv", "systor17", count_systor),
    ("snia_msr_cambridge_sample/msr-cambridge1-sample.csv", "msr", count_msr),
    ("snia_tencent_cbs_sample/cloud_storage-sample.csv", "tencent", count_tencent),
    ("heimdall_msr_cuts/msr.cut.per_10k.most_thpt_rand_iops.1006.trace", "flashnet", count_ws5),
    ("heimdall_msr_cuts/msr.cut.per_10k.rw_20_80.105.trace", "flashnet", count_ws5),
    ("heimdall_msr_cuts/msr.cut.per_10k.rw_40_60.1370.trace", "flashnet", count_ws5),
    ("mqsim_tpcc_small/tpcc-small.trace", "mqsim", count_ws5),
    ("mqsim_wsrch_small/wsrch-small.trace", "mqsim", count_ws5),
    ("libcachesim_cloudphysics_io/cloudPhysicsIO.csv", "cloudphysics", count_cloudphysics),
    ("blkparse_example_leveldb/blk_data.txt", "blkparse", count_blkparse),
]


@pytest.mark.parametrize("rel,fmt,count", SAMPLES, ids=[s[0].split("/")[0] + ":" + s[0].split("/")[1][:24] for s in SAMPLES])
def test_sample_replays_with_every_record_counted(cli, traces_dir, tmp_path, rel, fmt, count):
    path = traces_dir / rel
    expected = count(path)
    assert expected > 0
    n, _stats = _native.trace_count(str(path), fmt)
    assert n == expected
    out = tmp_path / "o"
    cli("replay", path, "--format", fmt, "-o", out, "-q", "--device", "ideal:servers=64,read=20us,write=10us", check=0)
    s = json.loads((out / "summary.json").read_text())
    w = next(iter(s["workloads"].values()))
    assert w["read"]["ios"] + w["write"]["ios"] == expected
    assert s["requests"]["completed"] == expected and s["requests"]["in_flight"] == 0
    assert s["conservation"] == "ok"


def test_blkparse_sample_rebases_the_unrebased_cpu(traces_dir):
    n, st = _native.trace_count(str(traces_dir / "blkparse_example_leveldb/blk_data.txt"), "blkparse")
    assert st["rebased_clocks"] == 1


def test_unsorted_samples_are_reordered(traces_dir):
    # The Tencent sample's first rows jump between two seconds; replay is still in time order.
    n, st = _native.trace_count(str(traces_dir / "snia_tencent_cbs_sample/cloud_storage-sample.csv"), "tencent")
    assert n == 50_000 and st["late"] == 0


def test_trace_scenario_with_env_path_and_time_scale(traces_dir, tmp_path):
    import nestsim
    sc = {
        "schema": 1,
        "device": [{"name": "d", "kind": "ideal", "servers": 8, "read": {"dist": "fixed", "value": "50us"}, "write": {"dist": "fixed", "value": "20us"}}],
        "workload": [{"name": "t", "device": "d", "class": "high",
                      "trace": {"path": "${NEST_SHARED}/traces/mqsim_tpcc_small/tpcc-small.trace", "format": "mqsim", "time_scale": 0.5}}],
    }
    import os
    os.environ.setdefault("NEST_SHARED", str(traces_dir.parent))
    r1 = nestsim.run(sc)
    assert r1.summary["requests"]["completed"] == 6999
    sc["workload"][0]["trace"]["time_scale"] = 1.0
    r2 = nestsim.run(sc)
    assert r1.summary["sim_time_s"] < 0.6 * r2.summary["sim_time_s"]


def test_malformed_trace_fails_cleanly_with_line(cli, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("1538323199,13896880,128,0,1063\n1538323199,13896880,12x8,0,1063\n")
    p = cli("replay", bad, "--format", "tencent", "-o", tmp_path / "o", check=2)
    assert "bad.csv:2:" in p.stderr and "Size" in p.stderr, p.stderr
    assert not (tmp_path / "o" / "summary.json").exists()
    p = cli("replay", bad, "--format", "tencent", "-o", tmp_path / "o2", "-q", "--skip-invalid", check=0)
