"""Runs a scenario: drives the Rust engine in steps, writes outputs incrementally.

A run directory holds ``summary.json`` (deterministic), ``run.json`` (wall/CPU time, events/s,
peak memory), ``requests.parquet`` and ``timeseries.parquet``. Files are first written with a
``.partial`` suffix and renamed when complete, so a killed run never leaves a file that looks
finished.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Mapping, NamedTuple, Optional, Sequence, Union

from . import _native
from ._lazy import lazy, preload
from .progress import Progress

# numpy and pyarrow load on first use (a run starts its engine first; _lazy).
np = lazy("numpy", globals(), "np")
pa = lazy("pyarrow", globals(), "pa")
pq = lazy("pyarrow.parquet", globals(), "pq")
#: What building and writing the tables imports: loaded beside the engine's first step.
TABLE_MODULES = ("numpy", "pyarrow", "pyarrow.parquet", "concurrent.futures")

#: Events per engine step between drains (about 0.05–0.25 s of CPU). Half of the 500 K it was:
#: the rows a step leaves to convert and write are what the run's peak memory holds beside the
#: model (1 M 4 KiB requests on the stock drive: peak 302–327 MB → 277 MB, CPU unchanged or 4 %
#: less; issue 24).
CHUNK_EVENTS = 250_000
#: Steps are shorter once memory passes half the limit, so a run that keeps growing is caught
#: before it crosses it (a step of CHUNK_EVENTS can add hundreds of MB in an overloaded run).
CAREFUL_CHUNK_EVENTS = 100_000
#: Finished requests a step should leave at most, when the run records them: a run with few
#: events per request (an ideal device: one) would otherwise drain 250 K rows at a time, ~50 MB
#: as columns and twice that as the table made of them (1 M 4 KiB requests on an ideal device:
#: peak 299 → 261 MB; a 1 M-record MSR replay 233 → 214 MB; CPU unchanged; issue 24). Steps
#: are sized from the rows per event of the step before; the stock drive's (~50 K rows) are not.
STEP_ROWS = 65_536
#: The shortest step STEP_ROWS makes (a step has a fixed cost of a few hundred µs).
MIN_CHUNK_EVENTS = 10_000
#: Drains kept as the engine's raw columns while numpy and pyarrow load beside the first steps
#: (``_lazy.preload``); past this many the run waits for them.
MAX_STASHED = 4


class Budget(NamedTuple):
    """Limits a run stops at, cleanly, with its partial outputs written and ``summary.stopped``
    saying which limit and when. ``events`` stops at exactly that many events (deterministic);
    ``wall_s`` and ``memory_bytes`` (resident set of this process) are checked between steps.
    ``memory_bytes=None`` means the default: 80 % of the memory available when the run starts."""

    events: Optional[int] = None
    wall_s: Optional[float] = None
    memory_bytes: Optional[int] = None

    def memory_limit(self) -> Optional[int]:
        # The default is the engine's (80 % of the memory available at the start), the limit its tables are checked against.
        return self.memory_bytes if self.memory_bytes is not None else _native.default_memory_limit()


def current_rss() -> int:
    """This process's resident set now (Linux /proc; elsewhere the peak, which is an upper bound)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return int(_peak_rss_mb() * 1024 * 1024)

REQUEST_COLUMNS = [
    "seq", "workload", "class", "host", "device", "op", "size", "offset", "cache_hit_blocks",
    "t_arrive_ps", "t_dispatch_ps", "t_tgt_arrive_ps", "t_sq_ps", "t_dev_start_ps", "t_dev_done_ps",
    "t_resp_sent_ps", "t_resp_arrive_ps", "t_complete_ps",
]


class RunResult:
    """What a run produced. Tables are pyarrow Tables (``.to_pandas()`` with pandas installed,
    or ``polars.from_arrow``); ``requests.in_window`` marks the rows the summary's statistics
    count (arrived after the warm-up and before the wrap-up). ``head`` holds what the exit status
    and run.json need, read from the summary by the engine: `events`, `completed`, `sim_time_s`,
    `seed`, `scenario`, `conservation`, `network_conservation` and (a stopped run's) `stopped`.
    (A plain class, not a dataclass: `nestsim` starts without importing dataclasses.)"""

    def __init__(self, run_info: dict, out_dir: Optional[Path] = None, _requests: Optional[Any] = None,
                 _timeseries: Optional[Any] = None, _summary: Optional[dict] = None, _summary_text: Optional[str] = None,
                 head: Optional[dict] = None):
        self.run_info, self.out_dir = run_info, out_dir
        self._requests, self._timeseries = _requests, _timeseries
        # The summary as a dict, or (until first read) as the engine's JSON text: a command that
        # only writes summary.json never parses it back (121 MB, 1.5 CPU-s on 10,000 drives).
        self._summary, self._summary_text = _summary, _summary_text
        self.head = head if head is not None else {}

    @property
    def summary(self) -> dict:
        if self._summary is None:
            self._summary = json.loads(self._summary_text) if self._summary_text is not None else {}
            self._summary_text = None
        return self._summary

    @summary.setter
    def summary(self, value: dict) -> None:
        self._summary, self._summary_text = value, None

    def __repr__(self) -> str:
        # Short: a notebook cell that evaluates a result should not print the whole summary.
        s = self.summary
        rows = [f"{c}: {v['all']['ios']} I/Os, p99 {v['all']['lat_us']['p99']:.4g} µs"
                for c, v in s.get("classes", {}).items() if v.get("all", {}).get("ios")]
        where = f", out_dir={str(self.out_dir)!r}" if self.out_dir else ""
        warn = f", {len(s.get('warnings', []))} warning(s)" if s.get("warnings") else ""
        return (f"RunResult({s.get('scenario')!r}, seed {s.get('seed')}, {s.get('sim_time_s')} s simulated{warn}{where}: "
                + "; ".join(rows) + ")")

    @property
    def requests(self) -> pa.Table:
        if self._requests is None and self.out_dir and (self.out_dir / "requests.parquet").exists():
            self._requests = pq.read_table(self.out_dir / "requests.parquet")
        return self._requests if self._requests is not None else pa.table({})

    @property
    def timeseries(self) -> pa.Table:
        if self._timeseries is None and self.out_dir and (self.out_dir / "timeseries.parquet").exists():
            self._timeseries = pq.read_table(self.out_dir / "timeseries.parquet")
        return self._timeseries if self._timeseries is not None else pa.table({})


def _columns(raw: Mapping[str, tuple]) -> dict:
    return {k: np.frombuffer(buf, dtype=np.dtype(dt)) for k, (dt, buf) in raw.items()}


def _dict_col(idx: np.ndarray, names: Sequence[str]) -> pa.Array:
    return pa.DictionaryArray.from_arrays(pa.array(idx.astype(np.int32)), pa.array(list(names), pa.string()))


def _required(columns: dict) -> pa.Table:
    """A table of ``columns`` whose fields are declared non-nullable (Parquet REQUIRED): no
    column of NeSt's has nulls, and an OPTIONAL column costs a definition level per value —
    writing a million requests took 0.42 CPU-s with them, 0.33 without (issue 24)."""
    arrays = [a if isinstance(a, pa.Array) else pa.array(a) for a in columns.values()]
    schema = pa.schema([pa.field(name, a.type, nullable=False) for name, a in zip(columns, arrays)])
    return pa.Table.from_arrays(arrays, schema=schema)


def requests_table(raw: Mapping[str, tuple], names: Mapping[str, Any]) -> pa.Table:
    c = _columns(raw)
    lat_us = (_signed(c["t_complete_ps"]) - _signed(c["t_arrive_ps"])) / 1e6
    arrive = c["t_arrive_ps"]
    in_window = arrive >= names["window_start_ps"]
    if names["window_end_ps"] is not None:
        in_window &= arrive < names["window_end_ps"]
    return _required({
        "seq": c["seq"],
        "workload": _dict_col(c["workload"], names["workloads"]),
        "class": _dict_col(c["class"], names["classes"]),
        "host": _dict_col(c["host"], names["hosts"]),
        "device": _dict_col(c["device"], names["devices"]),
        "op": _dict_col(c["op"], ["read", "write"]),
        "size": c["size"],
        "offset": c["offset"],
        "cache_hit_blocks": c["cache_hit_blocks"],
        # Arrived inside the measurement window: counted in the summary's statistics.
        "in_window": in_window,
        **{s: c[s] for s in STAMPS},
        "latency_us": lat_us,
        **_parts_us(c),
        **{f"ssd_{p}_us": c[f"ssd_{p}_ps"] / 1e6 for p in SSD_PARTS},
    })


#: The requests table's dictionary-encoded columns. Only these get Parquet dictionary pages: for
#: the stamps and latencies (nearly all distinct) a dictionary is built and thrown away, which
#: cost 30 % of the writing time and made the file 6 % larger.
DICTIONARY_COLUMNS = ["workload", "class", "host", "device", "op"]
# The time series' names are dictionaries; its numbers are not (a dictionary of float samples
# costs time and grows the file), and `count` (1 for a sampled state) packs as deltas: 1 µs
# series on the dumbbell write in 0.13 CPU-s instead of 0.22, and the file is 21 % smaller.
SERIES_ENCODING = {"use_dictionary": ["entity", "metric"], "column_encoding": {"count": "DELTA_BINARY_PACKED"}}
# Every output table's compression: zstd at its fast level -1 rather than Arrow's default 1. On
# the stock drive's 10⁶ requests the writing takes 0.32 CPU-s instead of 0.37 and the file is
# 1 % larger (66.9 MB against 66.1); reading is as fast (issue 24).
COMPRESSION = {"compression": "zstd", "compression_level": -1}

# Stage stamps in path order; consecutive differences are the latency parts (PARTS).
STAMPS = ["t_arrive_ps", "t_dispatch_ps", "t_tgt_arrive_ps", "t_sq_ps", "t_dev_start_ps", "t_dev_done_ps",
          "t_resp_sent_ps", "t_resp_arrive_ps", "t_complete_ps"]
PARTS = ["host_queue", "fwd_network", "target_request_queue", "nvme_queue", "device",
         "target_response_queue", "back_network", "host_completion"]
# Inside an SSD: the parts of `device` (nest_ssd::DEV_PARTS; they add up to device_us for
# requests an SSD served, and are 0 for other devices).
SSD_PARTS = list(_native.ssd_parts())
# The request ids and stage stamps rise nearly in step from row to row: as deltas they write in
# 0.56 CPU-s instead of 0.64 per million requests and the file is 15 % smaller (issue 24).
REQUEST_ENCODING = {"use_dictionary": DICTIONARY_COLUMNS,
                    "column_encoding": {c: "DELTA_BINARY_PACKED" for c in ["seq", *STAMPS]}}


def _signed(stamps: np.ndarray) -> np.ndarray:
    """Picosecond stamps (u64) read as i64 in place, so that their differences are signed: the
    same values as a converted copy (``astype`` wraps as a view does) without copying each
    column per drain."""
    return stamps.view(np.int64)


def _parts_us(c: Mapping[str, np.ndarray]) -> dict:
    """The latency decomposition of every request, in µs (the parts add up to latency_us)."""
    out = {}
    for i, part in enumerate(PARTS):
        a, b = _signed(c[STAMPS[i]]), _signed(c[STAMPS[i + 1]])
        out[f"{part}_us"] = (b - a) / 1e6
    return out


def series_codes(series_names: Sequence[tuple]) -> tuple:
    """Per series: its entity's and metric's dictionary codes, and whether it is a sum; with the
    dictionaries. Computed once per run (a run has ~85 series per drive: 850 K with 10,000)."""
    entities: dict = {}
    metrics: dict = {}
    entity_of = np.array([entities.setdefault(e, len(entities)) for e, _ in series_names] or [0], dtype=np.int32)
    metric_of = np.array([metrics.setdefault(m, len(metrics)) for _, m in series_names] or [0], dtype=np.int32)
    sum_of = np.array([m.endswith("_bytes") for _, m in series_names] or [False], dtype=bool)
    return list(entities), entity_of, list(metrics), metric_of, sum_of


def series_table(raw: Mapping[str, tuple], codes: tuple) -> pa.Table:
    """The drained time-series rows. ``entity`` and ``metric`` are dictionary-encoded by series
    id (``codes``, from ``series_codes`` once per run, as the requests table's names are): built
    per row as strings they cost ~30 times the simulation at 1 µs sampling (10⁷ rows on the
    0.5 s dumbbell, issue 24)."""
    c = _columns(raw)
    ids = c["series"].astype(np.int32)
    entity_names, entity_of, metric_names, metric_of, sum_of = codes
    value = np.where(sum_of[ids], c["sum"], c["sum"] / np.maximum(c["count"], 1))
    return _required({
        "time_s": c["time_s"],
        "entity": pa.DictionaryArray.from_arrays(pa.array(entity_of[ids]), pa.array(entity_names, pa.string())),
        "metric": pa.DictionaryArray.from_arrays(pa.array(metric_of[ids]), pa.array(metric_names, pa.string())),
        "value": value,
        "sum": c["sum"],
        "count": c["count"],
    })


class _StopOnSignal:
    """While a run steps (main thread only), SIGINT and SIGTERM ask it to stop after the current
    chunk of events: it then writes its summary like a budget stop (`finished: "stopped"`,
    `stopped.by = "signal"`) instead of dying with nothing written (issue 63). A second Ctrl-C
    interrupts at once, as usual."""

    def __init__(self, active: bool) -> None:
        import signal
        import threading

        self._signal = signal
        self._got: Optional[str] = None
        self._old = {}
        if not active or threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old[sig] = signal.signal(sig, self._handle)

    def _handle(self, signum, _frame) -> None:
        if self._got is not None and signum == self._signal.SIGINT:
            raise KeyboardInterrupt
        self._got = self._signal.Signals(signum).name

    def caught(self) -> Optional[dict]:
        return {"by": "signal", "signal": self._got} if self._got else None

    def restore(self) -> None:
        for sig, old in self._old.items():
            self._signal.signal(sig, old)
        self._old = {}


def _over_budget(budget: Budget, mem_limit: Optional[int], events: int, wall_s: float) -> Optional[dict]:
    """Which limit a run has reached between steps, if any."""
    if budget.events is not None and events >= budget.events:
        return {"by": "events", "limit": budget.events}
    if budget.wall_s is not None and wall_s >= budget.wall_s:
        return {"by": "wall_s", "limit": budget.wall_s}
    if mem_limit is not None:
        rss = current_rss()
        if rss > mem_limit:
            return {"by": "memory", "limit_bytes": mem_limit, "rss_bytes": rss}
    return None


def _scenario_args(scenario: Union[str, os.PathLike, Mapping]) -> dict:
    if isinstance(scenario, Mapping):
        return {"text": json.dumps(scenario), "name": "<dict>"}
    return {"path": str(scenario)}


def _peak_rss_mb() -> float:
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024.0 if sys.platform != "darwin" else kb / (1024.0 * 1024.0)


def write_json(path: Path, obj: Any) -> None:
    write_text(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")


def write_text(path: Path, text: str) -> None:
    """Writes `path` whole or not at all (a `.partial` file renamed)."""
    tmp = path.with_name(path.name + ".partial")
    tmp.write_text(text)
    tmp.replace(path)


#: Version of the output files' layout (summary.json, run.json, the Parquet tables); raised when
#: a column or key changes meaning or goes away (new ones do not raise it).
OUTPUT_SCHEMA = 1

#: The command line a run came from, set by the CLI (None from the Python API).
COMMAND: Optional[str] = None


def _origin(seed: Optional[int], started: float) -> dict:
    """What every output says of where it came from: NeSt's version and git commit, the seed,
    the command (from the CLI) and when the run started (UTC)."""
    return {"nest_version": _native.__version__, "git_commit": _native.__git_commit__, "seed": seed, "command": COMMAND,
            "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started))}


def provenance(summary: Mapping, scenario: Any, started: float) -> dict:
    """run.json's provenance: the origin and the scenario."""
    where = str(Path(scenario).resolve()) if not isinstance(scenario, Mapping) else f"<dict: {summary.get('scenario')}>"
    return {**_origin(summary.get("seed"), started), "scenario": where, "scenario_name": summary.get("scenario")}


def with_provenance(schema: pa.Schema, seed: Optional[int], started: float, extra: Optional[dict] = None) -> pa.Schema:
    """A Parquet table's schema with NeSt's metadata (key ``nestsim``): the output schema and the
    origin, so a table read on its own still says where it came from (and ``extra``: the time
    series' interval and row policy)."""
    meta = {"output_schema": OUTPUT_SCHEMA, **_origin(seed, started), **(extra or {})}
    return schema.with_metadata({**(schema.metadata or {}), b"nestsim": json.dumps(meta).encode()})


#: Rows per Parquet row group: drained chunks are gathered up to this before they are written,
#: so a run of many short steps does not leave a file of thousands of tiny row groups. Two of
#: them can be in memory at once (one gathering, one being written): 128 K rows of the requests
#: table are ~40 MB as arrays.
ROW_GROUP_ROWS = 128 * 1024


class _TableStream:
    """One output table written as the run goes: drained chunks are gathered into row groups
    of about ROW_GROUP_ROWS and appended to ``path`` (None: nothing is written). The tables are
    also kept in memory when ``keep`` is set or there is no file.

    Row groups are written on a thread of their own while the engine runs its next step (the
    engine releases the GIL; Parquet encoding does too): on a machine with a second core the
    writing costs no wall time. One write is in flight at a time, in order, so the file is the
    same as written inline and at most two row groups wait in memory. Every row group is also a
    closed part file of its own (``parquet_stream``), so a killed run's rows are readable."""

    def __init__(self, path: Optional[Path], seed: Optional[int], started: float, keep: bool, empty_file: bool = False,
                 meta: Optional[dict] = None, **options):
        self.path, self.seed, self.started, self.options, self.meta = path, seed, started, options, meta
        # Whether a table without rows still gets its file (the time series does when asked for).
        self.empty_file = empty_file
        self.keep = keep or path is None
        self.writer: Optional[Any] = None  # a parquet_stream.ParquetAppender
        self.pending: list = []
        self.pending_rows = 0
        self.kept: list = []
        self.schema: Optional[pa.Schema] = None
        self.thread: Optional[Any] = None  # a ThreadPoolExecutor, once a row group is written
        self.in_flight: Optional[Any] = None  # the Future of the write in flight

    def add(self, t: pa.Table) -> None:
        if self.schema is None:
            self.schema = t.schema
        if not t.num_rows:
            return
        if self.keep:
            self.kept.append(t)
        if self.path is not None:
            self.pending.append(t)
            self.pending_rows += t.num_rows
            if self.pending_rows >= ROW_GROUP_ROWS:
                self._flush()

    def _flush(self) -> None:
        if not self.pending:
            return
        t = pa.concat_tables(self.pending)
        self.pending, self.pending_rows = [], 0
        self._wait()
        if self.thread is None:
            from concurrent.futures import ThreadPoolExecutor

            self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="nestsim-writer")
        self.in_flight = self.thread.submit(self._write, t)

    def _write(self, t: pa.Table) -> None:
        if self.writer is None:
            from .parquet_stream import ParquetAppender

            self.writer = ParquetAppender(self.path, with_provenance(t.schema, self.seed, self.started, self.meta),
                                          **COMPRESSION, **self.options)
        self.writer.append(t)

    def _wait(self) -> None:
        """Waits for the write in flight; its error, if any, is raised here."""
        if self.in_flight is not None:
            f, self.in_flight = self.in_flight, None
            f.result()

    def close(self) -> None:
        try:
            self._flush()
            self._wait()
        finally:
            if self.thread is not None:
                self.thread.shutdown(wait=True)
                self.thread = None
            if self.writer is not None:
                self.writer.close()

    def table(self) -> Optional[pa.Table]:
        return pa.concat_tables(self.kept) if self.kept else None

    def finish(self, final: Path) -> None:
        """Moves the written table to ``final`` (written empty, with ``empty_file``, if no row came)."""
        if self.path is None:
            return
        if self.writer is not None:
            self.writer.finish(final)
            self.writer = None
        elif self.empty_file and self.schema is not None:
            pq.write_table(self.schema.empty_table().replace_schema_metadata(
                with_provenance(self.schema, self.seed, self.started, self.meta).metadata), self.path, **COMPRESSION)
            self.path.replace(final)



def jobs() -> int:
    """Worker processes for independent runs (an experiment's, a model's training samples):
    `NEST_JOBS`, else every core."""
    env = os.environ.get("NEST_JOBS")
    if env:
        return max(1, int(env))
    return os.cpu_count() or 1

def run(
    scenario: Union[str, os.PathLike, Mapping],
    seed: Optional[int] = None,
    overrides: Sequence[str] = (),
    out_dir: Union[str, os.PathLike, None] = None,
    progress: Optional[bool] = None,
    keep_tables: bool = True,
    origin: Optional[str] = None,
    budget: Optional[Budget] = None,
    stop_on_signal: bool = False,
) -> RunResult:
    """Runs a scenario (a TOML path or a dict of the same shape) and returns its results.

    ``overrides`` are ``"key.path=value"`` strings as for ``nestsim run --set``. With
    ``out_dir`` the outputs are written there (incrementally for requests); without it they stay
    in memory. Raises :class:`nestsim.ConfigError` for a malformed scenario. ``origin`` names
    where a dict scenario came from (e.g. the MQSim files it was converted from) in its errors.
    ``budget`` limits events, wall time and memory (:class:`Budget`; by default only memory, at
    80 % of the memory available at the start): a run that reaches a limit stops with partial results and
    ``summary["stopped"]`` set. With ``stop_on_signal`` (the CLI's single runs) SIGINT and
    SIGTERM stop the run the same way; sweeps and library callers keep the default handlers, so
    an interrupted sweep's runs stay unfinished and are redone on resume.
    """
    budget = budget or Budget()
    mem_limit = budget.memory_limit()
    started = time.time()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    try:
        sim = _native.Sim(overrides=list(overrides), seed=seed, max_memory=budget.memory_bytes, max_wall=budget.wall_s,
                          **_scenario_args(scenario))
    except _native.ConfigError as e:
        if not isinstance(scenario, Mapping):
            raise
        # Lines of the TOML a dict was serialised to mean nothing to the user; the key paths do.
        msg = re.sub(r"<dict>(:\d+(:\d+)?)?", f"{origin} (converted)" if origin else "<dict>", str(e))
        raise _native.ConfigError(msg) from None
    names = sim.names()
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        for stale in ("summary.json", "run.json", "requests.parquet", "timeseries.parquet"):
            (out / stale).unlink(missing_ok=True)
        # A killed run's parts would otherwise be read as this run's (read_partial).
        for stale in [*out.glob("requests.parquet.partial*"), *out.glob("timeseries.parquet.partial*")]:
            shutil.rmtree(stale) if stale.is_dir() else stale.unlink(missing_ok=True)
    want_requests = names["output_requests"]
    want_series = names["output_timeseries"]
    seed = names.get("seed")
    # Both tables go to disk as the run goes (a `.partial` file until the run ends); in memory
    # only what the caller keeps, or everything when there is no run directory.
    req_out = _TableStream(out / "requests.parquet.partial" if out is not None else None, seed, started, keep_tables,
                           **REQUEST_ENCODING)
    series_out = _TableStream(out / "timeseries.parquet.partial" if out is not None and want_series else None, seed, started,
                              keep_tables, empty_file=True,
                              meta={"interval_s": names["interval_s"], "timeseries_rows": names["timeseries_rows"]}, **SERIES_ENCODING)
    series_names, codes = sim.series_names(), None  # codes: series_codes, at the first table (numpy)
    # numpy and pyarrow load on a thread while the first steps run; their drains wait, as the
    # engine's raw columns, until the modules are in (at most MAX_STASHED of them).
    loader = preload(TABLE_MODULES) if want_requests or want_series else None
    stash: list = []

    def tables() -> None:
        nonlocal codes
        for raw_requests, raw_series in stash:
            if want_requests:
                req_out.add(requests_table(raw_requests, names))
            if want_series:
                codes = codes or series_codes(series_names)
                series_out.add(series_table(raw_series, codes))
        stash.clear()

    bar = Progress(enabled=progress)
    stopped = None
    rows_per_event = 0.0  # of the step before
    signals = _StopOnSignal(stop_on_signal)
    try:
        while True:
            chunk = CHUNK_EVENTS
            if rows_per_event > 0:
                chunk = max(MIN_CHUNK_EVENTS, min(chunk, int(STEP_ROWS / rows_per_event)))
            if mem_limit is not None and current_rss() > mem_limit // 2:
                chunk = min(chunk, CAREFUL_CHUNK_EVENTS)
            if budget.events is not None:
                chunk = min(chunk, budget.events - sim.events)
            events_before = sim.events
            finished = sim.step(chunk) if chunk > 0 else False
            raw_requests = sim.drain_requests() if want_requests else None
            if want_requests:
                rows_per_event = len(raw_requests["seq"][1]) // 8 / max(1, sim.events - events_before)
            # Drained even when not written: the engine keeps no series then, so this is empty.
            raw_series = sim.drain_series()
            stash.append((raw_requests, raw_series))
            if loader is None or not loader.is_alive() or len(stash) >= MAX_STASHED:
                tables()
            bar.update(sim.progress, sim.now_s, sim.events, sim.completed)
            if finished:
                break
            stopped = signals.caught() or _over_budget(budget, mem_limit, sim.events, time.perf_counter() - wall0)
            if stopped is not None:
                stopped["at_sim_s"] = sim.now_s
                break
    finally:
        signals.restore()
        bar.close()
        try:
            tables()
        finally:
            try:
                req_out.close()
            finally:
                series_out.close()
    # The engine writes the summary as json.dumps(indent=2, sort_keys=True) would, far faster
    # than Python's encoder does with an indent (issue 64): written as is unless changed here.
    summary_text, head = sim.summary_json_head()
    head["stopped"] = stopped
    summary = None  # parsed only where needed: a stopped run's, or the caller's first look
    if stopped is not None:
        # Not drained and not at its time limit: cut short, with requests perhaps in flight.
        summary = json.loads(summary_text)
        summary["finished"] = "stopped"
        summary["stopped"] = stopped
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    run_info = {
        "output_schema": OUTPUT_SCHEMA,
        "nest_version": _native.__version__,
        "provenance": provenance(head, scenario, started),
        "wall_s": round(wall, 4),
        "cpu_s": round(cpu, 4),
        "events": head["events"],
        "events_per_cpu_s": round(head["events"] / cpu, 1) if cpu > 0 else None,
        "ios_per_cpu_s": round(head["completed"] / cpu, 1) if cpu > 0 else None,
        "sim_time_s": head["sim_time_s"],
        "peak_rss_mb": round(_peak_rss_mb(), 1),
        "python": sys.version.split()[0],
        "warnings": sim.warnings,
        # The limits this run was held to (the memory default depends on the machine, so it is
        # here and not in the deterministic summary).
        "budget": {"events": budget.events, "wall_s": budget.wall_s, "memory_bytes": mem_limit},
    }
    requests, timeseries = req_out.table(), series_out.table()
    result = RunResult(run_info=run_info, out_dir=out, _requests=requests if keep_tables else None,
                       _timeseries=timeseries if keep_tables else None, _summary=summary,
                       _summary_text=summary_text if summary is None else None, head=head)
    if out is not None:
        req_out.finish(out / "requests.parquet")
        series_out.finish(out / "timeseries.parquet")
        if names["output_fio_json"]:
            from .fio_json import REQUEST_COLUMNS, fio_json

            reqs = requests if requests is not None else (
                pq.read_table(out / "requests.parquet", columns=REQUEST_COLUMNS) if (out / "requests.parquet").exists() else None)
            if timeseries is None and (out / "timeseries.parquet").exists():
                timeseries = pq.read_table(out / "timeseries.parquet")
            base = Path(scenario).resolve().parent if not isinstance(scenario, Mapping) else Path.cwd()
            write_json(out / "fio.json", fio_json(result.summary, reqs, timeseries, base, interval=names["interval_s"]))
            # The jobs' write_lat_log / write_bw_log / write_iops_log (fio_logs).
            from .fio_logs import write_logs

            write_logs(out, result.summary, reqs, base)
        write_json(out / "run.json", run_info)
        # summary.json last: its presence marks a complete run directory.
        if stopped is None:
            write_text(out / "summary.json", summary_text + "\n")
        else:
            write_json(out / "summary.json", summary)
    return result
