"""The `nestsim` command: run, validate, replay, experiment, sweep, report.

Exit status: 0 on success (an experiment whose claims do not hold still succeeds), 2 for bad
input (scenario, trace, job file, arguments) with a message naming file, line and key, 3 when a
built-in conservation check failed, 4 when a run stopped at a budget (--max-events, --max-wall,
--max-memory; its partial outputs written), 70 for an internal error (a bug in NeSt: a Rust
panic or an unexpected Python exception, reported with the input that caused it).
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import re
import sys
from pathlib import Path
from typing import List, Optional

# The CLI uses numpy for columns, never for linear algebra, but OpenBLAS starts a thread per core
# at import that spins ~0.1 CPU-s: one thread is enough. Set before numpy loads (the package's
# __init__ defers it); a value the user set wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# Arrow's buffers from the C library's allocator, as the engine's and NumPy's are, instead of
# Arrow's own mimalloc, which keeps what Arrow frees: reading the requests back for `--mqsim`'s
# results file grew RSS by ~75 MB with it and ~30 MB without. Peak RSS, same CPU time (issue
# 24): the stock drive's 1 M requests 272 → 255 MB, through `--mqsim` 291–306 → 255–266, the
# dumbbell's 1 µs series 120 → 110. Set before pyarrow loads: it picks its pool at import
# (`pa.set_memory_pool` later does not reach the Parquet code). A value the user set wins.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

from . import _native, haechi  # noqa: E402
from .display import render  # noqa: E402
from .runner import Budget, run, write_json  # noqa: E402

#: Exit status of an internal error (BSD sysexits' EX_SOFTWARE).
EXIT_INTERNAL = 70
#: Exit status of a run stopped at a budget, its partial outputs written.
EXIT_STOPPED = 4


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=None, help="override run.seed")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a scenario key, e.g. --set run.duration=2ms --set workload[0].class=low")


def _parse_device(spec: str) -> dict:
    """`ideal[:servers=8,read=80us,write=20us,read_bw=3GB/s,write_bw=2GB/s]`, `ssd[:PRESET]` (consumer-nvme
    unless named) or `pm`."""
    kind, _, params = spec.partition(":")
    if kind == "ssd":
        # A present-day consumer drive unless a preset is named: mqsim-default keeps MQSim's stock
        # 200 MB/s cache DRAM, which bounds most runs (issue 62, finding 7).
        preset = params or "consumer-nvme"
        if preset not in _native.ssd_presets():
            raise ValueError(f"--device '{spec}': no SSD preset '{preset}' (presets: {', '.join(_native.ssd_presets())})")
        return {"name": "dev0", "kind": "ssd", "preset": preset}
    if kind == "pm":
        return {"name": "dev0", "kind": "pm"}
    if kind != "ideal":
        raise ValueError(f"--device '{spec}': expected ideal[:...], ssd:PRESET or pm")
    kv = dict(p.split("=", 1) for p in params.split(",") if p) if params else {}
    unknown = set(kv) - {"servers", "read", "write", "read_bw", "write_bw"}
    if unknown:
        raise ValueError(f"--device: unknown parameter(s) {sorted(unknown)} (expected servers, read, write, read_bw, write_bw)")
    dev = {"name": "dev0", "kind": "ideal", "servers": int(kv.get("servers", 8)),
           "read": {"dist": "fixed", "value": kv.get("read", "80us")},
           "write": {"dist": "fixed", "value": kv.get("write", "20us")}}
    if "read_bw" in kv:
        dev["read_bandwidth"] = kv["read_bw"]
    if "write_bw" in kv:
        dev["write_bandwidth"] = kv["write_bw"]
    return dev


def _add_budget(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-events", type=_positive_int, default=None, metavar="N",
                   help="stop after N events (deterministic), writing partial outputs; exit 4")
    p.add_argument("--max-wall", type=_positive_float, default=None, metavar="SECONDS",
                   help="stop after this much wall-clock time, writing partial outputs; exit 4")
    p.add_argument("--max-memory", type=_size, default=None, metavar="SIZE",
                   help="stop when the process holds more than SIZE (e.g. 4GB, 512MiB; default 80%% of the machine), "
                        "writing partial outputs; exit 4")


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': expected a whole number") from None
    if v <= 0:
        raise argparse.ArgumentTypeError(f"'{text}': expected a number above 0")
    return v


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': expected a number of seconds") from None
    if not 0 < v < 1e9:
        raise argparse.ArgumentTypeError(f"'{text}': expected seconds above 0")
    return v


def _size(text: str) -> int:
    """A size as scenarios write them (the engine's own parser)."""
    try:
        v = _native.parse_size(text)
    except _native.ConfigError as e:
        raise argparse.ArgumentTypeError(f"'{text}': expected a size such as 4GB, 512MiB or 1000000 (bytes): {e}") from None
    if v < 2**20:
        raise argparse.ArgumentTypeError(f"'{text}': expected at least 1 MiB")
    return v


def _budget(a) -> Budget:
    return Budget(events=a.max_events, wall_s=a.max_wall, memory_bytes=a.max_memory)


def _stopped_message(summary: dict) -> str:
    """Why a run stopped early, and — for memory — which workload drove it."""
    st = summary["stopped"]
    at = f"at simulated {st.get('at_sim_s', 0):.6g} s"
    if st["by"] == "events":
        return f"stopped after {st['limit']:,} events (--max-events) {at}"
    if st["by"] == "wall_s":
        return f"stopped after {st['limit']:g} s of wall time (--max-wall) {at}"
    if st["by"] == "signal":
        return f"stopped by {st['signal']} {at}"
    why = (f"stopped {at}: the process held {st['rss_bytes'] / 2**20:,.0f} MiB, over the memory limit "
           f"{st['limit_bytes'] / 2**20:,.0f} MiB (--max-memory)")
    wls = summary.get("workloads", {})
    if wls:
        name, w = max(wls.items(), key=lambda kv: kv[1].get("in_flight", 0))
        if w.get("in_flight", 0) > 1000:
            why += (f"; {w['in_flight']:,} requests in flight, most of them workload '{name}' "
                    f"(issued {w.get('issued', 0):,}, completed {w.get('completed', 0):,}): it issues faster than "
                    f"device '{w.get('device')}' serves — lower its rate or set a queue depth")
    return why


def _checked(res, out: Path) -> int:
    """Exit status of a finished run (a RunResult, or a Haechi run's summary): 3 when a built-in
    check failed (request or network conservation), its outputs kept for inspection; 4 when it
    stopped at a budget; 0 otherwise. A RunResult's head has what this needs, so its summary is
    not parsed for it."""
    if isinstance(res, dict):
        head = {"stopped": res.get("stopped"), "conservation": res.get("conservation"),
                "network_conservation": res.get("network", {}).get("conservation")}
    else:
        head = res.head
    if head.get("stopped"):
        summary = res if isinstance(res, dict) else res.summary
        print(f"nestsim: {_stopped_message(summary)} (partial outputs in {out}/)", file=sys.stderr)
        return EXIT_STOPPED
    bad = [f"conservation: {head['conservation']}"] if head.get("conservation") != "ok" else []
    net = head.get("network_conservation")
    if net not in (None, "ok"):
        bad.append(f"network conservation: {net}")
    for b in bad:
        print(f"nestsim: check failed: {b} (outputs in {out}/)", file=sys.stderr)
    return 3 if bad else 0


def cmd_run(a) -> int:
    if a.mqsim:
        return _run_mqsim(a)
    if a.compat:
        raise ValueError("--compat goes with --mqsim (in a scenario file, set compat = \"mqsim\" on the [[device]])")
    if not a.scenario:
        raise ValueError("give a scenario file, or --mqsim SSDCONFIG.xml WORKLOAD.xml")
    out = Path(a.output) if a.output else Path("out") / Path(a.scenario).stem
    if haechi.is_haechi_file(a.scenario):
        _haechi_only(a)
        summary, info = haechi.run_file(a.scenario, out)
        if not a.quiet:
            print(haechi.render(summary, info))
            print(f"\noutputs in {out}/")
        return _checked(summary, out)
    res = run(a.scenario, seed=a.seed, overrides=_fio_override(a), out_dir=out, progress=None if not a.quiet else False,
              budget=_budget(a), keep_tables=False, stop_on_signal=True)
    if not a.quiet:
        print(render(res.summary, res.run_info))
        print(f"\noutputs in {out}/")
    return _checked(res, out)


def _fio_override(a) -> list:
    """`--fio-json` is `--set output.fio_json=true`."""
    return list(a.overrides) + (["output.fio_json=true"] if getattr(a, "fio_json", False) else [])


def cmd_fio(a) -> int:
    """A fio job file run directly against one device: each job is a workload; fio.json is
    written beside the usual outputs."""
    job = Path(a.job)
    if not job.is_file():
        raise _native.ConfigError(f"{job}: no such fio job file")
    scenario = {
        "schema": 1,
        "name": f"fio-{job.stem}",
        "run": {"seed": a.seed if a.seed is not None else 1, **({"duration": a.runtime} if a.runtime else {})},
        "device": [_parse_device(a.device)],
        "host": [{"name": "host0"}],
        "workload": [{"name": job.stem, "device": "dev0", "class": "high", "fio": {"path": str(job.resolve())}}],
        "output": {"fio_json": True},
    }
    out = Path(a.output) if a.output else Path("out") / f"fio-{job.stem}"
    res = run(scenario, overrides=a.overrides, out_dir=out, progress=None if not a.quiet else False, budget=_budget(a),
              origin=str(job), keep_tables=False, stop_on_signal=True)
    if a.output_format == "json+" and (out / "fio.json").exists():
        import pyarrow.parquet as pq

        from .fio_logs import COLUMNS, add_bins

        reqs = pq.read_table(out / "requests.parquet", columns=COLUMNS) if (out / "requests.parquet").exists() else None
        write_json(out / "fio.json", add_bins(json.loads((out / "fio.json").read_text()), res.summary, reqs, job.resolve().parent))
    if not a.quiet:
        print(render(res.summary, res.run_info))
        print(f"\noutputs in {out}/ (fio.json: fio's JSON output{'+' if a.output_format == 'json+' else ''})")
    return _checked(res, out)


def _run_mqsim(a) -> int:
    from .mqsim import MqsimError, load

    if a.scenario:
        raise ValueError("give either a scenario file or --mqsim, not both")
    ssd, wl = (Path(x) for x in a.mqsim)
    try:
        scenarios, warnings = load(ssd, wl, a.trace_dir, compat=a.compat)
    except MqsimError as e:
        raise ValueError(str(e)) from None
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    picked = range(1, len(scenarios) + 1) if a.scenario_index is None else [a.scenario_index]
    for i in picked:
        if not 1 <= i <= len(scenarios):
            raise ValueError(f"--scenario {i}: {wl} has {len(scenarios)} IO_Scenario elements")
    base = Path(a.output) if a.output else Path("out") / f"mqsim-{wl.stem}"
    status = 0
    for i in picked:
        out = base / f"scenario{i}"
        res = run(scenarios[i - 1], seed=a.seed, overrides=_fio_override(a), out_dir=out, progress=None if not a.quiet else False,
                  origin=f"{ssd} + {wl}, IO_Scenario {i}", budget=_budget(a), keep_tables=False, stop_on_signal=True)
        from . import mqsim_results

        reqs = out / "requests.parquet"
        xml = mqsim_results.write(out, wl, i, res.summary, reqs if reqs.exists() else None)
        if not a.quiet:
            print(f"== IO_Scenario {i} of {wl.name} ==")
            print(render(res.summary, res.run_info))
            print(f"outputs in {out}/ (MQSim's results file: {xml.name})\n")
        status = max(status, _checked(res, out))
    return status


def _haechi_only(a) -> None:
    """A Haechi run is deterministic and has no seed; its keys are overridden in the file."""
    if a.overrides or a.seed is not None:
        raise ValueError(f"{a.scenario}: a Haechi run takes no --seed or --set overrides (it has no random stream; edit the file)")
    if any(getattr(a, k, None) is not None for k in ("max_events", "max_wall", "max_memory")):
        raise ValueError(f"{a.scenario}: a Haechi run takes no --max-events/--max-wall/--max-memory (its size is bounded when it is checked)")


def cmd_validate(a) -> int:
    if haechi.is_haechi_file(a.scenario):
        _haechi_only(a)
        haechi.validate(a.scenario)
        print(f"{a.scenario}: OK")
        return 0
    warnings = _native.validate(a.scenario, a.overrides, a.seed)
    for w in warnings:
        print(f"warning: {w}")
    print(f"{a.scenario}: OK")
    return 0


def cmd_replay(a) -> int:
    trace = Path(a.trace)
    if not trace.is_file():
        raise _native.ConfigError(f"{trace}: no such trace file")
    tr = {"path": str(trace.resolve()), "format": a.format, "time_scale": a.time_scale}
    if a.time_unit:
        tr["time_unit"] = a.time_unit
    if a.skip_invalid:
        tr["skip_invalid"] = True
    scenario = {
        "schema": 1,
        "name": f"replay-{trace.name}",
        "run": {"seed": a.seed if a.seed is not None else 1},
        "device": [_parse_device(a.device)],
        "host": [{"name": "host0", "queue_depth": a.queue_depth}],
        "workload": [{"name": trace.stem, "device": "dev0", "class": "high", "trace": tr}],
        "output": {"fio_json": bool(a.fio_json)},
    }
    out = Path(a.output) if a.output else Path("out") / f"replay-{trace.stem}"
    res = run(scenario, overrides=a.overrides, out_dir=out, progress=None if not a.quiet else False, budget=_budget(a), keep_tables=False, stop_on_signal=True)
    if not a.quiet:
        print(render(res.summary, res.run_info))
        print(f"\noutputs in {out}/")
    return _checked(res, out)


def cmd_experiment(a) -> int:
    from .claims import render_claims, tally_line
    from .experiments import REGISTRY
    if a.name == "list":
        for name, (desc, _) in REGISTRY.items():
            print(f"{name:<24} {desc}")
        return 0
    if a.name not in REGISTRY:
        raise _native.ConfigError(f"unknown experiment '{a.name}' (try: nestsim experiment list)")
    out = Path(a.output) if a.output else Path("out") / "experiments" / a.name
    out.mkdir(parents=True, exist_ok=True)
    if a.jobs is not None:
        # The experiment's runs go through runner.jobs(), which reads NEST_JOBS.
        os.environ["NEST_JOBS"] = str(a.jobs)
    fn = REGISTRY[a.name][1]
    if a.quick:
        import inspect
        if "quick" not in inspect.signature(fn).parameters:
            raise _native.ConfigError(f"experiment '{a.name}' has no quick mode")
        doc = fn(out, quick=True)
    else:
        doc = fn(out)
    if not a.quiet:
        print(render_claims(doc))
        print(f"\nclaims in {out}/claims.json")
    print(tally_line(doc))
    return 0


def cmd_report(a) -> int:
    from .report import write_report
    path = write_report(Path(a.dir))
    print(f"wrote {path}")
    return 0


def cmd_plot(a) -> int:
    from .plots import write_plots
    paths = write_plots(Path(a.dir))
    print(f"wrote {len(paths)} files ({len(paths) // 3} figures, PNG, SVG and PDF) under {a.dir}")
    return 0


def cmd_sweep(a) -> int:
    from .sweep import run_sweep
    if a.address and a.backend != "ray":
        raise _native.ConfigError("--address is for --backend ray")
    res = run_sweep(Path(a.sweep), Path(a.output) if a.output else None, workers=a.jobs, quiet=a.quiet,
                    backend=a.backend, address=a.address, dry_run=a.dry_run)
    if a.dry_run:
        print(f"{a.sweep}: OK, {res['runs']} runs (nothing run: --dry-run)")
        return 0
    print(f"{res['runs']} runs: {res['ran']} run now, {res['skipped']} already complete; results in {res['out']}/sweep.parquet")
    return 0


def cmd_compare(a) -> int:
    from .compare import compare, write
    labels = [x.strip() for x in a.labels.split(",")] if a.labels else None
    cmp = compare(a.runs, labels)
    print(cmp.render())
    if a.output:
        print(f"\nwrote {write(cmp, Path(a.output))}")
    return 0


def cmd_crosscheck(a) -> int:
    """MQSim and NeSt on the same ssdconfig.xml + workload.xml, side by side (crosscheck.py)."""
    from .crosscheck import crosscheck

    ssd, wl = Path(a.ssdconfig), Path(a.workload)
    out = Path(a.output) if a.output else Path("out") / f"crosscheck-{wl.stem}"
    doc = crosscheck(ssd, wl, out, trace_dir=a.trace_dir, mqsim_bin=a.mqsim_bin, mode=a.mode, timeout_s=a.max_wall, overrides=a.overrides, seeds=a.seeds)
    print(doc["text"])
    mq = out / ("mqsim-seed*" if doc.get("mqsim_seeds", 1) > 1 else "mqsim")
    print(f"\nwrote {out / 'crosscheck.json'} (MQSim's outputs in {mq}, NeSt's runs beside)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="nestsim", description="NeSt: end-to-end QoS in networked storage, simulated.")
    p.add_argument("--version", action="version", version=f"nestsim {_native.__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)

    r = sub.add_parser("run", help="run a scenario file")
    r.add_argument("scenario", nargs="?", help="the scenario TOML file (docs/scenario.md); omit with --mqsim")
    r.add_argument("--mqsim", nargs=2, metavar=("SSDCONFIG", "WORKLOAD"),
                   help="run an MQSim setup: its ssdconfig.xml and workload.xml (each IO_Scenario is one run)")
    r.add_argument("--scenario", dest="scenario_index", type=int, default=None, help="with --mqsim: run only IO_Scenario N (from 1)")
    r.add_argument("--trace-dir", action="append", default=[], help="with --mqsim: more directories to look for trace files in")
    r.add_argument("--compat", action="store_true",
                   help="with --mqsim: model the drive as MQSim does (compat = \"mqsim\": one command per chip, eager destage with "
                        "back-pressure, single-entry CMT, …; docs/mqsim.md) instead of NeSt's defaults")
    r.add_argument("-o", "--output", help="run directory (default out/<scenario name>; with --mqsim one scenarioN/ per IO_Scenario)")
    r.add_argument("--fio-json", action="store_true", help="also write fio.json (fio's JSON output; docs/outputs.md)")
    r.add_argument("-q", "--quiet", action="store_true", help="print only what a script needs (no summary table, no progress)")
    _add_common(r)
    _add_budget(r)
    r.set_defaults(fn=cmd_run)

    v = sub.add_parser("validate", help="check a scenario file (and scan its traces) without running it")
    v.add_argument("scenario", help="the scenario TOML file to check")
    _add_common(v)
    v.set_defaults(fn=cmd_validate)

    rp = sub.add_parser("replay", help="replay one trace against one device")
    rp.add_argument("trace", help="the trace file (docs/traces.md)")
    rp.add_argument("--format", required=True, choices=_native.trace_formats(), help="the trace's format")
    rp.add_argument("--device", default="ideal", help="ideal[:servers=8,read=80us,write=20us,read_bw=..,write_bw=..], ssd[:PRESET] (consumer-nvme unless named; "
                    "mqsim-default is MQSim's stock drive) or pm")
    rp.add_argument("--queue-depth", type=int, default=1024, help="host outstanding limit")
    rp.add_argument("--time-scale", type=float, default=1.0, help="multiply trace times (0.5 = twice as fast)")
    rp.add_argument("--time-unit", choices=["ps", "ns", "us", "ms", "s"], help="unit of bare trace times")
    rp.add_argument("--skip-invalid", action="store_true", help="skip (and count) malformed lines")
    rp.add_argument("--fio-json", action="store_true", help="also write fio-style fio.json")
    rp.add_argument("-o", "--output", help="run directory (default out/replay-<trace name>)")
    rp.add_argument("-q", "--quiet", action="store_true", help="print only what a script needs (no summary table, no progress)")
    _add_common(rp)
    _add_budget(rp)
    rp.set_defaults(fn=cmd_replay)

    fi = sub.add_parser("fio", help="run a fio job file against one device (writes fio.json)")
    fi.add_argument("job", help="the fio job file (each job a workload; docs/scenario.md)")
    fi.add_argument("--device", default="ideal", help="ideal[:servers=8,read=80us,write=20us,read_bw=..,write_bw=..], ssd[:PRESET] (consumer-nvme unless named; "
                    "mqsim-default is MQSim's stock drive) or pm")
    fi.add_argument("--runtime", help="stop after this simulated time (run.duration, e.g. 1s); jobs also end at their size or runtime")
    fi.add_argument("-o", "--output", help="run directory (default out/fio-<job file name>)")
    fi.add_argument("--output-format", choices=["json", "json+"], default="json",
                    help="fio.json as fio's json (default) or json+ (each direction's clat_ns adds fio's latency histogram, bins)")
    fi.add_argument("-q", "--quiet", action="store_true", help="print only what a script needs (no summary table, no progress)")
    _add_common(fi)
    _add_budget(fi)
    fi.set_defaults(fn=cmd_fio)

    e = sub.add_parser("experiment", help="run a named reference experiment ('list' to see them)")
    e.add_argument("name", help="the experiment ('list' names them all)")
    e.add_argument("-o", "--output", help="experiment directory (default out/experiments/<name>)")
    e.add_argument("-j", "--jobs", type=_positive_int, default=None,
                   help="parallel runs (default: NEST_JOBS, else the number of cores)")
    e.add_argument("--quick", action="store_true", help="a reduced run (fewer workloads/points) where the experiment offers one")
    e.add_argument("-q", "--quiet", action="store_true", help="print only the tally of the claims (they are in DIR/claims.json)")
    e.set_defaults(fn=cmd_experiment)

    sw = sub.add_parser("sweep", help="run a parameter sweep (resumable) on a local process pool or a Ray cluster")
    sw.add_argument("sweep", help="the sweep TOML file (docs/sweeps.md)")
    sw.add_argument("-o", "--output", help="sweep directory (default out/sweeps/<name>)")
    sw.add_argument("-j", "--jobs", type=int, default=None, help="parallel runs (default: the number of cores; with a local Ray, its CPUs)")
    sw.add_argument("--backend", choices=("local", "ray"), default="local", help="local process pool (default) or Ray tasks")
    sw.add_argument("--address", help="with --backend ray: the cluster to submit to (e.g. ray://head:10001; default: start a local Ray)")
    sw.add_argument("-q", "--quiet", action="store_true", help="no progress; only the final line")
    sw.add_argument("--dry-run", action="store_true", help="check the sweep file and every parameter combination, run nothing")
    sw.set_defaults(fn=cmd_sweep)

    pl = sub.add_parser("plot", help="write PNG, SVG and PDF figures for a run, experiment or sweep directory (into DIR/plots)")
    pl.add_argument("dir", help="a run, experiment or sweep directory")
    pl.set_defaults(fn=cmd_plot)

    cp = sub.add_parser("compare", help="runs side by side: per-class deltas against the first, and what differs in their scenarios")
    cp.add_argument("runs", nargs="+", help="run directories (the first is the baseline)")
    cp.add_argument("--labels", help="comma-separated names for the runs (default: their directory names)")
    cp.add_argument("-o", "--output", help="also write compare.json, compare-cdf.png/.svg and compare.html here")
    cp.set_defaults(fn=cmd_compare)

    cc = sub.add_parser("crosscheck", help="run MQSim and NeSt on the same MQSim files and compare them (docs/mqsim.md)")
    cc.add_argument("tool", choices=["mqsim"], help="the simulator to check against (mqsim)")
    # Two positionals, not one with nargs=2: argparse cannot print a tuple metavar of a positional
    # (`crosscheck --help` died with a ValueError).
    cc.add_argument("ssdconfig", metavar="SSDCONFIG", help="MQSim's ssdconfig.xml")
    cc.add_argument("workload", metavar="WORKLOAD", help="MQSim's workload.xml")
    cc.add_argument("--mqsim-bin", help="the MQSim binary (default: the bundle's instrumented build under $NEST_SHARED/mqsim/bundle/bin; "
                    "an uninstrumented MQSim gives means only)")
    cc.add_argument("--trace-dir", help="where the workload's trace files are (default: the workload file's folder)")
    cc.add_argument("--mode", choices=["compat", "default", "both"], default="compat",
                    help="NeSt's model: MQSim-compatible (default), NeSt's own, or both")
    cc.add_argument("--max-wall", type=float, default=None, help="give MQSim at most this many seconds")
    cc.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                    help="override a key in NeSt's runs (e.g. device[0].model.dram_timing=linear: what one switch does)")
    cc.add_argument("--seeds", type=int, default=1, metavar="N",
                    help="run NeSt with seeds 1..N and compare their median, their range beside (a chaotic run is one sample)")
    cc.add_argument("-o", "--output", help="output directory (default out/crosscheck-<workload name>)")
    cc.set_defaults(fn=cmd_crosscheck)

    rep = sub.add_parser("report", help="write report.html for a run, experiment or sweep directory")
    rep.add_argument("dir", help="a run, experiment or sweep directory")
    rep.set_defaults(fn=cmd_report)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    a = parser.parse_args(argv)
    from . import runner

    runner.COMMAND = _command_line(argv)
    try:
        return a.fn(a)
    except _native.Stopped as e:
        # The wall budget ran out while the run was being built: nothing ran, nothing written.
        print(f"nestsim: {e} (--max-wall; no outputs)", file=sys.stderr)
        return EXIT_STOPPED
    except (_native.ConfigError, _native.SimError, ValueError, FileNotFoundError) as e:
        print(f"nestsim: error: {with_snippets(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("nestsim: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except ModuleNotFoundError as e:
        # An optional dependency this command needs is not installed: the user's environment,
        # not a NeSt bug (issue 62, finding 8).
        extra = _OPTIONAL.get((e.name or "").split(".")[0])
        if extra is None:
            return _internal_error(e, argv)
        pkg, group = extra
        print(f"nestsim: error: this command needs the optional package '{pkg}', which is not installed: "
              f"pip install 'nestsim[{group}]' (or pip install {pkg})", file=sys.stderr)
        return 2
    except OSError as e:
        # A path the user named that the OS refuses (a component over 255 bytes, no permission, a
        # directory where a file was expected…) is bad input, not a NeSt bug (issue 63, S3).
        if e.errno in _USER_PATH_ERRNOS:
            print(f"nestsim: error: {e.filename if e.filename is not None else ''}: {e.strerror}", file=sys.stderr)
            return 2
        return _internal_error(e, argv)
    except MemoryError:
        print(f"nestsim: out of memory in `{_command_line(argv)}`: the input asks for more than this machine has "
              "(lower its sizes or counts; --max-memory stops a run cleanly before this)", file=sys.stderr)
        return 2
    except BaseException as e:  # noqa: BLE001 — the boundary: anything else is a bug in NeSt
        if isinstance(e, SystemExit):
            raise
        return _internal_error(e, argv)


#: Optional dependencies (pyproject's extras): module → (package, extra).
_OPTIONAL = {"sklearn": ("scikit-learn", "src"), "ray": ("ray", "ray"), "polars": ("polars", "polars")}

_USER_PATH_ERRNOS = {errno.ENAMETOOLONG, errno.EACCES, errno.EPERM, errno.EISDIR, errno.ENOTDIR, errno.ELOOP,
                     errno.EROFS, errno.ENOSPC, errno.EEXIST, errno.ENOENT}

_PLACE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): ")


def with_snippets(message: str, limit: int = 20) -> str:
    """Each `FILE.toml:LINE:COL: …` line of an error followed by that line of the file and a caret
    under the column (for the first `limit` of them), as compilers show it."""
    out = []
    shown = 0
    for line in message.split("\n"):
        out.append(line)
        m = _PLACE.match(line)
        # Only a scenario file's own lines: a referenced file (a trace, a job file, whatever a path
        # names) is never echoed into the terminal (issue 63, privacy).
        if not m or shown >= limit or not m["file"].endswith(".toml"):
            continue
        try:
            with open(m["file"], encoding="utf-8", errors="replace") as f:
                for k, src in enumerate(f, 1):
                    if k == int(m["line"]):
                        break
                else:
                    continue
        except OSError:
            continue
        src = src.rstrip("\n").expandtabs(1)
        if len(src) > 200:
            continue
        n = m["line"]
        out.append(f"  {n} | {src}")
        out.append(f"  {' ' * len(n)} | {' ' * max(0, int(m['col']) - 1)}^")
        shown += 1
    return "\n".join(out)


def _command_line(argv: Optional[List[str]]) -> str:
    import shlex
    return "nestsim " + " ".join(shlex.quote(x) for x in (sys.argv[1:] if argv is None else argv))


def _internal_error(e: BaseException, argv: Optional[List[str]]) -> int:
    """A Rust panic (InternalError, or PyO3's PanicException where no guard caught it) or an
    unexpected Python exception: one message naming the command and input, exit 70. The
    traceback is shown with NESTSIM_TRACEBACK=1."""
    if os.environ.get("NESTSIM_TRACEBACK"):
        import traceback
        traceback.print_exception(type(e), e, e.__traceback__)
    msg = str(e) if isinstance(e, _native.InternalError) else f"internal error (a NeSt bug; please report it with the input): {type(e).__name__}: {e}"
    print(f"nestsim: {msg}\n  in: {_command_line(argv)}", file=sys.stderr)
    return EXIT_INTERNAL


if __name__ == "__main__":
    raise SystemExit(main())
