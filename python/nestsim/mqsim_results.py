"""MQSim's per-flow results file (`WORKLOAD_scenario_N.xml`) for a `nestsim run --mqsim` run, so
scripts that parse MQSim's output read NeSt's unchanged.

MQSim writes, per IO_Scenario, ``<MQSim_Results><Host><Host.IO_Flow>…`` with one child element
per statistic, in this order and in its own layout (tabs, ``us-ascii``, numbers as C++'s
``std::to_string``). NeSt writes the same elements for each flow. What they mean here:
- ``Name``: MQSim's flow id, ``Host.IO_Flow.Synth.No_I`` or ``Host.IO_Flow.Trace.FILE`` (the
  trace's file name); NeSt's workload ``flowI``.
- counts are the flow's completed requests over the whole run, warm-up included (MQSim counts
  the requests it generated; an `--mqsim` run drains, so every generated request completes);
  ``IOPS*`` and ``Bandwidth*`` divide by the simulated time, as MQSim does;
  ``Bytes_Transferred*`` is the bytes of those requests.
- ``Device_Response_Time`` is from entering the SQ to completion (MQSim: ``Enqueue_time`` to the
  CQE), ``End_to_End_Request_Delay`` from arrival; µs, truncated to integers, as MQSim prints them.
MQSim also writes the drive's internal statistics (``SSDDevice…``); NeSt's are in
summary.json and are not repeated here.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import numpy as np

from .columns import batches

FIELDS = ["Name", "Request_Count", "Read_Request_Count", "Write_Request_Count", "IOPS", "IOPS_Read", "IOPS_Write",
          "Bytes_Transferred", "Bytes_Transferred_Read", "Bytes_Transferred_Write", "Bandwidth", "Bandwidth_Read",
          "Bandwidth_Write", "Device_Response_Time", "Min_Device_Response_Time", "Max_Device_Response_Time",
          "End_to_End_Request_Delay", "Min_End_to_End_Request_Delay", "Max_End_to_End_Request_Delay"]


def _double(x: float) -> str:
    """C++'s std::to_string(double): fixed, six decimals."""
    return f"{x:.6f}"


def flow_name(index: int, workload: dict) -> str:
    trace = workload.get("trace")
    if isinstance(trace, dict) and trace.get("path"):
        return f"Host.IO_Flow.Trace.{Path(trace['path']).name}"
    return f"Host.IO_Flow.Synth.No_{index}"


class FlowTotals:
    """One flow's requests, summed as the requests table is read a batch at a time: counts and
    bytes per direction, and the sum, least and most of its device response times and of its
    end-to-end delays (ps)."""

    def __init__(self) -> None:
        self.n = [0, 0]  # reads, writes
        self.bytes = [0, 0]
        self.dev = [0, None, None]  # sum, min, max
        self.e2e = [0, None, None]

    def add(self, read: np.ndarray, size: np.ndarray, arrive: np.ndarray, sq: np.ndarray, done: np.ndarray) -> None:
        n_r = int(read.sum())
        self.n[0] += n_r
        self.n[1] += len(read) - n_r
        self.bytes[0] += int(size[read].sum())
        self.bytes[1] += int(size[~read].sum())
        for acc, d in ((self.dev, done - sq), (self.e2e, done - arrive)):
            acc[0] += int(d.sum())
            lo, hi = int(d.min()), int(d.max())
            acc[1] = lo if acc[1] is None else min(acc[1], lo)
            acc[2] = hi if acc[2] is None else max(acc[2], hi)


def flow_totals(requests, rows: int = 131_072) -> dict:
    """Each flow's FlowTotals, by workload name, from a requests table or the path of its
    requests.parquet (read ``rows`` at a time)."""
    out: dict = {}
    for c in batches(requests, ["workload", "op", "size", "t_arrive_ps", "t_dispatch_ps", "t_complete_ps"], rows):
        read = c["op"] == "read"
        size, arrive = c["size"].astype(np.int64), c["t_arrive_ps"].astype(np.int64)
        sq, done = c["t_dispatch_ps"].astype(np.int64), c["t_complete_ps"].astype(np.int64)
        # The flows present, in order of appearance: the column holds one string object per
        # name, so a dict finds them in one pass (np.unique sorted the objects: 1.16 CPU-s per
        # 10⁶ rows against 0.07; issue 64).
        for name in dict.fromkeys(c["workload"].tolist()):
            mine = c["workload"] == name
            out.setdefault(name, FlowTotals()).add(read[mine], size[mine], arrive[mine], sq[mine], done[mine])
    return out


def flow_stats(name: str, sim_s: float, totals: Optional[FlowTotals], counts: tuple = (0, 0)) -> List[str]:
    """The values of FIELDS for one flow, as MQSim prints them. Without its totals (no requests
    table) only the (read, write) ``counts`` the summary has are known; a flow with no rows in
    the table is all zeros."""
    per_s = lambda n: _double(n / sim_s if sim_s > 0 else 0.0)  # noqa: E731
    us = lambda ps: str(int(ps // 1_000_000))  # noqa: E731
    if totals is None or sum(totals.n) == 0:
        n_r, n_w = counts
        return [name, str(n_r + n_w), str(n_r), str(n_w), per_s(n_r + n_w), per_s(n_r), per_s(n_w), _double(0), _double(0),
                _double(0), per_s(0), per_s(0), per_s(0), "0", "0", "0", "0", "0", "0"]
    (n_r, n_w), (b_r, b_w) = totals.n, totals.bytes
    n = n_r + n_w
    # The mean of exact integer sums (one rounding), where numpy's would add floats pairwise.
    rt = lambda acc: [us(acc[0] / n), us(acc[1]), us(acc[2])]  # noqa: E731
    return [name, str(n), str(n_r), str(n_w), per_s(n), per_s(n_r), per_s(n_w),
            _double(b_r + b_w), _double(b_r), _double(b_w), per_s(b_r + b_w), per_s(b_r), per_s(b_w),
            *rt(totals.dev), *rt(totals.e2e)]


def results_xml(summary: dict, requests=None) -> str:
    """The results document of one IO_Scenario run (``summary`` and its requests table, or the
    path of its requests.parquet)."""
    sim_s = summary["sim_time_s"]
    totals = flow_totals(requests) if requests is not None else None
    lines = ['<?xml version="1.0" encoding="us-ascii"?>', "<MQSim_Results>", "\t<Host>"]
    for i, w in enumerate(summary.get("config", {}).get("workload", [])):
        if w["name"] not in summary["workloads"]:
            continue
        lines.append("\t\t<Host.IO_Flow>")
        if totals is None:
            flow, counts = None, tuple(summary["workloads"][w["name"]][op]["ios"] for op in ("read", "write"))
        else:
            flow, counts = totals.get(w["name"]), (0, 0)
        for field, value in zip(FIELDS, flow_stats(flow_name(i, w), sim_s, flow, counts)):
            lines.append(f"\t\t\t\t <{field}>{value}</{field}>")
        lines.append("\t\t</Host.IO_Flow>")
    lines += ["\t</Host>", "</MQSim_Results>"]
    return "\n".join(lines) + "\n"


def write(out_dir: Path, workload_xml: Path, scenario_index: int, summary: dict, requests=None) -> Path:
    """Writes ``WORKLOAD_scenario_N.xml`` (MQSim's name for it) into the run directory."""
    path = Path(out_dir) / f"{Path(workload_xml).stem}_scenario_{scenario_index}.xml"
    path.write_text(results_xml(summary, requests), encoding="ascii", errors="replace")
    return path
