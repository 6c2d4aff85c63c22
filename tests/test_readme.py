"""The README's five-minute tour runs as written, from a fresh directory laid out as a clone (its
examples/, the venv, the shared/ folder beside it), in order, as one shell script.

`nestsim experiment …` lines are not run twice: each must be, word for word, a command
tests/test_experiments.py runs (where its claims are checked). The replay of a reference trace
needs the shared/ folder (NEST_SHARED); without it that line is left out, and the test says so."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SHARED


def tour_commands():
    """The tour's shell lines (continuations joined, comments and blank lines dropped)."""
    text = (ROOT / "README.md").read_text()
    block = text.split("## A five-minute tour", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    lines, cur = [], ""
    for raw in block.splitlines():
        line = raw.rstrip()
        if line.endswith("\\"):
            cur += line[:-1] + " "
            continue
        line = (cur + line).strip()
        cur = ""
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


def without_comment(line: str) -> str:
    return re.sub(r"\s+#\s.*$", "", line)


def test_the_readme_tour_runs_as_written(tmp_path):
    lines = tour_commands()
    assert lines[0].startswith("source .venv/bin/activate") and len(lines) > 15
    experiments = [without_comment(l) for l in lines if l.startswith("nestsim experiment ") and l.split()[2] != "list"]
    tested = (ROOT / "tests" / "test_experiments.py").read_text()
    for cmd in experiments:
        words = cmd.split()[1:]
        call = ", ".join(f'"{w}"' for w in words)
        helper = f'_run_claims(cli, out, "{words[1]}"' if len(words) == 2 else None
        assert f'cli({call}, "-o"' in tested or (helper and helper in tested), f"no test runs `{cmd}` as the README writes it"

    clone = tmp_path / "clone"
    clone.mkdir()
    shutil.copytree(ROOT / "examples", clone / "examples")
    (clone / ".venv").symlink_to(Path(sys.executable).resolve().parent.parent if not (ROOT / ".venv").exists() else ROOT / ".venv")
    script = ["set -euo pipefail"]
    skipped = []
    for line in lines:
        cmd = without_comment(line)
        if cmd in experiments:
            continue
        if "NEST_SHARED" in cmd and not SHARED.is_dir():
            skipped.append(cmd)
            continue
        script.append(f"echo '>>> {cmd.replace(chr(39), '')}'")
        script.append(cmd)
    env = dict(os.environ, NEST_SHARED=str(SHARED), PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}", NEST_JOBS="2")
    p = subprocess.run(["bash", "-c", "\n".join(script)], cwd=clone, env=env, capture_output=True, text=True, timeout=1500)
    ran = p.stdout.count(">>> ")
    last = p.stdout.rsplit(">>> ", 1)[-1][:300] if ran else ""
    assert p.returncode == 0, f"the tour stopped at `{last}` (exit {p.returncode}):\n{p.stderr[-3000:]}"
    assert ran == len(script[1:]) // 2
    out = clone / "out"
    for d in ("tour/qos", "tour/no-qos", "tour/cmp", "tour/qos-seeds/3", "tour/no-qos-seeds/3", "fio-tenants", "sweeps/demo-load/runs",
              "sweeps/demo-load-ray/runs"):
        assert (out / d).is_dir(), d
    # The tour keeps out of `make demo`'s folder, and the Ray sweep ran its own runs.
    assert not (out / "demo").exists()
    assert (out / "tour" / "qos" / "report.html").exists() and (out / "fio-tenants" / "fio.json").exists()
    assert "significant" in p.stdout or "noise" in p.stdout, "the seeds comparison says what is noise"
    if skipped:
        pytest.skip(f"ran {ran} tour commands; left out (no shared/ folder at {SHARED}): {skipped}")
