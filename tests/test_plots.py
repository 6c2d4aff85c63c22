"""`nestsim plot`: the figures a run's outputs support, PNG and SVG, and the sweep statistics."""

import math

import pytest

import nestsim
from conftest import ROOT
from nestsim import plots


def _stems(d):
    return {p.stem for p in (d / "plots").glob("*.png")} if (d / "plots").exists() else set()


def test_storage_run_gets_gc_but_no_network_figures(cli, tmp_path):
    out = tmp_path / "gc"
    cli("run", ROOT / "examples" / "ssd-gc.toml", "-o", out, "-q", check=0)
    p = cli("plot", out, check=0)
    stems = _stems(out)
    assert {"throughput", "latency-cdf", "latency-percentiles", "ssd-gc"} <= stems, stems
    assert not stems & {"flows", "switch-queues", "pfc-pauses"}, stems
    assert {p.stem for p in (out / "plots").glob("*.svg")} == stems
    assert f"({len(stems)} figures" in p.stdout


def test_lossless_network_run_gets_flow_queue_and_pause_figures(tmp_path):
    sc = {"schema": 1, "run": {"seed": 1, "duration": "20ms", "warmup": "0ms"},
          "network": {"topology": "dumbbell", "senders": 4, "link_rate": "10Gbps", "link_delay": "10us", "sample_ports": "all",
                      "switch": {"buffer": "1MiB", "ecn": "none", "pfc": True, "pfc_xoff": "60KiB", "pfc_xon": "40KiB"}},
          "flow": [{"name": f"f{i}", "src": f"s{i}", "dst": "r0", "class": "best_effort", "transport": "dctcp", "size": "400KB"} for i in range(4)]}
    nestsim.run(sc, out_dir=tmp_path / "net")
    written = plots.write_plots(tmp_path / "net")
    assert {"flows", "switch-queues", "pfc-pauses"} <= _stems(tmp_path / "net")
    assert len(written) == 3 * len(_stems(tmp_path / "net")), "PNG, SVG and PDF"
    assert all(p.read_bytes()[:5] == b"%PDF-" for p in written if p.suffix == ".pdf")
    # Without PFC there is nothing paused to draw.
    sc["network"]["switch"] = {"buffer": "1MiB"}
    nestsim.run(sc, out_dir=tmp_path / "ecn")
    plots.write_plots(tmp_path / "ecn")
    assert "pfc-pauses" not in _stems(tmp_path / "ecn") and "flows" in _stems(tmp_path / "ecn")


def test_confidence_interval_uses_students_t():
    m, h = plots.mean_ci([1.0, 2.0, 3.0])
    assert m == 2.0 and h == pytest.approx(4.303 / math.sqrt(3))
    assert plots.mean_ci([5.0]) == (5.0, 0.0)
    assert plots.t95(1) == 12.706 and plots.t95(11) == 2.179 and plots.t95(1000) == 1.96


def test_plot_of_a_directory_without_results_exits_2(cli, tmp_path):
    (tmp_path / "empty").mkdir()
    assert "no summary.json or sweep.parquet" in cli("plot", tmp_path / "empty", check=2).stderr
    assert "not a directory" in cli("plot", tmp_path / "missing", check=2).stderr
