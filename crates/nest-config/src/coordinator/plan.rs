//! What the `[[coordinator]]` kinds resolve to: the plans the model builds its coordinators
//! from. Plain data, apart from the resolvers (one file per kind beside this one), so the
//! scenario's plan can hold them without depending on how they are resolved.

use nest_core::SimTime;
use nest_qos::rate_control::{SrcConfig, TreeEnsemble};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq)]
pub enum CoordinatorKind {
    FixedBudget {
        period: SimTime,
        ios: u64,
    },
    /// Flow ids of the channels the servers send on (completions and read data).
    CongestionMonitor {
        servers: Vec<String>,
        flows: Vec<u32>,
    },
    Plmc(PlmcPlan),
    PlmLight(PlmLightPlan),
    Src(SrcPlan),
}

/// `plmlight`: hosts in `CoordinatorPlan::hosts` order are its priority order, highest first.
#[derive(Debug, Clone, PartialEq)]
pub struct PlmLightPlan {
    /// The SSD and the fast device (device indices), and the storage server (network host) they sit in.
    pub device: usize,
    pub fast: usize,
    pub server: u32,
    pub server_name: String,
    /// Read DCs per DTWin (C) and the device's write DC.
    pub read_counts: u64,
    pub write_counts: u64,
    pub t_dw: SimTime,
    pub t_ndwl: SimTime,
    pub t_ndwh: SimTime,
    pub small_below: u32,
    pub fast_capacity: u64,
    pub flush_depth: u32,
    /// The read allocation, as PLMC's (predictor always CoD, overrun always nd).
    pub alloc: PlmcPlan,
}

/// `plmc`: hosts in `CoordinatorPlan::hosts` order are its priority order, highest first.
#[derive(Debug, Clone, PartialEq)]
pub struct PlmcPlan {
    /// The pool's volume index and name.
    pub pool: usize,
    pub pool_name: String,
    pub counts: u64,
    /// HoD: each window is allocated the hosts' exact demand over the next `Some(T_DW)`.
    pub hod: Option<SimTime>,
    pub zeta: f64,
    /// None: strict priority; Some(weights): fixed ratio.
    pub ratios: Option<Vec<u64>>,
    pub c_min: Vec<u64>,
    /// true: minimums beyond C are scaled; false: granted by priority.
    pub scale_minimums: bool,
    pub overrun: OverrunPlan,
    /// Where PLMC runs when its messages cross the network (`None`: they take no time).
    pub links: Option<PlmcLinks>,
}

/// PLMC at a storage server: its messages to and from each host travel on that host's NVMe-oF
/// connection to the server (behind whatever data is queued there).
#[derive(Debug, Clone, PartialEq)]
pub struct PlmcLinks {
    /// The storage server's name (a network host).
    pub server_name: String,
    /// Per host (`CoordinatorPlan::hosts` order): the (host → server, server → host) channels.
    pub channels: Vec<(u32, u32)>,
}

/// What a PLMC host does with a read its allocation does not cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverrunPlan {
    /// Sends it to the DT-active replica anyway (thesis 3.3.1).
    Send,
    /// Asks PLMC for more counts (PLMC §III-A); refused, it goes to a replica in NDWin.
    Ask,
    /// Sends it to a replica in NDWin without asking (PLMC eq. 5: beyond the allocation,
    /// non-deterministic latency).
    Nd,
}

impl OverrunPlan {
    pub fn name(self) -> &'static str {
        match self {
            OverrunPlan::Send => "send",
            OverrunPlan::Ask => "ask",
            OverrunPlan::Nd => "nd",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct CoordinatorPlan {
    pub name: String,
    pub kind: CoordinatorKind,
    /// Host indices.
    pub hosts: Vec<usize>,
}

#[derive(Debug, Clone)]
pub struct SrcPlan {
    /// The storage server (network host) the SSD sits in.
    pub server: u32,
    pub server_name: String,
    pub model_path: PathBuf,
    pub model: Arc<TreeEnsemble>,
    /// The controller's own configuration (device, watched channels, δ, τ, w_max, w₀, events).
    pub ctl: SrcConfig,
}

/// Plans are compared by what defines them: a model by its file.
impl PartialEq for SrcPlan {
    fn eq(&self, o: &SrcPlan) -> bool {
        (self.server, &self.model_path, &self.ctl) == (o.server, &o.model_path, &o.ctl)
    }
}
