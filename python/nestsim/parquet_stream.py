"""Parquet tables written as a run goes that stay readable if the run is killed.

A Parquet reader starts from the footer at the end of the file, so a file being written is
unreadable until it is closed. Each output table is therefore written twice as it goes, both
times by pyarrow's own writers (no codec of NeSt's):

- ``NAME.partial/part-00001.arrow``, ``part-00002.arrow``, …: one closed Arrow IPC file (Feather
  v2, LZ4-compressed buffers) per row group, each written under a hidden name and renamed when
  whole. The directory is one table for any Arrow reader (``pyarrow.dataset.dataset(dir,
  format="ipc")``, ``polars.scan_ipc("dir/*.arrow")``), and a kill at any moment loses at most
  the row group being written: :func:`read_partial` reads it;
- ``NAME.partial/.whole.parquet``: the final file, the same row groups through one
  ``pq.ParquetWriter``; closed and moved to ``NAME`` when the run ends, and the parts deleted.

So every row group is encoded once as Parquet; the parts are Arrow's own layout written out
with LZ4 (0.29–0.31 CPU-s per million requests where a Parquet part cost 0.41–0.43; raw Arrow
would cost 0.06–0.10 but take 4× the final file's size on disk, LZ4 1.55×; BENCHMARKS.md). The
parts stay until the run ends; nothing is decoded or copied at the end.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Optional, Union

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

WHOLE = ".whole.parquet"
#: The parts' buffers are LZ4-compressed: raw Arrow is cheaper to write but 4× the final file on
#: disk while the run goes (a 10⁸-request run: ~28 GB); LZ4 is read by every Arrow implementation.
PART_OPTIONS = ipc.IpcWriteOptions(compression="lz4")


def _part_name(n: int) -> str:
    return f"part-{n:05d}.arrow"


class ParquetAppender:
    """Appends tables as row groups to the directory ``path`` (``NAME.partial``): a closed part
    file each, and a row group of the whole file; :meth:`finish` moves the whole file to its
    final name and removes the directory."""

    def __init__(self, path: Path, schema: pa.Schema, **options):
        self.dir, self.schema, self.options = Path(path), schema, options
        if self.dir.exists():
            shutil.rmtree(self.dir)
        self.dir.mkdir(parents=True)
        self.writer: Optional[pq.ParquetWriter] = pq.ParquetWriter(self.dir / WHOLE, schema, **options)
        self.parts = 0

    def append(self, table: pa.Table) -> None:
        table = table.replace_schema_metadata(self.schema.metadata)
        rows = max(1, len(table))
        self.parts += 1
        tmp = self.dir / f".{_part_name(self.parts)}.tmp"
        with ipc.new_file(tmp, table.schema, options=PART_OPTIONS) as part:
            part.write_table(table)
        tmp.replace(self.dir / _part_name(self.parts))
        self.writer.write_table(table, row_group_size=rows)

    def close(self) -> None:
        """Closes the whole file (it gets its footer) without moving it."""
        if self.writer is not None:
            self.writer.close()
            self.writer = None

    def finish(self, final: Path) -> None:
        self.close()
        (self.dir / WHOLE).replace(final)
        shutil.rmtree(self.dir)


def parts(partial: Path) -> list:
    """The closed part files of a table being written (``NAME.partial``), in order."""
    return sorted(partial.glob("part-*.arrow")) if partial.is_dir() else []


def unfinished(root: Path) -> str:
    """A note for a directory without results that holds a run's parts: it did not finish."""
    if any(root.glob("*.parquet.partial")):
        return (f"; it holds the outputs of a run that did not finish (killed?): read them with "
                f"nestsim.read_partial('{root}')")
    return ""


def read_partial(path: Union[str, os.PathLike], columns=None) -> Optional[pa.Table]:
    """What a run's output holds so far: ``path`` is the final file's name (``DIR/requests.parquet``)
    or a run directory (then its requests). The final file when the run ended; otherwise every
    part written so far — of a run killed outright, or of one still running. None when nothing
    was written."""
    path = Path(path)
    if path.is_dir():
        path = path / "requests.parquet"
    if path.exists():
        return pq.read_table(path, columns=columns)
    found = parts(path.with_name(path.name + ".partial"))
    if not found:
        return None
    return pa.concat_tables([_read_part(p, columns) for p in found])


def _read_part(path: Path, columns=None) -> pa.Table:
    with pa.OSFile(str(path)) as source:
        table = ipc.open_file(source).read_all()
    return table.select(columns) if columns is not None else table


__all__ = ["ParquetAppender", "read_partial", "parts"]
