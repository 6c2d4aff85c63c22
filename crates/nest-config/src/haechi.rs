//! A Haechi run as the user writes it (JSON from Python, or a scenario's `[haechi]` table): the
//! clients, their demand and request pattern, the QoS mode and the protocol's parameters, and
//! overrides of the fabric's costs. Unknown keys are refused by name.
//!
//! The same table serves two kinds of run. Alone (a file with `[haechi]` and no `[network]`),
//! the clients and data nodes sit on one InfiniBand-like switch modelled at message granularity
//! (`nest_transport::verbs`). In a World scenario with a `[network]`, each client is a topology
//! `host`, the data nodes are `data_nodes`, and the verbs travel as messages over the packet
//! fabric in the scenario class `class`, beside the storage traffic (`resolve::haechi`).

use nest_core::SimTime;
use nest_transport::verbs::VerbsParams;
use serde::Deserialize;

#[derive(Copy, Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum QosMode {
    /// The bare system: clients issue directly.
    None,
    /// Haechi without token conversion.
    Basic,
    Haechi,
}

#[derive(Copy, Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    /// Keep `outstanding` requests submitted (Haechi's "burst requests": 64).
    Burst,
    /// The period's demand at equal spacing over the period.
    Constant,
}

#[derive(Copy, Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Cap {
    Pace,
    Idle,
}

fn d_outstanding() -> u32 {
    64
}
fn d_bytes() -> u32 {
    4096
}
fn d_true() -> bool {
    true
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientSpec {
    #[serde(default)]
    pub name: Option<String>,
    /// The topology host the client runs on (a World scenario only).
    #[serde(default)]
    pub host: Option<String>,
    /// R_i, I/Os per period.
    #[serde(default)]
    pub reservation: u64,
    /// L_i, I/Os per period.
    #[serde(default)]
    pub limit: Option<u64>,
    /// I/Os wanted per period (absent: as many as it can).
    #[serde(default)]
    pub demand: Option<u64>,
    pub pattern: Pattern,
    #[serde(default = "d_outstanding")]
    pub outstanding: u32,
    #[serde(default)]
    pub two_sided: bool,
    #[serde(default = "d_bytes")]
    pub bytes: u32,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// Goes through the QoS engine (false: a background job outside Haechi's domain, Set 4).
    #[serde(default = "d_true")]
    pub managed: bool,
}

fn d_batch() -> u64 {
    nest_qos::haechi::BATCH
}
fn d_ms1() -> f64 {
    1.0
}
fn d_capacity() -> u64 {
    1_570_000
}
fn d_sigma() -> f64 {
    5_000.0
}
fn d_eta() -> u64 {
    5_000
}
fn d_window() -> usize {
    5
}
fn d_grace() -> f64 {
    100.0
}
fn d_alert() -> u32 {
    3
}
/// SPEC §13.9: the δ cap is read so that the paper's outcome is possible — a backlogged client
/// keeps its tokens (`idle`); the printed pacing rule (`pace`) stays selectable.
fn d_cap() -> Cap {
    Cap::Idle
}

/// Haechi's parameters (SPEC §10); η, M and σ have no source values.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProtocolSpec {
    #[serde(default = "d_batch")]
    pub batch: u64,
    #[serde(default = "d_ms1")]
    pub delta_ms: f64,
    #[serde(default = "d_ms1")]
    pub check_ms: f64,
    /// Ω_prof (I/Os per period) and its σ.
    #[serde(default = "d_capacity")]
    pub capacity: u64,
    #[serde(default = "d_sigma")]
    pub sigma: f64,
    #[serde(default = "d_eta")]
    pub eta: u64,
    #[serde(default = "d_window")]
    pub window: usize,
    #[serde(default = "d_cap")]
    pub cap: Cap,
    /// How long after a period's end the monitor waits for the clients' last reports before
    /// Algorithm 1 runs and the next period's tokens go out (µs).
    #[serde(default = "d_grace")]
    pub report_grace_us: f64,
    /// Alg. 1's last step: a client under its reservation this many periods in a row is alerted
    /// (no source value: "consistently"; 0 turns alerts off).
    #[serde(default = "d_alert")]
    pub alert_periods: u32,
}

impl Default for ProtocolSpec {
    fn default() -> Self {
        serde_json::from_str("{}").expect("every field has a default")
    }
}

/// Overrides of the fabric's costs (times in ns).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerbsSpec {
    pub link_gbps: Option<f64>,
    pub link_delay_ns: Option<f64>,
    pub switch_latency_ns: Option<f64>,
    pub mtu: Option<u32>,
    pub client_cpu_per_verb_ns: Option<f64>,
    pub client_cpu_two_sided_extra_ns: Option<f64>,
    pub target_nic_per_message_ns: Option<f64>,
    pub target_dma_gbps: Option<f64>,
    pub target_atomic_ns: Option<f64>,
    pub target_cpu_per_request_ns: Option<f64>,
    pub target_cpu_threads: Option<u32>,
}

fn d_period() -> f64 {
    1.0
}
fn d_nodes() -> u32 {
    1
}
fn d_records() -> u64 {
    1_000_000
}
fn d_theta() -> f64 {
    0.99
}
fn d_seed() -> u64 {
    1
}

#[derive(Copy, Clone, Debug, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum KeyDist {
    #[default]
    Uniform,
    /// YCSB's Zipfian: rank r (1 the hottest record) with probability ∝ r^−θ.
    Zipf,
}

#[derive(Copy, Clone, Debug, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Partition {
    /// Record k lives on node hash(k) mod N (a hashed key space: hot records spread).
    #[default]
    Hash,
    /// Records are split into N contiguous ranges (hot records on the first node).
    Range,
}

/// Which record a request reads, and which data node holds it. Only drawn with more than one
/// node: on one node every record is one DMA of the same size and the key changes nothing.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeysSpec {
    #[serde(default = "d_records")]
    pub records: u64,
    #[serde(default)]
    pub dist: KeyDist,
    #[serde(default = "d_theta")]
    pub theta: f64,
    #[serde(default)]
    pub partition: Partition,
}

impl Default for KeysSpec {
    fn default() -> Self {
        serde_json::from_str("{}").expect("every field has a default")
    }
}

/// At most this many data nodes, and records to place on them (their shares are summed at
/// the start).
pub const MAX_NODES: u32 = 1024;
pub const MAX_RECORDS: u64 = 100_000_000;
/// Beyond this a lognormal of mean 1 puts most periods far below nominal speed and a few far
/// above: no longer "variability" of one machine.
pub const MAX_SERVICE_CV: f64 = 1.0;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HaechiSpec {
    /// Alone: required. In a World scenario: absent, `[run].duration` (and `warmup`) govern.
    #[serde(default)]
    pub duration_s: f64,
    #[serde(default)]
    pub warmup_s: f64,
    #[serde(default = "d_period")]
    pub period_s: f64,
    pub qos: QosMode,
    #[serde(default)]
    pub protocol: ProtocolSpec,
    #[serde(default)]
    pub verbs: VerbsSpec,
    pub clients: Vec<ClientSpec>,
    /// Data nodes on the switch, each with its own monitor, pool and capacity estimate; a
    /// client's reservation and limit are split over them by its expected share of requests.
    #[serde(default = "d_nodes")]
    pub nodes: u32,
    #[serde(default)]
    pub keys: KeysSpec,
    /// Seeds the key draws (with several nodes) and the data nodes' speeds (with `service_cv`).
    #[serde(default = "d_seed")]
    pub seed: u64,
    /// Period-to-period variability of each data node's service (SPEC §13.9): at each period's
    /// start the node's NIC, DMA and CPU take a speed drawn from a lognormal of mean 1 and this
    /// coefficient of variation (its own seeded stream per node), so its capacity per period
    /// varies by about this fraction. 0 (the default): the deterministic node.
    #[serde(default)]
    pub service_cv: f64,
    /// In a World scenario: the topology hosts that are the data nodes (`nodes` follows).
    #[serde(default)]
    pub data_nodes: Vec<String>,
    /// In a World scenario: the scenario class whose QTCP/QRDMA target and priority the verbs'
    /// channels take (default `high`), and their transport (default `dcqcn`: RoCE).
    #[serde(default)]
    pub class: Option<String>,
    #[serde(default)]
    pub transport: Option<String>,
}

/// Bounds that keep a run's memory and event count within a machine (issue 25): at most this
/// many clients, periods, per-period demand (a constant-rate client's waiting requests are held
/// until its period ends) and outstanding requests per client; intervals of at least 1 µs.
pub const MAX_CLIENTS: usize = 10_000;
pub const MAX_PERIODS: f64 = 1e6;
pub const MAX_DEMAND: u64 = 100_000_000;
pub const MAX_OUTSTANDING: u32 = 1 << 20;
const MIN_INTERVAL_MS: f64 = 0.001;

fn ns(v: Option<f64>, key: &str, into: &mut SimTime) -> Result<(), String> {
    if let Some(v) = v {
        if !(v.is_finite() && (0.0..=1e9).contains(&v)) {
            return Err(format!("verbs.{key}: expected a time in ns from 0 to 1e9 (1 s), got {v}"));
        }
        *into = SimTime((v * 1000.0).round() as u64);
    }
    Ok(())
}

pub fn secs(v: f64, key: &str) -> Result<SimTime, String> {
    SimTime::from_secs_f64(v).filter(|_| v.is_finite() && v >= 0.0).ok_or_else(|| format!("{key}: expected seconds ≥ 0, got {v}"))
}

/// A scenario file for a Haechi run: an optional `name` and the spec as its `[haechi]` table.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HaechiFile {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub schema: Option<u32>,
    pub haechi: HaechiSpec,
}

impl HaechiSpec {
    pub fn from_json(text: &str) -> Result<HaechiSpec, String> {
        let s: HaechiSpec = serde_json::from_str(text).map_err(|e| format!("haechi run: {e}"))?;
        s.check()?;
        Ok(s)
    }

    /// Reads a scenario file (`path` names it in errors): a parse error gives the line and
    /// column, a bad value the key under `[haechi]`.
    pub fn from_toml(text: &str, path: &str) -> Result<HaechiFile, String> {
        let f: HaechiFile = toml::from_str(text).map_err(|e| format!("{path}: {}", e.to_string().trim_end()))?;
        f.haechi.check().map_err(|e| format!("{path}: haechi.{e}"))?;
        Ok(f)
    }

    pub fn verbs_params(&self) -> Result<VerbsParams, String> {
        let v = &self.verbs;
        let mut p = VerbsParams::default();
        for (k, x) in [("link_gbps", v.link_gbps), ("target_dma_gbps", v.target_dma_gbps)] {
            if x.is_some_and(|x| !(x.is_finite() && (0.001..=100_000.0).contains(&x))) {
                return Err(format!("verbs.{k}: expected a rate from 0.001 to 100000 Gb/s, got {}", x.unwrap_or_default()));
            }
        }
        if let Some(x) = v.link_gbps {
            p.link_gbps = x;
        }
        if let Some(x) = v.target_dma_gbps {
            p.target_dma_gbps = x;
        }
        if v.target_cpu_threads.is_some_and(|t| t > 1024) {
            return Err("verbs.target_cpu_threads: expected at most 1024 server threads".into());
        }
        if let Some(x) = v.mtu {
            p.mtu = x;
        }
        if let Some(x) = v.target_cpu_threads {
            p.target_cpu_threads = x;
        }
        ns(v.link_delay_ns, "link_delay_ns", &mut p.link_delay)?;
        ns(v.switch_latency_ns, "switch_latency_ns", &mut p.switch_latency)?;
        ns(v.client_cpu_per_verb_ns, "client_cpu_per_verb_ns", &mut p.client_cpu_per_verb)?;
        ns(v.client_cpu_two_sided_extra_ns, "client_cpu_two_sided_extra_ns", &mut p.client_cpu_two_sided_extra)?;
        ns(v.target_nic_per_message_ns, "target_nic_per_message_ns", &mut p.target_nic_per_message)?;
        ns(v.target_atomic_ns, "target_atomic_ns", &mut p.target_atomic)?;
        ns(v.target_cpu_per_request_ns, "target_cpu_per_request_ns", &mut p.target_cpu_per_request)?;
        p.validate().map_err(|e| format!("verbs.{e}"))?;
        Ok(p)
    }

    /// The checks of a run alone: World-only keys are refused by name.
    fn check(&self) -> Result<(), String> {
        if !self.data_nodes.is_empty() || self.class.is_some() || self.transport.is_some() {
            let k = if self.class.is_some() {
                "class"
            } else if self.transport.is_some() {
                "transport"
            } else {
                "data_nodes"
            };
            return Err(format!("{k}: only in a scenario with a [network] (the verbs then travel on its fabric)"));
        }
        if let Some(i) = self.clients.iter().position(|c| c.host.is_some()) {
            return Err(format!("clients[{i}].host: only in a scenario with a [network] (the verbs then travel on its fabric)"));
        }
        self.check_common()
    }

    /// The checks both kinds of run share (a World run has its duration and nodes filled in).
    pub fn check_common(&self) -> Result<(), String> {
        let d = secs(self.duration_s, "duration_s")?;
        if d == SimTime::ZERO {
            return Err("duration_s: expected a positive duration".into());
        }
        if secs(self.warmup_s, "warmup_s")? >= d {
            return Err(format!("warmup_s ({}) must be shorter than duration_s ({})", self.warmup_s, self.duration_s));
        }
        if secs(self.period_s, "period_s")? == SimTime::ZERO {
            return Err("period_s: expected a positive period".into());
        }
        if self.clients.is_empty() || self.clients.len() > MAX_CLIENTS {
            return Err(format!("clients: expected 1 to {MAX_CLIENTS} clients, got {}", self.clients.len()));
        }
        if self.duration_s / self.period_s > MAX_PERIODS {
            return Err(format!(
                "duration_s: at most {MAX_PERIODS:e} periods of period_s ({} s) per run, got {:.3e}",
                self.period_s,
                self.duration_s / self.period_s
            ));
        }
        if self.nodes == 0 || self.nodes > MAX_NODES {
            return Err(format!("nodes: expected 1 to {MAX_NODES} data nodes, got {}", self.nodes));
        }
        let k = &self.keys;
        if k.records == 0 || k.records > MAX_RECORDS || k.records < self.nodes as u64 {
            return Err(format!("keys.records: expected from one per node to {MAX_RECORDS}, got {}", k.records));
        }
        if !(k.theta.is_finite() && k.theta > 0.0 && k.theta <= 10.0) {
            return Err(format!("keys.theta: expected a Zipf exponent in (0, 10], got {}", k.theta));
        }
        let p = &self.protocol;
        if p.batch == 0 {
            return Err("protocol.batch: expected at least 1 token per FAA".into());
        }
        for (k, v) in [("protocol.delta_ms", p.delta_ms), ("protocol.check_ms", p.check_ms)] {
            if !(v.is_finite() && v >= MIN_INTERVAL_MS && v <= self.period_s * 1000.0) {
                return Err(format!("{k}: expected an interval from {MIN_INTERVAL_MS} ms (1 µs) to the period, got {v}"));
            }
        }
        if !(p.report_grace_us.is_finite() && p.report_grace_us >= 0.0 && p.report_grace_us < p.check_ms * 1000.0) {
            return Err(format!("protocol.report_grace_us: expected 0 ≤ grace < check_ms, got {}", p.report_grace_us));
        }
        if p.window == 0 {
            return Err("protocol.window: expected M ≥ 1".into());
        }
        if !(self.service_cv.is_finite() && (0.0..=MAX_SERVICE_CV).contains(&self.service_cv)) {
            return Err(format!("service_cv: expected a coefficient of variation from 0 to {MAX_SERVICE_CV}, got {}", self.service_cv));
        }
        if !(p.sigma.is_finite() && p.sigma >= 0.0) {
            return Err(format!("protocol.sigma: expected ≥ 0, got {}", p.sigma));
        }
        for (i, c) in self.clients.iter().enumerate() {
            let at = |k: &str| format!("clients[{i}].{k}");
            if c.outstanding == 0 || c.outstanding > MAX_OUTSTANDING {
                return Err(format!("{}: expected 1 to {MAX_OUTSTANDING}, got {}", at("outstanding"), c.outstanding));
            }
            if c.demand.is_some_and(|d| d > MAX_DEMAND) {
                return Err(format!("{}: expected at most {MAX_DEMAND} I/Os per period", at("demand")));
            }
            if c.bytes == 0 || c.bytes > 1 << 20 {
                return Err(format!("{}: expected 1 B to 1 MiB, got {}", at("bytes"), c.bytes));
            }
            if c.pattern == Pattern::Constant && c.demand.is_none_or(|d| d == 0) {
                return Err(format!("{}: a constant-rate client needs a positive demand per period", at("demand")));
            }
            secs(c.start_s, &at("start_s"))?;
            if let Some(s) = c.stop_s {
                if secs(s, &at("stop_s"))? <= secs(c.start_s, &at("start_s"))? {
                    return Err(format!("{}: must be after start_s", at("stop_s")));
                }
            }
            if c.limit.is_some_and(|l| l < c.reservation) {
                return Err(format!("{}: a limit below the reservation ({}) can never let the reservation be met", at("limit"), c.reservation));
            }
            if !c.managed && (c.reservation > 0 || c.limit.is_some()) {
                return Err(format!("{}: an unmanaged client (a background job) has no reservation or limit", at("managed")));
            }
        }
        self.verbs_params()?;
        Ok(())
    }
}
