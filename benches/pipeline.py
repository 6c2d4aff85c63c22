"""What users run, measured as they run it: each case is one `nestsim` command in a child
process, with its outputs on. Prints CPU seconds (user + system of the child: the machine is
shared, wall time is noisy; the least of `--repeat` runs), the wall time of that run, the rate
per CPU second, peak RSS, and each figure beside the last recorded run (`benches/recorded.json`).

    python benches/pipeline.py              # measure, compare with the recorded run
    python benches/pipeline.py --record     # ... and record this run as the new baseline
    python benches/pipeline.py --only ssd   # the cases whose name starts so
    python benches/pipeline.py --only anchor-mqsim   # MQSim itself beside NeSt, interleaved
    python benches/pipeline.py --only startup        # what the command costs before a run starts

The MQSim anchor (issue 64): where `$NEST_SHARED/mqsim/bundle/bin/MQSim` runs here, MQSim 7ec40e3
and NeSt (`nestsim run --mqsim`, with and without per-request output) run the same files — the 1 M
request 4 KiB 70/30 QD 64 reference workload on MQSim's stock ssdconfig.xml — in turn, `--repeat`
rounds, and the speed-up is the ratio of the least CPU times of runs made in the same minutes.

The ns-3 anchor: where a Python has ns-3's bindings (`pip install nestsim[anchors]`, the `ns3`
wheel; this interpreter, or the one `NEST_NS3_PYTHON` names), `benches/ns3_dumbbell.py` runs
examples/dctcp-dumbbell.toml's network in ns-3 and NeSt runs the scenario itself (tables off), in
turn; the ratios are ns-3's `Simulator::Run` CPU time over NeSt's run phase (run.json) and over
NeSt's whole process.

    python benches/pipeline.py --only anchor-ns3
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RECORDED = HERE / "recorded.json"


def msr_trace(path: Path, n: int) -> None:
    """A synthetic MSR-Cambridge trace of `n` records (deterministic): 4–64 KiB, 70 % reads,
    one record every 5 µs on average (200 K IOPS offered, a pace the stock drive keeps up with)."""
    import numpy as np

    rng = np.random.default_rng(1)
    t = 128166385295514663 + np.cumsum(rng.exponential(50.0, n)).astype(np.int64)  # 100 ns ticks
    kind = np.where(rng.random(n) < 0.7, "Read", "Write")
    off = rng.integers(0, 1 << 24, n) * 4096
    size = 4096 * rng.integers(1, 17, n)
    with open(path, "w") as f:
        for a, k, o, s in zip(t.tolist(), kind.tolist(), off.tolist(), size.tolist()):
            f.write(f"{a},hm,0,{k},{o},{s},100\n")


def cases(tmp: Path):
    """(name, argv after `nestsim`, what to count: 'ios' or 'packets')."""
    ssd = str(HERE / "ssd-rand4k.toml")
    trace = tmp / "msr-1m.csv"
    yield ("ssd-rand4k-qd64-1M", ["run", ssd], "ios")
    yield ("ssd-rand4k-qd64-1M-no-requests", ["run", ssd, "--set", "output.requests=false"], "ios")
    # The same work on an ideal device: the pipeline's floor, so that what the SSD model itself
    # costs is the difference (printed after the table).
    ideal = str(HERE / "ideal-rand4k.toml")
    yield ("ideal-rand4k-qd64-1M", ["run", ideal], "ios")
    yield ("ideal-rand4k-qd64-1M-no-requests", ["run", ideal, "--set", "output.requests=false"], "ios")
    # Written by a child process: a parent grown by building it would pass its size on to every
    # child's peak RSS (a forked child counts its parent's pages until it executes).
    make = [sys.executable, str(Path(__file__).resolve()), "--make-trace", str(trace), "1000000"]
    yield ("replay-msr-1M-ideal", lambda: subprocess.run(make, check=True) and
           ["replay", str(trace), "--format", "msr", "--device", "ideal:servers=64,read=20us,write=20us"], "ios")
    # NeSt on MQSim's own files (`run --mqsim`) runs beside MQSim in the anchor below.
    dumbbell = str(ROOT / "examples" / "dctcp-dumbbell.toml")
    yield ("dctcp-dumbbell-0.5s", ["run", dumbbell], "packets")
    yield ("dctcp-dumbbell-0.5s-1us-series", ["run", dumbbell, "--set", "run.interval=1us"], "packets")
    yield ("dctcp-dumbbell-0.5s-1us-change-rows", ["run", dumbbell, "--set", "run.interval=1us",
                                                   "--set", "output.timeseries_rows=change"], "packets")


def measure(argv, out: Path) -> dict:
    """Runs `nestsim ARGV -o OUT -q` and returns its CPU seconds, peak RSS and summary."""
    cmd = [sys.executable, "-m", "nestsim", *argv, "-o", str(out), "-q"]
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode() if p.stderr else ""
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {p.returncode}:\n{err[-2000:]}")
    found = sorted(out.rglob("summary.json"))  # `--mqsim` writes scenario1/summary.json
    run = json.loads((found[0].parent / "run.json").read_text())
    return {"cpu_s": ru.ru_utime + ru.ru_stime, "wall_s": wall, "peak_rss_mb": ru.ru_maxrss / 1024,
            "summary": json.loads(found[0].read_text()), "run_cpu_s": run["cpu_s"]}


def startup(repeat: int) -> None:
    """What `nestsim` costs before a run starts (issue 64: ≤ 50 ms): the command's imports in a
    child process, least of `repeat`; and a short network run with no table output, whose
    process is then the interpreter, those imports and the engine (numpy and pyarrow never load)."""
    imports = []
    for _ in range(max(3, repeat)):
        t0 = time.perf_counter()
        p = subprocess.Popen([sys.executable, "-c", "import nestsim.cli"], cwd=ROOT)
        _, status, ru = os.wait4(p.pid, 0)
        imports.append((ru.ru_utime + ru.ru_stime, time.perf_counter() - t0))
    cpu, wall = min(imports)
    print(f"\n`import nestsim.cli` in a fresh interpreter: {cpu * 1e3:.0f} ms CPU, {wall * 1e3:.0f} ms wall (least of {len(imports)})")
    with tempfile.TemporaryDirectory() as d:
        dumbbell = str(ROOT / "examples" / "dctcp-dumbbell.toml")
        runs = [measure(["run", dumbbell, "--set", "output.requests=false", "--set", "output.timeseries=false"], Path(d) / f"s{i}")
                for i in range(max(3, repeat))]
    m = min(runs, key=lambda r: r["cpu_s"])
    print(f"dctcp-dumbbell-0.5s, no table output: process {m['cpu_s']:.3f} CPU-s, of which the run {m['run_cpu_s']:.3f} "
          f"(outside it: {(m['cpu_s'] - m['run_cpu_s']) * 1e3:.0f} ms)")


def mqsim_cpu(binary: Path, ssdconfig: Path, workload: Path, work: Path) -> dict:
    """MQSim on a copy of `workload` in `work` (it writes its results beside the file and waits
    for a key press at the end: stdin is /dev/null); CPU seconds and peak RSS of the child."""
    import shutil

    work.mkdir(parents=True, exist_ok=True)
    wl = work / "workload.xml"
    shutil.copy(workload, wl)
    t0 = time.perf_counter()
    p = subprocess.Popen([str(binary), "-i", str(ssdconfig), "-w", str(wl)], cwd=work, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.read().decode(errors="replace") if p.stdout else ""
    _, status, ru = os.wait4(p.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0 or "ERROR" in out:
        raise SystemExit(f"MQSim exited {code} on {workload}:\n{out[-2000:]}")
    return {"cpu_s": ru.ru_utime + ru.ru_stime, "wall_s": time.perf_counter() - t0, "peak_rss_mb": ru.ru_maxrss / 1024}


def anchor_mqsim(tmp: Path, repeat: int) -> Optional[dict]:
    """MQSim and NeSt on the same files, interleaved round by round; None where MQSim is absent."""
    shared = Path(os.environ.get("NEST_SHARED", ROOT.parent / "shared"))
    binary = shared / "mqsim" / "bundle" / "bin" / "MQSim"
    ssd, ref = shared / "mqsim" / "ssdconfig.xml", shared / "mqsim" / "reference" / "rand4k-r70w30-qd64" / "workload.xml"
    if not (binary.exists() and ssd.exists() and ref.exists()):
        print(f"(MQSim anchor skipped: {binary} or the reference workload not found)")
        return None
    runs: dict = {"MQSim": [], "NeSt": [], "NeSt-no-requests": []}
    for i in range(max(1, repeat)):
        runs["MQSim"].append(mqsim_cpu(binary, ssd, ref, tmp / f"mqsim-{i}"))
        runs["NeSt"].append(measure(["run", "--mqsim", str(ssd), str(ref)], tmp / f"nest-{i}"))
        runs["NeSt-no-requests"].append(measure(["run", "--mqsim", str(ssd), str(ref), "--set", "output.requests=false"],
                                                tmp / f"nest-nr-{i}"))
    best = {k: min(v, key=lambda r: r["cpu_s"]) for k, v in runs.items()}
    n = count(best["NeSt"]["summary"], "ios")
    m = best["MQSim"]
    print(f"\n== MQSim 7ec40e3 beside NeSt, same files, interleaved ({max(1, repeat)} rounds; least CPU time) ==")
    print(f"{'run':<34} {'CPU-s':>7} {'wall-s':>7} {'I/Os / CPU-s':>14} {'peak RSS':>9}   {'MQSim ÷ this':>12}")
    for k, r in best.items():
        print(f"{k:<34} {r['cpu_s']:7.2f} {r['wall_s']:7.2f} {n / r['cpu_s'] / 1e3:11.1f} K {r['peak_rss_mb']:7.0f} MB   "
              f"{m['cpu_s'] / r['cpu_s']:11.1f}x")
    return {"mqsim_cpu_s": round(m["cpu_s"], 3), "mqsim_peak_rss_mb": round(m["peak_rss_mb"], 1),
            "speedup_with_requests": round(m["cpu_s"] / best["NeSt"]["cpu_s"], 2),
            "speedup_without_requests": round(m["cpu_s"] / best["NeSt-no-requests"]["cpu_s"], 2), "ios": n}


def ns3_python() -> Optional[str]:
    """A Python with ns-3's bindings: `NEST_NS3_PYTHON`, else this one if it has them."""
    import importlib.util

    explicit = os.environ.get("NEST_NS3_PYTHON")
    if explicit:
        return explicit
    return sys.executable if importlib.util.find_spec("ns") is not None else None


def anchor_ns3(tmp: Path, repeat: int) -> Optional[dict]:
    """ns-3 and NeSt on the DCTCP dumbbell, interleaved round by round; None where ns-3 is absent."""
    py = ns3_python()
    if py is None:
        print("(ns-3 anchor skipped: no Python with ns-3's bindings; `pip install nestsim[anchors]` or set NEST_NS3_PYTHON)")
        return None
    dumbbell = str(ROOT / "examples" / "dctcp-dumbbell.toml")
    ns3, nest = [], []
    for i in range(max(1, repeat)):
        p = subprocess.run([py, str(HERE / "ns3_dumbbell.py")], capture_output=True, text=True)
        lines = [x for x in p.stdout.splitlines() if x.startswith("{")]
        if p.returncode != 0 or not lines:
            print(f"(ns-3 anchor failed: exit {p.returncode}: {(p.stderr or p.stdout)[-500:]})")
            return None
        ns3.append(json.loads(lines[-1]))
        nest.append(measure(["run", dumbbell, "--set", "output.requests=false", "--set", "output.timeseries=false"],
                            tmp / f"nest-dumbbell-{i}"))
    n3 = min(ns3, key=lambda r: r["run_cpu_s"])
    ne = min(nest, key=lambda r: r["cpu_s"])
    ne_run = min(r["run_cpu_s"] for r in nest)
    gbps = ne["summary"]["network"]["total_throughput_gbps"]
    print(f"\n== ns-3 beside NeSt, the DCTCP dumbbell (0.5 s simulated), interleaved ({max(1, repeat)} rounds; least CPU time) ==")
    print(f"{n3['simulator']}: Simulator::Run {n3['run_cpu_s']:.2f} CPU-s (its bindings' import {n3['import_cpu_s']:.1f} more), "
          f"goodput {n3['goodput_gbps']:.2f} Gb/s")
    print(f"NeSt: run {ne_run:.3f} CPU-s, whole process {ne['cpu_s']:.3f} CPU-s, goodput {gbps:.2f} Gb/s")
    print(f"ns-3 ÷ NeSt: {n3['run_cpu_s'] / ne_run:.0f}x (run phases), {n3['run_cpu_s'] / ne['cpu_s']:.0f}x (NeSt's whole process)")
    return {"ns3_run_cpu_s": n3["run_cpu_s"], "nest_run_cpu_s": round(ne_run, 4), "nest_process_cpu_s": round(ne["cpu_s"], 4),
            "speedup_run": round(n3["run_cpu_s"] / ne_run, 1), "speedup_process": round(n3["run_cpu_s"] / ne["cpu_s"], 1)}


def count(summary: dict, what: str) -> float:
    if what == "ios":
        return summary["requests"]["completed"]
    return summary["network"]["packets"]["delivered"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--record", action="store_true", help="record this run in benches/recorded.json")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--repeat", type=int, default=3, help="runs per case; the least CPU time counts (the machine is shared)")
    ap.add_argument("--make-trace", nargs=2, metavar=("PATH", "N"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.make_trace:
        msr_trace(Path(a.make_trace[0]), int(a.make_trace[1]))
        return 0
    before = json.loads(RECORDED.read_text()) if RECORDED.exists() else {}
    prev = before.get("cases", {})
    now = {}
    print(f"== whole pipeline through the CLI, outputs on (vs recorded {before.get('date', 'never')}) ==")
    print(f"{'case':<34} {'CPU-s':>7} {'wall-s':>7} {'rate / CPU-s':>16} {'peak RSS':>9}   {'vs recorded (CPU-s, RSS)':>24}")
    with tempfile.TemporaryDirectory() as d:
        for name, argv, what in cases(Path(d)):
            if a.only is not None and not any(name.startswith(o) for o in a.only):
                continue
            if callable(argv):
                argv = argv()
            runs = [measure(argv, Path(d) / f"{name}-{i}") for i in range(max(1, a.repeat))]
            m = min(runs, key=lambda r: r["cpu_s"])
            n = count(m["summary"], what)
            rate = n / m["cpu_s"]
            now[name] = {"cpu_s": round(m["cpu_s"], 3), "wall_s": round(m["wall_s"], 3), "rate_per_cpu_s": round(rate), "unit": what,
                         "count": n, "peak_rss_mb": round(m["peak_rss_mb"], 1)}
            old = prev.get(name)
            vs = (f"{old['cpu_s'] / m['cpu_s']:5.2f}x faster, RSS {m['peak_rss_mb'] / old['peak_rss_mb']:4.2f}x"
                  if old else "(not recorded)")
            unit = "I/Os" if what == "ios" else "pkts"
            print(f"{name:<34} {m['cpu_s']:7.2f} {m['wall_s']:7.2f} {rate / 1e6:9.3f} M {unit} {m['peak_rss_mb']:7.0f} MB   {vs:>24}",
                  flush=True)
        if a.only is None or any("startup".startswith(o) for o in a.only):
            startup(a.repeat)
        anchor = anchor_mqsim(Path(d), a.repeat) if a.only is None or any("anchor-mqsim".startswith(o) for o in a.only) else None
        net_anchor = anchor_ns3(Path(d), a.repeat) if a.only is None or any("anchor-ns3".startswith(o) for o in a.only) else None
    for suffix, what in (("", "per-request output on"), ("-no-requests", "output off")):
        ssd, ideal = now.get(f"ssd-rand4k-qd64-1M{suffix}"), now.get(f"ideal-rand4k-qd64-1M{suffix}")
        if ssd and ideal:
            own = ssd["cpu_s"] - ideal["cpu_s"]
            print(f"the SSD model itself, {what}: {own:.2f} CPU-s = {own / ssd['count'] * 1e9:.0f} ns per I/O "
                  f"(the stock drive's run less the ideal device's)")
    if a.record:
        cases_all = {**prev, **now}
        if anchor:
            cases_all["anchor-mqsim"] = anchor
        if net_anchor:
            cases_all["anchor-ns3"] = net_anchor
        RECORDED.write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "machine": f"{platform.machine()}, "
                                        f"{os.cpu_count()} CPUs, {platform.python_version()}", "cases": cases_all},
                                       indent=1, sort_keys=True) + "\n")
        print(f"recorded in {RECORDED.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
