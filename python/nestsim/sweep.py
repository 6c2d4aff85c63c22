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

The local backend is a process pool sized to the cores. The Ray backend (``backend="ray"``,
``pip install nestsim[ray]``) submits each run as a Ray task, to the cluster at ``address`` or to
a Ray it starts on this machine; a task runs in a scratch directory on its node and returns the
run's files, which the driver writes into the sweep directory (``summary.json`` last), so the
sweep directory need not be shared with the cluster. Cluster nodes need the scenario (and any
trace it names) at the same path, or the scenario text is shipped when the path is absent; the
``nestsim`` package itself is shipped with the task (a wheel built here needs glibc ≥ 2.34).
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import os
import re
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

import pyarrow as pa
import pyarrow.parquet as pq

from . import _native
from .progress import RunsDone

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


def _line_of(text: str, where: str) -> Optional[int]:
    """The line of the sweep file that `where` ("sweep.seeds", "sweep.axis[1]",
    "sweep.axis[1].values") names, found in the text; None when it cannot be placed."""
    m = re.fullmatch(r"sweep(?:\.axis\[(\d+)\])?(?:\.(\w+))?", where)
    if not m:
        return None
    lines = text.splitlines()
    heads = [i for i, ln in enumerate(lines) if re.match(r"\s*\[", ln)]
    if m.group(1) is None:
        start = next((i for i in heads if re.match(r"\s*\[sweep\]", lines[i])), None)
    else:
        axes = [i for i in heads if re.match(r"\s*\[\[sweep\.axis\]\]", lines[i])]
        k = int(m.group(1))
        start = axes[k] if k < len(axes) else None
    if start is None:
        return None
    if m.group(2) is None:
        return start + 1
    end = next((i for i in heads if i > start), len(lines))
    return next((i + 1 for i in range(start + 1, end) if re.match(rf"\s*{m.group(2)}\s*=", lines[i])), start + 1)


def _err(path: Path, msg: str) -> _native.ConfigError:
    """An error naming the file and, where the message starts with the key it is about, its line."""
    key = msg.split(":", 1)[0].split(" ", 1)[0]
    line = None
    if key.startswith("sweep"):
        try:
            line = _line_of(Path(path).read_text(errors="replace"), key)
        except OSError:
            line = None
    return _native.ConfigError(f"{path}:{line}: {msg}" if line else f"{path}: {msg}")


#: The most runs one sweep file may ask for: far beyond a cluster-day of runs, and a bound on the
#: run table a typo (seeds = 10**12) would otherwise try to build.
MAX_RUNS = 100_000


def load_sweep(path: Path) -> Sweep:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise _err(path, "no such sweep file")
    except OSError as e:
        raise _err(path, f"cannot read: {e.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise _native.ConfigError(f"{path}:{line}: not UTF-8 text (byte 0x{raw[e.start]:02x})") from None
    try:
        doc = tomllib.loads(text)
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
    if isinstance(seeds, int) and not isinstance(seeds, bool) and 1 <= seeds <= MAX_RUNS:
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
    n_combos = math.prod(len(v) for v in values) if mode == "grid" else len(values[0]) if values else 1
    if n_combos * len(seeds) > MAX_RUNS:
        raise _err(path, f"sweep: {n_combos:,} parameter combinations × {len(seeds):,} seeds = {n_combos * len(seeds):,} runs, "
                         f"over the limit of {MAX_RUNS:,} (split the sweep)")
    combos = list(itertools.product(*values)) if mode == "grid" else list(zip(*values)) if values else [()]
    runs = []
    for combo in combos:
        for seed in seeds:
            runs.append(RunSpec(f"r{len(runs):04d}", seed, dict(zip(keys, combo))))
    requests = sw.get("requests", False)
    if not isinstance(requests, bool):
        raise _err(path, "sweep.requests: expected true or false")
    return Sweep(path, scenario, runs, requests)


def _digest(path: Path) -> str:
    import hashlib
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _is_complete(run_dir: Path, spec: RunSpec, scenario: Optional[Path] = None) -> bool:
    """A run counts as done only if its parameters match, its summary is the one the run wrote
    (its SHA-256, recorded after it: an edited or truncated summary is run again) and — given the
    base ``scenario`` — it ran that scenario as the file reads now (issue 63: after an edit a
    resumed sweep kept every stale result)."""
    try:
        meta = json.loads((run_dir / "sweep_run.json").read_text())
        summary_path = run_dir / "summary.json"
        summary = json.loads(summary_path.read_text())
    except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
        return False
    return (meta.get("params") == spec.params and meta.get("seed") == spec.seed and summary.get("seed") == spec.seed
            and meta.get("summary_sha256") == _digest(summary_path)
            and (scenario is None or meta.get("scenario_sha256") == _digest(scenario)))


def _seal(run_dir: Path) -> None:
    """Records the finished run's summary digest in sweep_run.json (after summary.json: a kill
    in between leaves the run incomplete, to be run again)."""
    from .runner import write_json
    meta = json.loads((run_dir / "sweep_run.json").read_text())
    meta["summary_sha256"] = _digest(run_dir / "summary.json")
    write_json(run_dir / "sweep_run.json", meta)


def _start_run(run_dir: Path, scenario: str, seed: int, params: Dict[str, Any]) -> None:
    """Clears a run directory of anything that could look complete and records what it will hold."""
    from .runner import write_json
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "summary.json").unlink(missing_ok=True)
    write_json(run_dir / "sweep_run.json", {"seed": seed, "params": params, "scenario": scenario,
                                            "scenario_sha256": _digest(Path(scenario))})


def _simulate(scenario: str, run_dir: Path, seed: int, params: Dict[str, Any], requests: bool) -> None:
    from .runner import run
    overrides = [f"{k}={json.dumps(v)}" for k, v in params.items()]
    if not requests:
        overrides.append("output.requests=false")
    res = run(scenario, seed=seed, overrides=overrides, out_dir=run_dir, progress=False, keep_tables=False)
    if res.summary.get("stopped"):
        # Not sealed: a resumed sweep runs it again (with more memory, say) instead of keeping
        # partial results as if they were the run's.
        raise _native.SimError(f"{run_dir}: the run stopped at its memory budget before the end ({res.summary['stopped']}); "
                               "partial outputs kept, the run is not counted as done")


def _run_one(scenario: str, run_dir: str, seed: int, params: Dict[str, Any], requests: bool) -> str:
    _start_run(Path(run_dir), scenario, seed, params)
    _simulate(scenario, Path(run_dir), seed, params, requests)
    _seal(Path(run_dir))
    return run_dir


def _run_detached(scenario: str, scenario_text: str, seed: int, params: Dict[str, Any], requests: bool) -> Dict[str, bytes]:
    """A Ray task: one run in a scratch directory of the node it lands on; returns its files."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="nestsim-run-") as tmp:
        if not Path(scenario).is_file():
            # A node without the file: run the shipped text (relative trace paths then resolve
            # against the scratch directory and fail with the scenario's own clear error).
            scenario = str(Path(tmp) / Path(scenario).name)
            Path(scenario).write_text(scenario_text)
        out = Path(tmp) / "run"
        out.mkdir()
        _simulate(scenario, out, seed, params, requests)
        return {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}


def _land(run_dir: Path, files: Dict[str, bytes]) -> None:
    """Writes a Ray task's files; summary.json last, so a kill midway leaves the run incomplete."""
    for name in sorted(files, key=lambda n: n == "summary.json"):
        tmp = run_dir / (name + ".partial")
        tmp.write_bytes(files[name])
        tmp.replace(run_dir / name)


def _run_local(sweep: Sweep, todo: List[RunSpec], out: Path, workers: int, eta: RunsDone) -> None:
    with ProcessPoolExecutor(max_workers=min(workers, len(todo))) as pool:
        futs = [pool.submit(_run_one, str(sweep.scenario), str(out / "runs" / s.run_id), s.seed, s.params, sweep.requests) for s in todo]
        for f in as_completed(futs):
            f.result()
            eta.one()


def _run_ray(sweep: Sweep, todo: List[RunSpec], out: Path, workers: int, address: Optional[str], eta: RunsDone) -> None:
    try:
        import ray
    except ImportError:
        raise _err(sweep.path, "--backend ray needs Ray: pip install 'nestsim[ray]'") from None
    import nestsim
    started_here = not ray.is_initialized()
    if started_here:
        if address:
            # A cluster keeps whatever authentication its operator set (issue 63): never switched off here.
            ray.init(address=address, runtime_env={"py_modules": [str(Path(nestsim.__file__).parent)]},
                     log_to_driver=False, logging_level=logging.WARNING)
        else:
            # No token file, no dashboard: a local Ray is a throwaway process group for this sweep,
            # reachable from this machine only, started and shut down by it.
            os.environ.setdefault("RAY_AUTH_MODE", "disabled")
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(_run_detached)
        text = sweep.scenario.read_text()
        pending = {}
        for s in todo:
            _start_run(out / "runs" / s.run_id, str(sweep.scenario), s.seed, s.params)
            pending[task.remote(str(sweep.scenario), text, s.seed, s.params, sweep.requests)] = s
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            s = pending.pop(ready[0])
            _land(out / "runs" / s.run_id, ray.get(ready[0]))
            _seal(out / "runs" / s.run_id)
            eta.one()
    finally:
        if started_here:
            ray.shutdown()


def _flatten(summary: dict) -> Dict[str, Any]:
    row: Dict[str, Any] = {"events": summary["events"], "sim_time_s": summary["sim_time_s"],
                           "completed": summary["requests"]["completed"], "fingerprint": summary["fingerprint"]}
    for cname, c in summary["classes"].items():
        row[f"{cname}.offered_gbps"] = c.get("offered_gbps")
        for op in ("read", "write", "all"):
            d = c[op]
            pre = f"{cname}.{op}."
            row[pre + "ios"] = d["ios"]
            row[pre + "iops"] = d["iops"]
            row[pre + "bw_gbps"] = d["bw_gbps"]
            row[pre + "carried_iops"] = d.get("carried_iops")
            row[pre + "carried_gbps"] = d.get("carried_gbps")
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


BACKENDS = ("local", "ray")


def run_sweep(path: Path, out: Optional[Path] = None, workers: Optional[int] = None, quiet: bool = False,
              backend: str = "local", address: Optional[str] = None, dry_run: bool = False) -> dict:
    if backend not in BACKENDS:
        raise ValueError(f"backend '{backend}' is not one of {', '.join(BACKENDS)}")
    if address and backend != "ray":
        raise ValueError("address is for backend='ray'")
    sweep = load_sweep(Path(path))
    out = Path(out) if out else Path("out") / "sweeps" / Path(path).stem
    # Fail fast, before any run starts, if the base scenario or any parameter value does not
    # validate (each distinct parameter combination is checked once).
    seen = set()
    for spec in sweep.runs:
        key = json.dumps(spec.params, sort_keys=True)
        if key not in seen:
            seen.add(key)
            try:
                _native.validate(str(sweep.scenario), spec.overrides(), spec.seed)
            except _native.ConfigError as e:
                # The sweep file's values are what the user edits: name it and the run's values.
                raise _native.ConfigError(f"{path}: run {spec.run_id} ({', '.join(f'{k}={v!r}' for k, v in spec.params.items())}): {e}") from None
    if dry_run:
        # Checked, nothing run: what a real call would do.
        return {"runs": len(sweep.runs), "ran": 0, "skipped": 0, "out": out, "dry_run": True}
    (out / "runs").mkdir(parents=True, exist_ok=True)
    todo = [s for s in sweep.runs if not _is_complete(out / "runs" / s.run_id, s, sweep.scenario)]
    skipped = len(sweep.runs) - len(todo)
    workers = workers or os.cpu_count() or 1
    eta = RunsDone(len(todo), min(workers, len(todo)) or 1, skipped, show=False if quiet else None)
    if todo:
        if backend == "ray":
            _run_ray(sweep, todo, out, workers, address, eta)
        else:
            _run_local(sweep, todo, out, workers, eta)
    eta.close()
    table = collect(sweep, out)
    tmp = out / "sweep.parquet.partial"
    pq.write_table(table, tmp)
    tmp.replace(out / "sweep.parquet")
    from .plots import write_sweep_plots
    write_sweep_plots(out)
    return {"runs": len(sweep.runs), "ran": len(todo), "skipped": skipped, "out": str(out), "backend": backend}
