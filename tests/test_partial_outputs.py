"""A run killed outright leaves Parquet outputs that can be read (issue 25, item 6): every row
group goes to disk with a footer listing all row groups so far, files are split into parts so
those footers stay small, and the parts are joined without re-encoding when the run ends."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import tomllib
from conftest import SMALL

import nestsim
from nestsim import parquet_stream as ps
from nestsim import thrift_compact as tc


def _table(n, start=0):
    seq = np.arange(start, start + n, dtype=np.uint64)
    return pa.table({
        "seq": seq,
        "op": pa.array(["read" if i % 3 else "write" for i in range(start, start + n)]).dictionary_encode(),
        "latency_us": seq.astype(np.float64) * 0.5,
        "in_window": pa.array([i % 2 == 0 for i in range(start, start + n)]),
    }).replace_schema_metadata({b"nestsim": b'{"output_schema": 1}'})


def _footer(data: bytes) -> bytes:
    n = int.from_bytes(data[-8:-4], "little")
    return data[-8 - n:-8]


def test_a_parquet_footer_decodes_and_encodes_back_byte_for_byte(tmp_path):
    pq.write_table(pa.concat_tables([_table(500), _table(500, 500)]), tmp_path / "t.parquet", row_group_size=300,
                   compression="zstd")
    footer = _footer((tmp_path / "t.parquet").read_bytes())
    fields, used = tc.decode_struct(footer)
    assert used == len(footer)
    assert tc.field(fields, 3) == 1000  # num_rows
    assert len(tc.field(fields, 4)[1]) == 4  # row groups
    assert tc.encode_struct(fields) == footer
    with pytest.raises(tc.ThriftError):
        tc.decode_struct(footer[: len(footer) // 2])


def test_every_append_leaves_readable_parts_and_finishing_joins_them(tmp_path):
    base = tmp_path / "r.parquet"
    schema = _table(1).schema
    app = ps.ParquetAppender(base.with_name("r.parquet.partial"), schema, part_groups=3, compression="zstd",
                             use_dictionary=["op"])
    written = []
    for i in range(8):
        t = _table(100 + i, sum(len(w) for w in written))
        app.append(t)
        written.append(t)
        # Each part on disk is a whole Parquet file right now, as any reader sees it.
        parts = sorted(tmp_path.glob("r.parquet.partial*"), key=lambda p: (len(p.name), p.name))
        assert len(parts) == i // 3 + 1
        assert pq.read_table(parts[-1]).num_rows == sum(len(w) for w in written[(i // 3) * 3:])
        assert ps.read_partial(base).equals(pa.concat_tables(written))
    app.finish(base)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.parquet"]
    f = pq.ParquetFile(base)
    assert f.metadata.num_row_groups == 8
    assert f.read().equals(pa.concat_tables(written))
    assert f.schema_arrow.metadata[b"nestsim"] == b'{"output_schema": 1}'
    # Statistics survive the move: row group 7 starts where the 7 before it ended.
    stats = f.metadata.row_group(7).column(0).statistics
    assert stats.min == sum(len(w) for w in written[:7]) and stats.max == f.metadata.num_rows - 1


def test_a_part_cut_off_mid_append_is_read_up_to_its_last_footer(tmp_path):
    path = tmp_path / "r.parquet.partial"
    app = ps.ParquetAppender(path, _table(1).schema, compression="zstd")
    app.append(_table(200))
    app.append(_table(300, 200))
    app.close()
    whole = path.read_bytes()
    # A kill in the middle of the third append: half a row group, which even holds the magic.
    path.write_bytes(whole + b"\x15\x00" * 3000 + ps.MAGIC + b"\x07" * 100)
    with pytest.raises(Exception):
        pq.read_table(path)
    assert ps.read_partial(tmp_path / "r.parquet").equals(pa.concat_tables([_table(200), _table(300, 200)]))
    # Cut inside the first footer: nothing readable is left, and that is said as None.
    path.write_bytes(whole[: len(whole) // 4])
    assert ps.read_partial(tmp_path / "r.parquet") is None


KILLED = textwrap.dedent("""
    import sys
    from nestsim import cli, parquet_stream, runner
    runner.ROW_GROUP_ROWS = 2_000
    runner.CHUNK_EVENTS = 5_000
    parquet_stream.PART_GROUPS = 4
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
        while not (out / "requests.parquet.partial.3").exists():
            assert p.poll() is None, p.stderr.read().decode()
            assert time.monotonic() < deadline, "the run wrote no third part in 120 s"
            time.sleep(0.05)
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    assert not (out / "requests.parquet").exists()
    parts = sorted(out.glob("requests.parquet.partial*"), key=lambda q: (len(q.name), q.name))
    assert len(parts) >= 3
    for part in parts[:-1]:  # closed parts are whole files for any reader
        assert pq.ParquetFile(part).metadata.num_row_groups == 4
    got = nestsim.read_partial(out)
    assert got.num_rows >= 2 * 4 * 2_000
    closed = pq.read_table([str(q) for q in parts[:-1]])
    assert got.slice(0, closed.num_rows).equals(closed)
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
    (tmp_path / "requests.parquet.partial.2").write_bytes(b"PAR1 left by a killed run")
    (tmp_path / "timeseries.parquet.partial").write_bytes(b"PAR1")
    (tmp_path / ".requests.parquet.partial.rowgroup").write_bytes(b"PAR1")
    nestsim.run(tomllib.loads(SMALL), out_dir=tmp_path, progress=False, keep_tables=False)
    assert not list(tmp_path.glob("*.partial*")) and not list(tmp_path.glob(".*"))
    assert (tmp_path / "requests.parquet").exists()


def test_parts_join_by_hand_where_the_kernel_cannot_copy(tmp_path, monkeypatch):
    monkeypatch.delattr(os, "copy_file_range", raising=False)
    app = ps.ParquetAppender(tmp_path / "r.parquet.partial", _table(1).schema, part_groups=2, compression="zstd")
    written = [_table(50 + i, 100 * i) for i in range(5)]
    for t in written:
        app.append(t)
    assert len(list(tmp_path.glob("r.parquet.partial*"))) == 3
    app.finish(tmp_path / "r.parquet")
    assert pq.read_table(tmp_path / "r.parquet").equals(pa.concat_tables(written))
