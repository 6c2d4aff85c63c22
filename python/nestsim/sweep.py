"""Parameter sweeps: a base scenario, parameter axes and seeds, run in parallel.

A sweep file (TOML)::

    [sweep]
    scenario = "demo.toml"          # relative to the sweep file
    seeds = [1, 2, 3]               # or a count: seeds = 3  (→ 1, 2, 3)
    mode = "grid"                   # "grid" (every combination) or "zip" (axes advance together)
    requests = false                # write requests.parquet per run (default false)

    [[sweep.axis]]
    key = "workload[1].arrival.bandwidth"   # any --set key path
    values = ["6Gbps", "10Gbps", "14Gbps"]

Each run gets a directory ``runs/rNNNN`` holding ``sweep_run.json`` (its parameters, written
first) and the usual outputs (``summary.json`` written last). Re-running the same sweep skips
every run whose ``summary.json`` exists, parses, and matches the run's seed and parameters, so a
sweep killed midway resumes without redoing finished runs. ``sweep.parquet`` has one row per
run: the swept parameters, the seed, and the summary's per-class figures.

The local backend is a process pool sized to the cores.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

import pyarrow as pa
import pyarrow.parquet as pq

from . import _native

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]


@dataclass
class RunSpec:
    run_id: str
    seed: int
    params: Dict[str, Any]

    def overrides(self) -> List[str]:
        return [f"{k}={json.dumps(v)}" for k, v in self.params.items()]


@dataclass
class Sweep:
    path: Path
    scenario: Path
    runs: List[RunSpec]
    requests: bool


def _err(path: Path, msg: str) -> _native.ConfigError:
    return _native.ConfigError(f"{path}: {msg}")


def load_sweep(path: Path) -> Sweep:
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise _err(path, "no such sweep file")
    except tomllib.TOMLDecodeError as e:
        raise _err(path, f"not valid TOML: {e}")
    sw = doc.get("sweep")
    if not isinstance(sw, dict) or set(doc) - {"sweep"}:
        raise _err(path, "expected a single [sweep] table")
    unknown = set(sw) - {"scenario", "seeds", "mode", "axis", "requests"}
    if unknown:
        raise _err(path, f"sweep: unknown key(s) {sorted(unknown)} (expected scenario, seeds, mode, axis, requests)")
    if not isinstance(sw.get("scenario"), str):
        raise _err(path, "sweep.scenario: expected the path of the base scenario")
    scenario = (path.parent / sw["scenario"]).resolve()
    if not scenario.is_file():
        raise _err(path, f"sweep.scenario: file '{scenario}' does not exist")
    seeds = sw.get("seeds", 1)
    if isinstance(seeds, int) and not isinstance(seeds, bool) and seeds >= 1:
        seeds = list(range(1, seeds + 1))
    if not (isinstance(seeds, list) and seeds and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds)):
        raise _err(path, "sweep.seeds: expected a positive count or a list of non-negative integers")
    mode = sw.get("mode", "grid")
    if mode not in ("grid", "zip"):
        raise _err(path, f"sweep.mode: '{mode}' is not 'grid' or 'zip'")
    axes = sw.get("axis", [])
    if not isinstance(axes, list):
        raise _err(path, "sweep.axis: expected [[sweep.axis]] tables")
    keys, values = [], []
    for i, ax in enumerate(axes):
        if isinstance(ax, dict) and set(ax) - {"key", "values"}:
            raise _err(path, f"sweep.axis[{i}]: unknown key(s) {sorted(set(ax) - {'key', 'values'})} (expected key, values)")
        if not isinstance(ax, dict) or set(ax) != {"key", "values"} or not isinstance(ax["key"], str) or not isinstance(ax["values"], list) or not ax["values"]:
            raise _err(path, f"sweep.axis[{i}]: expected key = \"path\" and a non-empty values = [...]")
        keys.append(ax["key"])
        values.append(ax["values"])
    if len(set(keys)) != len(keys):
        raise _err(path, "sweep.axis: the same key is swept twice")
    if mode == "zip" and len({len(v) for v in values}) > 1:
        raise _err(path, "sweep.mode = 'zip' needs every axis to have the same number of values")
    combos = list(itertools.product(*values)) if mode == "grid" else list(zip(*values)) if values else [()]
    runs = []
    for combo in combos:
        for seed in seeds:
            runs.append(RunSpec(f"r{len(runs):04d}", seed, dict(zip(keys, combo))))
    requests = sw.get("requests", False)
    if not isinstance(requests, bool):
        raise _err(path, "sweep.requests: expected true or false")
    return Sweep(path, scenario, runs, requests)


def _is_complete(run_dir: Path, spec: RunSpec) -> bool:
    """A run counts as done only if its parameters match and its summary is whole."""
    try:
        meta = json.loads((run_dir / "sweep_run.json").read_text())
        summary = json.loads((run_dir / "summary.json").read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return False
    return meta.get("params") == spec.params and meta.get("seed") == spec.seed and summary.get("seed") == spec.seed


def _run_one(scenario: str, run_dir: str, seed: int, params: Dict[str, Any], requests: bool) -> str:
    from .runner import run, write_json
    d = Path(run_dir)
    d.mkdir(parents=True, exist_ok=True)
    (d / "summary.json").unlink(missing_ok=True)
    write_json(d / "sweep_run.json", {"seed": seed, "params": params, "scenario": scenario})
    overrides = [f"{k}={json.dumps(v)}" for k, v in params.items()]
    if not requests:
        overrides.append("output.requests=false")
    run(scenario, seed=seed, overrides=overrides, out_dir=d, progress=False, keep_tables=False)
    return run_dir


def _flatten(summary: dict) -> Dict[str, Any]:
    row: Dict[str, Any] = {"events": summary["events"], "sim_time_s": summary["sim_time_s"],
                           "completed": summary["requests"]["completed"], "fingerprint": summary["fingerprint"]}
    for cname, c in summary["classes"].items():
        for op in ("read", "write", "all"):
            d = c[op]
            pre = f"{cname}.{op}."
            row[pre + "ios"] = d["ios"]
            row[pre + "iops"] = d["iops"]
            row[pre + "bw_gbps"] = d["bw_gbps"]
            for k in ("mean", "p50", "p90", "p99", "p99_9"):
                row[pre + f"lat_{k}_us"] = d["lat_us"][k]
    return row


def collect(sweep: Sweep, out: Path) -> pa.Table:
    rows = []
    for spec in sweep.runs:
        summary = json.loads((out / "runs" / spec.run_id / "summary.json").read_text())
        row = {"run_id": spec.run_id, "seed": spec.seed}
        row.update({f"param.{k}": json.dumps(v) for k, v in spec.params.items()})
        row.update(_flatten(summary))
        rows.append(row)
    cols = sorted({k for r in rows for k in r}, key=lambda k: (not k.startswith(("run_id", "seed", "param.")), k))
    return pa.table({k: [r.get(k) for r in rows] for k in cols})


def run_sweep(path: Path, out: Optional[Path] = None, workers: Optional[int] = None, quiet: bool = False) -> dict:
    sweep = load_sweep(Path(path))
    out = Path(out) if out else Path("out") / "sweeps" / Path(path).stem
    (out / "runs").mkdir(parents=True, exist_ok=True)
    # Fail fast, before any run starts, if the base scenario or any parameter value does not
    # validate (each distinct parameter combination is checked once).
    seen = set()
    for spec in sweep.runs:
        key = json.dumps(spec.params, sort_keys=True)
        if key not in seen:
            seen.add(key)
            _native.validate(str(sweep.scenario), spec.overrides(), spec.seed)
    todo = [s for s in sweep.runs if not _is_complete(out / "runs" / s.run_id, s)]
    skipped = len(sweep.runs) - len(todo)
    workers = workers or os.cpu_count() or 1
    t0 = time.perf_counter()
    done = 0
    show = not quiet and sys.stderr.isatty()
    if todo:
        with ProcessPoolExecutor(max_workers=min(workers, len(todo))) as pool:
            futs = [pool.submit(_run_one, str(sweep.scenario), str(out / "runs" / s.run_id), s.seed, s.params, sweep.requests) for s in todo]
            for f in as_completed(futs):
                f.result()
                done += 1
                if show:
                    el = time.perf_counter() - t0
                    eta = el / done * (len(todo) - done)
                    sys.stderr.write(f"\r[{done}/{len(todo)}] runs done, {skipped} already complete, ETA {eta:5.1f}s ")
                    sys.stderr.flush()
        if show:
            sys.stderr.write("\n")
    table = collect(sweep, out)
    tmp = out / "sweep.parquet.partial"
    pq.write_table(table, tmp)
    tmp.replace(out / "sweep.parquet")
    return {"runs": len(sweep.runs), "ran": len(todo), "skipped": skipped, "out": str(out)}
