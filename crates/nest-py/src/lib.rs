//! PyO3 bindings: the thin layer between the Rust engine and the `nestsim` Python package.
//!
//! The Python side drives a run in steps (`Sim.step`), draining finished requests and closed
//! time-series intervals between steps as little-endian column buffers (`numpy.frombuffer`
//! turns them into arrays without parsing), so long runs write Parquet incrementally and show
//! progress. The GIL is released while the engine runs.

mod pyjson;

use nest_config::{load_file, load_str, resolve, ConfigErrors};
use nest_core::queue::{PendingEvents, QuadHeap, RadixHeap, StdHeap};
use nest_core::rng::RngStream;
use nest_core::SimTime;
use nest_model::request::RequestColumns;
use nest_model::{Simulation, StepState};
use nest_workload::trace::{count_records, TraceFormat, TraceOptions};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::{Path, PathBuf};

create_exception!(_native, ConfigError, PyValueError, "A scenario, trace or job file is malformed (the message names file, line and key).");
create_exception!(_native, SimError, PyRuntimeError, "The simulation stopped on an error (e.g. a malformed trace line met mid-run).");
create_exception!(
    _native,
    Stopped,
    SimError,
    "A budget (--max-wall) ran out before the run could start (e.g. while preconditioning a large drive); nothing was run."
);
create_exception!(_native, InternalError, PyRuntimeError, "A bug in NeSt: the engine panicked. The message names where; please report it with the input.");

/// The last panic's message and place, kept by the hook instead of printed: the boundary turns it
/// into an InternalError, so a user sees one clear message, not a Rust backtrace note.
static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(info.to_string());
        }
    }));
}

/// Runs `f` at the boundary to Python: a panic inside comes back as an InternalError saying it
/// is NeSt's fault and where it happened (`what` names the step: the run, the check, …), never as
/// a crash or a BaseException that `except Exception` would miss.
fn guarded<T>(what: &str, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let recorded = LAST_PANIC.lock().ok().and_then(|mut l| l.take());
        let what_panicked =
            recorded.or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_default();
        Err(InternalError::new_err(format!("internal error in {what} (a NeSt bug; please report it with the input): {}", what_panicked.replace('\n', " "))))
    })
}

fn config_err(e: ConfigErrors) -> PyErr {
    ConfigError::new_err(e.to_string())
}

/// Loads and resolves a scenario; `max_memory` replaces the default memory limit (80 % of the
/// machine) its tables are checked against.
fn load(
    path: Option<String>,
    text: Option<String>,
    name: Option<String>,
    overrides: Vec<String>,
    seed: Option<u64>,
    max_memory: Option<u64>,
) -> Result<nest_config::Resolved, PyErr> {
    let limit = |mut l: nest_config::Loaded| {
        if max_memory.is_some() {
            l.memory_limit = max_memory;
        }
        l
    };
    let text = match (name.as_deref(), text) {
        // A scenario given as a dict arrives as JSON; it is rewritten as TOML so the same
        // loader (and its key-located errors) applies.
        (Some("<dict>"), Some(json)) => {
            let table: toml::Table = serde_json::from_str(&json).map_err(|e| ConfigError::new_err(format!("<dict>: not a scenario table: {e}")))?;
            Some(toml::to_string(&table).map_err(|e| ConfigError::new_err(format!("<dict>: {e}")))?)
        }
        (_, t) => t,
    };
    match (path, text) {
        (Some(p), None) => {
            let p = PathBuf::from(p);
            let text = nest_config::read_scenario(&p).map_err(config_err)?;
            let loaded = limit(load_file(&p, &overrides, seed).map_err(config_err)?);
            resolve(&loaded, &text).map_err(config_err)
        }
        (None, Some(t)) => {
            let file = name.unwrap_or_else(|| "<scenario>".into());
            let base = std::env::current_dir().unwrap_or_default();
            let loaded = limit(load_str(&t, &file, base, &overrides, seed).map_err(config_err)?);
            resolve(&loaded, &t).map_err(config_err)
        }
        _ => Err(PyValueError::new_err("give exactly one of path= or text=")),
    }
}

/// `v` as little-endian bytes, written straight into the Python object (no staging copy).
fn le_bytes<'py, T: Copy, const N: usize>(py: Python<'py>, v: &[T], f: fn(T) -> [u8; N]) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, v.len() * N, |buf| {
        for (dst, &x) in buf.chunks_exact_mut(N).zip(v) {
            dst.copy_from_slice(&f(x));
        }
        Ok(())
    })
}

/// The drained request columns as {column: (numpy dtype, bytes)}.
fn request_dict<'py>(py: Python<'py>, c: &RequestColumns) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("seq", ("<u8", le_bytes(py, &c.seq, u64::to_le_bytes)?))?;
    d.set_item("workload", ("<u4", le_bytes(py, &c.workload, u32::to_le_bytes)?))?;
    d.set_item("class", ("<u2", le_bytes(py, &c.class, u16::to_le_bytes)?))?;
    d.set_item("host", ("<u4", le_bytes(py, &c.host, u32::to_le_bytes)?))?;
    d.set_item("device", ("<u4", le_bytes(py, &c.device, u32::to_le_bytes)?))?;
    d.set_item("op", ("<u1", PyBytes::new(py, &c.op)))?;
    d.set_item("size", ("<u4", le_bytes(py, &c.size, u32::to_le_bytes)?))?;
    d.set_item("offset", ("<u8", le_bytes(py, &c.offset, u64::to_le_bytes)?))?;
    d.set_item("cache_hit_blocks", ("<u4", le_bytes(py, &c.cache_hit_blocks, u32::to_le_bytes)?))?;
    let stamps: [(&str, &Vec<u64>); 9] = [
        ("t_arrive_ps", &c.t_arrive_ps),
        ("t_dispatch_ps", &c.t_dispatch_ps),
        ("t_tgt_arrive_ps", &c.t_tgt_arrive_ps),
        ("t_sq_ps", &c.t_sq_ps),
        ("t_dev_start_ps", &c.t_dev_start_ps),
        ("t_dev_done_ps", &c.t_dev_done_ps),
        ("t_resp_sent_ps", &c.t_resp_sent_ps),
        ("t_resp_arrive_ps", &c.t_resp_arrive_ps),
        ("t_complete_ps", &c.t_complete_ps),
    ];
    for (name, col) in stamps {
        d.set_item(name, ("<u8", le_bytes(py, col, u64::to_le_bytes)?))?;
    }
    for (name, col) in nest_ssd::DEV_PARTS.iter().zip(&c.dev_parts_ps) {
        d.set_item(format!("ssd_{name}_ps"), ("<u8", le_bytes(py, col, u64::to_le_bytes)?))?;
    }
    Ok(d)
}

/// A simulation run, driven in steps from Python.
#[pyclass(module = "nestsim._native")]
struct Sim {
    sim: Simulation,
}

#[pymethods]
impl Sim {
    #[new]
    #[pyo3(signature = (path=None, text=None, name=None, overrides=Vec::new(), seed=None, max_memory=None, max_wall=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: Option<String>,
        text: Option<String>,
        name: Option<String>,
        overrides: Vec<String>,
        seed: Option<u64>,
        max_memory: Option<u64>,
        max_wall: Option<f64>,
    ) -> PyResult<Self> {
        let resolved = guarded("loading the scenario", || load(path, text, name, overrides, seed, max_memory))?;
        // The wall budget holds while the simulation is built too (preconditioning a large
        // drive can take minutes): past it, building stops and nothing is run.
        let budget = max_wall.filter(|w| w.is_finite() && *w > 0.0).map(std::time::Duration::from_secs_f64);
        nest_core::deadline::set(budget);
        let built = py.detach(move || guarded("building the scenario", move || Simulation::new(resolved).map_err(SimError::new_err)));
        let stopped = nest_core::deadline::passed();
        nest_core::deadline::set(None);
        match built {
            Ok(sim) => Ok(Sim { sim }),
            Err(e) if stopped => Err(Stopped::new_err(e.value(py).to_string())),
            Err(e) => Err(e),
        }
    }

    /// Runs up to `max_events` events with the GIL released; returns True when finished.
    fn step(&mut self, py: Python<'_>, max_events: u64) -> PyResult<bool> {
        let sim = &mut self.sim;
        py.detach(move || guarded("the run", || sim.step(max_events).map_err(SimError::new_err))).map(|state| state == StepState::Finished)
    }

    #[getter]
    fn now_s(&self) -> f64 {
        self.sim.now().as_secs_f64()
    }
    #[getter]
    fn events(&self) -> u64 {
        self.sim.events()
    }
    #[getter]
    fn completed(&self) -> u64 {
        self.sim.completed()
    }
    #[getter]
    fn progress(&self) -> Option<f64> {
        self.sim.progress()
    }
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.sim.resolved().warnings.clone()
    }
    #[getter]
    fn name(&self) -> String {
        self.sim.resolved().name.clone()
    }

    /// Names of workloads, classes, hosts and devices, by index.
    fn names<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = self.sim.resolved();
        let d = PyDict::new(py);
        d.set_item("workloads", r.workloads.iter().map(|w| w.name.clone()).collect::<Vec<_>>())?;
        d.set_item("classes", r.classes.iter().map(|c| c.name.clone()).collect::<Vec<_>>())?;
        d.set_item("hosts", r.hosts.iter().map(|h| h.name.clone()).collect::<Vec<_>>())?;
        d.set_item("devices", r.devices.iter().map(|x| x.name.clone()).collect::<Vec<_>>())?;
        d.set_item("output_requests", r.output.requests)?;
        d.set_item("output_timeseries", r.output.timeseries)?;
        d.set_item(
            "timeseries_rows",
            match r.output.timeseries_rows {
                nest_core::stats::series::Rows::Interval => "interval",
                nest_core::stats::series::Rows::Change => "change",
            },
        )?;
        d.set_item("interval_s", r.run.interval.as_secs_f64())?;
        d.set_item("output_fio_json", r.output.fio_json)?;
        d.set_item("seed", r.run.seed)?;
        let (start, end) = self.sim.measured_window();
        d.set_item("window_start_ps", start.0)?;
        d.set_item("window_end_ps", end.map(|e| e.0))?;
        Ok(d)
    }

    /// Finished requests since the last call: {column: (numpy dtype, bytes)}.
    fn drain_requests<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.sim.drain_requests_with(|c| request_dict(py, c))
    }

    /// Closed time-series intervals since the last call (long format).
    fn drain_series<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.sim.drain_series();
        let d = PyDict::new(py);
        d.set_item("time_s", ("<f8", le_bytes(py, &c.time_s, f64::to_le_bytes)?))?;
        d.set_item("series", ("<u4", le_bytes(py, &c.series, u32::to_le_bytes)?))?;
        d.set_item("sum", ("<f8", le_bytes(py, &c.sum, f64::to_le_bytes)?))?;
        d.set_item("count", ("<u8", le_bytes(py, &c.count, u64::to_le_bytes)?))?;
        Ok(d)
    }

    fn series_names(&self) -> Vec<(String, String)> {
        self.sim.series_names()
    }

    /// The deterministic summary as JSON text (call when finished), byte for byte what Python's
    /// `json.dumps(summary, indent=2, sort_keys=True)` writes (`pyjson`): summary.json's form.
    fn summary_json(&mut self) -> PyResult<String> {
        guarded("the summary", || Ok(pyjson::dumps(&self.sim.summary())))
    }

    /// `summary_json`'s text and, from the same summary, the fields run.json and the exit status
    /// need (`events`, `completed`, `sim_time_s`, `seed`, `scenario`, `conservation`,
    /// `network_conservation`), so that a caller need not parse the text back for them (121 MB
    /// and 1.5 CPU-s on a 10,000-drive run; issue 64).
    fn summary_json_head<'py>(&mut self, py: Python<'py>) -> PyResult<(String, Bound<'py, PyDict>)> {
        let v = guarded("the summary", || Ok(self.sim.summary()))?;
        let d = PyDict::new(py);
        let field = |path: &[&str]| path.iter().try_fold(&v, |v, k| v.get(*k));
        d.set_item("events", field(&["events"]).and_then(|x| x.as_u64()))?;
        d.set_item("completed", field(&["requests", "completed"]).and_then(|x| x.as_u64()))?;
        d.set_item("sim_time_s", field(&["sim_time_s"]).and_then(|x| x.as_f64()))?;
        d.set_item("seed", field(&["seed"]).and_then(|x| x.as_u64()))?;
        d.set_item("scenario", field(&["scenario"]).and_then(|x| x.as_str()))?;
        d.set_item("conservation", field(&["conservation"]).and_then(|x| x.as_str()))?;
        d.set_item("network_conservation", field(&["network", "conservation"]).and_then(|x| x.as_str()))?;
        Ok((pyjson::dumps(&v), d))
    }

    fn check_conservation(&self) -> PyResult<()> {
        guarded("the conservation check", || self.sim.check_conservation().map_err(SimError::new_err))
    }
}

/// Validates a scenario file; returns its warnings or raises ConfigError listing every problem.
#[pyfunction]
#[pyo3(signature = (path, overrides=Vec::new(), seed=None, max_memory=None))]
fn validate(path: String, overrides: Vec<String>, seed: Option<u64>, max_memory: Option<u64>) -> PyResult<Vec<String>> {
    guarded("validation", || {
        let r = load(Some(path), None, None, overrides, seed, max_memory)?;
        // Scan every trace once (streaming) so a bad line is reported now, not mid-run.
        for w in &r.workloads {
            if let nest_config::resolve::SourcePlan::Trace { path, format, opts } = &w.source {
                count_records(path, *format, opts.clone()).map_err(|e| ConfigError::new_err(format!("workload '{}': {e}", w.name)))?;
            }
        }
        Ok(r.warnings)
    })
}

/// Counts a trace's I/O records (streaming); returns (count, stats dict).
#[pyfunction]
#[pyo3(signature = (path, format, time_unit=None))]
fn trace_count<'py>(py: Python<'py>, path: String, format: String, time_unit: Option<String>) -> PyResult<(u64, Bound<'py, PyDict>)> {
    let f = TraceFormat::from_name(&format).map_err(ConfigError::new_err)?;
    let mut opts = TraceOptions::default();
    if let Some(u) = time_unit {
        opts.time_unit_ps = Some(nest_core::units::parse_duration(&format!("1{u}")).map_err(ConfigError::new_err)?.0);
    }
    let (n, st) = guarded("the trace scan", || count_records(Path::new(&path), f, opts).map_err(|e| ConfigError::new_err(e.to_string())))?;
    let d = PyDict::new(py);
    d.set_item("lines", st.lines)?;
    d.set_item("headers", st.headers)?;
    d.set_item("not_io", st.not_io)?;
    d.set_item("other_ops", st.other_ops)?;
    d.set_item("zero_size", st.zero_size)?;
    d.set_item("late", st.late)?;
    d.set_item("rebased_clocks", st.rebased_clocks)?;
    Ok((n, d))
}

/// Capacity in bytes of device `device` of a scenario given as JSON text (validates it).
#[pyfunction]
fn device_capacity(scenario_json: String, device: String) -> PyResult<u64> {
    let r = load(None, Some(scenario_json), Some("<dict>".into()), Vec::new(), None, None)?;
    r.devices.iter().find(|d| d.name == device).map(|d| d.capacity).ok_or_else(|| ConfigError::new_err(format!("no device named '{device}'")))
}

/// Names of the SSD presets.
#[pyfunction]
fn ssd_presets() -> Vec<&'static str> {
    nest_ssd::presets::NAMES.to_vec()
}

/// The parts of an SSD's service time (per-request `ssd_<part>_us` columns).
#[pyfunction]
fn ssd_parts() -> Vec<&'static str> {
    nest_ssd::DEV_PARTS.to_vec()
}

#[pyfunction]
fn trace_formats() -> Vec<&'static str> {
    TraceFormat::ALL.iter().map(|f| f.name()).collect()
}

/// Raw event-queue throughput (hold model): returns events per CPU... per second of this call.
#[pyfunction]
fn bench_queue(py: Python<'_>, kind: &str, events: u64, pending: u64) -> PyResult<f64> {
    fn hold<Q: PendingEvents<u32>>(mut q: Q, events: u64, pending: u64) -> f64 {
        let mut rng = RngStream::from_seed(1);
        for i in 0..pending {
            q.schedule(SimTime(rng.below(1_000_000)), i as u32);
        }
        let t = std::time::Instant::now();
        for _ in 0..events {
            let (now, e) = q.pop().expect("hold keeps the queue full");
            q.schedule(SimTime(now.0 + 1 + rng.below(1_000_000)), e);
        }
        events as f64 / t.elapsed().as_secs_f64()
    }
    let kind = kind.to_string();
    py.detach(move || match kind.as_str() {
        "quad" => Ok(hold(QuadHeap::new(), events, pending)),
        "std" => Ok(hold(StdHeap::default(), events, pending)),
        "radix" => Ok(hold(RadixHeap::default(), events, pending)),
        other => Err(PyValueError::new_err(format!("unknown queue kind '{other}'"))),
    })
}

/// QTCP's discrete-time analytic model (QTCP §III). `params_json`: {"capacity_pps", "k",
/// "gamma", "epsilon", "w0", "slots", "classes": [{"ratio" | "latency_target_s", "base_delay_s",
/// "offered_pps"?}]}; returns the trajectory as JSON ({"time", "window", "quality", "alpha",
/// "queue", "rtt", "throughput_pps"}, each indexed [slot][class]).
#[pyfunction]
fn qtcp_model(py: Python<'_>, params_json: String) -> PyResult<String> {
    use nest_transport::model::{solve, ModelClass, ModelParams};
    let v: serde_json::Value = serde_json::from_str(&params_json).map_err(|e| PyValueError::new_err(format!("qtcp_model: {e}")))?;
    let num = |v: &serde_json::Value, k: &str| -> PyResult<f64> {
        v.get(k).and_then(|x| x.as_f64()).ok_or_else(|| PyValueError::new_err(format!("qtcp_model: '{k}' must be a number")))
    };
    let p = ModelParams {
        capacity_pps: num(&v, "capacity_pps")?,
        k: num(&v, "k")?,
        gamma: num(&v, "gamma")?,
        epsilon: num(&v, "epsilon")?,
        w0: num(&v, "w0")?,
        slots: num(&v, "slots")? as usize,
    };
    let mut classes = Vec::new();
    for c in v.get("classes").and_then(|c| c.as_array()).ok_or_else(|| PyValueError::new_err("qtcp_model: 'classes' must be a list"))? {
        classes.push(ModelClass {
            ratio: c.get("ratio").and_then(|x| x.as_f64()),
            latency_target: c.get("latency_target_s").and_then(|x| x.as_f64()),
            base_delay: num(c, "base_delay_s")?,
            offered_pps: c.get("offered_pps").and_then(|x| x.as_f64()),
        });
    }
    let tr = py.detach(move || solve(&p, &classes)).map_err(PyValueError::new_err)?;
    Ok(serde_json::json!({
        "time": tr.time, "window": tr.window, "quality": tr.quality, "alpha": tr.alpha,
        "queue": tr.queue, "rtt": tr.rtt, "throughput_pps": tr.throughput,
    })
    .to_string())
}

/// Where QTCP's window rule (thesis eq. 4.5) settles when the flows at one bottleneck are marked
/// together (`nest_transport::equilibrium`): the bottleneck's carried bits/s and, per flow, its
/// RTT (s), α, target (bits/s, None = unmanaged DCTCP) and offered load (None = backlogged).
/// Returns {"throughput_bps": [...], "quality": [...]}.
#[pyfunction]
#[pyo3(signature = (capacity_bps, rtt_s, alpha, target_bps, offered_bps=None))]
fn qtcp_fixed_point(
    py: Python<'_>,
    capacity_bps: f64,
    rtt_s: Vec<f64>,
    alpha: Vec<f64>,
    target_bps: Vec<Option<f64>>,
    offered_bps: Option<Vec<Option<f64>>>,
) -> PyResult<Bound<'_, PyDict>> {
    use nest_transport::equilibrium::{qtcp_fixed_point, EqFlow};
    let n = rtt_s.len();
    let offered = offered_bps.unwrap_or_else(|| vec![None; n]);
    if alpha.len() != n || target_bps.len() != n || offered.len() != n {
        return Err(PyValueError::new_err("qtcp_fixed_point: rtt_s, alpha, target_bps and offered_bps need one value per flow"));
    }
    let flows: Vec<EqFlow> = (0..n).map(|i| EqFlow { rtt_s: rtt_s[i], alpha: alpha[i], target_bps: target_bps[i], offered_bps: offered[i] }).collect();
    let fp = qtcp_fixed_point(capacity_bps, &flows).map_err(|e| PyValueError::new_err(format!("qtcp_fixed_point: {e}")))?;
    let d = PyDict::new(py);
    d.set_item("throughput_bps", fp.throughput_bps)?;
    d.set_item("quality", fp.quality)?;
    Ok(d)
}

/// A Haechi run (docs/haechi.md): the spec as JSON text ({"duration_s", "qos", "clients", …});
/// returns the result as JSON text. A malformed spec raises ConfigError naming the key. The GIL
/// is released while it runs.
#[pyfunction]
fn haechi_run(py: Python<'_>, spec_json: String) -> PyResult<String> {
    // A spec is checked before it runs, so a panic here is a bug, not bad input.
    py.detach(move || guarded("the Haechi run", move || nest_model::haechi::run_json(&spec_json).map(|v| v.to_string()).map_err(ConfigError::new_err)))
}

/// A Haechi scenario file (its text, and its path for errors): checked, and run unless `run` is
/// false. Returns the result as JSON text with the file's name, or None when only checked.
#[pyfunction]
#[pyo3(signature = (text, path, run=true))]
fn haechi_file(py: Python<'_>, text: String, path: String, run: bool) -> PyResult<Option<String>> {
    let f = guarded("reading the Haechi file", || nest_model::haechi::HaechiSpec::from_toml(&text, &path).map_err(ConfigError::new_err))?;
    if !run {
        return Ok(None);
    }
    py.detach(move || {
        guarded("the Haechi run", move || {
            let mut r = nest_model::haechi::HaechiRun::new(f.haechi).map_err(ConfigError::new_err)?;
            r.run();
            let mut v = nest_model::haechi::result(&r);
            v["name"] = f.name.unwrap_or_default().into();
            Ok(Some(v.to_string()))
        })
    })
}

/// The MMPP(2) whose inter-arrival times have these statistics (mean in seconds), fitted as the
/// `mmpp_fit` arrival does (SRC §IV-A): {"rates": [λ0, λ1], "switch": [r0, r1]} per second, the
/// statistics "achieved" and the fit's "residual" (0 = exact). Experiments use it to build
/// datasets whose hosts share one phase process (PLMC's synchronized bursts).
#[pyfunction]
fn mmpp_fit(py: Python<'_>, mean_gap_s: f64, scv: f64, skewness: f64, lag1: f64) -> PyResult<Bound<'_, PyDict>> {
    use nest_workload::mmpp::{fit_mmpp2, Moments4};
    let fit = fit_mmpp2(&Moments4 { mean: mean_gap_s, scv, skewness, lag1 }).map_err(PyValueError::new_err)?;
    let a = fit.achieved;
    let d = PyDict::new(py);
    d.set_item("rates", fit.mmpp.lambda.to_vec())?;
    d.set_item("switch", fit.mmpp.switch.to_vec())?;
    let achieved = PyDict::new(py);
    achieved.set_item("mean_gap_s", a.mean)?;
    achieved.set_item("scv", a.scv)?;
    achieved.set_item("skewness", a.skewness)?;
    achieved.set_item("lag1", a.lag1)?;
    d.set_item("achieved", achieved)?;
    d.set_item("residual", fit.residual)?;
    Ok(d)
}

/// SRC's workload features Ch (`nest_qos::rate_control::WorkloadMonitor`) of the arrivals
/// (times in ps, sizes in bytes, whether each is a write) over [now − δ, now], in the model's
/// input order (`src_feature_names`). The training pipeline computes them with this very code, so
/// a model sees at run time exactly the features it was trained on.
#[pyfunction]
fn src_features(times_ps: Vec<u64>, sizes: Vec<u32>, writes: Vec<bool>, delta_ps: u64, now_ps: u64) -> PyResult<Vec<f64>> {
    use nest_qos::rate_control::WorkloadMonitor;
    if times_ps.len() != sizes.len() || sizes.len() != writes.len() {
        return Err(PyValueError::new_err("times, sizes and writes must have the same length"));
    }
    if delta_ps == 0 {
        return Err(PyValueError::new_err("delta must be positive"));
    }
    if times_ps.windows(2).any(|w| w[1] < w[0]) {
        return Err(PyValueError::new_err("arrival times must be in order"));
    }
    let mut m = WorkloadMonitor::new(SimTime(delta_ps));
    for ((&t, &b), &w) in times_ps.iter().zip(&sizes).zip(&writes) {
        m.record(SimTime(t), b, w);
    }
    Ok(m.features(SimTime(now_ps)).as_array().to_vec())
}

/// The predictions of an exported throughput model (`nestsim.tpm.export`) for `rows` (Ch then
/// w), by NeSt's own evaluator — what a run's SRC controller computes.
#[pyfunction]
fn tpm_predict(path: &str, rows: Vec<Vec<f64>>) -> PyResult<Vec<[f64; 2]>> {
    let m = nest_qos::rate_control::TreeEnsemble::load(path).map_err(PyValueError::new_err)?;
    let n = nest_qos::rate_control::FEATURE_NAMES.len() + 1;
    if let Some(r) = rows.iter().find(|r| r.len() != n) {
        return Err(PyValueError::new_err(format!("a row of {} values: expected {n} (Ch, then w)", r.len())));
    }
    Ok(rows.iter().map(|r| m.predict_row(r)).collect())
}

/// The text of the throughput model shipped for a preset (`model = "shipped:PRESET"`).
#[pyfunction]
fn tpm_shipped(preset: &str) -> PyResult<&'static str> {
    nest_qos::rate_control::shipped_text(preset).map_err(PyValueError::new_err)
}

#[pyfunction]
fn src_feature_names() -> Vec<&'static str> {
    nest_qos::rate_control::FEATURE_NAMES.to_vec()
}

/// Bytes in a size written as scenarios write them ("4GB", "512MiB", "4k", bare bytes).
#[pyfunction]
fn parse_size(text: &str) -> PyResult<u64> {
    nest_core::units::parse_size(text).map_err(ConfigError::new_err)
}

/// The default memory limit of a run: 80 % of this machine's memory (None when unknown). The
/// same number the scenario's tables are checked against before a run.
#[pyfunction]
fn default_memory_limit() -> Option<u64> {
    nest_config::default_memory_limit()
}

/// Panics inside the boundary on purpose: it exists so tests can check that a Rust panic comes
/// back as an InternalError naming where it happened (there is no input known to cause one).
#[pyfunction]
fn _panic_probe() -> PyResult<()> {
    guarded("the panic probe", || -> PyResult<()> { panic!("a deliberate panic") })
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Sim>()?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(trace_count, m)?)?;
    m.add_function(wrap_pyfunction!(trace_formats, m)?)?;
    m.add_function(wrap_pyfunction!(device_capacity, m)?)?;
    m.add_function(wrap_pyfunction!(ssd_presets, m)?)?;
    m.add_function(wrap_pyfunction!(ssd_parts, m)?)?;
    m.add_function(wrap_pyfunction!(bench_queue, m)?)?;
    m.add_function(wrap_pyfunction!(qtcp_model, m)?)?;
    m.add_function(wrap_pyfunction!(qtcp_fixed_point, m)?)?;
    m.add_function(wrap_pyfunction!(haechi_run, m)?)?;
    m.add_function(wrap_pyfunction!(haechi_file, m)?)?;
    m.add_function(wrap_pyfunction!(mmpp_fit, m)?)?;
    m.add_function(wrap_pyfunction!(src_features, m)?)?;
    m.add_function(wrap_pyfunction!(src_feature_names, m)?)?;
    m.add_function(wrap_pyfunction!(tpm_predict, m)?)?;
    m.add_function(wrap_pyfunction!(tpm_shipped, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_probe, m)?)?;
    m.add_function(wrap_pyfunction!(default_memory_limit, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("SimError", m.py().get_type::<SimError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add("Stopped", m.py().get_type::<Stopped>())?;
    install_panic_hook();
    m.add("__version__", nest_model::NEST_VERSION)?;
    m.add("__git_commit__", env!("NEST_GIT_COMMIT"))?;
    Ok(())
}
