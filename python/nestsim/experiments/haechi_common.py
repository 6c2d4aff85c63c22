"""What the four Haechi experiment sets share (Haechi paper §III, SPEC §10): the clients'
demand and reservation distributions, running specs in parallel (a run releases the GIL), and
reading per-period completions the way the paper's figures count them.

A run is ``nestsim._native.haechi_run``: ten clients issuing 4 KiB one-sided reads to a KV data
node over the message-level InfiniBand model (docs/haechi.md). Its result is written to
``OUT/NAME/result.json`` beside the spec it ran (``spec.json``).
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from statistics import mean
from typing import Dict, List, Mapping, Sequence

from .. import _native
from ..claims import Claim
from ..runner import write_json
from .framework import jobs

#: The paper's profiled node capacity C_G = Ω_prof (I/Os per 1 s period) and a client's C_L.
CAPACITY = 1_570_000
C_L = 400_000
CLIENTS = 10
#: Exp 1C's spike: C1–C3 340 K, C4–C10 80 K (1580 K in all).
SPIKE_DEMAND = [340_000] * 3 + [80_000] * 7
#: Set 3's spike reservations at 90 % (1415 K).
SPIKE_RESERVATION = [285_000] * 3 + [80_000] * 7


def uniform(total: float, n: int = CLIENTS) -> List[int]:
    return [int(total / n)] * n


def zipf(total: float, s: float = 0.6, groups: int = 5, per_group: int = 2) -> List[int]:
    """Zipf(s) over `groups` groups of `per_group` clients (C1 and C2 the largest): Exp 2A at
    90 % gives C1 236 K per period."""
    w = [1.0 / k ** s for k in range(1, groups + 1)]
    norm = sum(w) * per_group
    return [int(total * x / norm) for x in w for _ in range(per_group)]


def client(pattern: str = "burst", reservation: int = 0, demand=None, **kw) -> dict:
    c = {"pattern": pattern, "reservation": reservation, **kw}
    if demand is not None:
        c["demand"] = int(demand)
    return c


def spec(clients: Sequence[dict], qos: str, periods: int, warmup_periods: int = 0, **kw) -> dict:
    """A run of `warmup_periods` + `periods` QoS periods of 1 s."""
    return {"duration_s": float(warmup_periods + periods), "warmup_s": float(warmup_periods), "qos": qos, "clients": list(clients), **kw}


def run_one(out_dir: Path, name: str, sp: Mapping) -> dict:
    d = Path(out_dir) / name
    d.mkdir(parents=True, exist_ok=True)
    write_json(d / "spec.json", dict(sp))
    r = json.loads(_native.haechi_run(json.dumps(sp)))
    write_json(d / "result.json", r)
    return r


def run_many(out_dir: Path, specs: Mapping[str, Mapping]) -> Dict[str, dict]:
    """Runs every spec into OUT/NAME on threads (the native run releases the GIL); NAME → result."""
    with ThreadPoolExecutor(max_workers=max(1, min(jobs(), len(specs)))) as pool:
        futures = {name: pool.submit(run_one, out_dir, name, sp) for name, sp in specs.items()}
        return {name: f.result() for name, f in futures.items()}


def measured(r: dict, c: int) -> List[int]:
    """Client c's completed I/Os in each period after the warm-up."""
    first = int(round(r["warmup_s"] / r["period_s"]))
    return r["clients"][c]["per_period"][first:]


def totals(r: dict) -> List[int]:
    first = int(round(r["warmup_s"] / r["period_s"]))
    return r["per_period_total"][first:]


def per_second(r: dict, c: int = None) -> float:
    """Mean completed I/Os per second after the warm-up (client c, or the node)."""
    xs = totals(r) if c is None else measured(r, c)
    return mean(xs) / r["period_s"]


def met_every_period(r: dict, reservations: Sequence[int], clients: Sequence[int] = None) -> tuple:
    """(every listed client met its reservation in every measured period, the worst client's
    worst period as "C{i}: done/reserved")."""
    clients = range(len(reservations)) if clients is None else clients
    worst, ok = None, True
    for c in clients:
        low = min(measured(r, c))
        if low < reservations[c]:
            ok = False
        frac = low / reservations[c] if reservations[c] else float("inf")
        if worst is None or frac < worst[0]:
            worst = (frac, f"C{c + 1}: {low / 1e3:.1f}K/{reservations[c] / 1e3:.1f}K")
    return ok, worst[1] if worst else ""


def conserved(runs: Mapping[str, dict]) -> Claim:
    """Every run's own conservation check (requests, verbs, every token ledger) passed."""
    bad = [f"{n}: {r['conservation']['error']}" for n, r in runs.items() if not r["conservation"]["ok"]]
    text = f"{len(runs) - len(bad)}/{len(runs)} runs conserve requests, verbs and tokens" + (f" ({'; '.join(bad)})" if bad else "")
    return Claim("conservation", "SPEC §10", "Every request, verb and token is accounted for in every run",
                 "every run conserved", text, not bad)


def local_capacity_deadline(r1: float, share: float, c_l: float = C_L, t: float = 1.0) -> float:
    """Haechi's Definition 2 under equal sharing: the time after which a client served at
    `share` I/Os per second can no longer finish its reservation r1 at its own limit c_l
    (R − N(t) > (T − t)·C_L once t > (C_L·T − R)/(C_L − share))."""
    return (c_l * t - r1) / (c_l - share)


def each(id: str, source: str, claim: str, values: Sequence[float], target: float, tol: float, what: str = "clients",
         why: str = None) -> Claim:
    """A claim about several clients (or runs) at once: every value within `tol` of `target`."""
    ok = all(abs(v - target) <= tol * abs(target) for v in values)
    lo, hi = min(values), max(values)
    shown = f"{lo / 1e3:.1f}K" if hi - lo < 50 else f"{lo / 1e3:.1f}K–{hi / 1e3:.1f}K"
    return Claim(id, source, claim, f"{target / 1e3:.0f}K ± {tol:.0%} for each", f"{shown} over {len(values)} {what}",
                 ok, None if ok else why)
