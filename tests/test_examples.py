"""Every example scenario validates and runs (examples are documentation: they must work)."""

import json
from pathlib import Path

import pytest
from conftest import ROOT, TRACES

EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_validates_and_runs(cli, tmp_path, path):
    if "NEST_SHARED" in path.read_text() and not TRACES.is_dir():
        pytest.skip(f"{path.name} needs the shared traces ({TRACES} not found)")
    cli("validate", path, check=0)
    cli("run", path, "-o", tmp_path / "o", "-q", check=0)
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert s["conservation"] == "ok"
    # Something ran: requests completed, or (network-only examples) packets were delivered.
    assert s["requests"]["completed"] > 0 or s.get("network", {}).get("packets", {}).get("delivered", 0) > 0


def test_fio_example_warns_about_nothing_and_maps_jobs(cli, tmp_path):
    p = cli("validate", ROOT / "examples" / "fio.toml", check=0)
    assert "warning" not in p.stdout
    cli("run", ROOT / "examples" / "fio.toml", "-o", tmp_path / "o", "-q", check=0)
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert set(s["workloads"]) == {"tenants.oltp", "tenants.scan"}
    oltp = s["workloads"]["tenants.oltp"]
    # rate_iops=20000,8000 at 70% reads: total min(20000/0.7, 8000/0.3) = 26,667/s
    total = oltp["read"]["iops"] + oltp["write"]["iops"]
    assert abs(total - 26_667) / 26_667 < 0.05, total
