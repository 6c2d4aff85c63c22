"""uncoordinated-qos: network and storage QoS that disagree (thesis Fig 4.20).

Three identical applications (13–75 blocks, 40 Gb/s of writes each) differ only in class:
App1 High, App2 Medium, App3 Low. Three storage servers, so both the client's link and the
SSDs are bottlenecks (measured after the SSDs' write caches have filled, when the flash sets the
pace). Coordinated: every layer follows the class. Uncoordinated: the network (host, switches,
QTCP) follows it but NVMe arbitration and the device queues use the inverse mapping
(High ↔ Low) — `[qos] nvme/device = { high = "low", low = "high" }`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List

from ..claims import Claim, write_claims
from . import figures
from . import e2e_common as E
from .e2e_latency import apps
from .framework import conservation_claim, run_all

NAME = "uncoordinated-qos"
DESCRIPTION = "Network treats App1/2/3 as High/Medium/Low, storage inverts it: App1 ends up worst (thesis Fig 4.20)"
#: Figures written next to claims.json, named after the source's (docs/plots.md).
FIGURES = ["thesis-fig4.20"]
SOURCE = "thesis 4.5.3, Fig 4.20"
INVERT = {"high": "low", "low": "high"}
APPS = {"app-high": "App1", "app-medium": "App2", "app-low": "App3"}
WARMUP_S = 0.13


def _scenario(tag: str, qos) -> dict:
    servers = E.SERVERS[:3]
    return E.e2e_scenario(f"uncoordinated-qos-{tag}", E.storage_workloads(0.0, apps=apps(same_sizes=True)), E.ssd_devices(servers),
                          servers, duration="250ms", warmup=f"{WARMUP_S * 1000:.0f}ms", transport="qtcp", qos=qos)


def _measure(out_dir: Path, tag: str, s: dict) -> Dict[str, dict]:
    out = {}
    completed = E.completion_latency_us(out_dir / tag, WARMUP_S)
    for w, name in APPS.items():
        c = s["workloads"][w]["class"]
        out[name] = {"gbps": s["classes"][c]["passed_gbps"]["host"]["all"],
                     "lat_ms": completed.get(c, float("inf")) / 1e3}
    return out


def _fmt(m: Dict[str, dict]) -> str:
    return "; ".join(f"{a} {m[a]['gbps']:.1f} Gb/s, {m[a]['lat_ms']:.1f} ms" for a in APPS.values())


def _worst(m: Dict[str, dict]) -> str:
    return min(APPS.values(), key=lambda a: (m[a]["gbps"], -m[a]["lat_ms"]))


def run_experiment(out_dir: Path) -> dict:
    runs = run_all(out_dir, {"coordinated": _scenario("coordinated", None),
                             "uncoordinated": _scenario("uncoordinated", {"nvme": INVERT, "device": INVERT})})
    co, un = (_measure(out_dir, tag, runs[tag]) for tag in ("coordinated", "uncoordinated"))
    lat_worst = max(APPS.values(), key=lambda a: un[a]["lat_ms"])
    claims: List[Claim] = [
        Claim("coordinated-app1-best", SOURCE, "Coordinated (every layer follows the class): App1 (High) gets the most throughput "
              "and the lowest latency, App3 (Low) the least", "throughput App1 > App2 > App3, latency App1 < App2 < App3", _fmt(co),
              co["App1"]["gbps"] > co["App2"]["gbps"] > co["App3"]["gbps"] and co["App1"]["lat_ms"] < co["App2"]["lat_ms"] < co["App3"]["lat_ms"]),
        Claim("uncoordinated-app1-worst", SOURCE, "Uncoordinated (storage inverts the network's classes): App1 ends up worst",
              "App1 has the least throughput", _fmt(un), _worst(un) == "App1"),
        Claim("uncoordinated-app1-latency", SOURCE, "Uncoordinated: App1's requests also have the highest latency",
              "App1's completed requests have the highest mean latency", _fmt(un), lat_worst == "App1",
              why=f"App1's latency rises ({co['App1']['lat_ms']:.1f} → {un['App1']['lat_ms']:.1f} ms) but App3's requests, favoured "
                  "at the storage end, first wait in the network where QTCP still treats them as Low; in this overloaded episode "
                  "the two queues add up to about the same, so the latency ranking of the completed requests is not decisive"),
        conservation_claim(runs, "SPEC §5"),
    ]
    apps = list(APPS.values())
    figures.bars(out_dir, "thesis-fig4.20", {
        "throughput (Gb/s)": {"coordinated": {a: co[a]["gbps"] for a in apps}, "uncoordinated": {a: un[a]["gbps"] for a in apps}},
        "mean latency of completed requests (ms)": {"coordinated": {a: co[a]["lat_ms"] for a in apps},
                                                    "uncoordinated": {a: un[a]["lat_ms"] for a in apps}}},
        "", title="Storage inverting the network's classes (thesis Fig 4.20)")
    return write_claims(out_dir, "uncoordinated-qos", claims)
