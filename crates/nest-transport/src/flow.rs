//! Per-flow state: the window sender and the receiver's delayed-ACK machine.

use crate::params::{FlowSpec, Target};
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
    /// With [`crate::DcqcnParams::qp_per_message`]: where the message now being sent (its own
    /// queue pair) starts in the stream.
    pub qp_start: u64,
}

impl RateState {
    /// The reaction point of a new queue pair: RC = RT = the initial rate, no increase stage.
    pub fn restart(&mut self, p: &crate::DcqcnParams) {
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

/// Receiver side: cumulative ACKs, every `delayed_ack` segments, with RFC 8257's rule that a
/// change of the CE state is acknowledged at once with the old ECE value (so the sender sees
/// exactly which bytes were marked).
#[derive(Clone, Debug, Default)]
pub struct Receiver {
    pub rcv_nxt: u64,
    pub pending: u32,
    pub ce_state: bool,
    pub delack_pending: bool,
    pub last_ts: SimTime,
    /// ACKs sent, and how many carried ECE.
    pub acks: u64,
    pub ece_acks: u64,
    /// DCQCN notification point: when the last CNP was sent (`None`: never).
    pub last_cnp: Option<SimTime>,
    /// The queue pair that CNP was for (its message's start; 0 with one QP per flow).
    pub last_cnp_qp: u64,
}

/// What a flow achieved, for the summary.
#[derive(Clone, Debug, Default)]
pub struct FlowStats {
    /// Payload bytes acknowledged inside the measurement window.
    pub window_bytes: u64,
    pub acked_bytes: u64,
    /// Completion time of a finite flow (last byte acknowledged − start).
    pub fct: Option<SimTime>,
    /// Bytes acknowledged by `start + deadline`, fixed by the first ACK after that instant
    /// (None while none has come): the rest of the flow's packets missed the deadline — the
    /// per-packet miss count the QTCP paper reports beside whole transfers.
    pub acked_by_deadline: Option<u64>,
    pub cuts: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub segments: u64,
    pub retransmitted_segments: u64,
    pub rtt_samples: u64,
    pub rtt_sum_ps: f64,
}

pub struct Flow {
    pub spec: FlowSpec,
    pub s: Sender,
    pub r: Receiver,
    pub stats: FlowStats,
    /// Bytes the flow will ever carry: its size, or everything produced by `stop`.
    pub total: u64,
}

impl Flow {
    /// Payload bytes the application has handed to the sender by `now`.
    #[inline]
    pub fn available(&self, now: SimTime) -> u64 {
        let Some(rate) = self.spec.rate_bps else { return self.total };
        let until = match self.spec.stop {
            Some(s) if s < now => s,
            _ => now,
        };
        let secs = until.saturating_sub(self.spec.start).as_secs_f64();
        ((rate * secs / 8.0) as u64).min(self.total)
    }

    /// When the application will have produced `bytes` (rate-limited flows only).
    pub fn time_available(&self, bytes: u64) -> Option<SimTime> {
        let rate = self.spec.rate_bps?;
        let t = self.spec.start + SimTime::from_secs_f64(bytes as f64 * 8.0 / rate)? + SimTime(1);
        match self.spec.stop {
            Some(s) if t > s => None,
            _ => Some(t),
        }
    }

    /// Everything the application will ever hand over has been acknowledged.
    #[inline]
    pub fn all_acked(&self, now: SimTime) -> bool {
        if self.spec.messages {
            return false; // a channel stays open: more messages may come
        }
        self.s.snd_una >= self.total || (self.app_done(now) && self.s.snd_una >= self.available(now))
    }

    /// Whether the application has nothing more to hand over after what is available now.
    pub fn app_done(&self, now: SimTime) -> bool {
        if self.available(now) >= self.total {
            return true;
        }
        matches!(self.spec.stop, Some(s) if now >= s)
    }

    /// A message channel with nothing to send or acknowledge.
    #[inline]
    pub fn is_idle_channel(&self) -> bool {
        self.spec.messages && self.s.snd_una >= self.total
    }

    pub fn is_throughput_qtcp(&self) -> bool {
        self.spec.cc.is_quality_aware() && matches!(self.spec.target, Some(Target::Ratio(_)))
    }
}
