"""PLMC's datasets DS1–DS4 (PLMC §IV-C, Table II), rebuilt from the SYSTOR'17 VDI sample's statistics.

The paper cut "a few IO-intensive portions" of the month-long SYSTOR'17 trace into three
workloads per dataset — High, Medium, Low — with the read intensities of Table II (mean 4 KiB
read counts per 100 ms DTWin) and peaks that coincide ("synchronized traffic"; DS4 shifts Medium
and Low by 200 and 400 ms to pull them apart). Those portions are not published, so NeSt builds
the datasets from what the sample in NEST_SHARED/traces/snia_systor17_sample shows (measured
once, written here so the experiment runs without it; `tests/test_plmc.py` checks the numbers
against the sample when it is there):

- **arrivals**: an MMPP(2) fitted (`nestsim._native.mmpp_fit`, SRC §IV-A's four statistics) to
  the sample's inter-arrival SCV 1.74, skewness 2.54 and lag-1 autocorrelation 0.122, its mean
  scaled so that High's reads reach Table II's intensity. The three hosts share **one** phase
  process — their bursts coincide, as the paper's did — and each draws its own Poisson arrivals
  in each phase at its share of the rate (1, and Table II's Medium and Low factors);
- **operation and size**: drawn from the sample's own mix (826 reads, 173 writes) and its
  read and write sizes in 4 KiB units (bimodal: a third of the reads are 4 KiB, a fifth 120–128 KiB);
- **offsets**: uniform, 4 KiB aligned, over the volume.

Each workload is written as an MQSim ASCII trace (ns, device, LBA, sectors, 1 = read) and
replayed with NeSt's trace reader, from the time of its first record (`start`); DS4 replays
DS1's files 200 / 400 ms later.

**Window-scale bursts** (`build_bursty`, SPEC §13.6): the SYSTOR sample's 999 records span ~2.5 s
and cannot show bursts at the DTWin's scale, which the paper's datasets had ("very high
burstiness and synchronized traffic", PLMC §IV-D). `build_bursty` multiplies the rate of all
three hosts by one shared ON/OFF envelope — ON and OFF periods exponential with means
`Burst.on_s` = 0.3 s and `Burst.off_s` = 0.7 s (a burst a second, at the 100 ms–1 s scale) — the
ON rate `amplitude` × the mean, the OFF rate what keeps Table II's mean. The amplitude is fitted
to one statistic of the input alone: the per-window deficiency HoD with strict priority would
give Medium at config 2 (C = 1.4 × M_DC, 100 ms windows), p90 = 0.52 (PLMC Fig 8), computed from
the generated demand per window and PLMC eq. 6 — no simulation run enters the fit.
"""

from __future__ import annotations

import bisect
import math
import random
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Dict, List, Optional, Tuple

#: SYSTOR'17 traces-sample: inter-arrival statistics of all 999 records (docs/plm.md).
SAMPLE_ARRIVALS = {"scv": 1.74, "skewness": 2.54, "lag1": 0.122}
#: Read sizes of the sample's 826 reads, in 4 KiB units: {units: reads}.
READ_UNITS = {1: 275, 2: 90, 3: 14, 4: 58, 5: 12, 6: 29, 7: 7, 8: 21, 9: 4, 10: 25, 11: 6, 12: 22, 13: 4,
              14: 13, 15: 4, 16: 6, 17: 2, 18: 13, 19: 1, 20: 8, 21: 2, 22: 7, 23: 2, 24: 5, 25: 1, 26: 10,
              28: 7, 30: 115, 32: 63}
#: Write sizes of its 173 writes, in 4 KiB units.
WRITE_UNITS = {1: 141, 2: 10, 3: 2, 6: 2, 8: 1, 15: 1, 17: 1, 26: 1, 32: 14}
READS, WRITES = sum(READ_UNITS.values()), sum(WRITE_UNITS.values())
READ_SHARE = READS / (READS + WRITES)
MEAN_READ_UNITS = sum(k * v for k, v in READ_UNITS.items()) / READS

CLASSES = ("high", "medium", "low")
#: PLMC Table II: High's mean 4 KiB reads per DTWin (100 ms), Medium's and Low's factors.
TABLE_II = {"DS1": (420, 0.78, 0.71), "DS2": (480, 0.83, 0.72), "DS3": (165, 0.85, 0.70)}
#: DS4 = DS1 with Medium and Low shifted by 200 and 400 ms (PLMC §IV-D).
DS4_SHIFT_MS = {"high": 0, "medium": 200, "low": 400}
TABLE_II_WINDOW_S = 0.1
SECTOR = 512
BLOCK = 4096


@dataclass
class Dataset:
    name: str
    #: class → trace path (MQSim ASCII, ns).
    traces: Dict[str, Path]
    #: class → when the trace's first record is replayed (ns): its time in the generated stream
    #: (the trace reader counts from the first record), plus DS4's shift.
    start_ns: Dict[str, int]
    #: class → measured mean 4 KiB read counts per 100 ms over the generated trace.
    reads_per_100ms: Dict[str, float]
    #: the fitted MMPP(2) (High's rates; the others scale them).
    mmpp: dict

    def mean_demand(self, t_dw_s: float) -> float:
        """M_DC: the mean read counts all hosts bring per window of `t_dw_s`, from the traces."""
        return sum(self.reads_per_100ms.values()) * t_dw_s / TABLE_II_WINDOW_S


def _sampler(table: Dict[int, int]):
    units = list(table)
    cum = list(accumulate(table[u] for u in units))
    total = cum[-1]
    return lambda rng: units[bisect.bisect_right(cum, rng.random() * total)]


def _write_trace(path: Path, records: List[Tuple[int, int, int, bool]]) -> None:
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w") as f:
        f.writelines(f"{t} 0 {off // SECTOR} {units * BLOCK // SECTOR} {1 if rd else 0}\n" for t, off, units, rd in records)
    tmp.replace(path)


def shifted(ds1: Dataset) -> Dataset:
    """DS4: DS1's traces, Medium and Low replayed 200 and 400 ms later."""
    start = {c: ds1.start_ns[c] + DS4_SHIFT_MS[c] * 1_000_000 for c in CLASSES}
    return Dataset("DS4", ds1.traces, start, ds1.reads_per_100ms, ds1.mmpp)


def build(out_dir: Path, name: str, duration_s: float, range_bytes: int, seed: int = 1) -> Dataset:
    """Generates DS1, DS2 or DS3 into ``out_dir`` for ``duration_s`` (DS4: `shifted`)."""
    from .. import _native

    high, f_med, f_low = TABLE_II[name]
    factors = {"high": 1.0, "medium": f_med, "low": f_low}
    # High's mean gap such that its reads bring `high` 4 KiB counts per 100 ms.
    gap = TABLE_II_WINDOW_S * READ_SHARE * MEAN_READ_UNITS / high
    fit = _native.mmpp_fit(gap, SAMPLE_ARRIVALS["scv"], SAMPLE_ARRIVALS["skewness"], SAMPLE_ARRIVALS["lag1"])
    lam, sw = fit["rates"], fit["switch"]
    phase_rng = random.Random(seed)
    rngs = {c: random.Random(seed * 1000 + k + 1) for k, c in enumerate(CLASSES)}
    read_size, write_size = _sampler(READ_UNITS), _sampler(WRITE_UNITS)
    slots = range_bytes // BLOCK
    records: Dict[str, list] = {c: [] for c in CLASSES}
    read_units = {c: 0 for c in CLASSES}
    # One phase path for all three hosts: their bursts coincide.
    t, phase = 0.0, 0 if phase_rng.random() < sw[1] / (sw[0] + sw[1]) else 1
    while t < duration_s:
        end = min(duration_s, t + phase_rng.expovariate(sw[phase]))
        for c in CLASSES:
            rng, rate, out = rngs[c], lam[phase] * factors[c], records[c]
            a = t + rng.expovariate(rate)
            while a < end:
                rd = rng.random() < READ_SHARE
                units = read_size(rng) if rd else write_size(rng)
                off = rng.randrange(max(1, slots - units + 1)) * BLOCK
                out.append((round(a * 1e9), off, units, rd))
                if rd:
                    read_units[c] += units
                a += rng.expovariate(rate)
        t, phase = end, phase ^ 1
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    traces = {c: out_dir / f"{name}-{c}.trace" for c in CLASSES}
    for c in CLASSES:
        _write_trace(traces[c], records[c])
    start = {c: records[c][0][0] for c in CLASSES}
    per_100ms = {c: read_units[c] * TABLE_II_WINDOW_S / duration_s for c in CLASSES}
    return Dataset(name, traces, start, per_100ms, {"rates": lam, "switch": sw, "mean_gap_s": gap})


@dataclass(frozen=True)
class Burst:
    """The shared ON/OFF envelope of `build_bursty` (module docstring)."""

    on_s: float = 0.3
    off_s: float = 0.7
    #: ON rate over the mean rate; None: fitted to `FIT_TARGET`.
    amplitude: Optional[float] = None

    @property
    def p_on(self) -> float:
        return self.on_s / (self.on_s + self.off_s)

    def off_factor(self, amplitude: float) -> float:
        """The OFF rate over the mean that keeps the mean with ON at `amplitude`."""
        return max(0.0, (1 - self.p_on * amplitude) / (1 - self.p_on))


#: The fit's target: HoD's per-window deficiency p90 of Medium, strict priority, config 2 (PLMC Fig 8).
FIT_TARGET = 0.52
FIT_CLASS = "medium"
FIT_C_MULT, FIT_WINDOW_S = 1.4, 0.1


def hod_deficiency(demand: "np.ndarray", c: float, policy: str = "sp", ratios=(4, 2, 1)):
    """Per-window deficiency of each class under HoD (predictions = the exact demand) and PLMC
    eq. 6 with zero minimums, as `nest-qos/src/plmc/allocate.rs` allocates: ``demand`` is
    (windows, classes) in 4 KiB counts, priority order. Returns a list per class of the
    deficiencies of the windows where it had demand (as `HostWindows::close` records them)."""
    import numpy as np

    d = np.asarray(demand, dtype=np.int64)
    c = int(c)
    alloc = d.copy()
    over = d.sum(axis=1) > c
    if policy == "sp":
        left = np.full(over.sum(), c, dtype=np.int64)
        for j in range(d.shape[1]):
            g = np.minimum(d[over, j], left)
            alloc[over, j] = g
            left -= g
    else:
        r = np.asarray(ratios[: d.shape[1]], dtype=np.int64)
        share = c * r // r.sum()
        share[: c - share.sum()] += 1  # the remainder, one count each in priority order
        alloc[over] = share[None, :]
    out = []
    for j in range(d.shape[1]):
        has = d[:, j] > 0
        dj, aj = d[has, j], alloc[has, j]
        out.append(np.where(dj > aj, (dj - aj) / np.maximum(dj, 1), 0.0))
    return out


def nearest_rank(xs, p: float) -> float:
    """The p-th percentile by nearest rank, as NeSt's summaries compute it."""
    import math

    v = sorted(xs)
    if not v:
        return float("nan")
    return float(v[min(len(v), max(1, math.ceil(len(v) * p / 100))) - 1])


def build_bursty(out_dir: Path, name: str, duration_s: float, range_bytes: int, burst: Burst = Burst(),
                 seed: int = 1) -> Dataset:
    """DS1–DS3 with the shared window-scale envelope of `burst` (module docstring); its amplitude
    fitted when not given. Arrivals are drawn once at the largest rate the envelope allows and
    thinned, so every amplitude the fit tries sees the same draws."""
    import numpy as np

    from .. import _native

    high, f_med, f_low = TABLE_II[name]
    factors = {"high": 1.0, "medium": f_med, "low": f_low}
    gap = TABLE_II_WINDOW_S * READ_SHARE * MEAN_READ_UNITS / high
    fit = _native.mmpp_fit(gap, SAMPLE_ARRIVALS["scv"], SAMPLE_ARRIVALS["skewness"], SAMPLE_ARRIVALS["lag1"])
    lam, sw = fit["rates"], fit["switch"]
    rng = np.random.default_rng(seed)
    # The fine MMPP(2) phases and the envelope, both shared by the three hosts.
    t0, ph, t, phase = [], [], 0.0, 0 if rng.random() < sw[1] / (sw[0] + sw[1]) else 1
    while t < duration_s:
        t0.append(t)
        ph.append(phase)
        t, phase = t + rng.exponential(1 / sw[phase]), phase ^ 1
    seg_start = np.array(t0)
    seg_end = np.append(seg_start[1:], duration_s).clip(max=duration_s)
    seg_rate = np.array(lam)[np.array(ph)]
    e0, es, t, on = [], [], 0.0, rng.random() < burst.p_on
    while t < duration_s:
        e0.append(t)
        es.append(on)
        t, on = t + rng.exponential(burst.on_s if on else burst.off_s), not on
    env_start, env_on = np.array(e0), np.array(es)
    a_max = 1 / burst.p_on
    read_units = np.array(list(READ_UNITS)), np.cumsum(list(READ_UNITS.values()))
    write_units = np.array(list(WRITE_UNITS)), np.cumsum(list(WRITE_UNITS.values()))
    slots = range_bytes // BLOCK
    cand = {}
    for c in CLASSES:
        n = rng.poisson(seg_rate * factors[c] * a_max * (seg_end - seg_start))
        times = np.sort(np.repeat(seg_start, n) + rng.random(n.sum()) * np.repeat(seg_end - seg_start, n))
        on_at = env_on[np.searchsorted(env_start, times, side="right") - 1]
        rd = rng.random(times.size) < READ_SHARE
        ru = read_units[0][np.searchsorted(read_units[1], rng.random(times.size) * read_units[1][-1], side="right")]
        wu = write_units[0][np.searchsorted(write_units[1], rng.random(times.size) * write_units[1][-1], side="right")]
        units = np.where(rd, ru, wu)
        off = (rng.random(times.size) * np.maximum(1, slots - units + 1)).astype(np.int64) * BLOCK
        cand[c] = {"t": times, "on": on_at, "u": rng.random(times.size) * a_max, "rd": rd, "units": units, "off": off}

    def kept(c: str, amp: float) -> "np.ndarray":
        x = cand[c]
        return x["u"] < np.where(x["on"], amp, burst.off_factor(amp))

    windows = int(math.ceil(duration_s / FIT_WINDOW_S))

    def demand(amp: float) -> "np.ndarray":
        cols = []
        for c in CLASSES:
            x, k = cand[c], kept(c, amp)
            m = k & x["rd"]
            cols.append(np.bincount((x["t"][m] / FIT_WINDOW_S).astype(np.int64), weights=x["units"][m], minlength=windows)[:windows])
        return np.stack(cols, axis=1).round().astype(np.int64)

    def statistic(amp: float) -> float:
        d = demand(amp)
        c = round(FIT_C_MULT * d.sum(axis=1).mean())
        return nearest_rank(hod_deficiency(d, c, "sp")[CLASSES.index(FIT_CLASS)], 90)

    amp = burst.amplitude
    if amp is None:
        lo, hi = 1.0, a_max
        for _ in range(30):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if statistic(mid) < FIT_TARGET else (lo, mid)
        amp = hi
    achieved = statistic(amp)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    traces = {c: out_dir / f"{name}-{c}.trace" for c in CLASSES}
    start, per_100ms = {}, {}
    for c in CLASSES:
        x, k = cand[c], kept(c, amp)
        ns = (x["t"][k] * 1e9).round().astype(np.int64)
        recs = list(zip(ns.tolist(), x["off"][k].tolist(), x["units"][k].tolist(), x["rd"][k].tolist()))
        _write_trace(traces[c], recs)
        start[c] = recs[0][0]
        per_100ms[c] = float(x["units"][k & x["rd"]].sum()) * TABLE_II_WINDOW_S / duration_s
    info = {"rates": lam, "switch": sw, "mean_gap_s": gap,
            "burst": {"on_s": burst.on_s, "off_s": burst.off_s, "amplitude": amp, "off_factor": burst.off_factor(amp),
                      "fitted": burst.amplitude is None, "fit_target": {"class": FIT_CLASS, "hod_sp_deficiency_p90": FIT_TARGET},
                      "achieved": achieved}}
    return Dataset(name, traces, start, per_100ms, info)
