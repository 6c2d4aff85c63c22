"""Outputs written as the run goes (issue 24): the tables on disk are the ones kept in memory,
gathered into row groups; the time series is dictionary-encoded; the helpers that read columns
without a Python object per cell agree with `to_pydict`."""

import json
import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq
import tomllib
from conftest import SMALL

import nestsim
from nestsim import runner
from nestsim.columns import columns
from nestsim.fio_json import union_length


def _run(tmp_path, monkeypatch, keep):
    # Short steps and small row groups, so the run drains many chunks and writes several groups.
    monkeypatch.setattr(runner, "CHUNK_EVENTS", 2_000)
    monkeypatch.setattr(runner, "ROW_GROUP_ROWS", 1_000)
    sc = tomllib.loads(SMALL)
    sc["run"]["interval"] = "20us"
    return nestsim.run(sc, out_dir=tmp_path, keep_tables=keep, progress=False)


def test_tables_on_disk_equal_the_tables_kept_in_memory(tmp_path, monkeypatch):
    res = _run(tmp_path / "kept", monkeypatch, keep=True)
    for name, kept in (("requests", res._requests), ("timeseries", res._timeseries)):
        f = pq.ParquetFile(tmp_path / "kept" / f"{name}.parquet")
        on_disk = f.read()
        assert on_disk.num_rows == kept.num_rows > 1_000
        assert f.metadata.num_row_groups >= 2, name
        assert on_disk.to_pydict() == kept.to_pydict(), name
        assert b"nestsim" in f.schema_arrow.metadata
    assert res.requests.num_rows == res.summary["requests"]["completed"]


def test_a_run_that_keeps_nothing_still_writes_everything_and_reads_it_back(tmp_path, monkeypatch):
    kept = _run(tmp_path / "kept", monkeypatch, keep=True)
    res = _run(tmp_path / "lean", monkeypatch, keep=False)
    assert res._requests is None and res._timeseries is None
    # The lazy properties read the files back: the same rows as the run that kept them.
    assert res.requests.to_pydict() == kept.requests.to_pydict()
    assert res.timeseries.to_pydict() == kept.timeseries.to_pydict()
    assert not list((tmp_path / "lean").glob("*.partial"))


def test_steps_are_sized_by_the_rows_they_leave_and_change_nothing(tmp_path, monkeypatch):
    # The small run finishes a request in under two events: steps of 1,000 events would leave
    # ~600 rows each; STEP_ROWS = 50 must hold every step after the first near 50.
    sizes = []
    real = runner.requests_table

    def spy(raw, names):
        t = real(raw, names)
        sizes.append(t.num_rows)
        return t

    sc = tomllib.loads(SMALL)
    monkeypatch.setattr(runner, "CHUNK_EVENTS", 1_000)
    monkeypatch.setattr(runner, "ROW_GROUP_ROWS", 1_000)
    plain = nestsim.run(sc, out_dir=tmp_path / "plain", progress=False)
    monkeypatch.setattr(runner, "requests_table", spy)
    monkeypatch.setattr(runner, "STEP_ROWS", 50)
    monkeypatch.setattr(runner, "MIN_CHUNK_EVENTS", 50)
    sized = nestsim.run(sc, out_dir=tmp_path / "sized", progress=False)
    assert sizes[0] > 300, "the first step has no rate to go by yet"
    assert len(sizes) > 10 and max(sizes[1:]) < 100, sizes
    assert sized.summary == plain.summary
    assert sized.requests.to_pydict() == plain.requests.to_pydict()


def test_time_series_names_are_dictionary_encoded_and_sums_stay_sums(tmp_path):
    res = nestsim.run(tomllib.loads(SMALL), out_dir=tmp_path, progress=False)
    ts = res.timeseries
    assert str(ts.schema.field("entity").type).startswith("dictionary")
    t = ts.to_pydict()
    for m, v, s, c in zip(t["metric"], t["value"], t["sum"], t["count"]):
        assert v == (s if m.endswith("_bytes") else s / max(c, 1))
    assert any(e.startswith("workload:") for e in t["entity"])


def test_an_empty_time_series_still_gets_its_file(tmp_path):
    sc = tomllib.loads(SMALL)
    sc["run"]["duration"] = "1ns"
    sc["run"]["warmup"] = "0ns"
    nestsim.run(sc, out_dir=tmp_path, progress=False, keep_tables=False)
    assert (tmp_path / "timeseries.parquet").exists()


def test_columns_agree_with_to_pydict(tmp_path):
    res = nestsim.run(tomllib.loads(SMALL), out_dir=tmp_path, progress=False)
    names = ["workload", "op", "size", "t_arrive_ps", "in_window", "latency_us"]
    want = res.requests.select(names).to_pydict()
    for source in (res.requests, tmp_path / "requests.parquet"):
        got = columns(source, names)
        for n in names:
            assert list(got[n]) == want[n], n


def test_union_length_is_the_busy_time_a_scan_finds():
    rng = np.random.default_rng(4)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        start = rng.integers(0, 1000, n)
        end = start + rng.integers(0, 100, n)
        busy = set()
        for s, e in zip(start, end):
            busy.update(range(int(s), int(e)))
        assert union_length(start, end) == len(busy)
    assert union_length(np.array([], dtype=np.int64), np.array([], dtype=np.int64)) == 0


def test_the_pipeline_benchmark_runs_a_case_and_compares_it_with_the_recorded_run():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    p = subprocess.run([sys.executable, str(root / "benches" / "pipeline.py"), "--only", "dctcp-dumbbell-0.5s", "--repeat", "1"],
                       cwd=root, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("dctcp-dumbbell-0.5s "))
    assert "M pkts" in line and "x faster" in line, p.stdout
    # Only the cases asked for (by name prefix) ran.
    assert "ssd-rand4k" not in p.stdout and "replay-msr" not in p.stdout


def test_the_scale_scenario_generator_writes_a_scenario_that_runs(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    text = subprocess.run([sys.executable, str(root / "benches" / "scale.py"), "4", "6", "2", "4", "1ms"],
                          capture_output=True, text=True, check=True).stdout
    (tmp_path / "scale.toml").write_text(text)
    res = nestsim.run(tmp_path / "scale.toml", out_dir=tmp_path / "out", progress=False, keep_tables=False)
    s = res.summary
    assert len(s["devices"]) == 6 and len(s["workloads"]) == 4
    assert s["conservation"] == "ok" and s["requests"]["completed"] > 0


def test_batches_give_the_columns_a_few_rows_at_a_time(tmp_path):
    from nestsim.columns import batches

    res = nestsim.run(tomllib.loads(SMALL), out_dir=tmp_path, progress=False)
    names = ["workload", "op", "size", "t_complete_ps", "latency_us"]
    want = columns(res.requests, names)
    for source in (res.requests, tmp_path / "requests.parquet"):
        parts = list(batches(source, names, rows=100))
        assert len(parts) >= -(-len(want["size"]) // 100) > 5 and max(len(p["size"]) for p in parts) <= 100
        for n in names:
            assert list(np.concatenate([p[n] for p in parts])) == list(want[n]), n


def test_the_command_gives_arrow_the_c_allocator_unless_the_user_chose(tmp_path):
    # Arrow's mimalloc keeps what Arrow frees (issue 24: ~45 MB more at `--mqsim`'s peak); the
    # command sets the pool before pyarrow loads, and a pool the user named still wins.
    import os
    import subprocess
    import sys

    ask = "import nestsim.cli, pyarrow as pa; print(pa.default_memory_pool().backend_name)"
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    got = lambda e: subprocess.run([sys.executable, "-c", ask], env=e, capture_output=True, text=True, check=True).stdout.strip()  # noqa: E731
    assert got(env) == "system"
    own = subprocess.run([sys.executable, "-c", "import pyarrow as pa; print(pa.default_memory_pool().backend_name)"], env=env,
                         capture_output=True, text=True, check=True).stdout.strip()
    assert got({**env, "ARROW_DEFAULT_MEMORY_POOL": own}) == own


def test_a_run_without_table_outputs_never_loads_numpy_or_pyarrow(small_scenario, tmp_path):
    """`nestsim run` starts its engine before numpy and pyarrow load (issue 64): with neither
    table asked for they never load at all, so a small run's process is the engine's."""
    code = ("import sys\nfrom nestsim.cli import main\n"
            f"rc = main(['run', {str(small_scenario)!r}, '-o', {str(tmp_path / 'o')!r}, '-q',"
            " '--set', 'output.requests=false', '--set', 'output.timeseries=false'])\n"
            "print(rc, sorted(m for m in ('numpy', 'pyarrow', 'concurrent.futures') if m in sys.modules))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "0 []"
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["requests"]["completed"] > 0


def test_drains_kept_while_the_tables_modules_load_give_the_same_outputs(small_scenario, tmp_path, monkeypatch):
    """While numpy and pyarrow load beside the first steps, drains wait as raw columns; once
    loaded (or MAX_STASHED of them wait) they become the same tables, in order."""
    monkeypatch.setattr(runner, "CHUNK_EVENTS", 500)  # many small drains
    monkeypatch.setattr(runner, "MIN_CHUNK_EVENTS", 100)
    runner.run(small_scenario, out_dir=tmp_path / "plain", progress=False)

    class StillLoading:
        calls = 0

        def is_alive(self):
            StillLoading.calls += 1
            return StillLoading.calls < 6  # the first 5 drains wait (MAX_STASHED caps them)

    monkeypatch.setattr(runner, "preload", lambda names: StillLoading())
    runner.run(small_scenario, out_dir=tmp_path / "held", progress=False)
    assert StillLoading.calls >= 6
    assert (tmp_path / "plain" / "summary.json").read_bytes() == (tmp_path / "held" / "summary.json").read_bytes()
    for name in ("requests.parquet", "timeseries.parquet"):
        a, b = (pq.read_table(tmp_path / d / name) for d in ("plain", "held"))
        assert a.num_rows > 0 and a.equals(b)


def test_an_early_exit_waits_for_the_preload_instead_of_finalising_under_it():
    """The interpreter leaving while numpy initialises on the preload thread could end the process
    by a signal after its error was printed (seen once in the mutation run): the thread is not a
    daemon, so a refused run exits with its own status, after the imports."""
    import subprocess
    import sys

    code = "from nestsim._lazy import preload; t = preload(['numpy', 'pyarrow']); assert not t.daemon; raise SystemExit(2)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, p.stderr
    assert p.stderr == ""
