"""Whole-pipeline benchmark through the Python package (what `nestsim run` costs end to end,
including per-request Parquet output): I/Os per CPU second of this process."""

import os
import tempfile
import time
from pathlib import Path

import nestsim

SHARED = Path(os.environ.get("NEST_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def bench(name, scenario):
    with tempfile.TemporaryDirectory() as d:
        c0, w0 = time.process_time(), time.perf_counter()
        res = nestsim.run(scenario, out_dir=d, progress=False, keep_tables=False)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        n = res.summary["requests"]["completed"]
        size = (Path(d) / "requests.parquet").stat().st_size if (Path(d) / "requests.parquet").exists() else 0
    print(f"{name:<52} {cpu:7.3f} CPU-s {wall:7.3f} wall-s  {n / cpu / 1e6:6.2f} M I/Os/CPU-s  "
          f"({n:,} I/Os, requests.parquet {size / 1e6:.1f} MB, peak RSS {res.run_info['peak_rss_mb']:.0f} MB)")


DEV = {"name": "d", "kind": "ideal", "servers": 64, "read": {"dist": "fixed", "value": "10us"}, "write": {"dist": "fixed", "value": "10us"}}

print("== whole pipeline via nestsim.run (Rust engine + Parquet writing in Python) ==")
bench("closed loop QD64, 2 s simulated, every request to Parquet", {
    "schema": 1, "run": {"duration": "2s"}, "device": [DEV],
    "workload": [{"name": "w", "device": "d", "arrival": {"kind": "burst", "outstanding": 64}, "read_fraction": 0.7}],
})
tencent = SHARED / "traces/snia_tencent_cbs_sample/cloud_storage-sample.csv"
if tencent.exists():
    bench("Tencent CBS sample replay (50k records)", {
        "schema": 1, "device": [DEV],
        "workload": [{"name": "t", "device": "d", "trace": {"path": str(tencent), "format": "tencent"}}],
    })
else:
    print(f"(Tencent sample not found under {SHARED}; skipped)")
