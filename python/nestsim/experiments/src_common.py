"""What the SRC experiments share (SRC §IV): the paper's Clos, its initiators and targets, the
VDI-like read and write streams, the DCQCN-only baseline, the model SRC runs on, and the paper's
two metrics — pauses per millisecond and the aggregate throughput.

**The network** (SRC §IV-A): a Clos of 4 pods, each with 2 leaf and 4 ToR switches and 64 nodes
(16 per ToR), 2 spines, 40 Gb/s links with 1 µs delay, DCQCN with PFC (lossless). The paper does
not give its switches' ECN set-up; NeSt uses the DCQCN authors' (`net_common.roce_switch`: RED,
KMIN 40 / KMAX 1000 cells of 1,030 B, PMAX 1).

**Placement** (not in the paper): initiators are the first hosts of pod 0 (`h0`, `h1`, …);
targets are spread over pods 1–3 (`h64`, `h128`, `h192`, `h65`, …), so their read data crosses
the spines and converges on the initiators' ToR ports.

**Targets.** Each target is one SSD of the preset behind split SQs (`nvme.arbitration = "ssq"`)
with an SRC coordinator. The paper's targets held "multiple SSD-A devices"; NeSt's SRC controls
one device per target (docs/src.md), so each target has one.

**NVMe over RDMA as SPDK runs it** (SPEC §13.8; NeSt's default for DCQCN connections): a write
beyond 4 KiB has its data pulled by the target with an RDMA READ posted on its queue pair, behind
the read data that queue pair is sending; each target has SPDK's buffer pool (4,095 × 8 KiB);
each initiator keeps at most 128 commands outstanding per drive (the NVMe-oF I/O queue size,
Linux's and SPDK's), the rest wait at the host in arrival order.

**The DCQCN-only baseline** (SRC §IV-B, SPEC §13.8) is the NVMe default arbitration: no split SQs.
Its targets run an SRC coordinator that only observes (`observe = true`), so its pauses and
demanded rates are counted as SRC's are. A third run, **split SQs at w = 1** (`mode = "ssq"`: the
split SQs and a coordinator with `w_max = 1`), separates what the split queues alone change from
what SRC's weight changes.

**Aggregate throughput** (SRC §IV-B): read bytes completed at the initiators plus write bytes
completed by the drives at the targets, per millisecond. The timeline runs from 0 to the last
completion; the first and last 10 % are trimmed, as the paper does.
"""

from __future__ import annotations

import functools

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

import numpy as np

from .net_common import roce_switch

PRESET = "ssd-a"
TRIM = 0.1
CLOS = {"topology": "clos", "pods": 4, "leaves": 2, "tors": 4, "hosts_per_tor": 16, "spines": 2,
        "link_rate": "40Gbps", "link_delay": "1us", "sample_ports": "none"}


def initiator(i: int) -> str:
    return f"h{i}"


def target(j: int) -> str:
    """Target j: pods 1, 2, 3 in turn, then the next host of each."""
    return f"h{64 * (1 + j % 3) + j // 3}"


@dataclass(frozen=True)
class Model:
    """A throughput prediction model as a scenario names it and the share of the forest's
    importance w has."""
    path: str
    w_importance: float


def shipped_model(preset: str) -> Model:
    """The model shipped for `preset` ("shipped:PRESET"): trained on NeSt's own drive as
    `src-tpm` trains (500 + 500 samples, a compact forest; `scripts/ship_tpm_models.py`)."""
    from .. import tpm

    return Model(f"shipped:{preset}", float(tpm.shipped(preset)["trained_on"]["importances"]["w"]))


#: The drive as MQSim 7ec40e3 models it (the simulator the paper ran), and how deep an initiator
#: must be for its split SQs to back up (128 commands per connection fit in the drive: issue 65).
MQSIM_MODEL = {"compat": "mqsim"}
DEEP_INITIATOR = 2048


def mqsim_model(out_dir: Path, preset: str = PRESET) -> Model:
    """A forest trained on MQSim's model of `preset` as the shipped ones are trained (500 micro +
    500 synthetic samples, seeds 21/22), written to `out_dir/models/PRESET-mqsim.json`."""
    from .. import tpm

    samples = tpm.join(tpm.samples(preset, 500, 21, "micro", device=MQSIM_MODEL),
                       tpm.samples(preset, 500, 22, "synthetic", device=MQSIM_MODEL))
    forest = tpm.fit(samples)
    path = Path(out_dir) / "models" / f"{preset}-mqsim.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tpm.export(forest, path, preset=preset, device=MQSIM_MODEL, samples=len(samples.y), seeds=[21, 22])
    return Model(str(path), float(forest.feature_importances_[tpm.FEATURES.index("w")]))


@dataclass(frozen=True)
class Load:
    """The trace: reads and writes per second summed over every initiator → target pair (each pair
    gets an equal share), their mean sizes (exponential, SRC's micro traces), and the reads and
    writes each target processes."""
    read_rate: float
    write_rate: float
    read_bytes: int
    write_bytes: int
    per_target: int

    @property
    def read_gbps(self) -> float:
        return self.read_rate * self.read_bytes * 8 / 1e9


def drive(j: int, d: int, drives: int) -> str:
    """Target j's d-th drive: `ssdJ` for a single drive, `ssdJ_D` in an array."""
    return f"ssd{j}" if drives == 1 else f"ssd{j}_{d}"


#: The three ways a target runs: the paper's baseline, the split SQs alone, and SRC.
MODES = {"dcqcn": "DCQCN-only", "ssq": "split SQs, w = 1", "src": "DCQCN-SRC"}


def scenario(name: str, load: Load, initiators: int, targets: int, model: Model, mode: str, seed: int = 1,
             preset: str = PRESET, drives: int = 1) -> dict:
    """`initiators` initiators each sending an equal share of `load` to every one of `targets`
    targets, each target run as `mode` (`MODES`). With `drives` > 1 each target is a flash array
    (SRC §IV-A: "multiple SSD instances on each Target") whose drives share its load equally,
    under one SRC coordinator (`devices`)."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: expected one of {', '.join(MODES)}")
    pairs = initiators * targets * drives
    per_pair = load.per_target // (initiators * drives)

    def stream(kind: str, i: int, j: int, d: int, rate: float, mean_b: int) -> dict:
        return {"name": f"{kind}{i}_{j}" + ("" if drives == 1 else f"_{d}"), "host": initiator(i), "device": drive(j, d, drives),
                "class": "high", "arrival": {"kind": "poisson", "rate_iops": rate / pairs},
                "size": {"dist": "exp", "mean": f"{mean_b}B", "align": "4KiB", "min": "4KiB", "max": "1MiB"},
                "read_fraction": 1.0 if kind == "r" else 0.0, "max_ios": per_pair}

    workloads = [stream(k, i, j, d, rate, mean_b) for j in range(targets) for d in range(drives) for i in range(initiators)
                 for k, rate, mean_b in (("r", load.read_rate, load.read_bytes), ("w", load.write_rate, load.write_bytes))]

    def coordinator(j: int) -> dict:
        which = {"device": drive(j, 0, 1)} if drives == 1 else {"devices": [drive(j, d, drives) for d in range(drives)]}
        how = {"dcqcn": {"observe": True}, "ssq": {"w_max": 1}, "src": {}}[mode]
        return {"name": f"src{j}", "kind": "src", **which, "model": str(model.path), **how}

    nvme = {"sq_depth": 1 << 16} if mode == "dcqcn" else {"arbitration": "ssq", "sq_depth": 1 << 16}
    return {
        "schema": 1, "name": name,
        "run": {"seed": seed, "interval": "1ms"},
        "network": dict(CLOS, switch=roce_switch()),
        "nvmeof": {"transport": "dcqcn"},
        "host": [{"name": initiator(i), "queue_depth": 1 << 20} for i in range(initiators)],
        "device": [{"name": drive(j, d, drives), "kind": "ssd", "preset": preset, "server": target(j),
                    "nvme": dict(nvme)} for j in range(targets) for d in range(drives)],
        "workload": workloads,
        "coordinator": [coordinator(j) for j in range(targets)],
    }


@dataclass
class Throughput:
    """Per-millisecond throughput of one run (Gb/s) and pauses per ms summed over the targets."""
    read: np.ndarray
    write: np.ndarray
    pauses: np.ndarray

    @property
    def aggregate(self) -> np.ndarray:
        return self.read + self.write

    @property
    def window(self) -> slice:
        """The timeline with its first and last 10 % trimmed."""
        n = len(self.read)
        return slice(int(TRIM * n), max(int(TRIM * n) + 1, int((1 - TRIM) * n)))

    def mean(self, series: str) -> float:
        return float(getattr(self, series)[self.window].mean())


def throughput(run_dir: Path, targets: int) -> Throughput:
    import pyarrow.parquet as pq

    from .framework import timeseries

    t = pq.read_table(str(Path(run_dir) / "requests.parquet"), columns=["t_complete_ps", "t_dev_done_ps", "size", "op"]).to_pydict()
    reads = np.asarray([o == "read" for o in t["op"]])
    size = np.asarray(t["size"], dtype=float)
    at_initiator = np.asarray(t["t_complete_ps"], dtype=float) / 1e9
    at_target = np.asarray(t["t_dev_done_ps"], dtype=float) / 1e9
    n = int(max(at_initiator[reads].max(initial=0), at_target[~reads].max(initial=0))) + 1
    read, write = np.zeros(n), np.zeros(n)
    np.add.at(read, at_initiator[reads].astype(int), size[reads])
    np.add.at(write, at_target[~reads].astype(int), size[~reads])
    ts = timeseries(run_dir)
    servers = {f"router:{target(j)}" for j in range(targets)}
    pauses = np.zeros(n)
    for tm, e, m, v in zip(ts["time_s"], ts["entity"], ts["metric"], ts["value"]):
        # A sample at t counts the pauses of the millisecond before it.
        if m == "pauses_per_ms" and e in servers and v is not None and 1 <= round(tm * 1e3) <= n:
            pauses[round(tm * 1e3) - 1] += v
    gbps = 8 / 1e-3 / 1e9
    return Throughput(read * gbps, write * gbps, pauses)


def congestion_onset(th: Throughput, share: float = 0.1) -> Optional[int]:
    """The first millisecond whose pauses reach `share` of the run's busiest millisecond."""
    if th.pauses.max() <= 0:
        return None
    return int(np.nonzero(th.pauses >= share * th.pauses.max())[0][0])


def congestion_end(th: Throughput, share: float = 0.1) -> Optional[int]:
    """The last millisecond whose pauses reach `share` of the run's busiest millisecond."""
    if th.pauses.max() <= 0:
        return None
    return int(np.nonzero(th.pauses >= share * th.pauses.max())[0][-1])


def binned(x: np.ndarray, ms: int) -> List[float]:
    """Means over consecutive `ms`-millisecond bins (Fig 7's bars)."""
    k = len(x) // ms * ms
    return list(x[:k].reshape(-1, ms).mean(axis=1)) if k else [float(x.mean())]


def weights(run_dir: Path, targets: int) -> Dict[str, float]:
    """Per target, the time-weighted mean write weight SRC ran at."""
    import json

    s = json.loads((Path(run_dir) / "summary.json").read_text())
    return {target(j): s["coordinators"][f"src{j}"]["report"]["mean_w"] for j in range(targets)}


def busy_period(x: np.ndarray) -> slice:
    """The milliseconds until 99 % of a series' bytes are done (a straggler does not stretch it)."""
    total = np.cumsum(x)
    if total[-1] <= 0:
        return slice(0, 1)
    return slice(0, int(np.searchsorted(total, 0.99 * total[-1])) + 1)


def read_period(th: Throughput) -> slice:
    """The milliseconds in which read data reaches the initiators."""
    return busy_period(th.read)


def delivered(th: Throughput, targets: int) -> str:
    """Reads and writes each target delivered while they flowed (Gb/s)."""
    def while_busy(x: np.ndarray) -> float:
        return float(x[busy_period(x)].mean()) / targets

    return f"{while_busy(th.read):.1f} Gb/s of reads and {while_busy(th.write):.1f} Gb/s of writes while they flowed"


def dcqcn_rates(run_dir: Path, th: Throughput) -> List[float]:
    """Mean DCQCN sending rate (Gb/s) of each target → initiator channel while reads flow."""
    from .framework import timeseries

    ts = timeseries(run_dir)
    lo, hi = 0.0, read_period(th).stop / 1e3
    targets = {target(j) for j in range(64)}
    acc: Dict[str, List[float]] = {}
    for tm, e, m, v in zip(ts["time_s"], ts["entity"], ts["metric"], ts["value"]):
        if m == "rate_gbps" and lo <= tm < hi and v is not None and e.startswith("flow:nvmeof:h") and ">h" in e:
            if e.split(":")[2].split(">")[0] in targets:
                acc.setdefault(e, []).append(v)
    return [sum(v) / len(v) for v in acc.values()]


@functools.lru_cache(maxsize=4)
def _requests(run_dir: str) -> dict:
    """The request columns the whys read, read once per run (`read_waits`, `initiator_pacing` and
    `write_waits` look at the same run)."""
    import pyarrow.parquet as pq

    cols = ["op", "t_complete_ps", "host_queue_us", "target_request_queue_us", "nvme_queue_us", "back_network_us", "device_us"]
    return pq.read_table(str(Path(run_dir) / "requests.parquet"), columns=cols).to_pydict()


def read_waits(run_dir: Path) -> tuple:
    """Mean µs a read spent on the way back (`back_network_us`) and in the drive (`device_us`)."""
    t = _requests(str(run_dir))
    reads = np.asarray([o == "read" for o in t["op"]])
    if not reads.any():
        return 0.0, 0.0
    return float(np.asarray(t["back_network_us"])[reads].mean()), float(np.asarray(t["device_us"])[reads].mean())


def write_waits(run_dir: Path) -> Dict[str, float]:
    """Where writes spent their time, mean µs: at the initiator, at the target before the drive
    (buffer, data pull, NVMe queue), in the drive, and for their completion's way back."""
    t = _requests(str(run_dir))
    w = np.asarray([o == "write" for o in t["op"]])

    def mean(k: str) -> float:
        return float(np.asarray(t[k], dtype=float)[w].mean()) if w.any() else 0.0

    return {"host": mean("host_queue_us"), "target": mean("target_request_queue_us") + mean("nvme_queue_us"),
            "device": mean("device_us"), "back": mean("back_network_us")}


def initiator_pacing(run_dir: Path, summary: dict, targets: int) -> str:
    """Where the reads wait and what paces them: the commands each type completes per second per
    target while both flow, and the time they waited at the initiator (host queue) against the
    time on the way back (the target's NIC queue and the wire)."""
    t = _requests(str(run_dir))
    reads = np.asarray([o == "read" for o in t["op"]])
    done = np.asarray(t["t_complete_ps"], dtype=float) / 1e12
    if not reads.any() or reads.all():
        return "only one type ran"
    # While both types complete: up to the earlier of the two types' 99th-percentile completion.
    end = min(np.quantile(done[reads], 0.99), np.quantile(done[~reads], 0.99))
    both = done <= end
    rate = {k: float((m & both).sum()) / max(end, 1e-9) / targets for k, m in (("read", reads), ("write", ~reads))}
    hq = {k: float(np.asarray(t["host_queue_us"])[m].mean()) / 1e3 for k, m in (("read", reads), ("write", ~reads))}
    back = float(np.asarray(t["back_network_us"])[reads].mean())
    qd = summary["nvmeof"]["params"].get("queue_depth")
    # What holds the writes back, from the drives' own figures: their cache DRAM when it is
    # (nearly) always busy — the shipped presets' MQSim 100 MT/s × 1 B — else the flash.
    ssds = [d["ssd"] for d in summary.get("devices", {}).values() if "ssd" in d]
    dram = max((x.get("dram_utilization") or 0.0 for x in ssds), default=0.0)
    holder = (f"which the drive's cache DRAM holds back (busy {100 * dram:.0f} %)" if dram >= 0.9 else
              f"which the drive's flash holds back (its cache DRAM {100 * dram:.0f} % busy)")
    return (f"each initiator keeps at most {qd if qd else 'an SQ depth of'} commands outstanding per drive and admits them in "
            f"arrival order, so while both types flowed a target completed {rate['read']:,.0f} reads/s and {rate['write']:,.0f} "
            f"writes/s — the reads paced by the writes, {holder} — "
            f"and commands waited {hq['read']:.0f} ms (reads) and {hq['write']:.0f} ms (writes) at the initiator against "
            f"{back:.0f} µs on the way back")


#: A read's mean wait on the way back (TXQ and wire) from which the whys say a TXQ backlog formed:
#: a millisecond is ~50 round trips of the Clos.
BACKLOG_US = 1000.0


def why_w_stays(run_dir: Path, th: Throughput, targets: int, src_summary: dict, model: Model) -> str:
    """What a run with SRC shows about why the weight did or did not move, link by link of the
    paper's chain (TXQ bottleneck → reads throttled → aggregate loss → w recovers writes): the
    weights it ran at, DCQCN's rates on the targets' channels beside the reads each target
    delivered, and what paced the reads."""
    rates = dcqcn_rates(run_dir, th)
    ws = [src_summary["coordinators"][f"src{j}"]["report"] for j in range(targets)]
    per_target_reads = float(th.read[read_period(th)].mean()) / targets
    rate_txt = f"{min(rates):.1f}–{max(rates):.1f}" if rates else "n/a"
    mean_ws = ", ".join(f"{r['mean_w']:.2f}" for r in ws)
    back, device = read_waits(run_dir)
    if back >= BACKLOG_US:
        # The TXQ did back up: the first link holds, and what follows is the pacing.
        first = (f"A TXQ backlog formed (reads waited {back / 1e3:.1f} ms on the way back; DCQCN's mean rate on the targets' "
                 f"channels {rate_txt} Gb/s, {per_target_reads:.1f} Gb/s of reads delivered per target, {device:.0f} µs in the "
                 f"drive): {initiator_pacing(run_dir, src_summary, targets)}")
    else:
        first = (f"The chain breaks at its first link: while reads flowed, DCQCN's mean rate on the targets' channels was "
                 f"{rate_txt} Gb/s against {per_target_reads:.1f} Gb/s of reads delivered per target ({device:.0f} µs in the "
                 f"drive), so no TXQ backlog forms and the demanded rate never falls below what the drive delivers: "
                 f"{initiator_pacing(run_dir, src_summary, targets)}")
    return (f"SRC ran at mean w {mean_ws} (max {max(r['max_w'] for r in ws):.0f}). {first}. Algorithm 1 keeps "
            f"w = 1 whenever the model's reads at w = 1 are below the demanded rate (w carries {model.w_importance:.3f} of the "
            f"forest's importance; docs/src.md)")


def unless_idle(c, src_summary: dict, targets: int):
    """A claim comparing SRC with DCQCN-only is no evidence when SRC never moved the weight (the
    two runs are then the same): reported as not evaluated, saying so."""
    from dataclasses import replace

    if c.holds and all(src_summary["coordinators"][f"src{j}"]["report"]["max_w"] <= 1 for j in range(targets)):
        return replace(c, holds=None, why="SRC never changed the weight, so the two runs are the same and agree trivially",
                       cause="set-up")
    return c


#: The causes the SRC experiments' whys name (docs/claims.md counts them per source):
#: - "source silent": the paper's network congestion comes from traffic it does not describe —
#:   the reads it describes (~5 Gb/s for two targets) cannot load 40 Gb/s links, so at SPEC §13.8's
#:   readings (SPDK's pacing) no TXQ backlog forms, w stays 1 and every comparison of SRC with
#:   DCQCN-only is the same run (the whys show the chain breaking at its first link); also its
#:   drives' sample space and measurement window for the TPM;
#: - "set-up": the shipped drives keep MQSim's stock cache DRAM, which binds their writes at every
#:   w (`src-weights`, Fig 5: w has almost nothing to act on there; the map shows where it has).
SOURCE_SILENT = "source silent"
SET_UP = "set-up"


def caused(claims, causes: Dict[str, str]) -> list:
    """Gives each claim that does not hold, or is not evaluated, the cause its why names: the
    first entry of ``causes`` (claim-id prefix → cause) its id starts with; a cause set already
    stays."""
    from dataclasses import replace

    out = []
    for c in claims:
        if c.holds is not True and c.cause is None:
            cause = next((v for k, v in causes.items() if c.id.startswith(k)), None)
            c = replace(c, cause=cause) if cause else c
        out.append(c)
    return out
