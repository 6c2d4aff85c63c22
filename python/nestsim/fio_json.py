"""fio's JSON output (`--output-format=json`, fio 3.x) for a NeSt run: one job per workload, with
every per-job key fio 3.33 writes (tests/fixtures/fio/fio-3.33.json, produced by fio itself, is
the reference the tests compare key by key).

What each part means for a simulated run (docs/outputs.md, "fio.json"):
- ``slat_ns`` is the time in the host's queue (arrival → dispatch), ``clat_ns`` dispatch →
  completion, ``lat_ns`` the whole latency; min, max, mean, population stddev and N over the
  requests of the measurement window (``requests.in_window``). ``clat_ns.percentile`` has fio's
  17 default percentiles, as the nearest-rank order statistic (fio reads them off its histogram
  bins, within 1/64 of the value).
- ``bw*`` and ``iops*`` statistics are over the run's sampling intervals (fio's are over its
  500 ms ``bw_avg_time``); ``bw_agg`` is the job's share of all jobs' mean bandwidth (%).
- ``latency_ns/us/ms`` are fio's completion-latency buckets (% of the job's I/Os; a key counts
  the values from the previous key up to it), ``iodepth_level`` the I/Os in flight when each was
  dispatched (fio's depth buckets), ``iodepth_submit/complete`` one I/O per call.
- CPU figures (``usr_cpu``, ``sys_cpu``, ``ctx``, faults) are 0: the host's CPU is not simulated.
- ``disk_util`` has one entry per device the run used: its reads and writes, ``*_ticks`` the ms
  its I/Os spent in it, ``in_queue`` the ms in its SQs and inside it, ``util`` the % of the window
  it held at least one command.
- ``job options`` are the workload's fio job section when it came from a job file (``global
  options`` the file's ``[global]``), otherwise what the scenario says of it.
Without the requests table (``[output] requests = false``) only the summary's statistics are
written: latency min, stddev and all but four percentiles are then absent.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

from .columns import columns

#: fio's default ``percentile_list``.
PERCENTILES = [1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99]
#: fio's latency bucket edges per unit (a key counts values below it, from the previous edge).
LAT_EDGES = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000]
MS_EDGES = LAT_EDGES + [2000]
DEPTHS = [1, 2, 4, 8, 16, 32]


def _stat(ns: np.ndarray) -> dict:
    if len(ns) == 0:
        return {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}
    return {"min": int(ns.min()), "max": int(ns.max()), "mean": round(float(ns.mean()), 6),
            "stddev": round(float(ns.std()), 6), "N": int(len(ns))}


def percentiles(ns: np.ndarray) -> Dict[str, int]:
    """fio's percentile keys, nearest rank: the smallest value with at least p % at or below it."""
    s = np.sort(ns)
    return {f"{p:.6f}": int(s[max(0, math.ceil(p / 100 * len(s)) - 1)]) for p in PERCENTILES}


def _sampled(values: np.ndarray) -> Tuple[float, float, float, float, int]:
    if len(values) == 0:
        return 0, 0, 0.0, 0.0, 0
    return float(values.min()), float(values.max()), float(values.mean()), float(values.std(ddof=1)) if len(values) > 1 else 0.0, len(values)


def _direction(d: dict, seconds: float, req: Optional[dict], samples: Optional[Tuple[np.ndarray, np.ndarray, float]]) -> dict:
    """One of a job's ``read``/``write``/``trim`` blocks."""
    out = {
        "io_bytes": int(d["bytes"]),
        "io_kbytes": int(d["bytes"]) // 1024,
        "bw_bytes": int(d["bytes"] / seconds) if seconds > 0 else 0,
        "bw": int(d["bytes"] / 1024 / seconds) if seconds > 0 else 0,
        "iops": float(d["iops"]),
        "runtime": int(round(seconds * 1000)),
        "total_ios": int(d["ios"]),
        "short_ios": 0,
        "drop_ios": 0,
    }
    if req is not None:
        out["slat_ns"] = _stat(req["slat"])
        clat = _stat(req["clat"])
        if len(req["clat"]):
            clat["percentile"] = percentiles(req["clat"])
        out["clat_ns"] = clat
        out["lat_ns"] = _stat(req["lat"])
    else:
        lat = d.get("lat_us", {})
        ns = lambda us: int(round(us * 1000))  # noqa: E731
        clat = {"mean": lat.get("mean", 0.0) * 1000, "max": ns(lat.get("max", 0.0)), "N": int(d["ios"])}
        if d["ios"]:
            clat["percentile"] = {"50.000000": ns(lat["p50"]), "90.000000": ns(lat["p90"]),
                                  "99.000000": ns(lat["p99"]), "99.900000": ns(lat["p99_9"])}
        out["clat_ns"] = clat
    if samples is not None:
        kib_s, iops_s, _ = samples
        bmin, bmax, bmean, bdev, n = _sampled(kib_s)
        imin, imax, imean, idev, _ = _sampled(iops_s)
        out.update({"bw_min": int(bmin), "bw_max": int(bmax), "bw_agg": 0.0, "bw_mean": round(bmean, 6),
                    "bw_dev": round(bdev, 6), "bw_samples": n, "iops_min": int(imin), "iops_max": int(imax),
                    "iops_mean": round(imean, 6), "iops_stddev": round(idev, 6), "iops_samples": n})
    else:
        out.update({"bw_min": 0, "bw_max": 0, "bw_agg": 0.0, "bw_mean": 0.0, "bw_dev": 0.0, "bw_samples": 0,
                    "iops_min": 0, "iops_max": 0, "iops_mean": 0.0, "iops_stddev": 0.0, "iops_samples": 0})
    return out


def _empty_direction(seconds: float) -> dict:
    return _direction({"bytes": 0, "ios": 0, "iops": 0.0}, seconds, {"slat": np.zeros(0), "clat": np.zeros(0), "lat": np.zeros(0)}, None)


def _buckets(ns: np.ndarray, total: int) -> Tuple[dict, dict, dict]:
    """fio's latency_ns / latency_us / latency_ms: % of the job's I/Os per bucket."""
    pct = lambda n: round(100.0 * n / total, 6) if total else 0.0  # noqa: E731

    def unit(scale: float, edges: List[int], lo: float, last: bool) -> dict:
        out, prev = {}, lo
        for e in edges:
            out[str(e)] = pct(int(((ns >= prev) & (ns < e * scale)).sum()))
            prev = e * scale
        if last:
            out[">=2000"] = pct(int((ns >= prev).sum()))
        return out

    return unit(1, LAT_EDGES, 0, False), unit(1e3, LAT_EDGES, 1000, False), unit(1e6, MS_EDGES, 1e6, True)


def _depth_levels(depth: np.ndarray) -> dict:
    """fio's ``iodepth_level``: % of I/Os by how many of the job's I/Os were in flight (itself
    included) when it was dispatched, in fio's buckets 1, 2, 4, 8, 16, 32, >=64."""
    n = len(depth)
    keys = [str(d) for d in DEPTHS] + [">=64"]
    if n == 0:
        return {k: 0.0 for k in keys}
    edges = DEPTHS + [64]
    out = {}
    for k, lo, hi in zip(keys, edges, edges[1:] + [None]):
        hit = (depth >= lo) & (depth < hi) if hi is not None else depth >= lo
        out[k] = round(100.0 * int(hit.sum()) / n, 6)
    return out


def read_job_file(path: Path) -> Tuple[Dict[str, str], Dict[str, Dict[str, str]]]:
    """A fio job file's ``[global]`` options and each job's own, as fio prints them."""
    glob: Dict[str, str] = {}
    jobs: Dict[str, Dict[str, str]] = {}
    cur = None
    for raw in Path(path).read_text(errors="replace").splitlines():
        line = raw.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("[") and line.endswith("]"):
            name = line[1:-1].strip()
            cur = glob if name == "global" else jobs.setdefault(name, {})
            continue
        if cur is None:
            continue
        key, _, value = line.partition("=")
        cur[key.strip()] = value.strip()
    return glob, jobs


def _job_options(summary: dict, base_dir: Optional[Path]) -> Tuple[Dict[str, str], Dict[str, Dict[str, str]], Dict[str, str]]:
    """The files' global options, workload name → fio job options (workloads from job files), and
    workload name → its job's section name where the workload is named after the file alone."""
    glob_all: Dict[str, str] = {}
    per_workload: Dict[str, Dict[str, str]] = {}
    sections: Dict[str, str] = {}
    for w in summary.get("config", {}).get("workload", []):
        fio = w.get("fio")
        if not isinstance(fio, dict) or "path" not in fio:
            continue
        path = Path(fio["path"])
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        try:
            glob, jobs = read_job_file(path)
        except OSError:
            continue
        glob_all.update(glob)
        chosen = {j: o for j, o in jobs.items() if not fio.get("job") or j == fio["job"]}
        for job, opts in chosen.items():
            # numjobs clones are workloads `W.JOB.N`: they find their job by prefix (`_options_of`).
            per_workload[f"{w['name']}.{job}"] = opts
        if len(chosen) == 1:
            (job, opts), = chosen.items()
            if str(opts.get("numjobs", glob.get("numjobs", "1"))).strip() == "1":
                # One job without clones: the workload keeps its own name (resolve/workload.rs);
                # fio would name the job after its section.
                per_workload[w["name"]] = opts
                sections[w["name"]] = job
    return glob_all, per_workload, sections


def _options_of(name: str, job_opts: Dict[str, Dict[str, str]]) -> Optional[Dict[str, str]]:
    """A workload's fio job options: its own entry, or (a numjobs clone `W.JOB.N`) its job's."""
    if name in job_opts:
        return job_opts[name]
    head, _, tail = name.rpartition(".")
    return job_opts.get(head) if tail.isdigit() else None


def scenario_options(w: dict, host_depth: Optional[int]) -> Dict[str, str]:
    """A synthetic workload said in fio's option names (what fio-plot and similar tools filter
    on: rw, iodepth, numjobs), plus where it runs."""
    if isinstance(w.get("trace"), dict):
        # A trace replay: fio's own replay option names the log; its sizes and directions are
        # the trace's, not a synthetic job's.
        t = w["trace"]
        opts = {"read_iolog": str(t.get("path", "")), "numjobs": "1"}
        if host_depth is not None:
            opts["iodepth"] = str(host_depth)
        return opts
    rf = w.get("read_fraction", 1.0)
    seq = isinstance(w.get("address"), dict) and w["address"].get("pattern") == "sequential"
    rw = ("read" if rf >= 1 else "write" if rf <= 0 else "rw") if seq else ("randread" if rf >= 1 else "randwrite" if rf <= 0 else "randrw")
    opts = {"rw": rw, "numjobs": "1"}
    if 0 < rf < 1:
        opts["rwmixread"] = f"{100 * rf:g}"
    arrival = w.get("arrival") or {}
    if isinstance(arrival, dict) and arrival.get("outstanding") is not None:
        opts["iodepth"] = str(arrival["outstanding"])
    elif host_depth is not None:
        opts["iodepth"] = str(host_depth)
    size = w.get("size", {"dist": "fixed", "bytes": "4KiB"})
    if isinstance(size, dict) and size.get("dist", "fixed") == "fixed" and size.get("bytes") is not None and "read_size" not in w \
            and "write_size" not in w:
        opts["bs"] = str(size["bytes"])
    return opts


#: The requests table's columns fio.json is computed from (a run read back from disk reads only these).
REQUEST_COLUMNS = ["workload", "device", "op", "size", "t_arrive_ps", "t_dispatch_ps", "t_sq_ps", "t_dev_start_ps", "t_dev_done_ps",
                   "t_complete_ps", "in_window"]


def _requests_by(requests) -> Dict[Tuple[str, str], dict]:
    """(workload, op) → slat/clat/lat (ns) and dispatch/complete stamps, for in-window requests."""
    if requests is None or requests.num_rows == 0:
        return {}
    t = columns(requests, ["workload", "op", "t_arrive_ps", "t_dispatch_ps", "t_complete_ps", "in_window"])
    wl, op, inw = t["workload"], t["op"], t["in_window"].astype(bool)
    arrive, dispatch, complete = (t[k].astype(np.int64) for k in ("t_arrive_ps", "t_dispatch_ps", "t_complete_ps"))
    out = {}
    for w in set(wl):
        job = wl == w
        # The I/Os in flight when each was dispatched count every I/O of the job, in the window or not.
        inflight = np.searchsorted(np.sort(dispatch[job]), dispatch, side="right") - np.searchsorted(np.sort(complete[job]), dispatch, side="right")
        for o in ("read", "write"):
            m = job & (op == o) & inw
            out[(w, o)] = {"slat": (dispatch[m] - arrive[m]) // 1000, "clat": (complete[m] - dispatch[m]) // 1000,
                           "lat": (complete[m] - arrive[m]) // 1000, "depth": inflight[m]}
    return out


def _samples_by(series, window: dict, interval: Optional[float] = None) -> Dict[Tuple[str, str], Tuple[np.ndarray, np.ndarray, float]]:
    """(workload, op) → per-interval KiB/s and IOPS inside the window. Without the run's
    `interval` it is taken as the smallest gap between rows' times (with `timeseries_rows =
    "change"` some intervals have no row)."""
    if series is None or series.num_rows == 0:
        return {}
    t = series.select(["time_s", "entity", "metric", "sum", "count"]).to_pydict()
    if interval:
        step = interval
    else:
        gaps = np.diff(np.unique(np.asarray(t["time_s"], dtype=np.float64)))
        step = float(gaps.min()) if len(gaps) else 0.0
    acc: Dict[Tuple[str, str], List[Tuple[float, float]]] = {}
    for tm, e, m, s, c in zip(t["time_s"], t["entity"], t["metric"], t["sum"], t["count"]):
        if step <= 0 or not e.startswith("workload:") or m not in ("read_bytes", "write_bytes"):
            continue
        if tm < window["start_s"] - 1e-12 or (window.get("end_s") is not None and tm + step > window["end_s"] + 1e-12):
            continue
        acc.setdefault((e[len("workload:"):], m[:-6]), []).append((s or 0.0, c or 0.0))
    return {k: (np.asarray([b for b, _ in v]) / 1024 / step, np.asarray([c for _, c in v]) / step, step) for k, v in acc.items()}


def union_length(start: np.ndarray, end: np.ndarray) -> int:
    """Length of the union of the intervals [start, end): the time a device had a command in
    service. Sorted by start, an interval opens a new busy period when it starts after every
    earlier one ended (the running maximum of the ends)."""
    if len(start) == 0:
        return 0
    order = np.argsort(start, kind="stable")
    s, e = start[order], np.maximum.accumulate(end[order])
    opens = np.flatnonzero(s[1:] > e[:-1]) + 1
    first = np.concatenate(([0], opens))
    last = np.concatenate((opens - 1, [len(s) - 1]))
    return int((e[last] - s[first]).sum())


def _disk_util(requests, window: dict, devices: List[str]) -> List[dict]:
    if requests is None or requests.num_rows == 0:
        return []
    t = columns(requests, ["device", "op", "t_sq_ps", "t_dev_start_ps", "t_dev_done_ps", "in_window"])
    dev, op, inw = t["device"], t["op"], t["in_window"].astype(bool)
    sq, start, done = (t[k].astype(np.int64) for k in ("t_sq_ps", "t_dev_start_ps", "t_dev_done_ps"))
    span_ps = max(1.0, (window["end_s"] - window["start_s"]) * 1e12) if window.get("end_s") is not None else max(1.0, float(done.max() - start.min()))
    out = []
    for d in devices:
        m = (dev == d) & inw
        if not m.any():
            continue
        service = (done[m] - start[m]) / 1e9  # ms
        reads = op[m] == "read"
        busy = union_length(start[m], done[m])
        out.append({"name": d, "read_ios": int(reads.sum()), "write_ios": int((~reads).sum()), "read_merges": 0, "write_merges": 0,
                    "read_ticks": int(round(service[reads].sum())), "write_ticks": int(round(service[~reads].sum())),
                    "in_queue": int(round(((done[m] - sq[m]) / 1e9).sum())), "util": round(min(100.0, 100.0 * busy / span_ps), 6)})
    return out


def job_order(summary: dict, job_opts: Dict[str, Dict[str, str]]) -> List[str]:
    """The run's workloads as fio lists its jobs: the scenario's order, a job file's jobs in the
    file's order (numjobs clones after their job, by name)."""
    order: Dict[str, int] = {}
    for cw in summary.get("config", {}).get("workload", []):
        order.setdefault(cw.get("name"), len(order))
        for job in [n for n in job_opts if n.startswith(f"{cw.get('name')}.")]:
            order.setdefault(job, len(order))

    def rank(n: str) -> int:
        """The most specific entry naming it: the job itself, else its workload (numjobs clones)."""
        hits = [k for k in order if n == k or n.startswith(f"{k}.")]
        return order[max(hits, key=len)] if hits else len(order)

    return sorted(summary["workloads"], key=lambda n: (rank(n), n))


def fio_json(summary: dict, requests=None, series=None, base_dir: Optional[Path] = None, now: Optional[float] = None,
             interval: Optional[float] = None) -> dict:
    """fio's JSON document for a run: ``summary`` (summary.json), and when given its requests
    and time-series tables (pyarrow), the directory its fio job paths are relative to and the
    time series' interval (s)."""
    seconds = summary["window"]["seconds"]
    now = time.time() if now is None else now
    req = _requests_by(requests)
    samp = _samples_by(series, summary["window"], interval)
    glob, job_opts, sections = _job_options(summary, base_dir)
    configs = {w.get("name"): w for w in summary.get("config", {}).get("workload", [])}
    depths = {h.get("name"): h.get("queue_depth") for h in summary.get("config", {}).get("host", [])}
    jobs = []
    for name in job_order(summary, job_opts):
        w = summary["workloads"][name]
        dirs = {}
        for o in ("read", "write"):
            dirs[o] = _direction(w[o], seconds, req.get((name, o)) if req else None, samp.get((name, o)))
        clat_all = np.concatenate([req[(name, o)]["clat"] for o in ("read", "write")]) if req else np.zeros(0)
        depth = np.concatenate([req[(name, o)]["depth"] for o in ("read", "write")]) if req else np.zeros(0)
        lat_ns, lat_us, lat_ms = _buckets(clat_all, len(clat_all))
        any_io = 100.0 if len(clat_all) else 0.0
        calls = {"0": 0.0, "4": any_io, "8": 0.0, "16": 0.0, "32": 0.0, "64": 0.0, ">=64": 0.0}
        opts = _options_of(name, job_opts) or {**scenario_options(configs.get(name, {}), depths.get(str(w["host"]))),
                                      "device": str(w["device"]), "class": str(w["class"]), "host": str(w["host"])}
        jobs.append({
            "jobname": sections.get(name, name),
            "groupid": 0,
            "error": 0,
            "eta": 0,
            "elapsed": int(math.ceil(summary.get("sim_time_s", seconds))),
            "job options": opts,
            "read": dirs["read"],
            "write": dirs["write"],
            "trim": _empty_direction(seconds),
            "sync": {"total_ios": 0, "lat_ns": _stat(np.zeros(0))},
            "job_runtime": int(round(seconds * 1000)),
            "usr_cpu": 0.0,
            "sys_cpu": 0.0,
            "ctx": 0,
            "majf": 0,
            "minf": 0,
            "iodepth_level": _depth_levels(depth),
            "iodepth_submit": dict(calls),
            "iodepth_complete": dict(calls),
            "latency_ns": lat_ns,
            "latency_us": lat_us,
            "latency_ms": lat_ms,
            "latency_depth": int(opts.get("iodepth", 1)) if str(opts.get("iodepth", "1")).isdigit() else 1,
            "latency_target": 0,
            "latency_percentile": 100.0,
            "latency_window": 0,
        })
    # bw_agg: each job's share of every job's mean bandwidth, per direction (one group).
    for o in ("read", "write"):
        total = sum(j[o]["bw_mean"] for j in jobs)
        for j in jobs:
            j[o]["bw_agg"] = round(100.0 * j[o]["bw_mean"] / total, 6) if total > 0 else 0.0
    doc = {
        "fio version": f"nestsim-{summary['nest_version']}",
        "timestamp": int(now),
        "timestamp_ms": int(now * 1000),
        "time": time.strftime("%a %b %d %H:%M:%S %Y", time.localtime(now)),
        "global options": glob,
        "jobs": jobs,
    }
    disks = _disk_util(requests, summary["window"], list(summary.get("devices", {})))
    if disks:
        doc["disk_util"] = disks
    return doc
