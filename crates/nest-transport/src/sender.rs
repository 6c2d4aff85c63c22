//! The sender state every congestion-control family keeps: sequence space, RTT and RTO, the
//! observation window and α, plus each family's own part ([`WindowState`], [`RateState`],
//! [`QualityState`]). Kept apart from [`crate::flow`]'s flow description so the algorithms in
//! `cc/` can own their rules over it without depending on how a flow is described.

use nest_core::SimTime;

/// Sender side of one flow: what every family keeps (sequence space, RTT and RTO, the
/// observation window, DCTCP/DCQCN's α), plus the state of each family in its own part —
/// [`WindowState`] for window-based flows (DCTCP, QTCP, D2TCP), [`RateState`] for rate-based
/// ones (DCQCN, QRDMA), [`QualityState`] for the quality-aware ones (QTCP, QRDMA).
#[derive(Clone, Debug)]
pub struct Sender {
    pub started: bool,
    pub finished: bool,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// DCTCP's estimate of the fraction of marked bytes; DCQCN's α.
    pub alpha: f64,
    /// Observation window (≈ one RTT, or a DCQCN α period): its start, bytes acknowledged and
    /// bytes marked in it.
    pub win_start: SimTime,
    pub win_acked: u64,
    pub win_marked: u64,
    /// Smoothed RTT and variation, ps (0 until the first sample).
    pub srtt: f64,
    pub rttvar: f64,
    pub rto: SimTime,
    pub rto_deadline: SimTime,
    pub rto_pending: bool,
    pub app_wake_pending: bool,
    /// Waiting in its host's NIC wait list for room (TCP Small Queues; a QP's NIC backlog).
    pub nic_wait: bool,
    pub win: WindowState,
    pub rate: RateState,
    pub quality: QualityState,
}

/// Window-based senders: byte sequence numbers, go-back-N recovery.
#[derive(Clone, Debug)]
pub struct WindowState {
    /// Congestion window in bytes.
    pub cwnd: f64,
    pub ssthresh: f64,
    /// The observation window ends when `snd_una` passes this.
    pub win_end: u64,
    /// No second cut until `snd_una` passes this (one reaction per window, RFC 8257).
    pub cwr_end: u64,
    pub dupacks: u32,
    /// NewReno's recovery point (RFC 6582 `recover`): the highest byte sent when the last loss
    /// recovery (fast retransmit or RTO) began. Duplicate ACKs below it are echoes of that
    /// recovery's own go-back-N copies, not news of a loss, and start no fast retransmit.
    pub recover: u64,
    /// The last send attempt stopped at the congestion window (RFC 7661: only a cwnd-limited
    /// flow grows its window).
    pub cwnd_limited: bool,
}

/// DCQCN's reaction point: current rate RC and target rate RT (bits/s), timer and byte-counter
/// stages since the last cut, bytes towards the next byte-counter event, whether a CNP came in
/// the current α period, the rate-increase timer's generation (a cut restarts it), and whether a
/// pacing event is pending.
#[derive(Clone, Debug, Default)]
pub struct RateState {
    pub rc: f64,
    pub rt: f64,
    pub line_rate: f64,
    pub timer_stage: u32,
    pub byte_stage: u32,
    pub byte_ctr: u64,
    pub cnp_in_period: bool,
    pub timer_gen: u32,
    pub pace_pending: bool,
    pub cnps: u64,
    /// DCQCN timers of an idle message channel stop instead of ticking forever (an idle run
    /// must be able to end); these say since when, and [`crate::Transports::send_message`]
    /// catches up the periods missed.
    pub alpha_parked: Option<SimTime>,
    pub timer_parked: Option<SimTime>,
    /// With [`crate::params::DcqcnParams::qp_per_message`]: where the message now being sent (its own
    /// queue pair) starts in the stream.
    pub qp_start: u64,
}

impl RateState {
    /// The reaction point of a new queue pair: RC = RT = the initial rate, no increase stage.
    pub fn restart(&mut self, p: &crate::params::DcqcnParams) {
        let r = p.initial_rate.unwrap_or(self.line_rate).min(self.line_rate);
        (self.rc, self.rt, self.timer_stage, self.byte_stage, self.byte_ctr) = (r, r, 0, 0, 0);
    }
}

/// QTCP/QRDMA: smoothed measured throughput (bits/s) and latency (ps), the quality factor, and
/// whether the flow counts towards its class's active flows.
#[derive(Clone, Debug)]
pub struct QualityState {
    pub thr_ewma: f64,
    pub lat_ewma: f64,
    pub q: f64,
    pub counted_active: bool,
}

impl Sender {
    pub fn new(init_cwnd: f64, alpha: f64, min_rto: SimTime) -> Self {
        Sender {
            started: false,
            finished: false,
            snd_una: 0,
            snd_nxt: 0,
            alpha,
            win_start: SimTime::ZERO,
            win_acked: 0,
            win_marked: 0,
            srtt: 0.0,
            rttvar: 0.0,
            rto: min_rto,
            rto_deadline: SimTime::MAX,
            rto_pending: false,
            app_wake_pending: false,
            nic_wait: false,
            win: WindowState { cwnd: init_cwnd, ssthresh: f64::INFINITY, win_end: 0, cwr_end: 0, dupacks: 0, recover: 0, cwnd_limited: false },
            rate: RateState::default(),
            quality: QualityState { thr_ewma: 0.0, lat_ewma: 0.0, q: 1.0, counted_active: false },
        }
    }
}
