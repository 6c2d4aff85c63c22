"""Issue 25: swarm testing — random scenarios from a fixed set of seeds (scripts/swarm.py), each
run twice with the invariant checks on. The long mode is `scripts/swarm.py --seeds 10000`."""

import copy
import importlib.util
import sys

import pytest

import nestsim
from conftest import ROOT

spec = importlib.util.spec_from_file_location("swarm", ROOT / "scripts" / "swarm.py")
swarm = importlib.util.module_from_spec(spec)
sys.modules["swarm"] = swarm
spec.loader.exec_module(swarm)

SEEDS = range(1, 61)


def test_the_fixed_seed_set_keeps_every_invariant(capsys):
    status = swarm.main(["--seeds", str(len(SEEDS)), "--start", str(SEEDS[0])])
    out = capsys.readouterr().out
    assert status == 0, out


# Seeds the long mode found that never ended: a dumbbell host's only link down for good, a
# command stuck behind it never timed out and its transport retransmitted for ever. Fixed by
# timing every command over the fabric and tearing its connection down (docs/faults.md).
STUCK_BEHIND_A_DEAD_LINK = [439, 662, 981, 1061, 1172, 1196, 1225, 1408, 1455]


@pytest.mark.parametrize("seed", STUCK_BEHIND_A_DEAD_LINK)
def test_a_request_stuck_behind_a_dead_link_ends(seed):
    sc = swarm.draw(seed)
    assert any(f["kind"] == "link_down" and "until" not in f for f in sc.get("fault", [])), "the draw no longer has the dead link"
    assert swarm.check(seed) == []
    s = nestsim.run(sc).summary
    assert s["finished"] == "drained" and s["requests"]["in_flight"] == 0, s["requests"]
    assert s["faults"]["connections_lost"] >= 1, s["faults"]


def test_the_draws_cover_the_features():
    drawn = [swarm.draw(s) for s in SEEDS]
    kinds = {d["kind"] for sc in drawn for d in sc["device"]}
    assert kinds == {"ideal", "ssd", "pm"}
    assert sum("network" in sc for sc in drawn) > 10
    assert any(sc.get("network", {}).get("switch", {}).get("pfc") for sc in drawn)
    assert {sc["nvmeof"]["transport"] for sc in drawn if "nvmeof" in sc} == set(swarm.TRANSPORTS)
    assert any("volume" in sc for sc in drawn) and any("cache" in sc["host"][0] for sc in drawn)
    assert {w["arrival"]["kind"] for sc in drawn for w in sc["workload"]} == {"poisson", "constant", "burst", "mmpp"}
    faults = {f["kind"] for sc in drawn for f in sc.get("fault", [])}
    assert faults == {"device_fail", "host_crash", "device_slow", "gc_storm", "server_down", "link_down"}, faults
    assert any("until" in f for sc in drawn for f in sc.get("fault", []))
    assert swarm.draw(7) == swarm.draw(7)


def test_the_checks_can_fail(monkeypatch):
    real = nestsim.run
    calls = []

    def tampered(sc, **kw):
        res = real(sc, **kw)
        calls.append(1)
        s = copy.deepcopy(res.summary)
        if len(calls) == 2:
            s["events"] += 1  # the second run differs
        s["conservation"] = "issued 10 != completed 9 + in flight 0"
        res.summary = s
        return res

    monkeypatch.setattr(nestsim, "run", tampered)
    bad = swarm.check(3)
    assert any("request conservation" in b for b in bad) and any("differ" in b for b in bad), bad
