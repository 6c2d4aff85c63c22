"""`[output] timeseries_rows = "change"` (issue 24): a sampled state gets a row only where its
value changed. Forward-filled, it must be the per-interval table exactly; event series (bytes,
latencies) and the summary must not move; and it must be much smaller at a fine interval."""

import json

import numpy as np
import pyarrow.parquet as pq
import pytest
import tomllib
from conftest import ROOT, SMALL

import nestsim
from nestsim import plots, runner


def _both(tmp_path, monkeypatch, sc: dict):
    # Short steps: the change log must carry a gauge's last value across drains.
    monkeypatch.setattr(runner, "CHUNK_EVENTS", 3_000)
    monkeypatch.setattr(runner, "ROW_GROUP_ROWS", 2_000)
    out = {}
    for rows in ("interval", "change"):
        s = json.loads(json.dumps(sc))
        s.setdefault("output", {})["timeseries_rows"] = rows
        out[rows] = nestsim.run(s, out_dir=tmp_path / rows, progress=False)
    return out


def _rows(table):
    d = table.to_pydict()
    return list(zip(d["time_s"], d["entity"], d["metric"], d["sum"], d["count"]))


def _check_same_series(tmp_path, res):
    every, change = _rows(res["interval"].timeseries), _rows(res["change"].timeseries)
    events = lambda rows: [r for r in rows if r[2] in plots.EVENT_METRICS]  # noqa: E731
    assert events(every) == events(change)
    # Every change row is a row of the full table (same interval, same value).
    assert set(change) <= set(every)
    full = plots.load_series(tmp_path / "interval")
    filled = plots.load_series(tmp_path / "change")
    assert full.keys() == filled.keys()
    for name, (xs, ys) in full.items():
        fx, fy = filled[name]
        if name[1] in plots.EVENT_METRICS:
            continue
        assert np.allclose(fx, xs, rtol=0, atol=1e-12) and np.array_equal(fy, ys), name
    s1, s2 = (r.summary for r in (res["interval"], res["change"]))
    for s in (s1, s2):
        s["config"].pop("output")
    assert s1 == s2
    assert plots.series_layout(tmp_path / "change" / "timeseries.parquet")[0] == "change"
    assert plots.series_layout(tmp_path / "interval" / "timeseries.parquet")[0] == "interval"
    return every, change


def test_change_rows_on_the_dumbbell(tmp_path, monkeypatch):
    sc = tomllib.loads((ROOT / "examples" / "dctcp-dumbbell.toml").read_text())
    sc["run"].update(duration="6ms", warmup="1ms", interval="2us")
    every, change = _check_same_series(tmp_path, _both(tmp_path, monkeypatch, sc))
    # Ports toward the senders carry only ACKs and never queue: their first and last intervals
    # instead of one per interval.
    assert len(change) < len(every) / 3
    port = [r for r in change if r[1] == "port:sw0->s0"]
    last = max(t for t, e, *_ in every if e == "port:sw0->s0")
    assert [(t, s) for t, _, _, s, _ in port] == [(0.0, 0.0), (last, 0.0)]


def test_change_rows_with_storage_event_series(tmp_path, monkeypatch):
    sc = tomllib.loads(SMALL)
    sc["run"]["interval"] = "20us"
    every, change = _check_same_series(tmp_path, _both(tmp_path, monkeypatch, sc))
    assert len(change) < len(every)


def test_a_row_policy_that_does_not_exist_is_refused(tmp_path):
    sc = tomllib.loads(SMALL)
    sc["output"] = {"timeseries_rows": "sometimes"}
    with pytest.raises(nestsim.ConfigError, match=r"output\.timeseries_rows.*'sometimes'.*\"change\""):
        nestsim.run(sc, out_dir=tmp_path, progress=False)


def test_fill_changes_holds_each_value_until_the_next():
    xs, ys = plots.fill_changes(np.array([0.0, 3e-6, 4e-6, 6e-6]), np.array([1.0, 2.0, 0.0, 0.0]), 1e-6)
    assert np.allclose(xs, np.arange(7) * 1e-6)
    assert ys.tolist() == [1.0, 1.0, 1.0, 2.0, 0.0, 0.0, 0.0]


def test_fill_changes_returns_the_rows_where_a_fill_would_not_fit():
    # Issue 63, S1: rows 10⁶ s apart at 1 ms (an idle stretch the engine skipped) are not 10⁹ values.
    xs, ys = plots.fill_changes(np.array([0.0, 0.002, 1e6]), np.array([1.0, 2.0, 3.0]), 1e-3)
    assert xs.tolist() == [0.0, 0.002, 1e6] and ys.tolist() == [1.0, 2.0, 3.0]
