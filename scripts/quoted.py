#!/usr/bin/env python3
"""The numbers README.md and docs/python.md quote, regenerated from real runs of this build
(issue 62, finding 2): the demo's one-line answer (`make demo`'s two runs and their comparison)
and the RunResult line of docs/python.md's first example.

    python scripts/quoted.py            # rewrite the quoted lines in place
    python scripts/quoted.py --check    # exit 1 and name each line that differs

The tests (tests/test_compare.py, tests/test_api.py) compute the same lines and fail until the
files are regenerated, so a model change that moves a quoted number cannot go unnoticed.
"""

from __future__ import annotations

import argparse
import datetime
import re
import shlex
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PYTHON_MD = ROOT / "docs" / "python.md"
#: The README line that introduces the demo's answer, and docs/python.md's quoted repr.
DEMO_INTRO = re.compile(r"^`make demo` ends with the answer in one line, measured \((\d{4}-\d{2}-\d{2})\):$", re.M)
REPR_LINE = re.compile(r"^(res\s+# )(RunResult\(.*\))$", re.M)
#: docs/python.md's example run (the line above the quoted repr).
PY_EXAMPLE = dict(seed=1, overrides=["run.duration=50ms"])


def no_qos_overrides() -> list:
    """The Makefile's NO_QOS (`--set K=V …`: every layer ignoring the class) as `K=V` strings."""
    m = re.search(r"^NO_QOS := (.*)$", (ROOT / "Makefile").read_text(), re.M)
    words = shlex.split(m.group(1))
    return [v for flag, v in zip(words[::2], words[1::2]) if flag == "--set"]


def demo_headline(work: Path) -> str:
    """`make demo`'s answer: both runs, compared (what the Makefile prints after `==>`)."""
    import nestsim
    from nestsim.compare import compare

    demo = ROOT / "examples" / "demo.toml"
    nestsim.run(str(demo), out_dir=str(work / "qos"), progress=False)
    nestsim.run(str(demo), out_dir=str(work / "no-qos"), overrides=no_qos_overrides(), progress=False)
    return compare([work / "no-qos", work / "qos"], labels=["no QoS", "E2E QoS"]).headline


def python_repr() -> str:
    """docs/python.md's `res` line: the RunResult's repr."""
    import nestsim

    return repr(nestsim.run(str(ROOT / "examples" / "demo.toml"), progress=False, **PY_EXAMPLE))


def quoted_demo(text: str) -> str:
    """The demo line README.md quotes (the first line of the block after the intro)."""
    m = DEMO_INTRO.search(text)
    if not m:
        raise SystemExit(f"{README}: no line '`make demo` ends with the answer in one line, measured (DATE):'")
    block = text[m.end():].split("```", 2)
    return block[1].strip()


def quoted_repr(text: str) -> str:
    m = REPR_LINE.search(text)
    if not m:
        raise SystemExit(f"{PYTHON_MD}: no line 'res   # RunResult(…)'")
    return m.group(2)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only say whether the quoted lines are current")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        headline = demo_headline(Path(d))
    rep = python_repr()
    readme, py = README.read_text(), PYTHON_MD.read_text()
    stale = []
    if quoted_demo(readme) != headline:
        stale.append(f"README.md's demo line: {quoted_demo(readme)!r} → {headline!r}")
    if quoted_repr(py) != rep:
        stale.append(f"docs/python.md's RunResult: {quoted_repr(py)!r} → {rep!r}")
    if a.check:
        print("\n".join(stale) or "quoted numbers are current")
        return 1 if stale else 0
    if stale:
        today = datetime.date.today().isoformat()
        readme = readme.replace(quoted_demo(readme), headline, 1)
        readme = DEMO_INTRO.sub(f"`make demo` ends with the answer in one line, measured ({today}):", readme, count=1)
        README.write_text(readme)
        PYTHON_MD.write_text(REPR_LINE.sub(lambda m: m.group(1) + rep, py, count=1))
    print("\n".join(stale) or "quoted numbers were current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
