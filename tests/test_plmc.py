"""NVM-set pools and PLMC (docs/plm.md): replicas taking turns in DTWin, PLMC's allocation and
per-window metrics in the summary, and bad pool/coordinator keys named in errors."""

import pytest

import nestsim

from conftest import ROOT

EXAMPLE = ROOT / "examples" / "plmc.toml"


def test_the_pool_alternates_and_plmc_reports_per_window_percentiles(tmp_path):
    s = nestsim.run(EXAMPLE, out_dir=tmp_path / "plmc").summary
    assert s["conservation"] == "ok"
    pool = s["pools"]["pool"]
    assert pool["replicas"] == 2 and pool["windows"] >= 25
    assert pool["reads_gap"] == 0 and pool["reads_nd"] == 0
    sets = [s["devices"][d]["ssd"]["plm"]["sets"][0] for d in ("ssd-a", "ssd-b")]
    assert sum(x["ndwin"]["reads"] for x in sets) == 0, "reads only in DTWins"
    assert abs(sets[0]["dtwin"]["count"] - sets[1]["dtwin"]["count"]) <= 1
    c = s["coordinators"]["plmc"]
    assert c["kind"] == "plmc" and c["params"]["policy"] == "strict-priority" and c["params"]["overrun"] == "send"
    assert c["report"]["windows"] == pool["windows"]
    for host in ("high", "medium", "low"):
        h = c["per_host"][host]
        assert 0 < h["used"] <= min(h["allocated"], h["demand"])
        assert h["utilization_p10"] <= h["utilization_p50"] <= h["utilization_p90"] <= 1.0
        assert 0.0 <= h["deficiency_p50"] <= h["deficiency_p90"] < 1.0
        assert 50 < h["p90_us_p50"] < 1000
    # Strict priority: High's allocation covers more of its demand than Low's does.
    share = {k: c["per_host"][k]["used"] / c["per_host"][k]["demand"] for k in ("high", "low")}
    assert share["high"] >= share["low"] - 0.05, share


@pytest.mark.parametrize("edit,key", [
    (('read = "dt-active"', 'read = "fastest"'), "volume[0].read"),
    (('layout = "replicate"', 'layout = "stripe"'), "volume[0].read"),
    (('devices = ["ssd-a", "ssd-b"]', 'devices = ["ssd-a"]'), "volume[0].devices"),
    (('c_rd = 2440\nnd_delay_mean = "500us"\n\n[[device]]', 'c_rd = 1000\nnd_delay_mean = "500us"\n\n[[device]]'), "volume[0].read"),
    (('pool = "pool"', 'pool = "nowhere"'), "coordinator[0].pool"),
    (('policy = "strict-priority"', 'policy = "lottery"'), "coordinator[0].policy"),
    (('zeta = 0.5', 'zeta = 1.5'), "coordinator[0].zeta"),
    (('zeta = 0.5', 'zeta = 0.5\npredictor = "oracle"'), "coordinator[0].predictor"),
    (('zeta = 0.5', 'zeta = 0.5\nc_min = [1, 2]'), "coordinator[0].c_min"),
    (('zeta = 0.5', 'zeta = 0.5\novercount = "ask"'), "bad.toml:68:1: coordinator[0].overcount"),
    (('zeta = 0.5', 'zeta = 0.5\noverrun = "beg"'), "coordinator[0].overrun"),
])
def test_bad_pool_and_plmc_keys_are_named(cli, tmp_path, edit, key):
    text = EXAMPLE.read_text()
    assert edit[0] in text, edit[0]
    f = tmp_path / "bad.toml"
    f.write_text(text.replace(edit[0], edit[1], 1))
    p = cli("validate", f, check=2)
    assert key in p.stderr and "bad.toml" in p.stderr, p.stderr


def test_plmc_needs_counts_when_the_pool_has_no_read_budget(cli, tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text(EXAMPLE.read_text().replace("c_rd = 2440\n", ""))
    p = cli("validate", f, check=2)
    assert "coordinator[0].counts" in p.stderr, p.stderr
    f.write_text(EXAMPLE.read_text().replace("c_rd = 2440\n", "").replace('pool = "pool"', 'pool = "pool"\ncounts = 2440'))
    cli("validate", f, check=0)


def test_hod_refuses_closed_loop_hosts_and_runs_on_open_loop_ones(cli, tmp_path):
    text = EXAMPLE.read_text().replace('zeta = 0.5', 'zeta = 0.5\npredictor = "hod"')
    f = tmp_path / "hod.toml"
    f.write_text(text)
    cli("validate", f, check=0)
    f.write_text(text.replace('arrival = { kind = "mmpp", rates = [1500, 5500], switch = [5, 5] }', 'arrival = { kind = "burst", outstanding = 4 }'))
    p = cli("validate", f, check=2)
    assert "coordinator[0].predictor" in p.stderr and "vdi-high" in p.stderr, p.stderr


def test_nd_overrun_serves_beyond_the_allocation_in_ndwin(tmp_path):
    """overrun = "nd" (PLMC eq. 5): a read its allocation does not cover goes to the replica in
    NDWin even though PLMC has unallocated counts; "ask" would have been granted them."""
    text = EXAMPLE.read_text().replace('zeta = 0.5', 'zeta = 0.5\noverrun = "nd"')
    f = tmp_path / "nd.toml"
    f.write_text(text)
    s = nestsim.run(f, out_dir=tmp_path / "nd").summary
    assert s["conservation"] == "ok"
    c = s["coordinators"]["plmc"]
    assert c["params"]["overrun"] == "nd"
    refused = sum(h["refused"] for h in c["per_host"].values())
    assert refused > 0 and all(h["granted"] == 0 for h in c["per_host"].values())
    assert s["pools"]["pool"]["reads_nd"] == refused
    sets = [s["devices"][d]["ssd"]["plm"]["sets"][0] for d in ("ssd-a", "ssd-b")]
    assert sum(x["ndwin"]["reads"] for x in sets) >= refused


def test_plmc_datasets_follow_the_systor_sample_and_table_ii(tmp_path, traces_dir):
    """The constants plm_datasets builds DS1–DS3 from are the SYSTOR'17 sample's (checked here
    against the file), and a generated dataset has Table II's intensities."""
    import csv
    import math

    from nestsim import _native
    from nestsim.experiments import plm_datasets as D

    rows = list(csv.DictReader(open(traces_dir / "snia_systor17_sample" / "systor17-traces-sample.csv")))
    units = {"R": {}, "W": {}}
    for r in rows:
        u = math.ceil(int(r["Size"]) / 4096)
        units[r["IOType"]][u] = units[r["IOType"]].get(u, 0) + 1
    assert units["R"] == D.READ_UNITS and units["W"] == D.WRITE_UNITS
    t = sorted(float(r["Timestamp"]) for r in rows)
    gaps = [b - a for a, b in zip(t, t[1:])]
    m = sum(gaps) / len(gaps)
    var = sum((g - m) ** 2 for g in gaps) / len(gaps)
    assert abs(var / m ** 2 - D.SAMPLE_ARRIVALS["scv"]) < 0.01
    fit = _native.mmpp_fit(0.002, D.SAMPLE_ARRIVALS["scv"], D.SAMPLE_ARRIVALS["skewness"], D.SAMPLE_ARRIVALS["lag1"])
    assert fit["residual"] < 1e-6 and abs(fit["achieved"]["mean_gap_s"] - 0.002) < 1e-9
    ds = D.build(tmp_path, "DS2", 120.0, 100 << 20)
    high, f_med, f_low = D.TABLE_II["DS2"]
    assert abs(ds.reads_per_100ms["high"] / high - 1) < 0.1
    assert abs(ds.reads_per_100ms["medium"] / ds.reads_per_100ms["high"] - f_med) < 0.08
    assert abs(ds.reads_per_100ms["low"] / ds.reads_per_100ms["high"] - f_low) < 0.08
    ds4 = D.shifted(D.build(tmp_path, "DS1", 5.0, 100 << 20))
    assert ds4.start_ns["low"] - ds4.start_ns["high"] > 390_000_000


def test_a_trace_workload_starts_at_start_and_ends_at_stop(tmp_path):
    """`start` delays a trace's replay (its first record at `start`), `stop` ends it."""
    trace = tmp_path / "t.trace"
    trace.write_text("".join(f"{i * 1_000_000} 0 {8 * i} 8 1\n" for i in range(100)))  # 100 reads, 1 ms apart
    sc = {"schema": 1, "name": "t", "run": {"duration": "1s"}, "output": {"requests": True},
          "device": [{"name": "d", "kind": "ssd", "preset": "mlc"}],
          "workload": [{"name": "w", "device": "d", "start": "200ms", "stop": "250ms",
                        "trace": {"path": str(trace), "format": "mqsim"}}]}
    r = nestsim.run(sc, out_dir=tmp_path / "o")
    assert r.summary["workloads"]["w"]["issued"] == 50
    t = r.requests["t_arrive_ps"].to_pylist()
    assert min(t) == 200 * 10**9 and max(t) == 249 * 10**9


def test_hod_deficiency_allocates_as_eq_6():
    """The offline allocation the burst fit uses is PLMC eq. 6 with zero minimums, as the
    coordinator allocates (nest-qos plmc/allocate.rs)."""
    from nestsim.experiments import plm_datasets as D

    # Fits: every class gets its demand. Over C = 100: strict priority fills High, then Medium.
    d = [[30, 20, 10], [80, 40, 20], [0, 10, 0]]
    sp = D.hod_deficiency(d, 100, "sp")
    assert list(sp[0]) == [0.0, 0.0] and list(sp[1]) == [0.0, 0.5, 0.0] and list(sp[2]) == [0.0, 1.0]
    # Fixed ratio 4:2:1 splits C whatever the demand: 57 / 28 / 14 of 100, the one left to High.
    fr = D.hod_deficiency(d, 100, "fr")
    assert abs(fr[0][1] - (80 - 58) / 80) < 1e-12 and abs(fr[1][1] - (40 - 28) / 40) < 1e-12 and abs(fr[2][1] - 0.3) < 1e-12
    assert D.nearest_rank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90) == 9


def test_bursty_datasets_keep_table_ii_and_fit_their_amplitude(tmp_path):
    """`build_bursty` (SPEC §13.6): the shared envelope's amplitude is fitted so that HoD's Medium
    deficiency p90 at config 2 is 0.52, the mean intensities stay Table II's, and a given
    amplitude is used as it is."""
    from nestsim.experiments import plm_datasets as D

    ds = D.build_bursty(tmp_path, "DS1", 120.0, 1 << 30)
    b = ds.mmpp["burst"]
    assert b["fitted"] and 1.0 < b["amplitude"] < 1 / D.Burst().p_on and abs(b["achieved"] - D.FIT_TARGET) < 0.05, b
    high, f_med, f_low = D.TABLE_II["DS1"]
    assert abs(ds.reads_per_100ms["high"] / high - 1) < 0.15
    assert abs(ds.reads_per_100ms["low"] / ds.reads_per_100ms["high"] - f_low) < 0.1
    flat = D.build_bursty(tmp_path / "flat", "DS1", 120.0, 1 << 30, D.Burst(amplitude=1.0))
    assert flat.mmpp["burst"]["fitted"] is False and flat.mmpp["burst"]["achieved"] < b["achieved"]
