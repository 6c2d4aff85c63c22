"""What every experiment shares: running its scenarios on all cores, claims stated as
expectations (with a tolerance and, for stochastic outcomes, a minimum number of seeds), and the
one "conserved, nothing dropped" claim.

    from .framework import run_all, expect, conservation_claim

    runs = run_all(out_dir, {"qtcp": sc_q, "dctcp": sc_d})          # name → summary, in parallel
    expect("ratio", SOURCE, "QTCP carries 1:2:3", [2.9, 3.1, 3.0],   # one value per seed
           target=3.0, tol=0.15, min_seeds=3)
    conservation_claim(runs)

Runs are deterministic, so running them in parallel changes nothing but the wall time. Each
run's outputs land in ``out_dir/NAME`` as with ``nestsim run -o``.
"""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from statistics import mean
from typing import Dict, Mapping, Optional, Sequence, Tuple, Union

from ..claims import Claim
from ..progress import RunsDone
from ..runner import jobs




def _run_one(scenario: Mapping, out_dir: str) -> Optional[Tuple[str, str]]:
    """Runs one scenario; a native error comes back as (type name, message): the extension's
    exception types do not cross a process boundary."""
    from .. import _native
    from ..runner import run as run_scenario

    try:
        run_scenario(dict(scenario), out_dir=out_dir, keep_tables=False)
    except (_native.ConfigError, _native.SimError) as e:
        return type(e).__name__, str(e)
    return None


def _raise(name: str, err: Optional[Tuple[str, str]]) -> None:
    if err is not None:
        from .. import _native

        raise getattr(_native, err[0])(f"run '{name}': {err[1]}")


def run_all(out_dir: Path, scenarios: Mapping[str, Mapping], workers: Optional[int] = None) -> Dict[str, dict]:
    """Runs every scenario (a dict as for `nestsim.run`) into ``out_dir/NAME`` on a local process
    pool and returns NAME → summary, in the order given."""
    out_dir = Path(out_dir)
    workers = min(workers or jobs(), len(scenarios)) or 1
    dirs = {name: str(out_dir / name) for name in scenarios}
    done = RunsDone(len(scenarios), workers, show=None if len(scenarios) > 1 else False)
    if workers == 1:
        for name, sc in scenarios.items():
            _raise(name, _run_one(sc, dirs[name]))
            done.one(name)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_run_one, sc, dirs[name]): name for name, sc in scenarios.items()}
            for f in as_completed(futures):
                _raise(futures[f], f.result())
                done.one(futures[f])
    done.close()
    return {name: json.loads((Path(d) / "summary.json").read_text()) for name, d in dirs.items()}


def chip_utilization(summary: dict) -> float:
    """Mean flash-chip utilization over a run's SSDs."""
    devs = [d["ssd"]["chip_utilization"]["mean"] for d in summary["devices"].values() if "ssd" in d]
    return sum(devs) / len(devs)


def timeseries(run_dir: Path) -> dict:
    """A run's time series (`timeseries.parquet`) as columns: time_s, entity, metric, value, …."""
    import pyarrow.parquet as pq

    return pq.read_table(str(Path(run_dir) / "timeseries.parquet")).to_pydict()


def _fmt(x: float, unit: str) -> str:
    return f"{x:.3g}{unit}"


def seeds_spread(xs: Sequence[float], fmt: str = "{:.3g}", unit: str = "") -> str:
    """A mean over seeds and its range: '0.58 (0.56–0.60, 3 seeds)'; one value alone."""
    xs = list(xs)
    m = fmt.format(mean(xs)) + unit
    return m if len(xs) == 1 else f"{m} ({fmt.format(min(xs))}–{fmt.format(max(xs))}{unit}, {len(xs)} seeds)"


def seeds_why(ok: Optional[bool], why: str, seeds: int, need: int) -> Optional[str]:
    """A judged claim's *why*: none when it holds, the seeds missing when it was not judged
    (``ok`` None: fewer than ``need`` seeds, SPEC §13.1)."""
    if ok is None:
        return f"only {seeds} seed(s) run; the claim needs {need}"
    return None if ok else why


def expect(id: str, source: str, claim: str, measured: Union[float, Sequence[float]], *,
           target: Optional[float] = None, tol: Optional[float] = None, relative: bool = True,
           at_least: Optional[float] = None, at_most: Optional[float] = None, min_seeds: int = 1,
           unit: str = "", why: Optional[str] = None, cause: Optional[str] = None) -> Claim:
    """A claim about one measured quantity, held when it is within ``tol`` of ``target``
    (relative by default), and/or ``≥ at_least`` / ``≤ at_most``.

    ``measured`` is one value or one per seed. Over several seeds the claim is judged on their
    mean and ``measured`` reports the mean with the seeds' range; with fewer than ``min_seeds``
    values the claim is not evaluated (a stochastic outcome from too few runs is no evidence).
    """
    values = [float(measured)] if isinstance(measured, (int, float)) else [float(v) for v in measured]
    parts = []
    if target is not None:
        if tol is None:
            raise ValueError(f"claim {id}: a target needs a tolerance")
        parts.append(f"{_fmt(target, unit)} ± {tol:.0%}" if relative else f"{_fmt(target, unit)} ± {_fmt(tol, unit)}")
    if at_least is not None:
        parts.append(f"≥ {_fmt(at_least, unit)}")
    if at_most is not None:
        parts.append(f"≤ {_fmt(at_most, unit)}")
    if not parts:
        raise ValueError(f"claim {id}: give a target, at_least or at_most")
    expected = ", ".join(parts) + (f" (mean of ≥ {min_seeds} seeds)" if min_seeds > 1 else "")
    if not values:
        return Claim(id, source, claim, expected, "no runs", None, why or "nothing was measured")
    m = mean(values)
    shown = _fmt(m, unit) if len(values) == 1 else f"{_fmt(m, unit)} (mean of {len(values)} seeds, {_fmt(min(values), unit)}–{_fmt(max(values), unit)})"
    if len(values) < min_seeds:
        return Claim(id, source, claim, expected, shown, None, f"only {len(values)} seed(s) run; the claim needs {min_seeds}")
    ok = True
    if target is not None:
        ok &= abs(m - target) <= (tol * abs(target) if relative else tol)
    if at_least is not None:
        ok &= m >= at_least
    if at_most is not None:
        ok &= m <= at_most
    return Claim(id, source, claim, expected, shown, ok, None if ok else why, cause=None if ok else cause)


def conservation_claim(runs: Mapping[str, dict], source: str = "SPEC §1", id: str = "conservation") -> Claim:
    """Every run conserved requests (and, with a network, packets and bytes) and dropped no packet
    — but to a link a `link_down` fault took down, or for a host such a link cut off from every
    route (`unroutable`), which are the fault's, counted apart. In a run without a failed link an
    unroutable packet is a drop like any other."""
    bad = []
    failed_links = False
    for name, s in runs.items():
        packets = s.get("network", {}).get("packets", {})
        failed_links |= "link_drops" in packets
        fault = packets.get("link_drops", 0) + (packets.get("unroutable", 0) if "link_drops" in packets else 0)
        dropped = packets.get("dropped", 0) - fault
        if s.get("conservation") != "ok" or dropped:
            bad.append(f"{name}: {s.get('conservation')}, {dropped} dropped")
    measured = f"{len(runs) - len(bad)}/{len(runs)} runs ok" + (f" ({'; '.join(bad)})" if bad else "")
    but = " but to a failed link" if failed_links else ""
    return Claim(id, source, f"Every run conserves requests, packets and bytes and drops no packet{but}",
                 f"conservation ok, 0 drops{but}, in every run", measured, not bad)
