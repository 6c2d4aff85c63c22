"""fussycache-qos: what a QoS-partitioned FussyCache (thesis 2.9, "FussyCache v2") buys a high
class that shares its host cache with a scanning low class.

One host, one Optane-class SSD. High reads a Zipf-skewed 32 MiB working set at 20 k IOPS; Low
scans a 1 GiB region sequentially at 60 k IOPS (a backup or an analytics pass: once-only
blocks). The cache holds 16 MiB — half of High's working set. The same workloads run with a
shared LRU, a shared ARC, a shared FussyCache and the partitioned FussyCache (`fussy-qos`: a
reserved Urgent share, High/Medium/Low partitions whose boundaries follow their weighted DMC
re-reference rates).

Claims (NeSt's own — the source proposes v2 without evaluating it): partitioning gives High a
higher hit rate and a lower mean latency than every shared cache, and Low loses little (its
scan has no reuse to lose).
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List

from ..claims import Claim, write_claims
from .framework import conservation_claim, run_all
from . import figures

NAME = "fussycache-qos"
DESCRIPTION = "QoS-partitioned FussyCache (thesis 2.9 v2): a high class beside a scanning low class"
#: Figures written next to claims.json, named after the source's (docs/plots.md).
FIGURES = ["nest-fussycache-qos"]
SOURCE = "NeSt (thesis 2.9 proposes v2 but does not evaluate it)"
ALGORITHMS = ["lru", "arc", "fussy", "fussy-qos"]


def _scenario(algo: str, duration: str) -> dict:
    return {
        "schema": 1,
        "name": f"fussycache-qos-{algo}",
        "run": {"seed": 1, "duration": duration, "warmup": "20%"},
        "output": {"requests": False, "timeseries": False},
        "host": [{"name": "h0", "queue_depth": 256, "cache": {"algorithm": algo, "size": "16MiB"}}],
        "device": [{"name": "dev", "kind": "ssd", "preset": "optane"}],
        "workload": [
            {"name": "high", "device": "dev", "host": "h0", "class": "high", "arrival": {"kind": "poisson", "rate_iops": 20000},
             "size": {"dist": "fixed", "bytes": "4KiB"}, "read_fraction": 1.0, "address": {"pattern": "zipf", "theta": 0.8},
             "range": "32MiB", "align": "4KiB"},
            {"name": "low", "device": "dev", "host": "h0", "class": "low", "arrival": {"kind": "poisson", "rate_iops": 60000},
             "size": {"dist": "fixed", "bytes": "4KiB"}, "read_fraction": 1.0, "address": {"pattern": "sequential"},
             "range": "1GiB", "range_start": "1GiB", "align": "4KiB"},
        ],
    }


def run_experiment(out_dir: Path) -> dict:
    # 2 s simulated: FussyCache fills its data cache by promotions, which takes ~1 s of this
    # traffic; shorter runs measure its warm-up rather than its steady state.
    duration = "2s"
    runs = run_all(out_dir, {algo: _scenario(algo, duration) for algo in ALGORITHMS})
    res: Dict[str, dict] = {}
    for algo, s in runs.items():
        pc = s["hosts"]["h0"]["cache"]["per_class"]
        res[algo] = {
            "high_hit": pc["high"]["hit_rate"], "low_hit": pc["low"]["hit_rate"],
            "high_us": s["classes"]["high"]["all"]["lat_us"]["mean"], "low_us": s["classes"]["low"]["all"]["lat_us"]["mean"],
            "high_p99": s["classes"]["high"]["all"]["lat_us"]["p99"],
            "state": s["hosts"]["h0"]["cache"]["algorithm_state"],
        }
    q = res["fussy-qos"]
    shared = [a for a in ALGORITHMS if a != "fussy-qos"]
    fmt = lambda k: ", ".join(f"{a} {res[a][k]:.3f}" for a in ALGORITHMS)  # noqa: E731
    claims: List[Claim] = [
        conservation_claim(runs, "NeSt"),
        Claim("high-hit-rate", SOURCE, "partitioning keeps High's working set out of reach of Low's scan: High's hit rate beats every shared cache",
              "fussy-qos > max(shared)", f"High hit rate: {fmt('high_hit')}", q["high_hit"] > max(res[a]["high_hit"] for a in shared)),
        Claim("high-latency", SOURCE, "… and so High's mean latency is the lowest", "fussy-qos < min(shared)",
              f"High mean µs: {fmt('high_us')}", q["high_us"] < min(res[a]["high_us"] for a in shared)),
        Claim("low-cost", SOURCE, "Low pays little: its scan has no reuse, so its mean latency rises by under 10 % against the best shared cache",
              "Low(fussy-qos) < 1.10 · min(Low shared)", f"Low mean µs: {fmt('low_us')}; partitions at end: "
              f"{ {k: v for k, v in q['state'].items() if k.endswith('_blocks')} }",
              q["low_us"] < 1.10 * min(res[a]["low_us"] for a in shared)),
    ]
    figures.bars(out_dir, "nest-fussycache-qos", {
        "hit rate": {"High": {a: res[a]["high_hit"] for a in ALGORITHMS}, "Low": {a: res[a]["low_hit"] for a in ALGORITHMS}},
        "mean latency (µs)": {"High": {a: res[a]["high_us"] for a in ALGORITHMS}, "Low": {a: res[a]["low_us"] for a in ALGORITHMS}}},
        "", title="A scanning Low class beside High: shared caches vs partitioned FussyCache (NeSt's own)")
    return write_claims(out_dir, "fussycache-qos", claims)
