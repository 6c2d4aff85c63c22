"""fio-style JSON output (``--output-format=json`` shape; traces/README.md §3.12) built from a
run's summary: one job per workload, latencies as ``clat_ns`` with fio's percentile keys."""

from __future__ import annotations


def _dir(d: dict, seconds: float) -> dict:
    lat = d["lat_us"]
    ns = lambda us: int(round(us * 1000))  # noqa: E731
    return {
        "io_bytes": d["bytes"],
        "io_kbytes": d["bytes"] // 1024,
        "bw_bytes": int(d["bytes"] / seconds) if seconds > 0 else 0,
        "bw": int(d["bytes"] / 1024 / seconds) if seconds > 0 else 0,
        "iops": d["iops"],
        "runtime": int(round(seconds * 1000)),
        "total_ios": d["ios"],
        "short_ios": 0,
        "drop_ios": 0,
        "clat_ns": {
            "mean": lat["mean"] * 1000,
            "max": ns(lat["max"]),
            "N": d["ios"],
            "percentile": {
                "50.000000": ns(lat["p50"]),
                "90.000000": ns(lat["p90"]),
                "99.000000": ns(lat["p99"]),
                "99.900000": ns(lat["p99_9"]),
            },
        },
    }


def fio_json(summary: dict) -> dict:
    seconds = summary["window"]["seconds"]
    jobs = []
    for name, w in summary["workloads"].items():
        jobs.append({
            "jobname": name,
            "groupid": 0,
            "error": 0,
            "job options": {"class": w["class"], "device": w["device"]},
            "read": _dir(w["read"], seconds),
            "write": _dir(w["write"], seconds),
            "job_runtime": int(round(seconds * 1000)),
        })
    return {"fio version": f"nestsim-{summary['nest_version']}", "global options": {}, "jobs": jobs}
