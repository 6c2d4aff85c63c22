//! Transport parameters and flow descriptions.

use nest_core::SimTime;

/// DCQCN's parameters; the defaults are the DCQCN authors' ns-3 set (SPEC §4 table), which the
/// QTCP paper and the thesis say they ran ("the default parameter settings suggested in" the
/// DCQCN paper).
#[derive(Clone, Debug, PartialEq)]
pub struct DcqcnParams {
    /// α gain g.
    pub g: f64,
    /// α decays by (1 − g) after a period with no CNP.
    pub alpha_period: SimTime,
    /// Rate-increase timer.
    pub rate_timer: SimTime,
    /// Rate-increase byte counter (0 = off).
    pub byte_counter: u64,
    /// The receiver (NP) sends at most one CNP per flow per interval.
    pub cnp_interval: SimTime,
    /// Fast-recovery steps F.
    pub fast_recovery_steps: u32,
    /// Additive and hyper increase steps, bits/s.
    pub rate_ai: f64,
    pub rate_hai: f64,
    /// The rate never drops below this (bits/s).
    pub min_rate: f64,
    /// On a CNP the target rate is clamped to the current rate.
    pub clamp_target: bool,
    /// A flow starts at line rate (RoCE) — `initial_rate` overrides it when set (bits/s).
    pub initial_rate: Option<f64>,
    /// Retransmission timeout floor of RoCE flows: a NIC's local-ACK timeout (4.096 µs·2^k,
    /// k = 12 → 16.8 ms), far above TCP's, so PFC back-pressure does not trigger go-back-N.
    pub min_rto: SimTime,
    /// Each message of a rate-based channel is sent as a queue pair of its own, as the ns-3
    /// RDMA modules run every flow (`RdmaHw::AddQueuePair` starts each at line rate and drops it
    /// when done): it starts at the initial rate with a fresh α, its packets hold no other
    /// message's bytes, and a CNP for a message already sent cuts nothing. Delivery stays the
    /// channel's, in order: a lost packet holds back the messages behind it, which separate QPs
    /// would not. Off: one long-lived QP per channel, whose rate carries over from message to
    /// message (a real NIC's).
    pub qp_per_message: bool,
}

impl Default for DcqcnParams {
    fn default() -> Self {
        DcqcnParams {
            g: 1.0 / 256.0,
            alpha_period: SimTime::from_us(55),
            rate_timer: SimTime::from_us(60),
            byte_counter: 300_000,
            cnp_interval: SimTime::from_us(50),
            fast_recovery_steps: 5,
            rate_ai: 40e6,
            rate_hai: 200e6,
            min_rate: 10e6,
            clamp_target: true,
            initial_rate: None,
            qp_per_message: false,
            min_rto: SimTime(4_096_000 << 12),
        }
    }
}

/// TCP-family parameters shared by every window-based flow of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpParams {
    /// Payload bytes per segment (1448 for MTU 1500 with timestamps).
    pub mss: u32,
    /// IP + TCP header bytes per segment (52 with the timestamp option).
    pub header: u32,
    /// Link-layer bytes per frame on the wire: 38 for Ethernet (header, FCS, preamble, gap);
    /// ns-3's point-to-point links add only a 2 B PPP header.
    pub framing: u32,
    /// Initial window in segments (RFC 6928: 10).
    pub init_cwnd: u32,
    /// Smallest window after a cut, in segments.
    pub min_cwnd: u32,
    /// DCTCP's α gain g (RFC 8257: 1/16).
    pub g: f64,
    /// Initial α (RFC 8257 recommends 1: start conservative).
    pub alpha_init: f64,
    /// Acknowledge every `delayed_ack` segments (1 = every segment).
    pub delayed_ack: u32,
    /// An incomplete delayed ACK is sent after this long.
    pub delayed_ack_timeout: SimTime,
    /// Lower bound of the retransmission timeout (only a lossy fabric ever needs it).
    pub min_rto: SimTime,
    /// Upper bound of the backed-off retransmission timeout (ns-3's TcpSocketBase MaxRto, 60 s):
    /// without it a flow that keeps losing doubles its timer without end (2²⁶ ms was seen).
    pub max_rto: SimTime,
    /// TCP Small Queues: a sender hands segments to its host's NIC only while the NIC queue
    /// holds less than this (Linux `tcp_limit_output_bytes`-like). Without it a lone flow whose
    /// NIC is the bottleneck would queue its whole window in host memory, unmarked.
    pub nic_queue_limit: u64,
}

impl Default for TcpParams {
    fn default() -> Self {
        TcpParams {
            mss: 1448,
            header: 52,
            framing: 38,
            init_cwnd: 10,
            min_cwnd: 1,
            g: 1.0 / 16.0,
            alpha_init: 1.0,
            delayed_ack: 2,
            delayed_ack_timeout: SimTime::from_us(40),
            min_rto: SimTime::from_ms(1),
            max_rto: SimTime::from_ms(60_000),
            nic_queue_limit: 64 * 1024,
        }
    }
}

/// QTCP's knobs (SPEC §4).
#[derive(Clone, Debug, PartialEq)]
pub struct QtcpParams {
    /// Weight of the *old* value in the EWMAs of measured throughput and latency:
    /// x' ← (1−γ)·x + γ·x'. No source gives one; 15/16 matches DCTCP's g = 1/16.
    pub gamma: f64,
    /// Bottleneck bandwidth C the class targets are shares of (bits/s).
    pub bottleneck_bps: f64,
    /// Interference adaptation (QTCP Fig 8): re-estimate C when Q leaves 1 ± σ.
    pub interference: bool,
    pub sigma: f64,
    /// When a flow with slack (Q < 1) gives it back.
    pub slack: Slack,
    /// "Congested" for [`Slack::WhileCongested`]: α above this (the analytic model's ε; no
    /// source gives a value).
    pub epsilon: f64,
    /// QRDMA: whether a slack step scales DCQCN's recovery target RT with the rate.
    pub recovery_target: RecoveryTarget,
}

impl Default for QtcpParams {
    fn default() -> Self {
        QtcpParams {
            gamma: 15.0 / 16.0,
            bottleneck_bps: 10e9,
            interference: false,
            sigma: 0.05,
            slack: Slack::WhileCongested,
            epsilon: 1e-3,
            recovery_target: RecoveryTarget::Scaled,
        }
    }
}

/// When QTCP's quality factor scales a window with slack (Q < 1). SPEC §4 decides
/// `while_congested`, the default: the printed eq. 6 / 4.5 label the first branch "No ECN" but
/// condition the others on α ≥ 0 (always true), the analytic model's eq. 12 branches on α > ε,
/// QTCP Fig 8 applies `if (Q < 1) W = W·Q` as a step of its own after DCTCP's cut, and every
/// result the sources report (1 : 2 : 3 "almost exactly", Q → 0.95–1, RTT independence) needs Q
/// applied while congestion lasts. The literal reading (`on_mark`) stays selectable.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Slack {
    /// W ← W·(1−α/2)·Q at a marked window only; between marks the window grows as DCTCP's
    /// (the printed equations' "ECN" branch read literally).
    OnMark,
    /// The ECN cut is DCTCP's W·(1−α/2); and at every update interval (≈ RTT; QRDMA: each α
    /// update) while α > ε, a flow with slack scales its window (rate) by Q.
    WhileCongested,
}

impl Slack {
    pub const ALL: [Slack; 2] = [Slack::OnMark, Slack::WhileCongested];
    pub fn name(self) -> &'static str {
        match self {
            Slack::OnMark => "on_mark",
            Slack::WhileCongested => "while_congested",
        }
    }
}

/// QRDMA: what DCQCN's recovery target RT does when a flow with slack scales its rate by Q.
/// SPEC §4 (QTCP §V-B, "we control the target rates"): RT is scaled with it, so fast recovery
/// climbs back to the class's share; kept at the pre-cut rate, fast recovery halves the distance
/// back to it at every timer step and undoes the Q within F steps (selectable for comparison).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RecoveryTarget {
    Scaled,
    Kept,
}

impl RecoveryTarget {
    pub const ALL: [RecoveryTarget; 2] = [RecoveryTarget::Scaled, RecoveryTarget::Kept];
    pub fn name(self) -> &'static str {
        match self {
            RecoveryTarget::Scaled => "scaled",
            RecoveryTarget::Kept => "kept",
        }
    }
}

/// What a QTCP flow is steered towards.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Target {
    /// Throughput-centric: the class gets C·ratio/Σ ratio of active classes, split among its
    /// active flows.
    Ratio(f64),
    /// Latency-centric: smoothed RTT target.
    Latency(SimTime),
}
