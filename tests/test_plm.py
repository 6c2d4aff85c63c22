"""Predictable Latency Mode inside the SSD model (docs/plm.md): DTWin reads wait for no program,
writes are NV-buffered and flushed in NDWin, the NDWin delay, the summary and time series."""

import collections

import nestsim

from conftest import ROOT


def test_plm_set_reads_are_deterministic_in_dtwin_and_the_buffer_is_conserved(tmp_path):
    r = nestsim.run(ROOT / "examples" / "plm.toml", out_dir=tmp_path / "plm")
    s = r.summary
    assert s["conservation"] == "ok"
    plm = s["devices"]["ssd0"]["ssd"]["plm"]
    assert plm["nvm_sets"] == 2 and [x["set"] for x in plm["sets"]] == [0]
    st = plm["sets"][0]
    assert st["attributes"]["t_dw_ms"] == 20 and st["attributes"]["c_rd"] is None
    assert st["dtwin"]["count"] >= 10 and st["dtwin"]["longest_ms"] <= 20
    assert st["ndwin"]["longest_ms"] <= 40
    # No program or erase starts on the set's dies in DTWin; GC ran in NDWin (what reaches a
    # DTWin is only an operation already on a die when an NDWin was cut at its maximum).
    assert st["programs_in_dtwin"] == 0 and st["held_in_dtwin"] > 0
    assert st["gc_die_s"]["ndwin"] > 10 * st["gc_die_s"]["dtwin"]
    lat = st["device_latency_us"]
    assert lat["read"]["dtwin"]["ios"] > 300 and lat["read"]["ndwin"]["ios"] > 300
    assert lat["read"]["dtwin"]["p99"] * 3 < lat["read"]["ndwin"]["p99"], lat["read"]
    # DTWin writes complete in the NV buffer (PCIe + DRAM), far below a program.
    assert lat["write"]["dtwin"]["max"] < 100
    nv = st["nv_buffer"]
    assert nv["pages_in"] == lat["write"]["dtwin"]["ios"]
    assert nv["pages_in"] == nv["pages_flushed"] + nv["pending_at_end"]
    # Without a coordinator the host ignores the windows: NDWin I/O after a forced end is an overrun.
    assert st["overruns"] > 0 and st["forced"] >= st["dtwin"]["count"] - 1
    # The time series shows the cycle and the buffer filling in DTWin.
    d = r.timeseries.to_pydict()
    series = collections.defaultdict(list)
    for e, m, v in zip(d["entity"], d["metric"], d["value"]):
        series[(e, m)].append(v)
    windows = series[("device:ssd0:set0", "plm_window")]
    assert 0 in windows and 1 in windows, windows[:20]
    assert max(series[("device:ssd0:set0", "nv_buffer_bytes")]) > 0
    assert ("device:ssd0:set1", "plm_window") not in series


def test_ndwin_arrivals_wait_the_extra_delay_as_their_own_part(tmp_path):
    sc = {
        "schema": 1, "run": {"duration": "200ms", "seed": 2}, "output": {"requests": False, "timeseries": False},
        "device": [{"name": "d", "kind": "ssd", "preset": "mlc",
                    "geometry": {"channels": 2, "chips_per_channel": 2, "blocks_per_plane": 64, "pages_per_block": 64, "page_size": "4KiB"},
                    "cache": {"mode": "off"},
                    "plm": {"t_dw": "5ms", "t_ndwl": "1ms", "t_ndwh": "5ms", "nd_delay_mean": "300us"}}],
        "workload": [{"name": "r", "device": "d", "class": "high", "arrival": {"kind": "poisson", "rate_iops": 4000},
                      "size": {"dist": "fixed", "bytes": "4KiB"}, "read_fraction": 1.0, "range": "16MiB"}],
    }
    s = nestsim.run(sc, out_dir=tmp_path / "nd").summary
    st = s["devices"]["d"]["ssd"]["plm"]["sets"][0]
    n = st["nd_delay"]["commands"]
    assert n == st["device_latency_us"]["read"]["ndwin"]["ios"] > 100
    assert 200 < st["nd_delay"]["mean_us"] < 400
    # The summary's decomposition names the delay; it is the mean delay over all reads.
    dec = s["devices"]["d"]["read"]["ssd_decomposition"]["mean_us"]
    share = n / (n + st["device_latency_us"]["read"]["dtwin"]["ios"])
    assert abs(dec["nd_delay"] - st["nd_delay"]["mean_us"] * share) < 0.15 * dec["nd_delay"] + 1
