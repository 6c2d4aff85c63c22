"""device-failure: tail latency through a device failure, with and without replication (issue 25,
docs/faults.md).

One host runs 4 KiB random I/O, 70 % reads, Poisson at 20 k IOPS, on `consumer-nvme` drives for
100 ms (10 ms warm-up). At 40 ms drive `d0` stops answering (`[[fault]] kind = "device_fail"`).
The host's I/O timeout is 5 ms (Linux's default is 30 s; a shorter one keeps the run short and
changes nothing but how long the stall lasts). Three runs:
- `single`: the workload on `d0` alone;
- `mirror`: on a volume replicating `d0` and `d1` (writes to both, reads round robin);
- `mirror-healthy`: the same volume without the fault (the baseline);
- `mirror-slow`: the volume with `d0` turning fail-slow instead (`device_slow`, its flash array
  20 times slower from 40 ms on);
- `mirror-remote`: the failure with the two drives in storage servers, over NVMe-oF.
- `server-down`, `server-down-no-keepalive`: the remote mirror with storage server `r0` (holding
  `d0`) stopping at 40 ms (`kind = "server_down"`), the hosts' Keep Alive Timeout 1 ms, or none.

Claims (what users expect of a failure, from the issue):
- a replicated volume keeps serving reads through the failure: no request fails, and its read
  throughput after the host found out is what it was before;
- without replication, every request sent after the failure fails — counted, never lost
  (issued = completed + failed + in flight);
- the failure costs the replicated volume a stall of one I/O timeout, once: the reads in flight at
  `d0` wait `io_timeout` and are retried on `d1` (the slowest read ≈ timeout + service), and
  reads arriving after the host found out have the healthy run's latency;
- a fail-slow replica is never detected (nothing times out), so the volume's read tail stays high
  for as long as the drive is slow;
- a whole storage server stopping fails nothing on a mirror across two servers, and keep-alive
  finds it before the I/O timeout does: the reads caught in it wait at most 2 × KATO.
"""

from __future__ import annotations

from pathlib import Path
from typing import List

import numpy as np

from ..claims import Claim, ablation, write_claims
from . import figures
from .framework import conservation_claim, expect, run_all

NAME = "device-failure"
DESCRIPTION = "A drive stops answering mid-run: requests fail without replication; a replicated volume stalls one I/O timeout, retries, and serves on"
FIGURES = ["device-failure-latency"]
SOURCE = "issue 25 (faults as scenario events)"
FAIL_MS = 40.0
TIMEOUT_MS = 5.0
DURATION_MS = 100.0
#: The fail-slow run: d0's flash array 20 times slower (read retries of worn cells, throttling).
SLOW_FACTOR = 20
#: The server-down run's Keep Alive Timeout (Linux: 5 s against a 30 s I/O timeout; here 1 ms
#: against 5 ms).
KATO_MS = 1.0


def _scenario(name: str, target: str, fault, remote: bool = False, keep_alive: str = None) -> dict:
    """`fault`: True (d0 dies), "slow" (d0 turns fail-slow), "server" (r0 stops) or False;
    `remote`: the drives in two storage servers, over NVMe-oF on a 25 Gb/s DCTCP dumbbell, the
    hosts' Keep Alive Timeout `keep_alive` (None: Linux's 5 s)."""
    dev = lambda n: {"name": n, "kind": "ssd", "preset": "consumer-nvme"}  # noqa: E731
    sc = {
        "schema": 1, "name": f"device-failure-{name}",
        "run": {"seed": 5, "duration": f"{DURATION_MS:g}ms", "warmup": "10ms", "interval": "1ms"},
        "host": [{"name": "h", "queue_depth": 256, "io_timeout": f"{TIMEOUT_MS:g}ms"}],
        "device": [dev("d0"), dev("d1")],
        "volume": [{"name": "mirror", "layout": "replicate", "devices": ["d0", "d1"]}],
        "workload": [{"name": "w", "host": "h", "device": target, "arrival": {"kind": "poisson", "rate_iops": 20000},
                      "read_fraction": 0.7}],
    }
    if remote:
        sc["network"] = {"topology": "dumbbell", "senders": 1, "receivers": 2, "link_rate": "25Gbps", "link_delay": "1us"}
        sc["device"][0]["server"], sc["device"][1]["server"] = "r0", "r1"
        sc["host"][0]["name"] = "s0"
        sc["workload"][0]["host"] = "s0"
        if keep_alive is not None:
            sc["nvmeof"] = {"keep_alive": keep_alive}
    if fault == "server":
        sc["fault"] = [{"kind": "server_down", "server": "r0", "at": f"{FAIL_MS:g}ms"}]
    elif fault == "slow":
        sc["fault"] = [{"kind": "device_slow", "device": "d0", "at": f"{FAIL_MS:g}ms", "factor": SLOW_FACTOR}]
    elif fault:
        sc["fault"] = [{"kind": "device_fail", "device": "d0", "at": f"{FAIL_MS:g}ms"}]
    return sc


def _reads(run_dir: Path):
    import pyarrow.parquet as pq

    t = pq.read_table(str(run_dir / "requests.parquet"), columns=["op", "t_arrive_ps", "latency_us"]).to_pydict()
    reads = np.asarray([o == "read" for o in t["op"]])
    return np.asarray(t["t_arrive_ps"], dtype=float)[reads] / 1e9, np.asarray(t["latency_us"], dtype=float)[reads]


def run_experiment(out_dir: Path, quick: bool = False) -> dict:
    out_dir = Path(out_dir)
    runs = run_all(out_dir, {"single": _scenario("single", "d0", True), "mirror": _scenario("mirror", "mirror", True),
                             "mirror-healthy": _scenario("mirror-healthy", "mirror", False),
                             "mirror-slow": _scenario("mirror-slow", "mirror", "slow"),
                             "mirror-remote": _scenario("mirror-remote", "mirror", True, remote=True),
                             "server-down": _scenario("server-down", "mirror", "server", remote=True, keep_alive=f"{KATO_MS:g}ms"),
                             "server-down-no-keepalive": _scenario("server-down-no-keepalive", "mirror", "server", remote=True,
                                                                   keep_alive="0s")})
    arrive, lat = {}, {}
    for k in runs:
        arrive[k], lat[k] = _reads(out_dir / k)

    def window(k: str, lo: float, hi: float) -> np.ndarray:
        m = (arrive[k] >= lo) & (arrive[k] < hi)
        return lat[k][m]

    # Read throughput (completed reads per ms, by arrival) before the failure and after the
    # host found out (one timeout later), in the replicated run.
    detect = FAIL_MS + TIMEOUT_MS
    rate = lambda k, lo, hi: len(window(k, lo, hi)) / (hi - lo)  # noqa: E731
    before, after = rate("mirror", 10.0, FAIL_MS), rate("mirror", detect + 1.0, DURATION_MS)

    bins = np.arange(0, DURATION_MS + 1, 1.0)

    def p99_per_ms(k: str):
        xs, ys = [], []
        for lo in bins[:-1]:
            w = window(k, lo, lo + 1)
            if len(w):
                xs.append(lo)
                ys.append(float(np.percentile(w, 99)))
        return xs, ys
    figures.lines(out_dir, "device-failure-latency", {
        "read p99 by arrival (1 ms)": {k: p99_per_ms(k) for k in ("mirror", "mirror-healthy", "single", "mirror-slow")},
    }, "arrival time (ms)", "µs", logy=True)

    claims: List[Claim] = []
    m, s = runs["mirror"], runs["single"]
    claims.append(Claim("replicas-serve-on", SOURCE, "A replicated volume keeps serving reads through a device failure: no request "
                        "fails", "0 failed", f"{m['faults']['failed']} failed, {m['faults']['retried_reads']} reads retried on d1, "
                        f"{m['faults']['degraded_writes']} writes degraded", m["faults"]["failed"] == 0,
                        ablation=ablation("single (no replica)", s["faults"]["failed"] == 0)))
    claims.append(expect("replica-throughput", SOURCE, "After the host found out, the replicated volume reads at its rate before the "
                         "failure (reads per ms, by arrival)", after / before, target=1.0, tol=0.1))
    r = s["requests"]
    accounted = r["issued"] == r["completed"] + r["failed"] + r["in_flight"]
    claims.append(Claim("failures-accounted", SOURCE, "Without replication the requests sent after the failure fail, each counted: "
                        "issued = completed + failed + in flight", f"{r['failed']} failed ≈ the {(DURATION_MS - FAIL_MS) * 20:.0f} "
                        "sent after the failure, books balanced", f"issued {r['issued']}, completed {r['completed']}, failed {r['failed']}, "
                        f"in flight {r['in_flight']}", accounted and abs(r["failed"] - (DURATION_MS - FAIL_MS) * 20) <= 0.1 * (DURATION_MS - FAIL_MS) * 20))
    stall = float(lat["mirror"].max()) / 1e3
    service = float(np.median(window("mirror-healthy", 10.0, DURATION_MS))) / 1e3
    claims.append(expect("one-timeout-stall", SOURCE, "The reads caught at the dead drive wait one I/O timeout and are retried: the "
                         f"slowest read takes ≈ io_timeout ({TIMEOUT_MS:g} ms) + a read's service", stall,
                         target=TIMEOUT_MS + service, tol=0.2, unit=" ms"))
    late = window("mirror", detect + 1.0, DURATION_MS)
    healthy = window("mirror-healthy", detect + 1.0, DURATION_MS)
    claims.append(expect("tail-after-detection", SOURCE, "Reads arriving after the host found out have the healthy volume's tail "
                         "(p99)", float(np.percentile(late, 99)), target=float(np.percentile(healthy, 99)), tol=0.25, unit=" µs"))
    # The same failure behind NVMe-oF: the host aborts what it had sent, then fails over.
    mr = runs["mirror-remote"]
    ok = mr["faults"]["failed"] == 0 and mr["faults"]["retried_reads"] > 0 and mr["nvmeof"]["in_flight"] == 0
    claims.append(Claim("remote-replicas-serve-on", SOURCE, "Over NVMe-oF too (the drives in two storage servers), the replicated "
                        "volume fails nothing: the host aborts the commands it had sent to the dead drive and retries the reads on "
                        "the other server", "0 failed, reads retried, no command left in flight",
                        f"{mr['faults']['failed']} failed, {mr['faults']['retried_reads']} reads retried, {mr['nvmeof']['timed_out']} "
                        f"commands aborted, {mr['nvmeof']['in_flight']} in flight", ok))
    # Fail-slow: nothing times out, so the host never steers around the slow replica.
    sl = runs["mirror-slow"]
    slow_late = window("mirror-slow", FAIL_MS + 5.0, DURATION_MS)
    p99 = {k: float(np.percentile(v, 99)) for k, v in (("slow", slow_late), ("healthy", window("mirror-healthy", FAIL_MS + 5.0, DURATION_MS)))}
    claims.append(Claim("fail-slow-undetected", SOURCE, f"A replica that turns {SLOW_FACTOR}× slow is never detected: no I/O times out, "
                        "none fails", "0 timeouts, 0 failed", f"{sl['faults']['timeouts']} timeouts, {sl['faults']['failed']} failed",
                        sl["faults"]["timeouts"] == 0 and sl["faults"]["failed"] == 0))
    claims.append(expect("fail-slow-tail", SOURCE, f"…so the replicated volume's read tail grows with it: p99 of the reads after it at "
                         f"least 5× the healthy volume's (round robin sends half the reads to the slow replica; fail-stop costs one "
                         f"timeout, fail-slow lasts)", p99["slow"] / p99["healthy"], at_least=5.0,
                         why=f"p99 {p99['slow']:.0f} µs against {p99['healthy']:.0f} µs healthy"))
    # A whole storage server stops: keep-alive finds it lost before any I/O times out.
    sd, sn = runs["server-down"], runs["server-down-no-keepalive"]
    found = next(e["at_s"] for e in sd["faults"]["happened"] if e["kind"] == "keep_alive_lost") * 1e3
    ok = sd["faults"]["failed"] == 0 and sd["nvmeof"]["in_flight"] == 0 and sn["faults"]["failed"] == 0
    claims.append(Claim("server-down-serves-on", SOURCE, "A mirror across two storage servers fails nothing when one server stops "
                        "(every device in it)", "0 failed, no command left in flight, with and without keep-alive",
                        f"{sd['faults']['failed']} / {sn['faults']['failed']} failed, {sd['faults']['retried_reads']} reads retried, "
                        f"{sd['nvmeof']['in_flight']} in flight", ok))
    caught = lambda k: float(window(k, FAIL_MS - 1.0, found).max()) / 1e3  # noqa: E731
    healthy_worst = float(window("mirror-healthy", 10.0, DURATION_MS).max()) / 1e3
    ka, no_ka = caught("server-down"), caught("server-down-no-keepalive")
    bound = 2 * KATO_MS + healthy_worst
    claims.append(Claim("keep-alive-finds-server", SOURCE, f"Keep-alive finds the stopped server before the I/O timeout: a read caught "
                        f"in it waits at most 2 × KATO ({KATO_MS:g} ms) beyond the healthy worst; without keep-alive, the I/O timeout "
                        f"({TIMEOUT_MS:g} ms)", f"≤ {bound:.2f} ms with, ≥ {TIMEOUT_MS:g} ms without",
                        f"found lost at {found:.1f} ms (failed at {FAIL_MS:g}); slowest caught read {ka:.2f} ms with keep-alive, "
                        f"{no_ka:.2f} ms without", ka <= bound and no_ka >= TIMEOUT_MS,
                        ablation=ablation("server-down-no-keepalive", no_ka <= bound)))
    claims.append(conservation_claim(runs))
    return write_claims(out_dir, NAME, claims)
