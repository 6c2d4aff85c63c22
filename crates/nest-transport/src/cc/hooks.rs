//! The seam between a sender's mechanism and its congestion-control algorithm: the trait each
//! algorithm implements and what its hooks may read. The registry (`cc/mod.rs`) dispatches to
//! the algorithms; they depend only on this file, so neither names the other.

use crate::params::{DcqcnParams, QtcpParams, Target, TcpParams};
use crate::sender::Sender;
use crate::shares::ClassShares;
use nest_core::SimTime;

/// How a sender is clocked: the mechanism that drives the algorithm's hooks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Family {
    /// ACK-clocked congestion window (`window.rs`).
    Window,
    /// Paced rate with DCQCN's reaction point: CNPs, α periods, rate-increase timer and byte
    /// counter (`rate.rs`).
    Rate,
}

/// One congestion-control algorithm. Implemented by a unit struct; every hook is an associated
/// function, so dispatch through [`Cc`] is static.
pub trait CongestionControl {
    /// The name scenarios use (`transport = "dctcp"`) and summaries print.
    const NAME: &'static str;
    const FAMILY: Family;
    /// Steered by a quality factor: its throughput-targeted flows take part in their class's
    /// share of the bottleneck, and its latency target is accepted.
    const QUALITY_AWARE: bool = false;
    /// End of an observation window (window family: ≈ one RTT, when `snd_una` passes the
    /// window's end; rate family: a DCQCN α period). `s.win_acked`/`win_marked` hold the
    /// window's bytes; the mechanism clears them afterwards.
    fn on_interval(s: &mut Sender, cx: &mut Cx);
    /// A congestion signal: an ECN echo (window family, at most once per window) or a CNP
    /// (rate family). Returns the factor the window or the current rate is multiplied by.
    fn on_signal(s: &mut Sender, cx: &Cx) -> f64;
}

/// What a rule may read besides its sender's state: what the flow is, the run's parameters
/// and the per-class bookkeeping QTCP's targets need.
pub struct Cx<'a> {
    pub now: SimTime,
    pub flow: Facts,
    pub tcp: &'a TcpParams,
    pub qtcp: &'a QtcpParams,
    pub dcqcn: &'a DcqcnParams,
    pub classes: Classes<'a>,
}

/// QTCP/QRDMA's class bookkeeping: which flows share a class's target, each class's ratio, the
/// bottleneck estimate λ (interference adaptation moves it), and each latency class's smoothed
/// completion time.
pub struct Classes<'a> {
    pub(crate) shares: &'a ClassShares,
    pub ratio: &'a [f64],
    pub lambda: &'a mut f64,
    pub fct_ewma: &'a [f64],
}

/// What a rule may know of its flow, copied from its description.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Facts {
    /// The flow's index.
    pub index: u32,
    pub class: u8,
    pub target: Option<Target>,
    /// A finite transfer's size (`None`: long-lived or a channel).
    pub bytes: Option<u64>,
    pub start: SimTime,
    /// D2TCP's deadline, relative to `start`.
    pub deadline: Option<SimTime>,
    /// Bytes the flow will ever carry.
    pub total: u64,
}

impl Cx<'_> {
    /// The flow's share of the bottleneck (1 for flows without a ratio target).
    pub fn share(&self) -> f64 {
        self.classes.shares.share(self.classes.ratio, self.flow.index, self.flow.class, self.flow.target)
    }
}
