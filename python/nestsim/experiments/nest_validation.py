"""nest-validation: local vs end-to-end access, the thesis' comparison with a real system (5.6.1, 5.6.3).

A client and one storage server on one switch, 100 Gb/s links (0.6 µs each, the E2E links of
SPEC §13 item 3), NVMe-oF over a
TCP-like transport (DCTCP). The SSD is the `consumer-nvme` preset (970 EVO Plus-like); 4 KiB
random requests, 70 % reads, closed loop at queue depth 1–32 — once attached to the client
(local), once in the server (E2E). Then PM: 128 B accesses to a PM device, native vs remote; and
4 KiB "SCM in storage mode" accesses (Poisson) to the PM device and to the Optane-class SSD
preset, remote.

The real system's E2E path includes the NVMe/TCP software stack on both ends (SPDK over kernel
TCP), which NeSt's network and queues do not contain. It is represented by one named, physically
meaningful parameter, the per-I/O software-path latency (`[nvmeof] host_overhead`, a delay per
completion, not a serial resource), **calibrated at a single point from the thesis' own
measurements**: at QD 1 the real E2E minus the real local latency (120 − 40 µs, the low ends of
the thesis' ranges) minus what NeSt's network adds there. The other queue depths are then a
prediction, not a fit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List

from ..claims import Claim, write_claims
from .framework import conservation_claim, run_all
from . import figures
from .e2e_common import LINK_DELAY
from .net_common import star

NAME = "nest-validation"
DESCRIPTION = "Local vs E2E latency over one switch at 100 Gb/s: SSD by queue depth, PM native vs remote, 4 KiB SCM (thesis 5.6.1)"
#: Figures written next to claims.json, named after the source's (docs/plots.md).
FIGURES = ["thesis-fig5.4"]
SOURCE = "thesis 5.6.1, Fig 5.4"
QDS = [1, 2, 4, 8, 16, 32]
#: Thesis 5.6.1 (real system, SPDK): local 40–90 µs and E2E 120–190 µs over the queue depths.
REAL_LOCAL, REAL_E2E = (40.0, 90.0), (120.0, 190.0)


def _scenario(remote: bool, device: dict, workload: dict, software_us: float = 0.0) -> dict:
    dev = dict(device)
    s = {"schema": 1, "name": "nest-validation", "run": {"seed": 1, "duration": "50ms", "warmup": "5ms"},
         "host": [{"name": "h0"}], "device": [dev],
         "workload": [{"name": "w", "host": "h0", "device": dev["name"], "class": "high", "range": "8GiB", **workload}],
         "output": {"requests": False}}
    if remote:
        dev["server"] = "h1"
        s["network"] = star({"h0": LINK_DELAY, "h1": LINK_DELAY}, rate="100Gbps")
        s["nvmeof"] = {"transport": "dctcp", "host_overhead": f"{software_us:.3f}us"}
    return s


def _us(d: str) -> float:
    """'0.6us' → 0.6."""
    return float(d.removesuffix("us"))


def span_ok(curve: dict, band: tuple) -> bool:
    """The curve's ends at QD 1 and QD 32 each within 10 % of the band's ends (SPEC §13 item 12)."""
    return abs(curve[QDS[0]]["mean"] - band[0]) <= 0.1 * band[0] and abs(curve[QDS[-1]]["mean"] - band[1]) <= 0.1 * band[1]


def _why_span(runs: dict, curve: dict, band: tuple, prefix: str) -> str:
    """Little's law at the deepest queue: latency = QD / IOPS, against the IOPS the band implies."""
    qd = QDS[-1]
    dev = runs[f"{prefix}-qd{qd}"]["devices"]["ssd"]
    iops = dev["all"]["iops"]
    return (f"at QD {qd} the drive completes {iops / 1e3:.0f} K IOPS (chips {100 * dev['ssd']['chip_utilization']['mean']:.0f} % "
            f"busy), so Little's law gives {qd} / {iops / 1e3:.0f} K = {qd / iops * 1e6:.0f} µs; the real device's "
            f"{band[1]:.0f} µs implies {qd / band[1] * 1e3:.0f} K IOPS at that depth: the consumer-nvme preset serves a deep "
            "queue with more parallelism than the 970 EVO Plus showed (its QD 1 end, "
            f"{curve[QDS[0]]['mean']:.0f} µs, sits on the band's {band[0]:.0f})")


def _band_accuracy(x: float, band: tuple) -> float:
    """1 − the relative distance from `x` to the band (1 inside it)."""
    lo, hi = band
    d = lo - x if x < lo else x - hi if x > hi else 0.0
    return 1.0 - d / (lo if x < lo else hi)


def _lat(s: dict) -> Dict[str, float]:
    a = s["classes"]["high"]["all"]
    return {"mean": a["lat_us"]["mean"], "p50": a["lat_us"]["p50"], "p99": a["lat_us"]["p99"]}


def run_experiment(out_dir: Path) -> dict:
    ssd = {"name": "ssd", "kind": "ssd", "preset": "consumer-nvme"}
    mixed = {"size": {"dist": "fixed", "bytes": "4KiB"}, "read_fraction": 0.7}
    pm = {"name": "pmem", "kind": "pm"}
    pm_small = {"size": {"dist": "fixed", "bytes": "128B"}, "read_fraction": 0.5, "arrival": {"kind": "burst", "outstanding": 1}}
    scm_load = {"size": {"dist": "fixed", "bytes": "4KiB"}, "read_fraction": 0.5, "arrival": {"kind": "poisson", "rate_iops": 50000}}
    scenarios = {}
    for qd in QDS:
        wl = {**mixed, "arrival": {"kind": "burst", "outstanding": qd}}
        scenarios[f"ssd-local-qd{qd}"] = _scenario(False, ssd, wl)
        scenarios[f"ssd-e2e-qd{qd}"] = _scenario(True, ssd, wl)
    scenarios["pm-native"] = _scenario(False, pm, pm_small)
    scenarios["pm-remote"] = _scenario(True, pm, pm_small)
    scenarios["scm-pm-remote"] = _scenario(True, pm, scm_load)
    scenarios["scm-optane-remote"] = _scenario(True, {"name": "ssd", "kind": "ssd", "preset": "optane"}, scm_load)
    runs = run_all(out_dir, scenarios)
    local = {qd: _lat(runs[f"ssd-local-qd{qd}"]) for qd in QDS}
    e2e = {qd: _lat(runs[f"ssd-e2e-qd{qd}"]) for qd in QDS}
    pm_native, pm_remote, scm_pm, scm_ssd = (_lat(runs[t]) for t in ("pm-native", "pm-remote", "scm-pm-remote", "scm-optane-remote"))

    def fmt(d: dict) -> str:
        return ", ".join(f"QD{qd} {d[qd]['mean']:.0f}" for qd in QDS) + " µs (mean)"
    added = [e2e[qd]["mean"] - local[qd]["mean"] for qd in QDS]
    # The software path, calibrated at QD 1 only (module docstring); then every QD is run with it.
    software_us = (REAL_E2E[0] - REAL_LOCAL[0]) - added[0]
    cal = run_all(out_dir, {f"ssd-e2e-sw-qd{qd}": _scenario(True, ssd, {**mixed, "arrival": {"kind": "burst", "outstanding": qd}},
                                                            software_us) for qd in QDS})
    e2e_sw = {qd: _lat(cal[f"ssd-e2e-sw-qd{qd}"]) for qd in QDS}
    runs.update(cal)
    accuracy = sum([_band_accuracy(local[qd]["mean"], REAL_LOCAL) for qd in QDS]
                   + [_band_accuracy(e2e_sw[qd]["mean"], REAL_E2E) for qd in QDS]) / (2 * len(QDS))
    claims: List[Claim] = [
        Claim("local-ssd", SOURCE, "Local access to the 970 EVO Plus-like SSD spans 40–90 µs over queue depths 1–32 (real "
              "device and MQSim alike)", "QD 1 within 10 % of 40 µs and QD 32 within 10 % of 90 µs (the span, SPEC §13 item 12)",
              fmt(local), span_ok(local, REAL_LOCAL),
              why=None if span_ok(local, REAL_LOCAL) else _why_span(runs, local, REAL_LOCAL, "ssd-local"), cause="model"),
        Claim("e2e-ssd", SOURCE, "E2E access through one switch at 100 Gb/s over TCP spans 120–190 µs over queue depths 1–32 "
              "(real system and NeSt)", "QD 1 within 10 % of 120 µs and QD 32 within 10 % of 190 µs, with the software path "
              "calibrated at QD 1 only",
              f"{fmt(e2e_sw)}: the network adds {min(added):.1f}–{max(added):.1f} µs, the NVMe/TCP software path "
              f"{software_us:.1f} µs per I/O (calibrated: 120 − 40 − {added[0]:.1f}); without it {fmt(e2e)}",
              span_ok(e2e_sw, REAL_E2E),
              why=None if span_ok(e2e_sw, REAL_E2E) else
              f"the E2E curve is the local one ({local[QDS[0]]['mean']:.0f} → {local[QDS[-1]]['mean']:.0f} µs) plus "
              f"{min(added):.1f}–{max(added):.1f} µs of network and a constant software path, so its span follows the local "
              "one's (local-ssd); the real system's software path does not add a constant per I/O either", cause="model"),
        Claim("accuracy", "thesis 5 (summary: ≈ 92.5 %)", "NeSt reproduces the real system with ≈ 92.5 % accuracy",
              "≥ 92.5 %: 1 − the mean relative distance to the thesis' ranges (local 40–90, E2E 120–190 µs) over the QDs",
              f"{100 * accuracy:.1f} % (the thesis does not say how it computes its figure; this reading counts a value "
              "inside the real system's range as exact)", accuracy >= 0.925,
              why="the local or calibrated E2E latencies leave the thesis' ranges at some queue depths (e2e-ssd, local-ssd)"),
        Claim("pm-native", "thesis 5.6.1", "Native PM access takes < 900 ns", "mean < 0.9 µs",
              f"{pm_native['mean'] * 1e3:.0f} ns mean, p99 {pm_native['p99'] * 1e3:.0f} ns", pm_native["mean"] < 0.9),
        Claim("pm-remote", "thesis 5.6.1, 4.5.4", "Remote PM access takes 3–4 µs", "mean within 3–4 µs (± 10 %: 2.7–4.4 µs)",
              f"{pm_remote['mean']:.2f} µs mean, p99 {pm_remote['p99']:.2f} µs", 2.7 <= pm_remote["mean"] <= 4.4,
              why=f"the round trip over two {LINK_DELAY} links each way is {4 * _us(LINK_DELAY):.1f} µs of propagation alone; "
                  f"NeSt adds {pm_remote['mean'] - 4 * _us(LINK_DELAY):.2f} µs (the device's {pm_native['mean'] * 1e3:.0f} ns, "
                  "serialization, NICs)"),
        Claim("scm-4k", "thesis 5.6.3", "4 KiB SCM storage accesses end to end take ~35–40 µs",
              "mean within 35–40 µs (± 10 %)", f"PM device {scm_pm['mean']:.1f} µs; Optane-class SSD {scm_ssd['mean']:.1f} µs",
              any(31.5 <= x["mean"] <= 44.0 for x in (scm_pm, scm_ssd)),
              why="the thesis' 35–40 µs is its own simulator's figure (5.6.3: Poisson 4 KiB accesses in the Urgent class, "
                  "no kernel path), so the NVMe/TCP software path calibrated above does not belong in it; the difference is "
                  "the SCM device's latency: the PM device serves 4 KiB in its media time plus ~1 µs of transfer and the "
                  "Optane-class preset in 10–20 µs (P4800X-like), where the thesis' device took ~30 µs, a figure it does "
                  "not give", cause="source silent"),
        conservation_claim(runs, "SPEC §5"),
    ]
    figures.lines(out_dir, "thesis-fig5.4", {"970 EVO Plus-like SSD, 4 KiB 70 % reads": {
        "local": (QDS, [local[qd]["mean"] for qd in QDS]), "end to end, network only": (QDS, [e2e[qd]["mean"] for qd in QDS]),
        "end to end, + NVMe/TCP software (calibrated at QD 1)": (QDS, [e2e_sw[qd]["mean"] for qd in QDS]),
        "thesis: local 40–90": ([QDS[0], QDS[-1]], [40, 90]), "thesis: E2E 120–190": ([QDS[0], QDS[-1]], [120, 190])}},
        "queue depth", "mean latency (µs)", logx=True, markers=True, title="Validation against the real system (thesis Fig 5.4)")
    return write_claims(out_dir, "nest-validation", claims)
