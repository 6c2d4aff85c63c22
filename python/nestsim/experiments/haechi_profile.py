"""haechi-profile: Haechi's Set 1, the bare system's I/O characterization (Haechi §III-B,
Fig 6–8).

- 1A: one client at a time, burst requests (64 outstanding), one-sided READs and two-sided
  SEND/RECV of 4 KiB: its saturation throughput.
- 1B: 1–10 clients at once: the node's throughput.
- 1C: ten clients with a demand per 1 s period — uniform (158 K each) with burst requests, and
  the spike (C1–C3 340 K, C4–C10 80 K) with burst and with constant-rate requests.

The bare system has no QoS: nothing but the fabric model's parameters (docs/haechi.md,
"Calibration") decides these numbers. Each profile run lasts 0.5 s (the rates settle in
microseconds); each 1C run three periods, the first a warm-up.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import List

from ..claims import Claim, write_claims
from . import figures
from .framework import expect
from .haechi_common import (CAPACITY, CLIENTS, SPIKE_DEMAND, client, conserved, each, measured, per_second,
                            run_many, spec)

NAME = "haechi-profile"
DESCRIPTION = "Haechi Set 1: per-client and node saturation, one- vs two-sided, demand and request patterns on the bare system (Haechi Fig 6–8)"
FIGURES = ["haechi-fig6", "haechi-fig7", "haechi-fig8"]
SOURCE = "Haechi §III-B"
COUNTS = list(range(1, CLIENTS + 1))
#: The claims a fabric cost was fitted to (docs/haechi.md, "Calibration"): they show the fit.
CALIBRATED = {
    "1a-one-sided-client": "client_cpu_per_verb = 2.5 µs",
    "1a-two-sided-client": "client_cpu_two_sided_extra = 0.56 µs",
    "1b-one-sided-saturation": "target_dma_gbps = 54 Gb/s",
    "1b-two-sided-saturation": "target_cpu_per_request = 2.342 µs",
}


def _profile(n: int, two_sided: bool) -> dict:
    return {"duration_s": 0.5, "warmup_s": 0.1, "period_s": 0.1, "qos": "none",
            "clients": [client("burst", two_sided=two_sided) for _ in range(n)]}


def _demand(demand: List[int], pattern: str) -> dict:
    return spec([client(pattern, demand=d) for d in demand], "none", periods=2, warmup_periods=1)


def run_experiment(out_dir: Path) -> dict:
    out_dir = Path(out_dir)
    specs = {f"1b-{side}-{n}": _profile(n, side == "two") for side in ("one", "two") for n in COUNTS}
    specs.update({
        "1c-uniform-burst": _demand([158_000] * CLIENTS, "burst"),
        "1c-spike-burst": _demand(SPIKE_DEMAND, "burst"),
        "1c-spike-constant": _demand(SPIKE_DEMAND, "constant"),
    })
    runs = run_many(out_dir, specs)
    node = {side: [per_second(runs[f"1b-{side}-{n}"]) for n in COUNTS] for side in ("one", "two")}
    one, two = node["one"][0], node["two"][0]
    claims: List[Claim] = [
        # 1A (the paper runs each client alone; NeSt's ten clients are identical, so one run each).
        expect("1a-one-sided-client", SOURCE, "One client saturates at ~400 KIOPS with one-sided reads", one,
               target=400e3, tol=0.05, unit=" IOPS"),
        expect("1a-two-sided-client", SOURCE, "One client saturates at ~327 KIOPS with two-sided I/Os", two,
               target=327e3, tol=0.05, unit=" IOPS"),
        expect("1a-two-sided-20pct-lower", SOURCE, "Two-sided I/Os are about 20 % slower per client", 1 - two / one,
               target=0.2, tol=0.05, relative=False),
        expect("1b-linear-to-4", SOURCE, "One-sided node throughput grows linearly up to 4 clients (n × 400 K for n ≤ 3)",
               max(abs(node["one"][n - 1] / (n * one) - 1) for n in (1, 2, 3)), at_most=0.02,
               why="a client count below 4 already saturates the node"),
        each("1b-one-sided-saturation", SOURCE, "With ≥ 4 clients the node saturates slightly below 1600 KIOPS (C_G = 1570 K)",
             node["one"][3:], target=CAPACITY, tol=0.02, what="client counts (4–10)"),
        each("1b-two-sided-saturation", SOURCE, "Two-sided throughput saturates at ~430 KIOPS from 2 clients (C_G = 427 K)",
             node["two"][1:], target=427e3, tol=0.03, what="client counts (2–10)"),
        expect("1b-two-sided-one-client-almost", SOURCE, "With two-sided I/Os one client almost saturates the data node",
               node["two"][0] / max(node["two"]), at_least=0.7),
    ]
    cpu_one = max(runs[f"1b-one-{n}"]["node"]["two_sided_requests_at_cpu"] for n in COUNTS)
    cpu_two = min(runs[f"1b-two-{n}"]["node"]["utilization"]["cpu"] for n in COUNTS[1:])
    claims.append(Claim("1b-one-sided-spares-the-cpu", SOURCE,
                        "One-sided I/Os place almost no demand on the data node's CPU; two-sided I/Os are CPU-bound",
                        "0 one-sided requests at the CPU; CPU ≥ 95 % busy with ≥ 2 two-sided clients",
                        f"{cpu_one} one-sided requests at the CPU; CPU {cpu_two:.0%} busy (lowest, 2–10 clients)",
                        cpu_one == 0 and cpu_two >= 0.95))

    uni, sb, sc = runs["1c-uniform-burst"], runs["1c-spike-burst"], runs["1c-spike-constant"]
    big = lambda r: [per_second(r, c) for c in range(3)]
    small = lambda r: [per_second(r, c) for c in range(3, CLIENTS)]
    claims += [
        each("1c-uniform-each", SOURCE, "Uniform demand (158 K each, burst): each client finishes ~157 K per period",
             [per_second(uni, c) for c in range(CLIENTS)], target=157e3, tol=0.02),
        expect("1c-uniform-total", SOURCE, "Uniform demand: ~1570 K I/Os per period in all", per_second(uni),
               target=1570e3, tol=0.02, unit=" IOPS"),
        expect("1c-spike-burst-total", SOURCE, "Spike demand with burst requests: the node drops to ~1380 K per period",
               per_second(sb), target=1380e3, tol=0.03, unit=" IOPS"),
        each("1c-spike-burst-c1-c3", SOURCE, "Spike + burst: C1–C3 complete ~278 K of their 340 K",
             big(sb), target=278e3, tol=0.03),
        each("1c-spike-burst-c4-c10", SOURCE, "Spike + burst: C4–C10 get their 80 K", small(sb), target=80e3, tol=0.01),
        each("1c-spike-constant-c1-c3", SOURCE, "Spike with constant-rate requests: C1–C3 complete ~332 K",
             big(sc), target=332e3, tol=0.03),
        expect("1c-spike-constant-total", SOURCE, "Spike + constant rate: ~1564 K per period, close to uniform's",
               per_second(sc), target=1564e3, tol=0.02, unit=" IOPS"),
    ]
    claims.append(conserved(runs))
    claims = [replace(c, calibration=CALIBRATED.get(c.id)) for c in claims]

    figures.bars(out_dir, "haechi-fig6", {"one client alone (1A)": {
        "one-sided": {f"C{i + 1}": one / 1e3 for i in range(CLIENTS)},
        "two-sided": {f"C{i + 1}": two / 1e3 for i in range(CLIENTS)}}}, "KIOPS")
    figures.lines(out_dir, "haechi-fig7", {"node throughput vs active clients (1B)": {
        "one-sided": (COUNTS, [x / 1e3 for x in node["one"]]),
        "two-sided": (COUNTS, [x / 1e3 for x in node["two"]])}}, "active clients", "KIOPS", markers=True)
    figures.bars(out_dir, "haechi-fig8", {
        title: {"demand": {f"C{c + 1}": d[c] / 1e3 for c in range(CLIENTS)},
                "completed": {f"C{c + 1}": measured(r, c)[0] / 1e3 for c in range(CLIENTS)}}
        for title, r, d in (("(a) uniform, burst", uni, [158_000] * CLIENTS), ("(b) spike, burst", sb, SPIKE_DEMAND),
                            ("(c) spike, constant rate", sc, SPIKE_DEMAND))}, "K I/Os per period")
    return write_claims(out_dir, NAME, claims)
