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
