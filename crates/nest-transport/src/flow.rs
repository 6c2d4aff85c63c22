//! A flow: its description ([`FlowSpec`]), its sender ([`crate::sender`]), the receiver's
//! delayed-ACK machine and what it achieved.

use crate::cc::Cc;
use crate::params::Target;
use crate::sender::Sender;
use nest_core::SimTime;
use nest_net::packet::Prio;

/// One flow (one connection of one class).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    pub name: String,
    pub src: u32,
    pub dst: u32,
    pub class: u8,
    pub prio: Prio,
    pub cc: Cc,
    pub start: SimTime,
    /// The application stops producing data here (long-lived flows).
    pub stop: Option<SimTime>,
    /// Message size; `None` = unlimited.
    pub bytes: Option<u64>,
    /// Application-limited offered load (payload bits/s); `None` = always backlogged.
    pub rate_bps: Option<f64>,
    /// D2TCP deadline, relative to `start`.
    pub deadline: Option<SimTime>,
    pub target: Option<Target>,
    /// A message channel (NVMe-oF capsules and data): the sender carries exactly what is
    /// handed to it with [`crate::Transports::push`], never finishes, and the receiver reports
    /// in-order progress in [`crate::Transports::delivered`] so messages can be reassembled.
    pub messages: bool,
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
