"""haechi-capacity: Haechi's Set 4, adaptive capacity estimation under background traffic
(Haechi §III-E, Fig 16–19).

Ω_prof and σ are profiled as the paper does: ten clients, back-to-back one-sided reads, the
bare system, one total per period. The Haechi clients reserve 80 % of Ω_prof (uniform, or
Zipf(0.6) over five groups); demand = reservation + the initial pool; burst requests.
- **drop:** after the change, each client node starts a background job: one-sided reads outside
  Haechi's domain (`managed = false`) with 4 outstanding.
- **rise:** the jobs run from the start and stop at the change.

The paper gives no intensity for the background jobs. Four outstanding per node is NeSt's
choice: the capacity left to Haechi (~1477 K) still covers the reservations (1256 K), as the
paper's recovery after the drop implies. η = 5 K and M = 5 (no source values; SPEC §10).

The data node's service varies from period to period (SPEC §13.9): each period its NIC, DMA and
CPU run at a speed drawn with mean 1 and a coefficient of variation of ``SERVICE_CV`` = 1 % —
NeSt's stated reading, chosen before any run (the paper reports a profiled σ but not its value).
The profile runs on its own seed (profiling happens before the experiment, on other periods).
Algorithm 1 follows a change only if the new U is at or above Ω_min = Ω_prof − 3σ, so whether
the estimate follows the drop depends on σ: the region map ``haechi-estimate-vs-variability``
profiles and runs both set-ups at each variability from none to 4 %. Sets 1–3 keep the
deterministic node: the paper's Set 2 is stated to have "no fluctuations in the network or data
node performance". A bare run of each drop set-up stands beside Haechi's (the ablation), and a
Basic Haechi run (no token conversion) beside both.
"""

from __future__ import annotations

from pathlib import Path
from statistics import mean, pstdev
from typing import List, Optional

from ..claims import Claim, ablation, write_claims
from . import figures
from .haechi_common import CAPACITY, CLIENTS, client, conserved, run_many, spec, uniform, zipf
from .regions import Axis, region_map

NAME = "haechi-capacity"
DESCRIPTION = "Haechi Set 4: capacity estimation when background traffic starts or stops mid-run, uniform and Zipf (Haechi Fig 16–19)"
FIGURES = ["haechi-fig16-17", "haechi-fig18-19"]
SOURCE = "Haechi §III-E"
RESERVED = 0.8
BACKGROUND_OUTSTANDING = 4
ETA = 5_000
DISTS = {"uniform": uniform, "zipf": zipf}
#: The data node's period-to-period variability (coefficient of variation of its speed).
SERVICE_CV = 0.01
#: The profile's seed: other periods than the runs' (which keep the default seed 1).
PROFILE_SEED = 1001


def _haechi_total(r: dict) -> List[int]:
    return [sum(r["clients"][c]["per_period"][k] for c in range(CLIENTS)) for k in range(len(r["per_period_total"]))]


def _estimates(r: dict) -> List[int]:
    """C_G of each monitor period (the estimate in force)."""
    return [p["capacity"] for p in r["periods"]][: len(r["per_period_total"])]


def _setup(res: List[int], setup: str, change: float, periods: int, omega: int, sigma: float, cv: float = SERVICE_CV,
           qos: str = "haechi") -> dict:
    bg = {"start_s": change} if setup == "drop" else {"stop_s": change}
    clients = [client("burst", reservation=r, demand=r + int(omega * (1 - RESERVED))) for r in res]
    clients += [client("burst", managed=False, outstanding=BACKGROUND_OUTSTANDING, **bg) for _ in range(CLIENTS)]
    return spec(clients, qos, periods, 0, protocol={"capacity": omega, "sigma": sigma, "eta": ETA}, service_cv=cv)


def _profile_spec(periods: int, cv: float) -> dict:
    return spec([client("burst") for _ in range(CLIENTS)], "none", periods, 1, service_cv=cv, seed=PROFILE_SEED)


def _profiled(r: dict):
    """Ω_prof and σ from a profile run: the mean and spread of its per-period totals."""
    tot = r["per_period_total"][1:]
    return int(mean(tot)), pstdev(tot), len(tot)


def _follows(est: List[int], after: float, change: int) -> Optional[int]:
    """Periods after the change until the estimate is within 2 % of the new U (None: never)."""
    within = [k - change for k in range(change + 1, len(est)) if abs(est[k] / after - 1) <= 0.02]
    return within[0] if within else None


def _met_after(r: dict, res: List[int], clients, first: int, last: int = None) -> tuple:
    """(each listed client met its reservation in each period first..last, the worst as text)."""
    worst = min(((r["clients"][c]["per_period"][k] / res[c], c, k) for c in clients
                 for k in range(first, last if last is not None else len(r["per_period_total"]))), default=None)
    frac, c, k = worst
    return frac >= 1.0, f"worst C{c + 1} {frac:.1%} of R in period {k}"


def run_experiment(out_dir: Path, quick: bool = False) -> dict:
    out_dir = Path(out_dir)
    periods, change = (8, 4) if quick else (30, 15)
    prof = run_many(out_dir, {"profile": _profile_spec(8 if quick else PROFILE_PERIODS, SERVICE_CV)})["profile"]
    omega, sigma, n_prof = _profiled(prof)
    res = {d: f(RESERVED * omega) for d, f in DISTS.items()}
    specs = {f"{setup}-{d}": _setup(res[d], setup, change, periods, omega, sigma) for setup in ("drop", "rise") for d in DISTS}
    specs.update({f"drop-{d}-bare": _setup(res[d], "drop", change, periods, omega, sigma, qos="none") for d in DISTS})
    # Basic Haechi (no token conversion) beside both (issue 60's ablations).
    specs.update({f"drop-{d}-basic": _setup(res[d], "drop", change, periods, omega, sigma, qos="basic") for d in DISTS})
    runs = run_many(out_dir, specs)
    low = mean(_haechi_total(runs["drop-uniform"])[change + 1:])
    # The σ at which Algorithm 1 would take the background level as a capacity.
    sigma_needed = (omega + ETA - low) / 3
    regions = None if quick else [_region(out_dir, periods, change)]
    claims: List[Claim] = [Claim("profile", SOURCE, "Ω_prof and σ from profiling ten clients' back-to-back reads, one total per period",
                                 "Ω_prof ≈ 1570 K (Set 1)",
                                 f"Ω_prof {omega / 1e3:.1f}K, σ {sigma / 1e3:.1f}K over {n_prof} periods (service variability {SERVICE_CV:.0%})",
                                 abs(omega / 1.57e6 - 1) < 0.01, "the profile moved away from Set 1's capacity")]
    for d in DISTS:
        r = runs[f"drop-{d}"]
        h = _haechi_total(r)
        before, after = mean(h[1:change]), mean(h[change + 1:])
        claims.append(Claim(f"drop-{d}-throughput-falls", SOURCE,
                            f"{d.capitalize()}: the Haechi tasks' throughput falls once the background jobs start",
                            "after < before", f"{before / 1e3:.0f}K → {after / 1e3:.0f}K per period", after < 0.99 * before,
                            "the background jobs took nothing from the Haechi clients"))
        est = _estimates(r)
        took = _follows(est, after, change)
        follows = took is not None and took <= 5
        why = None
        if not follows:
            why = (f"after the drop U ≈ {after / 1e3:.0f}K per period, below Ω_min = Ω_prof − 3σ = {(omega - 3 * sigma) / 1e3:.0f}K "
                   f"(σ {sigma / 1e3:.1f}K profiled at {SERVICE_CV:.0%} service variability): Algorithm 1 takes each such period for "
                   f"one of low demand and keeps {est[-1] / 1e3:.0f}K. The drop is admitted once σ ≥ {sigma_needed / 1e3:.1f}K; "
                   + _reference_row(regions, "drop"))
        claims.append(Claim(f"drop-{d}-estimate-follows", SOURCE,
                            f"{d.capitalize()}: the monitor detects the drop and adjusts its estimate within a few periods",
                            "estimate within 2 % of the new U within 5 periods of the change",
                            f"estimate {est[change] / 1e3:.0f}K at the change, {est[-1] / 1e3:.0f}K at the end (U {after / 1e3:.0f}K)"
                            + (f"; within 2 % after {took} periods" if took else ""),
                            follows, why, cause=None if follows else "source silent"))
        if d == "uniform":
            ok, worst = _met_after(r, res[d], range(CLIENTS), change + 1)
            okb, worstb = _met_after(runs["drop-uniform-bare"], res[d], range(CLIENTS), change + 1)
            _, worstbasic = _met_after(runs["drop-uniform-basic"], res[d], range(CLIENTS), change + 1)
            claims.append(Claim("drop-uniform-reservations-met", SOURCE,
                                "Uniform: after the drop clients do fewer I/Os than before but all still meet their reservation",
                                "every client ≥ R in every period after the drop", f"{worst} (bare system: {worstb}; Basic Haechi: {worstbasic})", ok,
                                None if ok else f"the Haechi clients' share after the drop ({after / 1e3:.0f}K per period) "
                                f"against ΣR = {sum(res[d]) / 1e3:.0f}K: over-estimated global tokens still compete with reservations",
                                ablation=ablation("drop-uniform-bare", okb)))
        else:
            lows = range(CLIENTS - 2, CLIENTS)
            ok, worst = _met_after(r, res[d], lows, change + 1)
            claims.append(Claim("drop-zipf-low-reservations-met", SOURCE,
                                "Zipf: low-reservation clients always meet their reservation after the drop",
                                "C9, C10 ≥ R in every period after the drop", worst, ok,
                                None if ok else "the low-reservation clients' share fell below their reservation"))
    z = runs["drop-zipf"]
    c1 = z["clients"][0]["per_period"]
    r1 = res["zipf"][0]
    tail_met = all(x >= r1 for x in c1[-3:])
    claims.append(Claim("drop-zipf-c1-recovers", SOURCE,
                        "Zipf: after the drop C1 misses its reservation for a few periods, then recovers",
                        f"C1 ≥ {r1 / 1e3:.0f}K in the last three periods",
                        f"C1 {min(c1[change + 1:]) / 1e3:.0f}K–{max(c1[change + 1:]) / 1e3:.0f}K per period after the drop, "
                        f"{min(c1[1:change]) / 1e3:.0f}K–{max(c1[1:change]) / 1e3:.0f}K before it; Basic Haechi "
                        f"{min(runs['drop-zipf-basic']['clients'][0]['per_period'][-3:]) / 1e3:.0f}K at worst in the last three",
                        tail_met, None if tail_met else
                        "C1 misses before the drop too: with Zipf reservations the node serves its backlogged clients equally "
                        "(haechi-qos 2a's finding), whatever the estimate", cause=None if tail_met else "source silent",
                        ablation=ablation("drop-zipf-bare", all(x >= r1 for x in runs["drop-zipf-bare"]["clients"][0]["per_period"][-3:]))))
    for d in DISTS:
        r = runs[f"rise-{d}"]
        est = _estimates(r)
        steps = [b - a for a, b in zip(est[change:], est[change + 1:])]
        climbs = len(steps) >= 3 and all(s == ETA for s in steps[:3]) and est[change] < 0.99 * est[0]
        claims.append(Claim(f"rise-{d}-estimate-climbs", SOURCE,
                            f"{d.capitalize()}: under-estimated while the background jobs run, the estimate climbs by η per period once they stop",
                            f"estimate below Ω_prof at the change, then +η = {ETA / 1e3:.0f}K per period",
                            f"estimate {est[change] / 1e3:.0f}K at the change; steps after it {[s // 1000 for s in steps[:4]]}K",
                            climbs, None if climbs else
                            f"the background level (U ≈ {low / 1e3:.0f}K) is below Ω_min = {(omega - 3 * sigma) / 1e3:.0f}K, so the "
                            "estimate was never lowered and there is nothing to climb back from; " + _reference_row(regions, "rise"),
                            cause=None if climbs else "source silent"))
        ok, worst = _met_after(r, res[d], range(CLIENTS), 1)
        h = _haechi_total(r)
        c1 = mean(r["clients"][0]["per_period"][1:change])
        claims.append(Claim(f"rise-{d}-reservations-met", SOURCE,
                            f"{d.capitalize()}: C1 and every other client meet their reservation throughout (Fig 19)",
                            "every client ≥ R in every period", worst, ok,
                            None if ok else f"while the background jobs run C1 does {c1 / 1e3:.0f}K per period — "
                            f"{c1 / (mean(h[1:change]) / CLIENTS):.2f} × an equal tenth of the Haechi clients' {mean(h[1:change]) / 1e3:.0f}K, "
                            f"short of R1 = {res[d][0] / 1e3:.0f}K: the node serves every backlogged client's reads in turn whatever "
                            "tokens it holds, and once the others' reservations run dry late in the period C1 alone cannot use "
                            "the node (its own C_L; haechi-qos 2a's finding)", cause=None if ok else "source silent"))
    z = runs["rise-zipf"]
    c1 = z["clients"][0]["per_period"]
    lows = range(CLIENTS - 2, CLIENTS)
    lo_before = mean(sum(z["clients"][c]["per_period"][k] for c in lows) for k in range(1, change))
    lo_after = mean(sum(z["clients"][c]["per_period"][k] for c in lows) for k in range(change + 1, periods))
    c1_after = mean(c1[change + 1:]) / res["zipf"][0]
    ok = lo_after > 1.01 * lo_before and c1_after < 1.05
    claims.append(Claim("rise-zipf-low-clients-gain", SOURCE,
                        "Zipf: after the rise the extra global tokens go to the low-reservation clients, whose I/Os increase; "
                        "C1 does not do more than its reservation",
                        "C9+C10 after > before; C1 < 105 % of R",
                        f"C9+C10 {lo_before / 1e3:.0f}K → {lo_after / 1e3:.0f}K per period; C1 {c1_after:.1%} of R after", ok,
                        None if ok else "the low-reservation clients' I/Os did not rise, or C1 took the new capacity"))
    claims.append(conserved({**runs, "profile": prof}))

    x = list(range(periods))
    for stem, setup in (("haechi-fig16-17", "drop"), ("haechi-fig18-19", "rise")):
        panels = {}
        for d in DISTS:
            r = runs[f"{setup}-{d}"]
            lines = {"Haechi clients": (x, [v / 1e3 for v in _haechi_total(r)]),
                     "background": (x, [(t - h) / 1e3 for t, h in zip(r["per_period_total"], _haechi_total(r))]),
                     "estimate": (x, [v / 1e3 for v in _estimates(r)])}
            panels[f"{setup}, {d}: throughput and estimate"] = lines
            panels[f"{setup}, {d}: C1"] = {"C1": (x, [v / 1e3 for v in r["clients"][0]["per_period"]]),
                                          "reservation": (x, [res[d][0] / 1e3] * periods)}
        figures.lines(out_dir, stem, panels, "period (s)", "K I/Os per period")
    return write_claims(out_dir, NAME, claims, regions=regions)


RISE_BELOW = "rise: estimate below Ω_prof at the stop (K)"
#: The region map's axis: the data node's service variability (coefficient of variation, %).
REGION_CVS = (0.0, 0.5, 1.0, 2.0, 3.0, 4.0)
PROFILE_PERIODS = 50


def _region(out_dir: Path, periods: int, change: int) -> dict:
    """Whether Algorithm 1 follows the drop and climbs after the rise, against the data node's
    service variability: at each point the node is profiled (its own Ω_prof and σ), then the
    uniform drop and rise set-ups run with them."""
    base = out_dir / "regions" / "haechi-estimate-vs-variability"
    profiles = run_many(base / "profiles", {f"cv={cv:g}": _profile_spec(PROFILE_PERIODS, cv / 100) for cv in REGION_CVS})
    prof = {cv: _profiled(profiles[f"cv={cv:g}"]) for cv in REGION_CVS}

    def build(cv: float, setup: str) -> dict:
        omega, sigma, _ = prof[cv]
        return _setup(uniform(RESERVED * omega), setup, change, periods, omega, sigma, cv=cv / 100)

    def measure(r: dict, dirs: dict, at: dict) -> dict:
        omega, sigma, _ = prof[at["service_cv"]]
        drop, rise = r["drop"], r["rise"]
        after = mean(_haechi_total(drop)[change + 1:])
        took = _follows(_estimates(drop), after, change)
        est = _estimates(rise)
        return {"σ/Ω_prof (%)": 100 * sigma / omega,
                "drop: periods until the estimate is within 2 % of U": float(took if took is not None else periods - change),
                RISE_BELOW: (omega - est[change]) / 1e3,
                "rise: estimate's climb over 3 periods after the stop (K)": (est[change + 3] - est[change]) / 1e3}

    def holds(curve: str, y: float, point: dict):
        if curve.startswith("drop"):
            return y <= 5
        if curve.startswith("rise: estimate's climb"):
            # The claim: under-estimated at the change (≥ 1 % below Ω_prof), then +η per period.
            return abs(y - 3 * ETA / 1e3) < 1e-9 and point[RISE_BELOW] >= 0.01 * CAPACITY / 1e3
        return None

    return region_map(out_dir, "haechi-estimate-vs-variability",
                      title="Haechi Set 4 (uniform): Algorithm 1 against the data node's period-to-period variability",
                      x=Axis("service_cv", "service variability (CV, %)", REGION_CVS), variants=("drop", "rise"),
                      build=build, measure=measure, runner=run_many,
                      ylabel=f"% / periods ({periods - change}: never) / K", reference={"service_cv": 100 * SERVICE_CV},
                      holds=holds, effect="the estimate follows the drop within 5 periods; it climbs by η per period after the rise")


def _reference_row(regions, setup: str) -> str:
    """What the region map says about where the estimator acts in `setup` (drop or rise), for
    the claims' whys."""
    if not regions:
        return "the region map haechi-estimate-vs-variability (full runs) shows the variability at which it does."
    doc = regions[0]
    xs = doc["x"]["values"]
    curve = next(c for c in doc["curves"] if c["measure"].startswith("drop" if setup == "drop" else "rise: estimate's climb"))
    what = ("the estimate follows the drop within 5 periods" if setup == "drop" else
            "the estimate is below Ω_prof at the stop and climbs by η per period after it")
    ok = [x for x, h in zip(xs, curve["holds"]) if h]
    shown = ", ".join("–" if v is None else f"{v:g}" for v in curve["values"])
    return (f"in the region map {what} at service variability {', '.join(f'{x:g}' for x in ok)} %" if ok else
            f"in the region map {what} at no variability up to {xs[-1]:g} %") + \
        f" ({curve['measure']}: {shown} at {', '.join(f'{x:g}' for x in xs)} %)."
