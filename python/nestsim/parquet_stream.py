"""Parquet files written as a run goes that stay readable if the run is killed.

A Parquet reader starts from the footer at the end of the file, so an ordinary writer's file
is unreadable until it is closed. Here every row group is appended together with a footer that
lists every row group so far: after each append the file is a complete Parquet file, and a
reader ignores the earlier footers left between the row groups (it finds the data by offsets).

Those earlier footers cost space that grows with the square of the row groups in a file, so a
file is closed after ``PART_GROUPS`` row groups and the next ones go to a new part
(``NAME.partial``, ``NAME.partial.2``, …). When the run ends the parts are joined into one
file: their bytes are copied (in the kernel where it can) and only the footer is rewritten, so
nothing is encoded twice. A run killed outright leaves parts that any Parquet reader opens;
:func:`read_partial` also reads a part whose last append was cut off, up to its last footer.
"""

from __future__ import annotations

import mmap
import os
import re
from pathlib import Path
from typing import Optional, Union

import pyarrow as pa
import pyarrow.parquet as pq

from . import thrift_compact as tc
from .thrift_compact import Raw

MAGIC = b"PAR1"
#: Row groups per part. With NeSt's 39 request columns a footer holds ~5 KB a row group, so the
#: earlier footers of a full part take ~2.6 MB beside its ~32 × 128 Ki rows (120–280 MB: 1–2 %).
PART_GROUPS = 32

# FileMetaData: num_rows, row_groups. RowGroup: columns, file_offset, ordinal. ColumnChunk:
# file_offset, meta_data, offset/column index offsets. ColumnMetaData: page and bloom offsets.
_FMD_ROWS, _FMD_GROUPS = 3, 4
_RG_COLUMNS, _RG_OFFSET, _RG_ORDINAL = 1, 5, 7
_CC_OFFSETS, _CC_META = (2, 4, 6), 3
_CMD_OFFSETS = (9, 10, 11, 14)
_CMD_SIZE, _CMD_DATA_PAGE, _CMD_DICT_PAGE = 7, 9, 11


def _shift(fields: list, by: int, ids) -> None:
    for f in fields:
        if f[0] in ids and f[2]:
            f[2] += by


def _moved_group(group: list, by: int, ordinal: int) -> list:
    """A decoded RowGroup with every file offset moved by ``by`` bytes (shifted in place)."""
    _shift(group, by, (_RG_OFFSET,))
    for chunk in tc.field(group, _RG_COLUMNS)[1]:
        _shift(chunk, by, _CC_OFFSETS)
        meta = tc.field(chunk, _CC_META)
        if meta is not None:
            _shift(meta, by, _CMD_OFFSETS)
    group[:] = [f for f in group if f[0] != _RG_ORDINAL]
    if ordinal < 2**15:  # an i16: a file of more row groups leaves it out, as the format allows
        group.append([_RG_ORDINAL, tc.I16, ordinal])
        group.sort(key=lambda f: f[0])
    return group


def _footer(template: list, rows: int, groups: list) -> bytes:
    """``template`` (a FileMetaData) with these rows and these (encoded) row groups."""
    fields = [[fid, t, v] for fid, t, v in template if fid not in (_FMD_ROWS, _FMD_GROUPS)]
    fields += [[_FMD_ROWS, tc.I64, rows], [_FMD_GROUPS, tc.LIST, (tc.STRUCT, [Raw(g) for g in groups])]]
    fields.sort(key=lambda f: f[0])
    meta = tc.encode_struct(fields)
    return meta + len(meta).to_bytes(4, "little") + MAGIC


class _Part:
    def __init__(self, path: Path):
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(self.fd, MAGIC)
        self.size = 4
        self.rows = 0
        self.groups: list[bytes] = []

    def append(self, src: int, length: int, groups: list, rows: int, template: list) -> None:
        """Appends ``length`` bytes of row groups from ``src`` (from its offset 4) and a footer for
        every row group of this part so far."""
        by = self.size - 4
        for g in groups:
            self.groups.append(tc.encode_struct(_moved_group(g, by, len(self.groups))))
        self.rows += rows
        footer = _footer(template, self.rows, self.groups)
        # A kill before the footer is written leaves a tail that read_partial() reads up to.
        _copy(src, self.fd, 4, length, self.size)
        _write_all_at(self.fd, footer, self.size + length)
        self.size += length + len(footer)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class ParquetAppender:
    """Appends tables as row groups to ``path`` (``NAME.partial``), a complete Parquet file after
    every append; :meth:`finish` joins its parts into the final file."""

    def __init__(self, path: Path, schema: pa.Schema, part_groups: Optional[int] = None, **options):
        self.path, self.schema, self.options = Path(path), schema, options
        self.part_groups = part_groups or PART_GROUPS
        self.parts: list[_Part] = []
        self.template: Optional[list] = None

    def append(self, table: pa.Table) -> None:
        # pyarrow writes the row group as a file of its own beside the part (streaming it, so no
        # copy of it is held in memory); its bytes are then copied into the part in the kernel.
        one = self.path.with_name(f".{self.path.name}.rowgroup")  # hidden: not taken for a part
        pq.write_table(table.replace_schema_metadata(self.schema.metadata), one, row_group_size=max(1, len(table)),
                       **self.options)
        with open(one, "rb") as f:
            start, meta = _footer_of(f)
            if self.template is None:
                self.template = meta
            if not self.parts or len(self.parts[-1].groups) >= self.part_groups:
                if self.parts:
                    self.parts[-1].close()
                self.parts.append(_Part(part_path(self.path, len(self.parts) + 1)))
            self.parts[-1].append(f.fileno(), start - 4, tc.field(meta, _FMD_GROUPS)[1], tc.field(meta, _FMD_ROWS),
                                  self.template)
        one.unlink()

    def close(self) -> None:
        for p in self.parts:
            p.close()

    def finish(self, final: Path) -> None:
        """Joins the parts into ``final``: the first part grows by the others' bytes and one footer
        for all their row groups. Each part is removed once copied."""
        self.close()
        if not self.parts:
            return
        first = self.parts[0]
        if len(self.parts) > 1:
            groups, rows, at = list(first.groups), first.rows, first.size
            out = os.open(first.path, os.O_WRONLY)
            try:
                for part in self.parts[1:]:
                    with open(part.path, "rb") as src:
                        start, meta = _footer_of(src)
                        _copy(src.fileno(), out, 4, start - 4, at)
                    for g in tc.field(meta, _FMD_GROUPS)[1]:
                        groups.append(tc.encode_struct(_moved_group(g, at - 4, len(groups))))
                    at += start - 4
                    rows += part.rows
                    part.path.unlink()
                footer = _footer(self.template, rows, groups)
                _write_all_at(out, footer, at)
                os.ftruncate(out, at + len(footer))
            finally:
                os.close(out)
        first.path.replace(final)


def _footer_of(f) -> tuple[int, list]:
    """A closed Parquet file's footer: where it starts and its decoded FileMetaData."""
    size = os.fstat(f.fileno()).st_size
    n = int.from_bytes(os.pread(f.fileno(), 4, size - 8), "little")
    start = size - 8 - n
    fields, _ = tc.decode_struct(os.pread(f.fileno(), n, start))
    return start, fields


def _copy(src: int, dst: int, offset: int, length: int, to: int) -> None:
    """Copies ``length`` bytes of ``src`` from ``offset`` to ``dst`` at ``to``: in the kernel
    (no copy through this process; shared extents where the file system can), else by hand."""
    done = 0
    kernel_copy = getattr(os, "copy_file_range", None)  # Linux only
    try:
        while kernel_copy is not None and done < length:
            n = kernel_copy(src, dst, length - done, offset + done, to + done)
            if n == 0:
                break
            done += n
    except OSError:  # e.g. a file system that does not support it: copy by hand
        pass
    while done < length:
        chunk = os.pread(src, min(length - done, 1 << 24), offset + done)
        if not chunk:
            raise OSError(f"a Parquet part ended {length - done} bytes early while the parts were joined")
        _write_all_at(dst, chunk, to + done)
        done += len(chunk)


def _write_all_at(fd: int, data: bytes, at: int) -> None:
    view = memoryview(data)
    while view:
        n = os.pwrite(fd, view, at)
        view, at = view[n:], at + n


def part_path(path: Path, n: int) -> Path:
    return path if n == 1 else path.with_name(f"{path.name}.{n}")


def _parts(path: Path) -> list[Path]:
    found = [(1, path)] if path.exists() else []
    pat = re.compile(re.escape(path.name) + r"\.(\d+)$")
    for p in path.parent.glob(path.name + ".*"):
        m = pat.match(p.name)
        if m:
            found.append((int(m.group(1)), p))
    return [p for _, p in sorted(found)]


def _readable_end(data) -> Optional[int]:
    """Where the last complete footer of ``data`` ends (None: there is none). A part whose last
    append was cut off ends with part of a row group; the footer before it still lists every
    row group before that one."""
    end = len(data)
    while end >= 12:
        at = data.rfind(MAGIC, 4, end)
        if at < 8:
            return None
        n = int.from_bytes(data[at - 4:at], "little")
        start = at - 4 - n
        if 4 <= start:
            try:
                fields, used = tc.decode_struct(data[start:at - 4])
                groups = tc.field(fields, _FMD_GROUPS)
                if used == n and groups is not None and all(
                        _chunk_end(c) <= start for g in groups[1] for c in tc.field(g, _RG_COLUMNS)[1]):
                    return at + 4
            except (tc.ThriftError, TypeError):
                pass
        end = at + 3
    return None


def _chunk_end(chunk: list) -> int:
    """Where a column chunk's bytes end: it starts at its dictionary page when it has one."""
    meta = tc.field(chunk, _CC_META)
    first = tc.field(meta, _CMD_DICT_PAGE) or tc.field(meta, _CMD_DATA_PAGE)
    return first + tc.field(meta, _CMD_SIZE)


def unfinished(root: Path) -> str:
    """A note for a directory without results that holds a run's parts: it did not finish."""
    if any(root.glob("*.parquet.partial*")):
        return (f"; it holds the outputs of a run that did not finish (killed?): read them with "
                f"nestsim.read_partial('{root}')")
    return ""


def read_partial(path: Union[str, os.PathLike], columns=None) -> Optional[pa.Table]:
    """What a run's output holds so far: ``path`` is the final file's name (``DIR/requests.parquet``)
    or a run directory (then its requests). The final file when the run ended; otherwise every
    complete row group of its ``.partial`` parts — of a run killed outright, or of one still
    running. None when nothing was written."""
    path = Path(path)
    if path.is_dir():
        path = path / "requests.parquet"
    if path.exists():
        return pq.read_table(path, columns=columns)
    tables = []
    for part in _parts(path.with_name(path.name + ".partial")):
        with open(part, "rb") as f:
            if os.fstat(f.fileno()).st_size < 12:
                continue
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            end = _readable_end(data)
            if end is not None:
                tables.append(pq.read_table(pa.BufferReader(pa.py_buffer(data)[:end]), columns=columns))
    if not tables:
        return None
    return pa.concat_tables(tables)


__all__ = ["ParquetAppender", "read_partial", "PART_GROUPS"]
