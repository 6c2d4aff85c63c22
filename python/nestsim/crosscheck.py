"""`nestsim crosscheck mqsim SSDCONFIG.xml WORKLOAD.xml`: MQSim and NeSt on the same files, side by
side (issue 61) — what a user runs to trust NeSt's SSD model on their own drive and workload.

MQSim runs from its binary (``--mqsim-bin``; by default the bundle's instrumented build under
``$NEST_SHARED/mqsim/bundle/bin``) on a copy of the workload file in the output directory (MQSim
writes its results beside it), with the per-request latency dump of the bundle's
``instrumentation.patch`` (``MQSIM_LAT_DUMP``): one line per completed request, ``flow is_read
device_response_ns end_to_end_ns``, and ``# end_of_scenario N sim_time_ns T`` after each scenario.
An uninstrumented MQSim writes no dump: then only what its results XML gives (each flow's mean
device response time and request counts) is compared.

NeSt runs the same pair as ``nestsim run --mqsim`` does, in the MQSim-compatible model by default
(``--mode compat``; ``default`` or ``both``). Per scenario, flow and all/read/write: n, mean, p50,
p99, p99.9 (nearest rank, µs, MQSim's device response time: SQ insertion to completion) and IOPS
(completed requests / the scenario's final simulated time, as the bundle's ``latpct.py``), then the
flash counters both report: mapping reads, program and erase commands, GC and wear-levelling executions, the CMT's hit rate
(MQSim counts commands, a multi-plane command once; NeSt counts pages). Each NeSt figure is
given with its difference from MQSim's in %; a latency row with fewer than ``MIN_N`` requests is
shown but not judged. ``crosscheck.json`` holds the table.
"""

from __future__ import annotations

import json
import math
import re
import os
import sys
import shutil
import signal
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

#: Rows with fewer requests are shown but not judged (a p99 of 50 samples is an anecdote).
MIN_N = 100
#: Within this the row agrees (the issue's bound for mean, p50, p99 and IOPS; p99.9: 15 %).
TOLERANCE = {"mean": 10.0, "p50": 10.0, "p99": 10.0, "p99.9": 15.0, "iops": 10.0}
METRICS = ("n", "mean", "p50", "p99", "p99.9", "iops")
OPS = ("all", "read", "write")


class CrosscheckError(ValueError):
    """A problem with the inputs or with running MQSim (exit 2)."""


def mqsim_binary(explicit: Optional[str]) -> Path:
    """The MQSim to run: ``explicit``, else the bundle's instrumented build."""
    if explicit:
        p = Path(explicit)
        if not p.is_file() or not os.access(p, os.X_OK):
            raise CrosscheckError(f"--mqsim-bin {p}: not an executable file")
        return p
    bundle = Path("mqsim") / "bundle" / "bin" / "MQSim-instr"
    if "NEST_SHARED" in os.environ:
        p = Path(os.environ["NEST_SHARED"]) / bundle
        if not p.is_file():
            raise CrosscheckError(f"no MQSim to run: give --mqsim-bin PATH (the bundle's {p} is absent; NEST_SHARED is set)")
        return p
    # Unset: ../shared beside the working directory (a clone's root), beside the source tree
    # this module runs from, or beside the clone whose virtualenv runs it (`make` puts it in
    # the clone's .venv); an installed package's own folder says nothing of any of them.
    clone_of_venv = Path(sys.prefix).resolve().parent
    tried = [Path.cwd().parent / "shared" / bundle, Path(__file__).resolve().parents[2].parent / "shared" / bundle,
             clone_of_venv.parent / "shared" / bundle]
    for p in tried:
        if p.is_file():
            return p
    raise CrosscheckError(f"no MQSim to run: give --mqsim-bin PATH or set NEST_SHARED (NEST_SHARED is unset and the "
                          f"bundle is not at {' nor '.join(map(str, dict.fromkeys(tried)))})")


def _stats(lat_ns: np.ndarray, sim_s: float) -> Dict[str, float]:
    """n, mean, nearest-rank p50/p99/p99.9 (µs) and IOPS over the scenario's simulated time."""
    v = np.sort(np.asarray(lat_ns, dtype=np.float64)) / 1000.0
    n = len(v)
    if n == 0:
        return {"n": 0}
    rank = lambda p: float(v[max(0, math.ceil(p / 100.0 * n) - 1)])  # noqa: E731
    return {"n": n, "mean": float(v.mean()), "p50": rank(50), "p99": rank(99), "p99.9": rank(99.9),
            "iops": n / sim_s if sim_s > 0 else float("nan")}


def parse_dump(path: Path) -> Dict[int, Dict[int, Dict[str, Dict[str, float]]]]:
    """{scenario: {flow: {op: stats}}} from an MQSim-instr latency dump."""
    out: Dict[int, Dict[int, Dict[str, Dict[str, float]]]] = {}
    rows: List[Tuple[int, int, int]] = []
    for line in Path(path).read_text().splitlines():
        if line.startswith("# end_of_scenario"):
            words = line.split()
            scenario, sim_s = int(words[2]), int(words[4]) / 1e9
            a = np.array(rows, dtype=np.int64).reshape(-1, 3)
            for flow in sorted(set(a[:, 0].tolist())):
                f = a[:, 0] == flow
                out.setdefault(scenario, {})[flow] = {
                    "all": _stats(a[f, 2], sim_s), "read": _stats(a[f & (a[:, 1] == 1), 2], sim_s),
                    "write": _stats(a[f & (a[:, 1] == 0), 2], sim_s)}
            rows = []
        elif line.strip():
            flow, is_read, device_ns, _ = line.split()
            rows.append((int(flow), int(is_read), int(device_ns)))
    return out


def parse_results_xml(path: Path) -> Tuple[Dict[int, Dict[str, Dict[str, float]]], Dict[str, float]]:
    """From MQSim's ``*_scenario_N.xml``: each flow's mean device response (all ops) and counts,
    and the FTL's counters."""
    root = ET.parse(path).getroot()
    flows: Dict[int, Dict[str, Dict[str, float]]] = {}
    for i, f in enumerate(root.iter("Host.IO_Flow")):
        get = lambda tag: float(f.findtext(tag) or "nan")  # noqa: E731
        flows[i] = {"all": {"n": int(get("Request_Count")), "mean": get("Device_Response_Time")},
                    "read": {"n": int(get("Read_Request_Count"))}, "write": {"n": int(get("Write_Request_Count"))}}
    ftl = next(root.iter("SSDDevice.FTL"), None)
    counters: Dict[str, float] = {}
    if ftl is not None:
        a = {k: float(v) if v not in ("-nan", "nan", "inf") else float("nan") for k, v in ftl.attrib.items()}
        queries = a.get("Total_CMT_Queries", 0.0)
        counters = {"mapping reads": a.get("Issued_Flash_Read_CMD_For_Mapping", float("nan")),
                    # Single-plane and multi-plane commands are counted apart (`NVM_PHY_ONFI_NVDDR2.cpp:215-222`).
                    "program commands": sum(a.get(k, 0.0) for k in ("Issued_Flash_Program_CMD", "Issued_Flash_Multiplane_Program_CMD",
                                                                       "Issued_Flash_Interleaved_Program_CMD",
                                                                       "Issued_Flash_Interleaved_Multiplane_Program_CMD",
                                                                       "Issued_Flash_Copyback_Program_CMD",
                                                                       "Issued_Flash_Multiplane_Copyback_Program_CMD"))
                    if "Issued_Flash_Program_CMD" in a else float("nan"),
                    "multi-plane programs": sum(a.get(k, 0.0) for k in ("Issued_Flash_Multiplane_Program_CMD",
                                                                          "Issued_Flash_Interleaved_Multiplane_Program_CMD",
                                                                          "Issued_Flash_Multiplane_Copyback_Program_CMD"))
                    if "Issued_Flash_Multiplane_Program_CMD" in a else float("nan"),
                    # Single-block and multi-plane erase commands, counted apart (`:283-289`).
                    "erase commands": a.get("Issued_Flash_Erase_CMD", 0.0) + a.get("Issued_Flash_Multiplane_Erase_CMD", 0.0)
                    if "Issued_Flash_Erase_CMD" in a else float("nan"),
                    "GC executions": a.get("Total_GC_Executions", float("nan")),
                    "WL executions": a.get("Total_WL_Executions", float("nan")),
                    "CMT hit rate": a.get("CMT_Hits", 0.0) / queries if queries else float("nan")}
    return flows, counters


# MQSim 7ec40e3's failures met in the blind rounds (docs/mqsim.md), by what it prints: why, and
# what a user can do. A failure not listed is reported as MQSim printed it.
KNOWN_FAILURES = [
    ("Unhandled address distribution type in FTL's preconditioning",
     "MQSim cannot precondition a trace-based flow: FTL::Perform_precondition copies the flow's "
     "address distribution (src/ssd/FTL.cpp:85) before its trace analysis sets one (:354-392). "
     "Set Enabled_Preconditioning to false, or run NeSt alone (nestsim run --mqsim)"),
    ("It is not possible to assign PPA to all LPAs",
     "MQSim's preconditioning plan floors the blocks for each count of valid pages "
     "(src/ssd/Address_Mapping_Unit_Page_Level.cpp:646-740): with few blocks a plane, or a plane "
     "shared by several flows, every count rounds to no block. More blocks per plane or a lower "
     "Initial_Occupancy_Percentage avoid it"),
    ("LPA that has not been locked",
     "MQSim's wear levelling marks block 0 of channel 0's first plane as in GC (it passes a block "
     "number where an address is due, src/ssd/GC_and_WL_Unit_Base.cpp:263); when a user read or "
     "program there completes, the handler meant for postponed GC jobs runs one on that block "
     "(:61-100) without locking its LPAs (:71), and the first page it moves fails the unlock "
     "(:148, src/ssd/Address_Mapping_Unit_Page_Level.cpp:1801). It strikes once a wear-levelling "
     "migration has run and a user request touches that block while it holds valid pages; another "
     "seed may finish (--seeds N)"),
    ("Inconsistency in the global mapping table when locking",
     "MQSim stores translation pages for Total_logical_pages / entries-per-page, rounded down "
     "(src/ssd/Address_Mapping_Unit_Page_Level.cpp:216): the LPAs of the last, partial translation "
     "page have none, so a miss there gets an entry with no PPA (:1464-1482) even where "
     "preconditioning placed the page; a write then leaves the preconditioned copy valid, and GC "
     "stops on it. It strikes when the flow writes the top of its space (the last partial "
     "translation page) and GC picks such a block; another seed may finish (--seeds N)"),
    ("Retrieve_ppa", "MQSim re-translates the writes it held while a plane was at GC's hard threshold "
     "(Start_servicing_writes_for_overfull_plane, src/ssd/Address_Mapping_Unit_Page_Level.cpp:1915-1933) "
     "after their mapping entries may have left the CMT, and its lookup asserts (:48); another seed "
     "may finish (--seeds N)"),
    ("Inconsistency found when moving a page for GC", "a known MQSim failure under GC; another seed "
     "may finish (--seeds N)"),
]


def known_failure(output: str, killed_by: Optional[str]) -> Optional[str]:
    """What is known of an MQSim failure whose output is `output` (None if nothing)."""
    for said, why in KNOWN_FAILURES:
        if said in output:
            return why
    if killed_by == "SIGSEGV" and "Writing results to output file" in output:
        # Traced (gdb, twentieth session): the run had stalled, and MQSim crashed freeing the
        # requests it left behind.
        return ("MQSim's run stalled and it crashed freeing the requests left in it "
                "(~Input_Stream_NVMe, src/ssd/Host_Interface_NVMe.cpp:11-12): a plane reached GC's "
                "threshold, the block its RGA draw picked had no invalid page, so no job started "
                "(src/ssd/GC_and_WL_Unit_Page_Level.cpp:142-145), and writes are held at that same threshold "
                "(Stop_servicing_writes, src/ssd/GC_and_WL_Unit_Base.cpp:216-220) until a GC erase "
                "that never comes — no block is taken, so GC is not checked again; another seed may "
                "finish (--seeds N)")
    if killed_by == "SIGSEGV" and "progress" in output:
        return ("MQSim crashes when a plane's free pool runs dry under GC (Get_a_free_block on an "
                "empty pool, src/ssd/Flash_Block_Manager_Base.cpp:108); another seed may finish (--seeds N)")
    return None


def run_mqsim(binary: Path, ssdconfig: Path, workload: Path, trace_dir: Path, out: Path,
              timeout_s: Optional[float] = None) -> Tuple[dict, Dict[int, Dict[str, float]], bool]:
    """Runs MQSim; returns ({scenario: {flow: {op: stats}}}, {scenario: counters}, percentiles?)."""
    out.mkdir(parents=True, exist_ok=True)
    wl = out / "workload.xml"
    shutil.copyfile(workload, wl)
    # Absolute: MQSim runs in the trace folder, where a relative `-o` would name another place.
    dump = (out / "latencies.txt").resolve()
    dump.unlink(missing_ok=True)
    env = dict(os.environ, MQSIM_LAT_DUMP=str(dump))
    try:
        p = subprocess.run([str(binary), "-i", str(ssdconfig.resolve()), "-w", str(wl.resolve())], cwd=trace_dir,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise CrosscheckError(f"MQSim did not finish within {timeout_s:g} s (--max-wall)") from None
    except OSError as e:
        raise CrosscheckError(f"{binary}: cannot run it: {e.strerror}") from None
    (out / "stdout.txt").write_text(p.stdout + p.stderr)
    errors = [line for line in p.stdout.splitlines() if "ERROR" in line]
    killed = signal.Signals(-p.returncode).name if p.returncode < 0 else None
    # A stalled MQSim writes its results, then crashes freeing the requests left in it
    # (`known_failure`): its results are the run's, compared as a stalled run (`stalled`).
    crashed_after_results = (killed == "SIGSEGV" and not errors and "Writing results to output file" in p.stdout
                             and (out / "workload_scenario_1.xml").exists())
    if (p.returncode != 0 or errors) and not crashed_after_results:
        tail = "\n".join(errors[-3:] or (p.stdout + p.stderr).splitlines()[-5:])
        how = f"killed by {killed}" if killed else f"exit {p.returncode}"
        why = known_failure(p.stdout + p.stderr, killed)
        raise CrosscheckError(f"MQSim failed ({how}; its output in {out / 'stdout.txt'}):\n{tail}" + (f"\nknown: {why}" if why else ""))
    counters: Dict[int, Dict[str, float]] = {}
    xml_flows: Dict[int, dict] = {}
    k = 1
    while (out / f"workload_scenario_{k}.xml").exists():
        xml_flows[k], counters[k] = parse_results_xml(out / f"workload_scenario_{k}.xml")
        k += 1
    if not xml_flows:
        raise CrosscheckError(f"MQSim wrote no results beside {wl} (its output in {out / 'stdout.txt'})")
    if dump.exists() and dump.stat().st_size > 0:
        return parse_dump(dump), counters, True
    return xml_flows, counters, False


def run_nest(ssdconfig: Path, workload: Path, trace_dir: Path, out: Path, compat: bool, overrides: Optional[List[str]] = None) -> Tuple[dict, dict]:
    """NeSt on the same pair (``overrides``: `KEY=VALUE` as `--set`): ({scenario: {flow: {op:
    stats}}}, {scenario: counters})."""
    from .mqsim import MqsimError, load
    from .runner import run

    try:
        scenarios, _ = load(ssdconfig, workload, [trace_dir], compat=compat)
    except MqsimError as e:
        raise CrosscheckError(str(e)) from None
    stats, counters = {}, {}
    traces = set()
    for i, sc in enumerate(scenarios, 1):
        # A trace's IOPS is its own arrival rate over spans the two tools count differently
        # (MQSim from time 0, NeSt from the first record): not a measure of the drive.
        traces |= {(i, int(w["name"][4:])) for w in sc.get("workload", []) if "trace" in w and str(w.get("name", "")).startswith("flow")}
        res = run(sc, overrides=list(overrides or []), out_dir=out / f"scenario{i}", progress=False, keep_tables=False)
        s = res.summary
        sim_s = s["sim_time_s"]
        t = _requests(out / f"scenario{i}" / "requests.parquet")
        flows = {}
        for name in s["workloads"]:
            flow = int(name.removeprefix("flow")) if name.startswith("flow") and name[4:].isdigit() else name
            m = t["workload"] == name
            lat = t["lat_ns"][m]
            flows[flow] = {"all": _stats(lat, sim_s), "read": _stats(lat[t["read"][m]], sim_s),
                           "write": _stats(lat[~t["read"][m]], sim_s)}
        stats[i] = flows
        ssd = next((d["ssd"] for d in s["devices"].values() if "ssd" in d), {})
        counters[i] = {"_traces": traces, "mapping reads": ssd.get("mapping_reads"), "program commands": ssd.get("program_commands"),
                       "multi-plane programs": ssd.get("multiplane_program_commands"),
                       "erase commands": ssd.get("erase_commands"), "GC executions": ssd.get("gc_jobs"),
                       "WL executions": ssd.get("wear_levelling_jobs"), "CMT hit rate": ssd.get("cmt_hit_rate")}
    return stats, counters


# A synthetic flow's seed in MQSim's workload.xml.
SEED_RE = re.compile(r"(<Seed>\s*)(-?\d+)(\s*</Seed>)")
# A synthetic flow seeds up to six generators from its <Seed>: seed, seed + 1, ... (request type,
# address, hot address, hot/cold, size, interval; `src/host/IO_Flow_Synthetic.cpp:28-55`).
STREAMS_PER_FLOW = 6


def reseeded(text: str, k: int) -> str:
    """The workload text for MQSim's k-th seed (k = 0: as written). Every flow's <Seed> moves by
    k times the span of the streams the flows draw from, so no generator of one run is a generator
    of another: moved by k alone, flow i of run k + 1 drew flow i + 1's streams of run k (flows
    seeded 100, 101, … share all but one stream between runs, and seven runs are ten streams),
    and a single flow's request types of run k + 1 were its addresses of run k."""
    seeds = [int(m.group(2)) for m in SEED_RE.finditer(text)]
    if not seeds or k == 0:
        return text
    stride = max(seeds) - min(seeds) + STREAMS_PER_FLOW
    return SEED_RE.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + k * stride}{m.group(3)}", text)


def expected_requests(workload: Path) -> Dict[int, Dict[int, int]]:
    """{scenario: {flow: requests}} of the synthetic flows that end by a request count (no
    `Stop_Time`): what each must complete for its run to have finished (the importer's parser)."""
    from .mqsim import MqsimError, parse_xml

    try:
        root = parse_xml(workload)
    except MqsimError as e:
        raise CrosscheckError(str(e)) from None

    def num(flow, tag: str) -> int:
        n = flow.child(tag)
        return int(n.text) if n is not None and n.text.isdigit() else 0

    out: Dict[int, Dict[int, int]] = {}
    for i, sc in enumerate((c for c in root.children if c.tag == "IO_Scenario"), 1):
        for j, fl in enumerate(c for c in sc.children if c.tag.startswith("IO_Flow_Parameter_Set")):
            total = num(fl, "Total_Requests_To_Generate")
            if fl.tag.endswith("Synthetic") and total > 0 and num(fl, "Stop_Time") == 0:
                out.setdefault(i, {})[j] = total
    return out


def stalled(who: str, stats: dict, expected: Dict[int, Dict[int, int]]) -> List[str]:
    """A line per flow of one run that completed fewer requests than it generates: the run
    ended (its events ran out) with the rest outstanding — a stalled run, not a slow one."""
    out = []
    for scenario, flows in sorted(expected.items()):
        for flow, want in sorted(flows.items()):
            got = int(stats.get(scenario, {}).get(flow, {}).get("all", {}).get("n", 0))
            if got < want:
                out.append(f"{who}: scenario {scenario} flow {flow} completed {got:,} of its {want:,} requests")
    return out


def _median_of(runs: List[dict]) -> Tuple[dict, dict]:
    """Nested dicts of numbers (one per seed) -> (their medians, their (min, max)), leaf by leaf;
    a leaf some runs lack is left out, a non-number (a set of trace flows) is taken from the first."""
    first = runs[0]
    med, rng = {}, {}
    for k, v in first.items():
        vals = [r.get(k) for r in runs]
        if isinstance(v, dict):
            if all(isinstance(x, dict) for x in vals):
                med[k], rng[k] = _median_of(vals)
        elif isinstance(v, (int, float)) and all(isinstance(x, (int, float)) for x in vals):
            xs = [float(x) for x in vals]
            med[k] = float(np.median(xs))
            rng[k] = (min(xs), max(xs))
        else:
            med[k] = v
    return med, rng


def _halves_gap(runs: List[dict]) -> dict:
    """MQSim against itself: nested dicts of numbers (one per seed, at least four) -> per leaf the
    gap in % between the medians of two halves of the seeds, the median over the ways to split
    them (up to 2,000 of them, drawn with a fixed seed). Where it passes the tolerance, MQSim's
    own seeds do not agree within it and a test at that tolerance cannot tell a model from the
    noise of a chaotic run (GC bursts, reads hung at GC locks: docs/mqsim.md)."""
    import itertools

    n = len(runs)
    if n < 4:
        return {}
    splits = list(itertools.islice(itertools.combinations(range(n), n // 2), 2001))
    if len(splits) > 2000:
        g = np.random.default_rng(61)
        splits = [tuple(sorted(g.choice(n, n // 2, replace=False).tolist())) for _ in range(2000)]
    halves = [(list(a), [i for i in range(n) if i not in a]) for a in splits]  # once, for every figure

    def walk(vals: List) -> object:
        if all(isinstance(v, dict) for v in vals):
            return {k: walk([v.get(k) for v in vals]) for k in vals[0] if all(k in v for v in vals)}
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            return None
        x = np.asarray(vals, dtype=float)
        gaps = []
        for a, b in halves:
            ma, mb = np.median(x[a]), np.median(x[b])
            if ma > 0:
                gaps.append(abs(mb / ma - 1.0) * 100.0)
        return float(np.median(gaps)) if gaps else None

    return walk(runs)


def _requests(path: Path) -> dict:
    import pyarrow.parquet as pq

    t = pq.read_table(path, columns=["workload", "op", "t_sq_ps", "t_complete_ps"]).to_pydict()
    return {"workload": np.asarray(t["workload"], dtype=object), "read": np.asarray(t["op"], dtype=object) == "read",
            # MQSim's device response time: from the request's insertion in its SQ to completion.
            "lat_ns": (np.asarray(t["t_complete_ps"], dtype=np.int64) - np.asarray(t["t_sq_ps"], dtype=np.int64)) / 1000.0}


def table(mq: dict, nest: Dict[str, dict], traces=frozenset(), ranges: Optional[Dict[str, dict]] = None) -> List[dict]:
    """One row per (scenario, flow, op, metric): MQSim's value, each NeSt mode's and its % diff.
    ``traces``: (scenario, flow) of trace flows, whose IOPS is shown but not judged. ``ranges``:
    per mode, the (min, max) over seeds of each figure (`--seeds`)."""
    ranges = ranges or {}
    rows = []
    for scenario, flows in sorted(mq.items()):
        for flow, ops in sorted(flows.items()):
            for op in OPS:
                theirs = ops.get(op, {})
                for metric in METRICS:
                    if metric not in theirs:
                        continue
                    row = {"scenario": scenario, "flow": flow, "op": op, "metric": metric, "mqsim": theirs[metric],
                           "judged": metric != "n" and theirs.get("n", 0) >= MIN_N and not (metric == "iops" and (scenario, flow) in traces)}
                    span = ranges.get("mqsim", {}).get(scenario, {}).get(flow, {}).get(op, {}).get(metric)
                    if span is not None:
                        row["mqsim_min"], row["mqsim_max"] = span
                    gap = ranges.get("mqsim_halves", {}).get(scenario, {}).get(flow, {}).get(op, {}).get(metric)
                    if gap is not None:
                        row["mqsim_halves_pct"] = round(gap, 2)
                    for mode, runs in nest.items():
                        mine = runs.get(scenario, {}).get(flow, {}).get(op, {}).get(metric)
                        row[mode] = mine
                        span = ranges.get(mode, {}).get(scenario, {}).get(flow, {}).get(op, {}).get(metric)
                        if span is not None:
                            row[f"{mode}_min"], row[f"{mode}_max"] = span
                        ok = mine is not None and theirs[metric] and not math.isnan(theirs[metric])
                        row[f"{mode}_diff_pct"] = round(100.0 * (mine - theirs[metric]) / theirs[metric], 2) if ok else None
                        if row["judged"] and row[f"{mode}_diff_pct"] is not None:
                            row[f"{mode}_within"] = abs(row[f"{mode}_diff_pct"]) <= TOLERANCE.get(metric, 10.0)
                            # Apart where MQSim's own halves are too: the tolerance cannot judge.
                            row[f"{mode}_noise"] = not row[f"{mode}_within"] and row.get("mqsim_halves_pct", 0.0) > TOLERANCE.get(metric, 10.0)
                    rows.append(row)
    return rows


def counter_rows(mq: Dict[int, Dict[str, float]], nest: Dict[str, dict]) -> List[dict]:
    rows = []
    for scenario, c in sorted(mq.items()):
        for name, theirs in c.items():
            if name.startswith("_"):
                continue
            row = {"scenario": scenario, "counter": name, "mqsim": theirs}
            for mode, runs in nest.items():
                row[mode] = runs.get(scenario, {}).get(name)
            rows.append(row)
    return rows


def _fmt(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if isinstance(v, float) and v.is_integer() and abs(v) >= 1:
        v = int(v)
    if isinstance(v, float) and abs(v) < 10 and v != int(v):
        return f"{v:.3g}"
    return f"{v:,.1f}" if isinstance(v, float) else f"{v:,}"


def render(rows: List[dict], counters: List[dict], modes: List[str], percentiles: bool, seeds: int = 1, medians: Optional[int] = None) -> str:
    """``medians``: how many runs each tool's medians are of, where MQSim failed some seeds."""
    spread = seeds > 1
    mq_spread = any("mqsim_min" in r for r in rows)
    halves = any("mqsim_halves_pct" in r for r in rows)
    head = f"{'sc':>2} {'flow':>4} {'op':<5} {'metric':<6} {'MQSim':>11}" + (f" {'MQSim seeds':>23}" if mq_spread else "") + (
        f" {'halves':>7}" if halves else "") + "".join(
        f" {m:>11} {'diff':>8}" + (f" {'seeds min–max':>23}" if spread else "") for m in modes)
    lines = [head, "-" * len(head)]
    for r in rows:
        cells = ""
        for m in modes:
            d = r.get(f"{m}_diff_pct")
            mark = "" if not r["judged"] or d is None else (" " if r.get(f"{m}_within") else "~" if r.get(f"{m}_noise") else "*")
            cells += f" {_fmt(r.get(m)):>11} {(f'{d:+.1f}%' if d is not None else ''):>7}{mark}"
            if spread:
                lo, hi = r.get(f"{m}_min"), r.get(f"{m}_max")
                cells += f" {(f'{_fmt(lo)}–{_fmt(hi)}' if lo is not None else ''):>23}"
        theirs = ""
        if mq_spread:
            lo, hi = r.get("mqsim_min"), r.get("mqsim_max")
            theirs = f" {(f'{_fmt(lo)}–{_fmt(hi)}' if lo is not None else ''):>23}"
        if halves:
            g = r.get("mqsim_halves_pct")
            theirs += f" {(f'{g:.1f}%' if g is not None else ''):>7}"
        lines.append(f"{r['scenario']:>2} {r['flow']!s:>4} {r['op']:<5} {r['metric']:<6} {_fmt(r['mqsim']):>11}{theirs}{cells}")
    judged = [(m, [r[f"{m}_within"] for r in rows if f"{m}_within" in r]) for m in modes]
    lines.append("")
    for m, v in judged:
        lines.append(f"{m}: {sum(v)} of {len(v)} judged figures within tolerance (mean, p50, p99, IOPS ±10 %, p99.9 ±15 %; "
                     f"rows with n ≥ {MIN_N}); {'* or ~' if halves else '*'} marks the others" + (f" (each tool: the median of {medians or seeds} seeds)" if mq_spread
                                                                      else f" (NeSt: the median of seeds 1–{seeds})" if spread else ""))
    if halves:
        noisy = {m: sum(1 for r in rows if r.get(f"{m}_noise")) for m in modes}
        lines.append("halves: MQSim against itself — the gap between the medians of two halves of its seeds (the median over the "
                     "ways to split them); ~ marks a figure outside tolerance where that gap passes the tolerance too, so the "
                     "tolerance cannot tell a model from MQSim's own noise there ("
                     + ", ".join(f"{m}: {k} of the figures outside tolerance marked ~" for m, k in noisy.items()) + ")")
    if not percentiles:
        lines.append("MQSim wrote no per-request dump (not the bundle's MQSim-instr): only its results XML's means are compared")
    if any(r["metric"] == "iops" and not r["judged"] and r.get("mqsim") for r in rows):
        lines.append("a trace flow's IOPS is shown, not judged: MQSim counts its time from 0, NeSt from the first record")
    if counters:
        lines.append("")
        lines.append(f"{'sc':>2} {'counter':<20} {'MQSim':>12}" + "".join(f" {m:>12}" for m in modes) + "   (commands, both tools)")
        for c in counters:
            lines.append(f"{c['scenario']:>2} {c['counter']:<20} {_fmt(c['mqsim']):>12}" + "".join(f" {_fmt(c.get(m)):>12}" for m in modes))
    return "\n".join(lines)


def crosscheck(ssdconfig: Path, workload: Path, out: Path, trace_dir: Optional[Path] = None, mqsim_bin: Optional[str] = None,
               mode: str = "compat", timeout_s: Optional[float] = None, overrides: Optional[List[str]] = None, seeds: int = 1) -> dict:
    """Runs both and writes ``out/crosscheck.json``; returns its document. ``overrides`` apply to
    NeSt's runs (what one switch does: ``device[0].model.dram_timing=linear``). ``seeds`` > 1:
    NeSt runs with seeds 1..N, and MQSim N times with its synthetic flows' ``<Seed>`` moved apart
    (``reseeded``; once if it has none: a trace replays alike); each figure is the median of a tool's runs, their range
    beside — one run of a chaotic workload (GC bursts) is one sample (docs/mqsim.md)."""
    if seeds < 1:
        raise CrosscheckError(f"--seeds must be at least 1, got {seeds}")
    ssdconfig, workload = Path(ssdconfig), Path(workload)
    for p in (ssdconfig, workload):
        if not p.is_file():
            raise CrosscheckError(f"{p}: no such file")
    trace_dir = Path(trace_dir) if trace_dir else workload.resolve().parent
    binary = mqsim_binary(mqsim_bin)
    text = workload.read_text(errors="replace")
    mq_seeds = seeds if SEED_RE.search(text) else 1
    mq_ranges: dict = {}
    mq_halves: dict = {}
    mq_failed: List[str] = []
    finished: List[int] = []  # MQSim's seeds (1-based) that finished
    expected = expected_requests(workload)
    stalls: List[str] = []
    if mq_seeds == 1:
        mq, mq_counters, percentiles = run_mqsim(binary, ssdconfig, workload, trace_dir, out / "mqsim", timeout_s)
        stalls += stalled("MQSim", mq, expected)
    else:
        mq_runs = []
        for k in range(mq_seeds):
            d = out / f"mqsim-seed{k + 1}"
            d.mkdir(parents=True, exist_ok=True)
            wl = d / "workload-reseeded.xml"
            wl.write_text(reseeded(text, k))
            try:
                mq_runs.append(run_mqsim(binary, ssdconfig, wl, trace_dir, d, timeout_s))
                finished.append(k + 1)
                stalls += stalled(f"MQSim seed {k + 1}", mq_runs[-1][0], expected)
            except CrosscheckError as e:
                # MQSim can crash on one seed (a plane's free pool run dry) and not another: the
                # medians are of the seeds that finished, and the failure is reported.
                lines = str(e).splitlines()
                known = [ln for ln in lines if ln.startswith("known: ")]
                mq_failed.append(f"seed {k + 1}: {lines[0].rstrip(':')}" + (f" ({known[0]})" if known else ""))
        if not mq_runs:
            raise CrosscheckError("MQSim failed on every seed:\n" + "\n".join(mq_failed))
        mq, mq_ranges = _median_of([r[0] for r in mq_runs])
        mq_halves = _halves_gap([r[0] for r in mq_runs])
        mq_counters = _median_of([r[1] for r in mq_runs])[0]
        percentiles = all(r[2] for r in mq_runs)
    modes = {"compat": [True], "default": [False], "both": [True, False]}[mode]
    nest, nest_counters, ranges = {}, {}, {}
    paired_note = ""
    for compat in modes:
        label = "compat" if compat else "default"
        if seeds == 1:
            nest[label], nest_counters[label] = run_nest(ssdconfig, workload, trace_dir, out / f"nest-{label}", compat, overrides)
            stalls += stalled(f"NeSt {label}", nest[label], expected)
            continue
        # Seed k runs the workload MQSim's seed k ran: compat draws a synthetic flow's requests
        # from its <Seed> as MQSim does (`mqsim_draws`), so each pair of runs shares one stream,
        # and where MQSim failed its pair is not run.
        wl_of = lambda k: out / f"mqsim-seed{k}" / "workload-reseeded.xml" if mq_seeds > 1 else workload
        paired = [k for k in range(1, seeds + 1) if not (compat and mq_seeds > 1) or k in finished]
        if compat and mq_seeds > 1:
            paired_note = (f"\ncompat's seed k runs the requests MQSim's seed k drew (its flows' <Seed>s, `mqsim_draws`): compared over "
                           f"seed{'s' if len(paired) > 1 else ''} {', '.join(map(str, paired))}" + (" (MQSim's failed seeds have no pair)" if len(paired) < seeds else ""))
        runs = [run_nest(ssdconfig, wl_of(k), trace_dir, out / f"nest-{label}-seed{k}", compat, list(overrides or []) + [f"run.seed={k}"])
                for k in paired]
        stalls += [line for k, r in zip(paired, runs) for line in stalled(f"NeSt {label} seed {k}", r[0], expected)]
        nest[label], ranges[label] = _median_of([r[0] for r in runs])
        nest_counters[label] = _median_of([r[1] for r in runs])[0]
    traces = set().union(*(c.get("_traces", set()) for runs in nest_counters.values() for c in runs.values()))
    for runs in nest_counters.values():
        for c in runs.values():
            c.pop("_traces", None)
    rows, counters = table(mq, nest, traces, dict(ranges, mqsim=mq_ranges, mqsim_halves=mq_halves)), counter_rows(mq_counters, nest_counters)
    doc = {"schema": 1, "mqsim": str(binary), "ssdconfig": str(ssdconfig), "workload": str(workload), "modes": list(nest),
           "overrides": list(overrides or []), "seeds": seeds, "mqsim_seeds": mq_seeds, "mqsim_failed": mq_failed,
           "stalled": stalls,
           "percentiles": percentiles, "tolerance_pct": TOLERANCE, "min_n": MIN_N, "rows": rows, "counters": counters,
           "text": render(rows, counters, list(nest), percentiles, seeds, len(finished) if mq_seeds > 1 else None)
           + "".join(f"\nMQSim failed on {f}; left out of its medians" for f in mq_failed) + paired_note
           + "".join(f"\n{line}" for line in stalls)
           + ("\na run that ends short of its requests stalled (its events ran out with requests outstanding): its figures "
              "cover only what completed, up to a point that moves with the seed; MQSim's class round-robin strands a "
              "lone LOW class so, a read of an LPA a GC job has locked never completes (each one a queue slot lost "
              "for the rest of the run), and writes held at GC's threshold wait for good when the GC check drew a block "
              "with no invalid page (MQSim then crashes freeing them, after writing its results: compared as written); "
              "NeSt's compat mode reproduces all three (docs/mqsim.md)" if stalls else "")}
    (out / "crosscheck.json").write_text(json.dumps(doc, indent=1, default=float) + "\n")
    return doc
