"""Columns of an output table as NumPy arrays, without a Python object per cell.

``Table.to_pydict()`` builds a Python object for every cell: ~5 s for the six columns of a
1 M-request run, longer than the simulation. Numeric columns go to NumPy directly; dictionary
columns (workload, class, host, device, op) become an object array of their names, built by
indexing the dictionary (one string object per distinct name, not per row).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, Iterator, Sequence, Union

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def column(col: Union[pa.ChunkedArray, pa.Array]) -> np.ndarray:
    """One column as a NumPy array; dictionary-encoded strings as an object array of names."""
    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    parts = []
    for ch in chunks:
        if pa.types.is_dictionary(ch.type):
            names = np.asarray(ch.dictionary.to_pylist(), dtype=object)
            parts.append(names[ch.indices.to_numpy(zero_copy_only=False)] if len(names) else np.empty(len(ch), dtype=object))
        elif pa.types.is_string(ch.type) or pa.types.is_large_string(ch.type):
            parts.append(np.asarray(ch.to_pylist(), dtype=object))
        else:
            parts.append(ch.to_numpy(zero_copy_only=False))
    if not parts:
        return np.empty(0, dtype=object if pa.types.is_dictionary(col.type) or pa.types.is_string(col.type) else col.type.to_pandas_dtype())
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def columns(source: Union[pa.Table, str, os.PathLike], names: Sequence[str]) -> Dict[str, np.ndarray]:
    """The named columns of a table, or of a Parquet file (reading only those columns)."""
    t = source if isinstance(source, pa.Table) else pq.read_table(str(Path(source)), columns=list(names))
    return {n: column(t.column(n)) for n in names}


def batches(source: Union[pa.Table, str, os.PathLike], names: Sequence[str], rows: int = 131_072) -> Iterator[Dict[str, np.ndarray]]:
    """The named columns of a table or Parquet file, ``rows`` at a time (as ``columns`` does for
    all of them at once): what a reader that only sums needs, in memory that does not grow with
    the table (`--mqsim`'s results file read six columns of 1 M requests at once: +50 MB at the
    run's peak; issue 24)."""
    if isinstance(source, pa.Table):
        for b in source.select(list(names)).to_batches(max_chunksize=rows):
            yield {n: column(b.column(n)) for n in names}
        return
    with pq.ParquetFile(str(Path(source))) as f:
        for b in f.iter_batches(batch_size=rows, columns=list(names)):
            yield {n: column(b.column(n)) for n in names}
