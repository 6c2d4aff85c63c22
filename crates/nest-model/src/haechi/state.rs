//! The state of a Haechi run's parties: a client (its lanes, one per data node, with the
//! engine there and the requests waiting for a token; its counts and latencies) and a data
//! node (its global pool, monitor and what its clients reported). How they act: `run.rs`.

use super::spec::ClientSpec;
use nest_core::rng::RngStream;
use nest_core::stats::LatencyHistogram;
use nest_core::SimTime;
use nest_qos::haechi::{Engine, GlobalPool, Ledger, Monitor};
use nest_transport::verbs::Verb;
use std::collections::VecDeque;

/// A client's business with one data node: its engine there, and its requests for that node
/// waiting for a token.
pub(super) struct Lane {
    pub(super) engine: Option<Engine>,
    pub(super) pending: VecDeque<SimTime>,
    /// Per period (by completion time): completed I/Os at this node.
    pub(super) per_period: Vec<u64>,
}

pub(super) struct Client {
    pub(super) spec: ClientSpec,
    pub(super) verb: Verb,
    pub(super) lanes: Vec<Lane>,
    /// The lane `try_issue` looks at first (it turns, so no node's queue waits behind another's).
    pub(super) next_lane: usize,
    pub(super) active: bool,
    pub(super) in_flight: u32,
    /// Requests submitted in the client's current period.
    pub(super) submitted: u64,
    /// Constant rate: the index of the next arrival in the period, the period's start, and the
    /// live arrival chain.
    pub(super) next_arrival: u64,
    pub(super) chain: u32,
    pub(super) period_start: SimTime,
    /// Per period (by completion time): completed I/Os.
    pub(super) per_period: Vec<u64>,
    pub(super) latency: LatencyHistogram,
    pub(super) latency_from_post: LatencyHistogram,
    pub(super) completed: u64,
    pub(super) abandoned: u64,
    pub(super) total_submitted: u64,
    /// Alerts received from the monitors (Alg. 1's last step), and the client's own saturation
    /// rate C_L (I/Os per second) the local condition is judged with.
    pub(super) alerts: u64,
    pub(super) c_l: f64,
}

impl Client {
    /// The period's demand is not all submitted yet (no demand: never all).
    pub(super) fn demand_left(&self) -> bool {
        self.spec.demand.is_none_or(|d| self.submitted < d)
    }

    pub(super) fn waiting(&self) -> usize {
        self.lanes.iter().map(|l| l.pending.len()).sum()
    }

    pub(super) fn drop_pending(&mut self) {
        for l in &mut self.lanes {
            self.abandoned += l.pending.len() as u64;
            l.pending.clear();
        }
    }

    pub(super) fn managed(&self) -> bool {
        self.lanes[0].engine.is_some()
    }
}

/// A data node's side of Haechi: its global pool and monitor, what its clients reported, and
/// each client's token counts per period there.
pub struct Node {
    pub pool: GlobalPool,
    pub monitor: Option<Monitor>,
    /// The monitor's view: last reported completed I/Os per client in the period.
    pub(super) reported: Vec<u64>,
    pub(super) last_ledgers: Vec<Ledger>,
    pub tokens: Vec<Vec<Ledger>>,
    /// Pool level at each check (t in s, value), thinned to every `POOL_EVERY`-th check.
    pub pool_series: Vec<(f64, i64)>,
    /// The clients' reservations here (R_i split by their shares).
    pub reservations: Vec<u64>,
    /// The node's speed in each period (`service_cv`), and the stream it is drawn from.
    pub speeds: Vec<f64>,
    /// The monitor's CAS verbs on the pool (one per check).
    pub cas: u64,
    pub(super) speed_rng: RngStream,
}
