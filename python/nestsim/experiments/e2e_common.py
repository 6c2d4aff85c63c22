"""Scenario builders shared by the end-to-end experiments (thesis 4.5.3–4.5.4, 5.6).

The thesis' E2E setup (Fig 4.8, 4.13): a k = 4 fat-tree at 100 Gb/s; ten storage servers with one
NVMe SSD each, in Scenario-3 QoS (NVMe WRR and device-level WRR); three applications on one
client host — High, Medium and Low, offering 90, 60 and 30 Gb/s (3 : 2 : 1) with exponential
arrivals and sizes of 17–98, 13–75 and 5–30 blocks of 4 KiB (uniform within the ranges, an
assumption) — so the client's link is the bottleneck: its uplink for writes, its downlink for
reads. Requests go to the servers through a volume striped in 1 MiB units (a request mostly
lands on one server; one spanning a boundary fans out to two).

The client's own link is the bottleneck for writes, so its NIC marks ECN like a switch port
(`nic_ecn`: ns-3 with a queue disc on every device); for reads the client's edge switch marks.
The host queue is unbounded (the backlog of an overloaded run waits in each connection's send
buffer, where the transport shares the link) and the run ends at its duration (`drain = false`);
throughput is read at three points per class: sender side (payload of the forward channels),
storage end (bytes the devices finished) and response side (bytes completed at the host).

Links: 0.6 µs of propagation each (SPEC §13 item 3). The thesis gives no delay, but two of its
figures pin it: remote PM at 3–4 µs with priority, and a mean storage RTT of ~25 µs at K = 140.
"""

from __future__ import annotations

from typing import Dict, List, Optional

CLIENT = "h0"
#: Servers in the other three pods (h4…h15), ten of them.
SERVERS = [f"h{i}" for i in range(4, 14)]
PM_SERVER = "h1"  # under the client's edge switch

STORAGE_APPS = [
    # name, class, offered, size range in 4 KiB blocks (thesis Fig 4.13a)
    ("app-high", "high", "90Gbps", (17, 98)),
    ("app-medium", "medium", "60Gbps", (13, 75)),
    ("app-low", "low", "30Gbps", (5, 30)),
]

CLASSES = [
    {"name": "urgent", "priority": "urgent"},
    {"name": "high", "priority": "high", "ratio": 3.0},
    {"name": "medium", "priority": "medium", "ratio": 2.0},
    {"name": "low", "priority": "low", "ratio": 1.0},
]


#: Propagation per link (SPEC §13 item 3).
LINK_DELAY = "0.6us"


def network(rate: str = "100Gbps", delay: str = LINK_DELAY, k_ecn: int = 140, mtu: int = 1500) -> dict:
    return {"topology": "fat_tree", "k": 4, "link_rate": rate, "link_delay": delay, "mtu": mtu,
            "switch": {"ecn": "step", "ecn_k": k_ecn, "nic_ecn": True}}


def ssd_devices(servers: List[str], preset: str = "consumer-nvme") -> List[dict]:
    """One SSD per server, Scenario-3 QoS: NVMe WRR 3:2:1 and device-level per-class queues."""
    return [{"name": f"ssd-{s}", "kind": "ssd", "preset": preset, "server": s,
             "nvme": {"arbitration": "wrr", "weights": [3, 2, 1]},
             "scheduler": {"device_qos": True, "weights": [3, 2, 1]}} for s in servers]


def storage_workloads(read_fraction: float, apps=STORAGE_APPS, volume: str = "vol", host: str = CLIENT,
                      range_: str = "64GiB") -> List[dict]:
    return [{"name": name, "host": host, "device": volume, "class": cls,
             "arrival": {"kind": "poisson", "bandwidth": rate},
             "size": {"dist": "uniform_blocks", "min": lo, "max": hi},
             "read_fraction": read_fraction, "range": range_} for name, cls, rate, (lo, hi) in apps]


def e2e_scenario(name: str, workloads: List[dict], devices: List[dict], servers: List[str], duration: str,
                 warmup: str, transport: str = "qtcp", qos: Optional[dict] = None, seed: int = 1,
                 nvmeof: Optional[dict] = None, net: Optional[dict] = None, queue_depth: int = 1 << 20) -> dict:
    sc = {
        "schema": 1,
        "name": name,
        # The applications offer more than the link carries; the run ends at `duration`.
        "run": {"seed": seed, "duration": duration, "warmup": warmup, "interval": "1ms", "drain": False},
        "class": CLASSES,
        "network": net or network(),
        "nvmeof": {"transport": transport, "class_transport": {"urgent": "qrdma"}, **(nvmeof or {})},
        "host": [{"name": CLIENT, "queue_depth": queue_depth}],
        "device": devices,
        "volume": [{"name": "vol", "layout": "stripe", "devices": [f"ssd-{s}" for s in servers], "stripe_unit": "1MiB"}],
        "workload": workloads,
        "output": {"requests": False},
    }
    if qos:
        sc["qos"] = qos
    return sc


def channel_gbps(summary: dict, direction: str, client: str = CLIENT) -> Dict[str, float]:
    """Payload per class on the channels leaving the client (`direction` "forward": commands
    and write data) or entering it ("back": read data and completions)."""
    end = "src" if direction == "forward" else "dst"
    out: Dict[str, float] = {}
    for f in summary["network"]["flows"].values():
        if f[end] == client:
            out[f["class"]] = out.get(f["class"], 0.0) + f["throughput_gbps"]
    return out


def passed_gbps(summary: dict, point: str) -> Dict[str, float]:
    """Gb/s per class through `point` ("device": storage end, "host": response side)."""
    return {c: v["passed_gbps"][point]["all"] for c, v in summary["classes"].items()}


def completion_latency_us(run_dir, start_s: float) -> Dict[str, float]:
    """Mean E2E latency (µs) per class of the requests *completed* from `start_s` on, from the
    time series (read once) — in an overloaded run many requests that arrive late in the window
    are still queued at its end, so per-arrival percentiles see only the lucky ones. A class
    that completed nothing gets infinity."""
    import pyarrow.parquet as pq

    t = pq.read_table(str(run_dir / "timeseries.parquet"), columns=["time_s", "entity", "metric", "sum", "count"]).to_pydict()
    total: Dict[str, float] = {}
    n: Dict[str, float] = {}
    for ts, entity, metric, s, c in zip(t["time_s"], t["entity"], t["metric"], t["sum"], t["count"]):
        if entity.startswith("class:") and ts >= start_s - 1e-12 and metric in ("read_lat_us", "write_lat_us"):
            cls = entity[len("class:"):]
            total[cls] = total.get(cls, 0.0) + s
            n[cls] = n.get(cls, 0.0) + c
    return {cls: total[cls] / n[cls] if n[cls] else float("inf") for cls in total}
