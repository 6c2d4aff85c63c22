#!/usr/bin/env python3
"""Mutation test of the `nestsim` command line: what a hostile user would type.

Seeds are the example scenarios, the fio job, the sweep file, MQSim's XML files (our fixtures,
and the stock ones under $NEST_SHARED/mqsim when present) and a sample of every trace format.
Each input gets a few mutations — a number made huge, tiny, zero, negative, NaN or infinite; a
unit swapped; bytes flipped; a line deleted, duplicated or cut — and goes through the command a
user would run on it (`validate` then `run`, `replay`, `run --mqsim`, `sweep --dry-run`) in a
child process with a wall-time cap and an address-space cap.

Every command ends in one outcome:

    ran, rejected (exit 2 naming the file), stopped (exit 4: a budget), check-failed (exit 3)
    ─ clean outcomes
    rejected-unnamed (exit 2, the file not named)  ─ a weak message, reported, not a failure
    internal (exit 70), traceback, crash (a signal), hang (past the cap), memory (past the cap),
    other (any other exit)  ─ failures

Usage:  scripts/mutate_cli.py [--inputs N] [--seed S] [--jobs J] [--keep DIR] [--fork] [--budget S]
                              [--log FILE]
        (--inputs 100000 is the documented long run; `make test` runs a short one.)

--fork runs each command in a child forked from a worker that imported nestsim once, instead of a
fresh interpreter (what costs most of a short command: ~0.2 s of imports); the child gets the
same caps, working directory and environment, and its exit status and stderr are judged alike.
--budget sets each run's --max-wall (default 3 s). --log appends one JSON line per input as it
ends, so a long run that dies keeps what it did.
A failing input is copied under --keep with the command that failed, to become a regression
fixture (tests/fixtures/mutation/).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import Counter
import json
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("NEST_SHARED", ROOT.parent / "shared"))

#: Wall-clock budget given to each run (`--max-wall`), and the cap past which a command is a hang.
RUN_BUDGET_S = 3
HANG_S = 45
#: The address-space cap of a child, and the `--max-memory` it is told to stop at well before.
AS_CAP = 6 * 2**30
MAX_MEMORY = "1500MiB"

FAILURES = ("internal", "traceback", "crash", "hang", "memory", "other")

# Small trace samples of every format (the formats' own shapes; see docs/traces.md).
TRACE_SEEDS = {
    "systor17": "Timestamp,Response,IOType,LUN,Offset,Size\n" + "".join(
        f"1456095145.{133076000 + 911 * i:09d},0.000806000,{'RW'[i % 2]},0,{899056122368 + 4096 * i},{4096 << (i % 4)}\n" for i in range(40)),
    "msr": "".join(f"{128166385295514663 + 10000 * i},hm,0,{('Read', 'Write')[i % 3 == 0]},{9056014336 + 8192 * i},{4096 * (1 + i % 3)},2833\n"
                   for i in range(40)),
    "tencent": "".join(f"{1538323199 + i // 8},{13896880 + 16 * i},{8 << (i % 3)},{i % 2},1063\n" for i in range(40)),
    "alibaba": "".join(f"{i % 3},{'RW'[i % 2]},{126703644672 + 4096 * i},4096,{1577808000000626 + 137 * i}\n" for i in range(40)),
    "blkparse": "".join(f"  8,0    1   {i + 1:6d}     {0.000137 * i:.9f}  1914  C  {('R', 'WS')[i % 2]} {299456 + 8 * i} + 8 [0]\n" for i in range(40)),
    "disksim": "".join(f"{0.5 * i:.3f} 0 {8 * i} 16 {i % 2}\n" for i in range(40)),
    "mqsim": "".join(f"{938513000 + 70000 * i} 4 {264719034 + 8 * i} 16 {i % 2}\n" for i in range(40)),
    "flashnet": "".join(f"{0.211 * i:.3f} 0 {3159347200 + 4096 * i} {4096 * (1 + i % 8)} {i % 2}\n" for i in range(40)),
    "cloudphysics": "version,time,op,size,lbn\n" + "".join(f"1,{5633898 + 311 * i},{('28', '2a')[i % 2]},4096,{42932745 + 8 * i}\n" for i in range(40)),
}

NUMBERS = ["0", "-1", "1", "-0", "1e308", "1e-300", "nan", "inf", "-inf", "18446744073709551616", "4294967296",
           "9223372036854775807", "99999999999", "0.0000001", "3.5", "1000000000000"]
UNITS = ["ps", "ns", "us", "ms", "s", "B", "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB", "k", "M", "G",
         "bps", "Kbps", "Mbps", "Gbps", "Tbps", "GB/s", "MB/s", "%"]
UNIT_RE = re.compile(r"(?<=[0-9])(ps|ns|us|ms|s|B|KiB|MiB|GiB|TiB|KB|MB|GB|TB|k|m|M|g|G|bps|Kbps|Mbps|Gbps|Tbps|GB/s|MB/s)\b")
NUM_RE = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


@dataclass
class Seed:
    """One input to mutate and how to run it: `kind` picks the command."""

    kind: str  # scenario | fio | sweep | mqsim-ssd | mqsim-workload | trace
    name: str
    text: str
    extra: dict = field(default_factory=dict)


def seeds() -> List[Seed]:
    out = []
    for p in sorted((ROOT / "examples").glob("*.toml")):
        if p.name == "trace-replay.toml" and not SHARED.is_dir():
            continue
        out.append(Seed("scenario", p.name, p.read_text()))
    out.append(Seed("fio", "tenants.fio", (ROOT / "examples" / "fio" / "tenants.fio").read_text()))
    out.append(Seed("sweep", "demo-load.toml", (ROOT / "examples" / "sweeps" / "demo-load.toml").read_text()))
    fx = ROOT / "tests" / "fixtures" / "mqsim"
    pairs = [(fx / "ssdconfig-small.xml", fx / "workload-small.xml", fx)]
    if (SHARED / "mqsim" / "ssdconfig.xml").is_file():
        pairs.append((SHARED / "mqsim" / "ssdconfig.xml", SHARED / "mqsim" / "workload.xml", SHARED / "mqsim"))
    for ssd, wl, d in pairs:
        out.append(Seed("mqsim-ssd", ssd.name, ssd.read_text(), {"other": str(wl), "dir": str(d)}))
        out.append(Seed("mqsim-workload", wl.name, wl.read_text(), {"other": str(ssd), "dir": str(d)}))
    for fmt, text in TRACE_SEEDS.items():
        out.append(Seed("trace", f"{fmt}.trace", text, {"format": fmt}))
    return out


def mutate(text: str, rng: random.Random) -> str:
    """One to three edits of the kinds a fuzzer found failures with (issue 25)."""
    for _ in range(rng.choice((1, 1, 2, 3))):
        op = rng.choice(("number", "number", "number", "unit", "unit", "bytes", "delete", "duplicate", "cut"))
        if op == "number":
            nums = list(NUM_RE.finditer(text))
            if nums:
                m = rng.choice(nums)
                new = rng.choice(NUMBERS) if rng.random() < 0.7 else str(int(float(m.group()) * rng.choice((1000, 1e6, 1e-3))) if abs(float(m.group())) < 1e12 else 0)
                text = text[: m.start()] + new + text[m.end():]
        elif op == "unit":
            units = list(UNIT_RE.finditer(text))
            if units:
                m = rng.choice(units)
                text = text[: m.start()] + rng.choice(UNITS) + text[m.end():]
        elif op == "bytes" and text:
            b = bytearray(text.encode("utf-8", errors="surrogateescape"))
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(len(b))] = rng.choice(b"=\"'[]{},.:-0123456789xe\n \xff")
            text = b.decode("utf-8", errors="surrogateescape")
        elif op in ("delete", "duplicate"):
            lines = text.splitlines(keepends=True)
            if lines:
                i = rng.randrange(len(lines))
                lines[i:i + 1] = [] if op == "delete" else [lines[i]] * rng.choice((2, 50))
                text = "".join(lines)
        elif op == "cut" and text:
            text = text[: rng.randrange(len(text))]
    return text


def corpus_seed(path: Path) -> Seed:
    """A kept failure (tests/fixtures/mutation/KIND--NAME--WHY) as a seed to rerun as it is."""
    kind, name, _ = path.name.split("--", 2)
    text = path.read_bytes().decode("utf-8", errors="surrogateescape")
    extra = {}
    if kind == "trace":
        extra["format"] = name.split(".")[0]
    if kind.startswith("mqsim"):
        fx = ROOT / "tests" / "fixtures" / "mqsim"
        other = fx / ("workload-small.xml" if kind == "mqsim-ssd" else "ssdconfig-small.xml")
        extra = {"other": str(other), "dir": str(fx)}
    return Seed(kind, name, text, extra)


def _write(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))


def commands(seed: Seed, text: str, d: Path) -> Tuple[Path, List[List[str]]]:
    """Writes the mutant into `d` and returns it and the commands to run on it (in order; the
    next runs only when the one before exited 0)."""
    nest = [sys.executable, "-m", "nestsim"]
    budget = ["--max-wall", str(RUN_BUDGET_S), "--max-memory", MAX_MEMORY, "-q", "-o", str(d / "out")]
    if seed.kind == "scenario":
        f = d / seed.name
        _write(f, text)
        # Relative references (fio/…, ${NEST_SHARED}) resolve as from examples/.
        (d / "fio").symlink_to(ROOT / "examples" / "fio")
        return f, [nest + ["validate", str(f)], nest + ["run", str(f)] + budget]
    if seed.kind == "fio":
        (d / "fio").mkdir()
        f = d / "fio" / seed.name
        _write(f, text)
        sc = d / "fio.toml"
        sc.write_text((ROOT / "examples" / "fio.toml").read_text())
        return f, [nest + ["run", str(sc)] + budget]
    if seed.kind == "sweep":
        f = d / seed.name
        _write(f, text.replace("../storage-classes.toml", str(ROOT / "examples" / "storage-classes.toml")))
        return f, [nest + ["sweep", str(f), "--dry-run", "-o", str(d / "out")]]
    if seed.kind.startswith("mqsim"):
        f = d / seed.name
        _write(f, text)
        other = Path(seed.extra["other"])
        ssd, wl = (f, other) if seed.kind == "mqsim-ssd" else (other, f)
        # The workload's trace files are looked for beside it and in --trace-dir.
        dirs = [seed.extra["dir"]] + [str(p) for p in sorted((SHARED / "traces").glob("mqsim_*"))]
        return f, [nest + ["run", "--mqsim", str(ssd), str(wl), "--scenario", "1"] + [x for t in dirs for x in ("--trace-dir", t)] + budget]
    f = d / seed.name
    _write(f, text)
    # Each device kind in turn (picked by the mutant's length, so a rerun picks the same).
    device = ("ideal", "ssd:mqsim-default", "pm")[len(text) % 3]
    return f, [nest + ["replay", str(f), "--format", seed.extra["format"], "--device", device] + budget]


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (AS_CAP, AS_CAP))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.setsid()


def classify(rc: Optional[int], err: str, named: str) -> str:
    if rc is None:
        return "hang"
    if "Traceback (most recent call last)" in err:
        return "memory" if "MemoryError" in err else "traceback"
    if "memory allocation of" in err or "out of memory" in err:
        return "memory"
    if rc < 0:
        return "crash"
    if rc == 0:
        return "ran"
    if rc == 2:
        return "rejected" if named in err else "rejected-unnamed"
    if rc == 3:
        return "check-failed"
    if rc == 4:
        return "stopped"
    if rc == 70:
        return "internal"
    return "other"


def _forked(cmd: List[str], cwd: Path, env: dict, timeout: float) -> Tuple[Optional[int], str]:
    """Runs `nestsim ARGS` (cmd[3:]) in a child forked from this process, as `subprocess.run`
    would run the command: its own session, the caps, `cwd`, `env`; stdout discarded, stderr
    kept. (exit status — negative for a signal, None past `timeout` — and stderr)."""
    err_path = cwd / ".stderr"
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 70
        try:
            _limits()
            os.chdir(cwd)
            os.environ.clear()
            os.environ.update(env)
            fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(fd, 2)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            # The parent's sys.stderr may not be fd 2 (pytest captures it): write to the fds.
            sys.stderr = open(2, "w", errors="backslashreplace", closefd=False)
            sys.stdout = open(1, "w", closefd=False)
            sys.argv = ["nestsim"] + cmd[3:]
            from nestsim.cli import main as nest_main
            try:
                code = nest_main(cmd[3:])
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except BaseException:  # what an interpreter would print before exiting 1
                traceback.print_exc()
                code = 1
            sys.stderr.flush()
            sys.stdout.flush()
        finally:
            os._exit(code if isinstance(code, int) else 1)
    deadline = time.monotonic() + timeout
    rc = None
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            rc = os.waitstatus_to_exitcode(status)
            break
        if time.monotonic() > deadline:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            break
        time.sleep(0.002)
    err = err_path.read_text(errors="replace") if err_path.exists() else ""
    return rc, err


def run_one(seed: Seed, text: str, timeout: float = HANG_S, fork: bool = False) -> Tuple[str, str, List[str]]:
    """(outcome, stderr tail, the last command) of one mutant."""
    with tempfile.TemporaryDirectory(prefix="nest-mut-") as tmp:
        d = Path(tmp)
        f, cmds = commands(seed, text, d)
        env = dict(os.environ, NEST_SHARED=str(SHARED), PYTHONWARNINGS="ignore")
        outcome, err, cmd = "ran", "", cmds[0]
        for cmd in cmds:
            if fork:
                rc, err = _forked(cmd, d, env, timeout)
            else:
                try:
                    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout, cwd=d,
                                       preexec_fn=_limits, env=env)
                    rc, err = p.returncode, p.stderr
                except subprocess.TimeoutExpired as e:
                    rc, err = None, (e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else e.stderr or "")
            outcome = classify(rc, err, f.name)
            if outcome != "ran":
                break
        return outcome, err[-600:], [c.replace(tmp, "$DIR") for c in cmd]


def _worker_init() -> None:
    """A --fork worker: import nestsim once (its children inherit it), single-threaded BLAS."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import nestsim.cli  # noqa: F401


def _fork_one(job) -> Tuple[str, str, List[str]]:
    """One mutant in a --fork worker: job = (index, seed, text, run budget)."""
    global RUN_BUDGET_S
    RUN_BUDGET_S = job[3]
    return run_one(job[1], job[2], fork=True)


def main(argv: Optional[List[str]] = None) -> int:
    global RUN_BUDGET_S
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", type=int, default=200, help="mutants to try (long run: 100000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("-v", "--verbose", action="store_true", help="also print rejections that do not name the file")
    ap.add_argument("--keep", type=Path, help="copy failing inputs here, with the command")
    ap.add_argument("--fork", action="store_true", help="fork each command from a worker that imported nestsim once")
    ap.add_argument("--budget", type=float, default=RUN_BUDGET_S, help="each run's --max-wall, s (default %(default)s)")
    ap.add_argument("--log", type=Path, help="append one JSON line per input as it ends")
    a = ap.parse_args(argv)
    RUN_BUDGET_S = a.budget
    rng = random.Random(a.seed)
    base = seeds()

    def work():
        """The mutants, made as they are needed (a long run holds none it is not running)."""
        for i in range(a.inputs):
            s = base[i % len(base)] if i < len(base) else rng.choice(base)
            yield i, s, mutate(s.text, rng)

    counts: Counter = Counter()
    failures = []
    log = a.log.open("a") if a.log else None
    pool = ProcessPoolExecutor(a.jobs, initializer=_worker_init) if a.fork else ThreadPoolExecutor(a.jobs)
    with pool:
        it = work()
        while True:
            chunk = [next(it, None) for _ in range(256)]
            chunk = [w for w in chunk if w is not None]
            if not chunk:
                break
            if a.fork:
                results = pool.map(_fork_one, [(i, s, text, a.budget) for i, s, text in chunk])
            else:
                results = pool.map(lambda w: run_one(w[1], w[2]), chunk)
            for (i, s, text), (outcome, err, cmd) in zip(chunk, results):
                counts[outcome] += 1
                if log:
                    log.write(json.dumps({"seed": a.seed, "input": i, "kind": s.kind, "name": s.name, "outcome": outcome}) + "\n")
                    log.flush()
                if outcome in FAILURES or (a.verbose and outcome == "rejected-unnamed"):
                    failures.append((i, s, text, outcome, err, cmd))
                    print(f"[{i}] {outcome}: {s.kind} {s.name}: {' '.join(cmd[2:])}\n    "
                          f"{err.strip().splitlines()[-1] if err.strip() else ''}", flush=True)
    total = sum(counts.values())
    print(f"{total} inputs: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])))
    bad = [f for f in failures if f[3] in FAILURES]
    if a.keep and failures:
        a.keep.mkdir(parents=True, exist_ok=True)
        for i, s, text, outcome, err, cmd in failures:
            stem = f"{s.kind}--{s.name}--{outcome}-{i:06d}"
            _write(a.keep / stem, text)
            (a.keep / (stem + ".cmd")).write_text(" ".join(cmd) + "\n\n" + err)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
