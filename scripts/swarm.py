#!/usr/bin/env python3
"""Swarm test: random scenarios drawn from a seed, run with the built-in invariant checks on.

Each seed draws one scenario (swarm testing: every feature is switched on or off at random, so
each scenario exercises a different mix) from:
- a fabric or none: a k=4 fat-tree or a dumbbell, lossy or lossless (PFC), with step or RED
  ECN, any transport for NVMe-oF;
- one to three devices (ideal k-server, a small preconditioned SSD with or without its cache
  and device-level QoS, persistent memory), optionally striped into a volume;
- one to three hosts with random queue depths, optionally a host cache;
- one to four workloads: Poisson, constant, closed-loop or MMPP arrivals, fixed or spread
  sizes, any read mix and class;
- without a fabric or host cache, sometimes a device that dies mid-run (`[[fault]]`) and a
  short host I/O timeout;
- without a host cache, sometimes one or two more faults of any kind the scenario supports
  (a drive failing or coming back, a host crashing, a fail-slow drive, a GC storm, a storage
  server stopping, a fabric link failing), with random NVMe-oF keep-alive, reconnect delay
  and `ctrl_loss_tmo`.

It runs each scenario twice and checks:
- every request issued is completed, failed, lost or in flight (`conservation`, which also checks each SSD's
  FTL books: the map against the reverse map, valid counts against mapped pages);
- bytes are conserved across links and switches (`network.conservation`);
- a lossless fabric drops no packet at its buffers (a failed link loses what it carries);
- time is monotone (the engine refuses to go back);
- the two runs give byte-identical summaries (determinism);
- the run ends within `EVENT_BUDGET` events (a few-ms scenario that runs on has a request that
  can never end).

A failure prints the seed, and `--show SEED` prints the scenario that reproduces it.

Usage:  scripts/swarm.py [--seeds N] [--start S] [--show SEED]
(`make test` runs a fixed set; `--seeds 10000` is the documented long mode.)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import List, Optional

CLASSES = ["urgent", "high", "medium", "low"]
#: Events a drawn scenario may take (the most any of seeds 1-300 takes is 0.45 M).
EVENT_BUDGET = 5_000_000
TRANSPORTS = ["dctcp", "qtcp", "d2tcp", "dcqcn", "qrdma"]


def _device(r: random.Random, i: int, server: Optional[str]) -> dict:
    kind = r.choice(["ideal", "ideal", "ssd", "pm"])
    d = {"name": f"dev{i}", "kind": kind}
    if server:
        d["server"] = server
    if kind == "ideal":
        d["servers"] = r.choice([1, 2, 4, 8])
        d["read"] = r.choice([{"dist": "exp", "mean": f"{r.choice([20, 50, 80])}us"}, {"dist": "fixed", "value": "30us"}])
        d["write"] = {"dist": "fixed", "value": f"{r.choice([10, 20, 40])}us"}
        if r.random() < 0.3:
            d["read_bandwidth"] = "3GB/s"
    elif kind == "ssd":
        d["preset"] = r.choice(["mqsim-default", "consumer-nvme"])
        d["geometry"] = {"blocks_per_plane": 64 if d["preset"] == "mqsim-default" else 256, "pages_per_block": 64}
        if r.random() < 0.6:
            d["precondition"] = {"occupancy": r.choice([0.5, 0.8]), "overwrites": 1.0}
        if r.random() < 0.3:
            d["cache"] = {"mode": "off"}
    return d


def _workload(r: random.Random, i: int, host: str, target: str, classes: List[str], small_target: bool) -> dict:
    w = {"name": f"w{i}", "host": host, "device": target, "class": r.choice(classes), "read_fraction": r.choice([0.0, 0.3, 0.7, 1.0])}
    kind = r.choice(["poisson", "constant", "burst", "mmpp"])
    if kind == "poisson":
        w["arrival"] = {"kind": "poisson", "rate_iops": r.choice([2000, 10000, 40000, 150000])}
    elif kind == "constant":
        w["arrival"] = {"kind": "constant", "rate_iops": r.choice([5000, 20000])}
    elif kind == "burst":
        w["arrival"] = {"kind": "burst", "outstanding": r.choice([1, 4, 16, 64])}
    else:
        w["arrival"] = {"kind": "mmpp", "rates": [r.choice([2000, 5000]), r.choice([20000, 50000])], "switch": [500.0, 2000.0]}
    w["size"] = r.choice([{"dist": "fixed", "bytes": "4KiB"}, {"dist": "uniform_blocks", "min": 1, "max": 16}, {"dist": "fixed", "bytes": "64KiB"}])
    if small_target:
        w["range"] = "32MiB"
    if r.random() < 0.2:
        w["start"] = "1ms"
    return w


def draw(seed: int) -> dict:
    """The scenario of `seed`: a plain dict of the scenario schema (docs/scenario.md)."""
    r = random.Random(seed)
    sc: dict = {"schema": 1, "name": f"swarm-{seed}",
                "run": {"seed": seed, "duration": f"{r.choice([3, 5, 8])}ms", "interval": "1ms"},
                "output": {"requests": False}}
    classes = CLASSES[: r.choice([2, 3, 4])]
    sc["class"] = [{"name": c, "priority": c} for c in classes]
    networked = r.random() < 0.5
    servers: List[Optional[str]] = [None]
    client_names = ["h0"]
    if networked:
        topo = r.choice(["fat_tree", "dumbbell"])
        net: dict = {"topology": topo, "link_rate": r.choice(["10Gbps", "25Gbps"]), "link_delay": "1us"}
        if topo == "fat_tree":
            net["k"] = 4
            client_names, servers = ["h0", "h1", "h4"], ["h12", "h13", "h14", "h15"]
        else:
            net["senders"], net["receivers"] = 2, 3
            client_names, servers = ["s0", "s1"], ["r0", "r1", "r2"]
        sw: dict = {"ecn": r.choice(["step", "red"])}
        if sw["ecn"] == "step":
            sw["ecn_k"] = 65
        else:
            sw.update(ecn_kmin=20, ecn_kmax=200, ecn_pmax=0.1)
        if r.random() < 0.4:
            sw["pfc"] = True
        else:
            sw["buffer"] = r.choice(["1MiB", "4MiB"])
        net["switch"] = sw
        sc["network"] = net
        transport = r.choice(TRANSPORTS)
        sc["nvmeof"] = {"transport": transport}
        if "urgent" in classes and r.random() < 0.5:
            sc["nvmeof"]["class_transport"] = {"urgent": r.choice(TRANSPORTS)}
    hosts = client_names[: r.choice([1, 2, 3])]
    sc["host"] = [{"name": h, "queue_depth": r.choice([4, 16, 64, 256])} for h in hosts]
    if r.random() < 0.2:
        sc["host"][0]["cache"] = {"algorithm": r.choice(["lru", "arc", "sarc", "fussy"]), "size": "8MiB"}
    ndev = r.choice([1, 2, 3])
    sc["device"] = [_device(r, i, servers[i % len(servers)] if networked else None) for i in range(ndev)]
    targets = [d["name"] for d in sc["device"]]
    if ndev >= 2 and r.random() < 0.3 and all(d["kind"] == sc["device"][0]["kind"] for d in sc["device"]):
        sc["volume"] = [{"name": "vol", "layout": "stripe", "devices": targets, "stripe_unit": "64KiB"}]
        targets = ["vol"]
    small = any(d["kind"] == "ssd" for d in sc["device"])
    sc["workload"] = [_workload(r, i, r.choice(hosts), r.choice(targets), classes, small) for i in range(r.choice([1, 2, 3, 4]))]
    # Drawn last, so the scenarios of earlier draws stay as they were: a device that dies mid-run
    # (directly attached devices, no host cache: what faults support; docs/faults.md).
    if not networked and not any("cache" in h for h in sc["host"]) and r.random() < 0.3:
        dur_ms = float(sc["run"]["duration"][:-2])
        sc["fault"] = [{"kind": "device_fail", "device": r.choice([d["name"] for d in sc["device"]]), "at": f"{r.uniform(0.2, dur_ms):.3f}ms"}]
        for h in sc["host"]:
            h["io_timeout"] = r.choice(["100us", "500us", "2ms"])
    # A second block of faults, drawn after the first (so the first stays as it was): any kind
    # the scenario supports, often with `until`, and NVMe-oF's host timers at random.
    if not any("cache" in h for h in sc["host"]) and r.random() < 0.4:
        _more_faults(r, sc, networked, topo if networked else None)
    return sc


def _more_faults(r: random.Random, sc: dict, networked: bool, topo: Optional[str]) -> None:
    dur_ms = float(sc["run"]["duration"][:-2])
    ssds = [d["name"] for d in sc["device"] if d["kind"] == "ssd"]
    kinds = ["device_fail", "host_crash"] + (["device_slow", "gc_storm"] if ssds else [])
    if networked:
        kinds += ["server_down", "link_down"]
    faults = sc.setdefault("fault", [])
    for _ in range(r.choice([1, 1, 2])):
        kind = r.choice(kinds)
        at = r.uniform(0.2, dur_ms)
        f: dict = {"kind": kind, "at": f"{at:.3f}ms"}
        if kind == "device_fail":
            f["device"] = r.choice([d["name"] for d in sc["device"]])
        elif kind == "host_crash":
            f["host"] = r.choice(sc["host"])["name"]
        elif kind == "device_slow":
            f["device"], f["factor"] = r.choice(ssds), r.choice([5, 20])
        elif kind == "gc_storm":
            f["device"] = r.choice(ssds)
        elif kind == "server_down":
            f["server"] = r.choice([d["server"] for d in sc["device"]])
        else:
            f["link"] = ["e3_0", "a3_0"] if topo == "fat_tree" else [r.choice(["r0", "s0"]), "sw0"]
            f["detect"] = r.choice(["100us", "1ms"])
        if kind in ("host_crash", "device_slow") and any(g["kind"] == kind and g.get("host", g.get("device")) == f.get("host", f.get("device")) for g in faults):
            continue  # one of each per host or drive
        if kind != "host_crash" and (kind == "gc_storm" or r.random() < 0.5):
            f["until"] = f"{at + r.uniform(0.1, 3.0):.3f}ms"
        faults.append(f)
    for h in sc["host"]:
        h.setdefault("io_timeout", r.choice(["100us", "500us", "2ms"]))
    if networked:
        sc["nvmeof"].update(keep_alive=r.choice(["0s", "200us", "1ms"]), reconnect_delay=r.choice(["0s", "300us", "2ms"]),
                            ctrl_loss_tmo=r.choice(["forever", "0s", "1ms", "600s"]))


def check(seed: int) -> List[str]:
    """The invariants a run of `seed` breaks (empty: none)."""
    import nestsim

    sc = draw(seed)
    # A few-ms scenario takes well under a million events; one that runs on (a request that can
    # never end) is stopped at a fixed event count, deterministically, and reported.
    budget = nestsim.Budget(events=EVENT_BUDGET, memory_bytes=4 << 30)
    try:
        a = nestsim.run(sc, keep_tables=False, budget=budget).summary
        b = nestsim.run(sc, keep_tables=False, budget=budget).summary
    except nestsim.ConfigError as e:
        return [f"the drawn scenario does not validate (a generator bug): {e}"]
    except (nestsim.SimError, nestsim.InternalError) as e:
        return [f"{type(e).__name__}: {e}"]
    bad = []
    if a.get("stopped"):
        bad.append(f"did not end: stopped at {a['stopped'].get('by')} budget at {a.get('sim_time_s')} simulated s "
                   f"(the scenario lasts {sc['run']['duration']}; requests {a.get('requests')})")
    if a.get("conservation") != "ok":
        bad.append(f"request conservation: {a.get('conservation')}")
    net = a.get("network") or {}
    if net.get("conservation") not in (None, "ok"):
        bad.append(f"network conservation: {net.get('conservation')}")
    lossless = bool(sc.get("network", {}).get("switch", {}).get("pfc"))
    if lossless and not net.get("lossless"):
        bad.append("a fabric with pfc = true does not report itself lossless")
    # Lossless means no buffer overflows: a failed link loses what it carries even under PFC.
    p = net.get("packets", {})
    drops = p.get("dropped", 0) - p.get("link_drops", 0) - p.get("unroutable", 0)  # lost_on_wire is among link_drops
    if lossless and drops:
        bad.append(f"lossless fabric dropped {drops} packets at its buffers")
    req = a.get("requests", {})
    if req.get("issued") != req.get("completed", 0) + req.get("failed", 0) + req.get("lost", 0) + req.get("in_flight", 0):
        bad.append(f"requests issued {req.get('issued')} != completed + failed + lost + in flight ({req})")
    if a.get("requests", {}).get("completed", 0) == 0 and not any(w.get("start") for w in sc["workload"]) and not sc.get("fault"):
        bad.append("no request completed")
    # (A run stopped by memory stops where the process's memory says: not compared.)
    if not (a.get("stopped") or b.get("stopped")) and json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):
        bad.append("two runs of the same scenario and seed differ")
    return bad


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--start", type=int, default=1)
    ap.add_argument("--show", type=int, help="print the scenario of this seed (JSON) and exit")
    a = ap.parse_args(argv)
    if a.show is not None:
        print(json.dumps(draw(a.show), indent=2))
        return 0
    failed = 0
    for seed in range(a.start, a.start + a.seeds):
        bad = check(seed)
        if bad:
            failed += 1
            print(f"seed {seed}: " + "; ".join(bad) + f"  (scripts/swarm.py --show {seed})", flush=True)
    print(f"{a.seeds} scenarios (seeds {a.start}..{a.start + a.seeds - 1}): {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
