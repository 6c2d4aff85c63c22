"""fio's per-I/O logs and json+ histograms for a run of fio job files (issue 62, finding 5).

- ``write_lat_log=P``, ``write_bw_log=P``, ``write_iops_log=P`` in a job (or ``[global]``) write
  fio 3.33's log files beside the run's outputs: ``P_lat.N.log``, ``P_clat.N.log``,
  ``P_slat.N.log``, ``P_bw.N.log``, ``P_iops.N.log``, N the job's number (1-based, in fio.json's
  job order; numjobs clones count one each), a bare option taking the job's name as P. A
  relative P is under the run's directory.
- A line is ``time (ms), value, direction (0 read, 1 write), block size (bytes), priority (0)``,
  as fio 3.33 writes them. Without ``log_avg_msec`` one line per completed I/O at its completion
  time: latencies in ns (``lat`` arrival → completion, ``slat`` the host queue, ``clat`` dispatch
  → completion: fio.json's reading), bandwidth as fio computes a single I/O's — bytes × 10⁶ /
  clat ns — and IOPS 1. With ``log_avg_msec = M`` one line per direction per M ms window (at its
  end, block size 0): the mean latency, KiB/s and IOPS over the window.
- ``--output-format json+`` (``nestsim fio``) adds fio's latency histogram to each direction's
  ``clat_ns``: ``bins`` maps each bucket's value (fio's ``plat_idx_to_val``: 64 buckets per power
  of two, the bucket's middle) to its count.

Times are simulated: a log's ``time`` column starts at the run's time 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

from .fio_json import _job_options, _options_of, job_order

#: fio's histogram (stat.h): 2^6 buckets per group, 29 groups.
PLAT_BITS = 6
PLAT_VAL = 1 << PLAT_BITS
PLAT_NR = 29 * PLAT_VAL
COLUMNS = ["workload", "op", "size", "t_arrive_ps", "t_dispatch_ps", "t_complete_ps", "in_window"]
KINDS = {"write_lat_log": ("lat", "clat", "slat"), "write_bw_log": ("bw",), "write_iops_log": ("iops",)}


def plat_idx(ns: np.ndarray) -> np.ndarray:
    """fio's ``plat_val_to_idx`` over an array of ns values."""
    v = np.asarray(ns, dtype=np.uint64)
    msb = np.where(v > 0, np.floor(np.log2(np.maximum(v, 1).astype(np.float64))), 0).astype(np.int64)
    # float log2 can round up just below a power of two: correct against the value itself.
    msb -= (np.left_shift(np.uint64(1), msb.astype(np.uint64)) > v) & (v > 0)
    err = np.maximum(msb - PLAT_BITS, 0)
    grouped = ((err + 1) << PLAT_BITS) + ((v >> err.astype(np.uint64)).astype(np.int64) & (PLAT_VAL - 1))
    return np.minimum(np.where(msb <= PLAT_BITS, v.astype(np.int64), grouped), PLAT_NR - 1)


def plat_val(idx: int) -> int:
    """fio's ``plat_idx_to_val``: the middle of bucket ``idx``."""
    if idx < (PLAT_VAL << 1):
        return idx
    err = (idx >> PLAT_BITS) - 1
    return int((1 << (err + PLAT_BITS)) + ((idx % PLAT_VAL) + 0.5) * (1 << err))


def bins(ns: np.ndarray) -> Dict[str, int]:
    """fio json+'s ``bins``: bucket value → count, buckets with samples only, in value order."""
    idx, counts = np.unique(plat_idx(ns), return_counts=True)
    return {str(plat_val(int(i))): int(c) for i, c in zip(idx, counts)}


def _lines(t_ms: np.ndarray, value: np.ndarray, ddir: np.ndarray, bs: np.ndarray) -> List[str]:
    order = np.lexsort((ddir, t_ms))
    return [f"{t}, {v}, {d}, {b}, 0" for t, v, d, b in zip(t_ms[order], value[order], ddir[order], bs[order])]


def _log(kind: str, req: dict, avg_ms: int) -> List[str]:
    """The lines of one log (``kind``: lat, clat, slat, bw, iops) for one job's requests."""
    lat = {"lat": req["complete"] - req["arrive"], "clat": req["complete"] - req["dispatch"],
           "slat": req["dispatch"] - req["arrive"]}
    done_ms = req["complete"] // 1_000_000
    if avg_ms <= 0:
        if kind in lat:
            value = lat[kind]
        elif kind == "bw":
            value = req["size"] * 1_000_000 // np.maximum(lat["clat"], 1)
        else:
            value = np.ones_like(req["size"])
        return _lines(done_ms, value, req["ddir"], req["size"])
    window = req["complete"] // (avg_ms * 1_000_000)
    rows: List[Tuple[int, int, int]] = []
    for w in np.unique(window):
        for d in (0, 1):
            m = (window == w) & (req["ddir"] == d)
            if not m.any():
                continue
            if kind in lat:
                v = int(lat[kind][m].mean())
            elif kind == "bw":
                v = int(req["size"][m].sum() / 1024 / (avg_ms / 1000))
            else:
                v = int(m.sum() / (avg_ms / 1000))
            rows.append((int((w + 1) * avg_ms), v, d))
    a = np.array(rows, dtype=np.int64).reshape(-1, 3)
    return _lines(a[:, 0], a[:, 1], a[:, 2], np.zeros(len(a), dtype=np.int64))


def _requests(requests) -> Dict[str, dict]:
    """workload → its completed requests' stamps in ns, sizes and directions."""
    t = requests.select(COLUMNS).to_pydict()
    wl = np.asarray(t["workload"], dtype=object)
    out = {}
    for w in set(t["workload"]):
        m = wl == w
        out[w] = {"arrive": np.asarray(t["t_arrive_ps"], dtype=np.int64)[m] // 1000,
                  "dispatch": np.asarray(t["t_dispatch_ps"], dtype=np.int64)[m] // 1000,
                  "complete": np.asarray(t["t_complete_ps"], dtype=np.int64)[m] // 1000,
                  "size": np.asarray(t["size"], dtype=np.int64)[m],
                  "ddir": (np.asarray(t["op"], dtype=object)[m] == "write").astype(np.int64),
                  "in_window": np.asarray(t["in_window"], dtype=bool)[m]}
    return out


def _job_name(name: str, summary: dict, job_opts: Dict[str, Dict[str, str]], sections: Dict[str, str]) -> str:
    """The fio job a workload runs: its section's name (fio's jobname, which clones share)."""
    if name in sections:
        return sections[name]
    keys = [k for k in job_opts if name == k or name.startswith(f"{k}.")]
    if not keys:
        return name
    key = max(keys, key=len)  # `WORKLOAD.JOB`, WORKLOAD the configured name
    owners = [w.get("name", "") for w in summary.get("config", {}).get("workload", []) if key.startswith(f"{w.get('name')}.")]
    return key[len(max(owners, key=len)) + 1:] if owners else key


def write_logs(out: Path, summary: dict, requests, base_dir: Optional[Path]) -> List[Path]:
    """Writes the logs the run's fio jobs ask for; returns their paths."""
    glob, job_opts, sections = _job_options(summary, base_dir)
    names = job_order(summary, job_opts)
    wanted = []
    for n, name in enumerate(names, 1):
        opts = {**glob, **(_options_of(name, job_opts) or {})}
        for opt, kinds in KINDS.items():
            if opt in opts:
                wanted.append((n, name, opts[opt] or _job_name(name, summary, job_opts, sections), kinds,
                               int(opts.get("log_avg_msec", "0") or 0)))
    if not wanted or requests is None:
        return []
    by = _requests(requests)
    empty = {k: np.zeros(0, dtype=np.int64) for k in ("arrive", "dispatch", "complete", "size", "ddir", "in_window")}
    written = []
    for n, name, prefix, kinds, avg in wanted:
        base = Path(prefix) if Path(prefix).is_absolute() else out / prefix
        base.parent.mkdir(parents=True, exist_ok=True)
        for kind in kinds:
            path = base.parent / f"{base.name}_{kind}.{n}.log"
            lines = _log(kind, by.get(name, empty), avg)
            path.write_text("".join(line + "\n" for line in lines))
            written.append(path)
    return written


def add_bins(doc: dict, summary: dict, requests, base_dir: Optional[Path]) -> dict:
    """Turns fio.json's document into fio's json+: each job's read and write ``clat_ns`` gets its
    ``bins`` (the measurement window's I/Os, as the rest of ``clat_ns``)."""
    _, job_opts, _ = _job_options(summary, base_dir)
    by = _requests(requests) if requests is not None else {}
    for job, name in zip(doc["jobs"], job_order(summary, job_opts)):
        r = by.get(name)
        for d, op in ((0, "read"), (1, "write")):
            m = (r["ddir"] == d) & r["in_window"] if r is not None else None
            clat = (r["complete"] - r["dispatch"])[m] if r is not None else np.zeros(0, dtype=np.int64)
            job[op]["clat_ns"]["bins"] = bins(clat)
    return doc
