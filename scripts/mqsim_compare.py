#!/usr/bin/env python3
"""NeSt beside MQSim on MQSim's own reference work (`$NEST_SHARED/mqsim/reference`): runs each
reference with `nestsim run --mqsim` on the stock ssdconfig.xml, in NeSt's default model and in
the MQSim-compatible one (`--compat`), and prints, per flow and operation, MQSim's mean, p50,
p90, p99, p99.9, max and IOPS beside both, with the differences.

    python scripts/mqsim_compare.py [-o results.json] [--mode default|compat|both] [--set KEY=VALUE ...]

`--set` passes overrides to every run (e.g. `--set device[0].model.die_interleave=true` to see
what one switch does).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

SHARED = Path(os.environ.get("NEST_SHARED", Path(__file__).resolve().parent.parent.parent / "shared"))
METRICS = [("mean", "mean"), ("p50", "p50"), ("p90", "p90"), ("p99", "p99"), ("p99.9", "p99_9"), ("max", "max")]
OPS = {"ALL": "all", "READ": "read", "WRITE": "write"}


def parse_percentiles(path: Path) -> dict:
    """{scenario: {flow: {op: {metric: µs, 'iops': …}}}} from MQSim's percentiles.txt."""
    out: dict = {}
    scenario = None
    for line in path.read_text().splitlines():
        m = re.match(r"== scenario (\d+)", line)
        if m:
            scenario = int(m.group(1))
            continue
        m = re.match(r"\s*flow (\d+) (ALL|READ|WRITE)\s*: n=(\d+) (.*)IOPS\(true sim time\)=(\d+)", line)
        if m and scenario is not None:
            # "mean=674.6us min=21.8 p50=673.7 …": every value in µs
            entry = {k: float(v) for k, v in re.findall(r"([\w.]+)=([\d.]+)", m.group(4))}
            entry["n"] = int(m.group(3))
            entry["iops"] = float(m.group(5))
            out.setdefault(scenario, {}).setdefault(int(m.group(1)), {})[OPS[m.group(2)]] = entry
    return out


def run_nest(workload: Path, scenario: int, out: Path, extra: list, compat: bool) -> dict:
    cmd = [sys.executable, "-m", "nestsim", "run", "--mqsim", str(SHARED / "mqsim" / "ssdconfig.xml"), str(workload),
           "--scenario", str(scenario), "--trace-dir", str(SHARED / "traces" / "mqsim_tpcc_small"),
           "--set", "output.requests=false", "-o", str(out), "-q"]
    for s in extra:
        cmd += ["--set", s]
    if compat:
        cmd.append("--compat")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"nestsim failed on {workload} scenario {scenario}:\n{p.stderr[-2000:]}")
    return json.loads((out / f"scenario{scenario}" / "summary.json").read_text())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", help="write the table as JSON here")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--mode", choices=["default", "compat", "both"], default="both")
    a = ap.parse_args()
    ref = SHARED / "mqsim" / "reference"
    if not ref.is_dir():
        print(f"MQSim reference not found at {ref} (set NEST_SHARED)", file=sys.stderr)
        return 2
    cases = [("rand4k-r70w30-qd64", ref / "rand4k-r70w30-qd64" / "workload.xml", ref / "rand4k-r70w30-qd64" / "percentiles.txt")]
    cases += [("stock", SHARED / "mqsim" / "workload.xml", ref / "stock" / "percentiles.txt")]
    modes = {"default": [False], "compat": [True], "both": [False, True]}[a.mode]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, wl, pct in cases:
            mq = parse_percentiles(pct)
            for scenario, flows in sorted(mq.items()):
                runs = {c: run_nest(wl, scenario, Path(tmp) / f"{name}-{scenario}-{int(c)}", a.overrides, c) for c in modes}
                for flow, ops in sorted(flows.items()):
                    for op, m in ops.items():
                        for label, key in METRICS + [("IOPS", "iops")]:
                            theirs = m["iops"] if key == "iops" else m.get(label)
                            if theirs is None:
                                continue
                            row = {"case": name, "scenario": scenario, "flow": flow, "op": op, "metric": label, "mqsim": theirs}
                            for c, s in runs.items():
                                n = s["workloads"][f"flow{flow}"][op]
                                mine = n["iops"] if key == "iops" else n["lat_us"][key]
                                tag = "compat" if c else "nest"
                                row[tag] = round(mine, 1)
                                row[f"{tag}_diff_pct"] = round(100 * (mine - theirs) / theirs, 1)
                            rows.append(row)
    cols = [t for t in ("nest", "compat") if any(t in r for r in rows)]
    head = "".join(f" {('NeSt' if t == 'nest' else 'compat'):>10} {'diff':>8}" for t in cols)
    print(f"{'case':<20} {'sc':>2} {'flow':>4} {'op':<5} {'metric':<6} {'MQSim':>10}{head}")
    for r in rows:
        vals = "".join(f" {r[t]:>10.1f} {r[t + '_diff_pct']:>+7.1f}%" for t in cols)
        print(f"{r['case']:<20} {r['scenario']:>2} {r['flow']:>4} {r['op']:<5} {r['metric']:<6} {r['mqsim']:>10.1f}{vals}")
    if a.output:
        Path(a.output).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
