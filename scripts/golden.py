#!/usr/bin/env python3
"""Byte-identity check for refactors: hashes every example's summary.json and every
experiment's claims.json (and the summaries of the runs behind it).

    python scripts/golden.py record golden.json [--only NAME ...] [-j N]
    python scripts/golden.py compare golden.json [--only NAME ...] [-j N]

`record` writes {item: sha256}; `compare` re-runs and lists what changed (exit 1 when anything
did). Items: `example:<stem>` and `experiment:<name>` (plus `experiment:<name>/<run>` for each
run's summary). Run it before and after a change that must not move any result.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _items():
    from nestsim.experiments import REGISTRY

    items = [f"example:{p.stem}" for p in sorted((ROOT / "examples").glob("*.toml"))]
    items += [f"experiment:{n}" for n in sorted(REGISTRY)]
    return items


def _run(item: str, tmp: Path) -> dict:
    kind, name = item.split(":", 1)
    # By kind: the example and the experiment of one name (plmc) must not share a directory.
    out = tmp / kind / name
    if kind == "example":
        cmd = [sys.executable, "-m", "nestsim", "run", str(ROOT / "examples" / f"{name}.toml"), "-o", str(out), "-q"]
    else:
        cmd = [sys.executable, "-m", "nestsim", "experiment", name, "-o", str(out)]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        return {item: f"exit {p.returncode}: {p.stderr.strip()[-300:]}"}
    if kind == "example":
        return {item: _sha(out / "summary.json")}
    res = {item: _sha(out / "claims.json")}
    for s in sorted(out.rglob("summary.json")):
        res[f"{item}/{s.parent.relative_to(out)}"] = _sha(s)
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["record", "compare"])
    ap.add_argument("file")
    ap.add_argument("--only", nargs="*", help="items (or name prefixes) to run")
    ap.add_argument("-j", type=int, default=2)
    a = ap.parse_args()
    items = _items()
    if a.only:
        items = [i for i in items if any(i.split(":", 1)[1].startswith(o) or i == o for o in a.only)]
    # A fixed directory, emptied first: experiments that write datasets name their paths in
    # their runs' configs, so a fresh temporary directory per call changed every such summary.
    root = Path(tempfile.gettempdir()) / "nest-golden"
    shutil.rmtree(root, ignore_errors=True)
    with ThreadPoolExecutor(a.j) as ex:
        got = {}
        for r in ex.map(lambda i: _run(i, root), items):
            got.update(r)
            for k, v in r.items():
                print(f"{k} {v[:16]}", flush=True)
    if a.mode == "record":
        old = json.loads(Path(a.file).read_text()) if Path(a.file).exists() else {}
        old.update(got)
        Path(a.file).write_text(json.dumps(old, indent=1, sort_keys=True) + "\n")
        return 0
    want = json.loads(Path(a.file).read_text())
    bad = [k for k in sorted(got) if want.get(k) != got[k]]
    for k in bad:
        print(f"CHANGED {k}: {want.get(k, 'absent')[:16]} -> {got[k][:16]}")
    missing = [k for k in want if any(k == i or k.startswith(i + "/") for i in items) and k not in got]
    for k in missing:
        print(f"MISSING {k}")
    print(f"{len(got) - len(bad)} identical, {len(bad)} changed, {len(missing)} missing")
    return 1 if bad or missing else 0


if __name__ == "__main__":
    sys.exit(main())
