import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("NEST_SHARED", ROOT.parent / "shared"))
TRACES = SHARED / "traces"


@pytest.fixture
def traces_dir():
    if not TRACES.is_dir():
        pytest.skip(f"reference traces not found at {TRACES} (set NEST_SHARED to the shared/ folder)")
    return TRACES


def nestsim_cmd():
    exe = shutil.which("nestsim", path=str(Path(sys.executable).parent)) or shutil.which("nestsim")
    return [exe] if exe else [sys.executable, "-m", "nestsim"]


@pytest.fixture
def cli(tmp_path):
    def run(*args, check=None):
        p = subprocess.run(nestsim_cmd() + [str(a) for a in args], capture_output=True, text=True, cwd=tmp_path, timeout=600)
        if check is not None:
            assert p.returncode == check, f"exit {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
        return p
    return run


SMALL = """
schema = 1
name = "small"
[run]
seed = 3
duration = "20ms"
warmup = "2ms"
[[device]]
name = "d0"
kind = "ideal"
servers = 4
read = { dist = "exp", mean = "50us" }
write = { dist = "fixed", value = "20us" }
[[workload]]
name = "hi"
device = "d0"
class = "high"
arrival = { kind = "poisson", rate_iops = 20000 }
read_fraction = 0.7
[[workload]]
name = "lo"
device = "d0"
class = "low"
arrival = { kind = "burst", outstanding = 4 }
size = { dist = "uniform_blocks", min = 1, max = 8 }
"""


@pytest.fixture
def small_scenario(tmp_path):
    p = tmp_path / "small.toml"
    p.write_text(SMALL)
    return p


CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


def _chromium(common: list, profile: Path, args: list, timeout: int = 120, tries: int = 2) -> subprocess.CompletedProcess:
    """Runs headless Chromium; a run that hangs is killed and tried once more with a fresh
    profile (headless Chromium occasionally hangs at start-up on a loaded machine; a report that
    cannot render hangs every time and still fails)."""
    for k in range(tries):
        try:
            return subprocess.run(common + [f"--user-data-dir={profile}-{k}"] + args, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            if k == tries - 1:
                raise
    raise AssertionError("unreachable")


def render_report(report: Path, scratch: Path) -> dict:
    """Opens `report` in headless Chromium: its self-check verdict and a screenshot's ink.

    Returns {"check": {"figures": N, "images": M, "broken": K, "width": page px at a 1280 px window},
    "ink": share of non-white pixels,
    "colours": distinct colours}. Chromium is installed by .ci/run in CI; elsewhere, without it,
    the calling test is skipped with that reason (under CI=true it fails instead)."""
    if CHROMIUM is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is not installed (.ci/run installs it with apt-get)")
        pytest.skip("headless Chromium not found (Debian: apt-get install chromium)")
    import re
    import matplotlib.image as mpimg
    scratch.mkdir(parents=True, exist_ok=True)
    url = report.resolve().as_uri()
    common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--no-first-run", "--hide-scrollbars", "--virtual-time-budget=10000",
              "--window-size=1280,1600"]
    dom = _chromium(common, scratch / "p1", ["--dump-dom", url])
    m = re.search(r'data-render-check="figures=(\d+) images=(\d+) broken=(\d+) width=(\d+)"', dom.stdout)
    assert m, f"the report's self-check did not run; chromium said:\n{dom.stderr[-2000:]}"
    shot = scratch / "shot.png"
    _chromium(common, scratch / "p2", [f"--screenshot={shot}", url])
    px = mpimg.imread(shot)[:, :, :3]
    ink = float((px.min(axis=2) < 0.9).mean())
    colours = len({tuple(c) for c in (px[::8, ::8].reshape(-1, 3) * 255).astype(int).tolist()})
    return {"check": dict(zip(("figures", "images", "broken", "width"), map(int, m.groups()))), "ink": ink, "colours": colours}


def assert_report_renders(cli, out_dir: Path, scratch: Path, min_figures: int = 1) -> dict:
    """`nestsim report out_dir` and a headless-Chromium look at it: every figure drawn with a
    size, every image decoded, and a screenshot that is not blank."""
    cli("report", out_dir, check=0)
    r = render_report(out_dir / "report.html", scratch)
    assert r["check"]["broken"] == 0, r
    assert r["check"]["figures"] + r["check"]["images"] >= min_figures, r
    assert r["ink"] > 0.02 and r["colours"] > 8, r
    return r
