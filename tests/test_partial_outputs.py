"""A run killed outright leaves outputs that can be read (issue 25, item 6; issue 57, item 6):
every row group is a closed Arrow IPC part file of its own, written by pyarrow, beside the whole
Parquet file being written; the whole file is moved into place when the run ends (issue 64: the
parts are Arrow's layout written out, so each row group is encoded as Parquet once)."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
import tomllib
from conftest import SMALL

import nestsim
from nestsim import parquet_stream as ps


def _table(n, start=0):
    seq = np.arange(start, start + n, dtype=np.uint64)
    return pa.table({
        "seq": seq,
        "op": pa.array(["read" if i % 3 else "write" for i in range(start, start + n)]).dictionary_encode(),
        "latency_us": seq.astype(np.float64) * 0.5,
        "in_window": pa.array([i % 2 == 0 for i in range(start, start + n)]),
    }).replace_schema_metadata({b"nestsim": b'{"output_schema": 1}'})


def test_every_append_is_a_closed_part_and_finishing_leaves_one_file(tmp_path):
    base = tmp_path / "r.parquet"
    partial = base.with_name("r.parquet.partial")
    schema = _table(1).schema
    app = ps.ParquetAppender(partial, schema, compression="zstd", use_dictionary=["op"])
    written = []
    for i in range(8):
        t = _table(100 + i, sum(len(w) for w in written))
        app.append(t)
        written.append(t)
        # The parts on disk are one table for any Arrow reader right now.
        assert len(ps.parts(partial)) == i + 1
        assert ds.dataset(partial, format="ipc").to_table().equals(pa.concat_tables(written))
        assert ps.read_partial(base).equals(pa.concat_tables(written))
    app.finish(base)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.parquet"]
    f = pq.ParquetFile(base)
    assert f.metadata.num_row_groups == 8
    assert f.read().equals(pa.concat_tables(written))
    assert f.schema_arrow.metadata[b"nestsim"] == b'{"output_schema": 1}'


def test_a_part_cut_off_mid_write_is_not_taken_for_one(tmp_path):
    partial = tmp_path / "r.parquet.partial"
    app = ps.ParquetAppender(partial, _table(1).schema, compression="zstd")
    app.append(_table(200))
    app.append(_table(300, 200))
    # A kill in the middle of the third append: its part is still under its hidden name.
    (partial / ".part-00003.arrow.tmp").write_bytes(b"ARROW1 half a row group")
    assert ps.read_partial(tmp_path / "r.parquet").equals(pa.concat_tables([_table(200), _table(300, 200)]))
    assert ds.dataset(partial, format="ipc").to_table().equals(pa.concat_tables([_table(200), _table(300, 200)]))
    assert ps.read_partial(tmp_path / "nothing.parquet") is None


KILLED = textwrap.dedent("""
    import sys
    from nestsim import cli, runner
    runner.ROW_GROUP_ROWS = 2_000
    runner.CHUNK_EVENTS = 5_000
    sys.exit(cli.main(sys.argv[1:]))
""")


def test_a_run_killed_outright_leaves_outputs_that_read_as_a_prefix_of_the_run(tmp_path):
    sc = tmp_path / "long.toml"
    sc.write_text(SMALL.replace('duration = "20ms"', 'duration = "1000s"'))
    out = tmp_path / "killed"
    p = subprocess.Popen([sys.executable, "-c", KILLED, "run", str(sc), "--out", str(out), "--quiet"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while len(ps.parts(out / "requests.parquet.partial")) < 3:
            assert p.poll() is None, p.stderr.read().decode()
            assert time.monotonic() < deadline, "the run wrote no third part in 120 s"
            time.sleep(0.05)
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    assert not (out / "requests.parquet").exists()
    found = ps.parts(out / "requests.parquet.partial")
    assert len(found) >= 3
    got = nestsim.read_partial(out)
    assert got.num_rows >= 3 * 2_000
    # Any Arrow reader reads the parts as one table.
    assert ds.dataset(out / "requests.parquet.partial", format="ipc").count_rows() == got.num_rows
    # `nestsim report` and `plot` on it say where its outputs are.
    from nestsim import plots, report
    for write in (report.write_report, plots.write_plots):
        with pytest.raises(FileNotFoundError, match="did not finish.*read_partial"):
            write(out)
    # The same run stopped cleanly a little later: the killed run's rows are its first ones.
    ref = nestsim.run(sc, out_dir=tmp_path / "ref", progress=False, budget=nestsim.Budget(events=40 * got.num_rows))
    assert ref.requests.num_rows > got.num_rows
    assert got.equals(ref.requests.slice(0, got.num_rows))
    assert nestsim.read_partial(tmp_path / "ref").equals(ref.requests)


def test_a_new_run_clears_a_killed_runs_parts(tmp_path):
    (tmp_path / "requests.parquet.partial").mkdir()
    (tmp_path / "requests.parquet.partial" / "part-00001.arrow").write_bytes(b"ARROW1 left by a killed run")
    (tmp_path / "timeseries.parquet.partial").write_bytes(b"PAR1")
    nestsim.run(tomllib.loads(SMALL), out_dir=tmp_path, progress=False, keep_tables=False)
    assert not list(tmp_path.glob("*.partial*"))
    assert (tmp_path / "requests.parquet").exists()
