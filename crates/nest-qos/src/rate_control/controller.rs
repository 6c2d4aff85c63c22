//! SRC at a storage target (SRC §III-C, Fig 4): Algorithm 1 on the congestion its channels meet.
//! Two parts share one state:
//! - the **agent** ([`SrcAgent`]) is the target's routing hook: it routes every command to the
//!   device it names and records each command for an SRC device in that device's workload
//!   monitor (Ch is measured where the commands arrive);
//! - the **controller** ([`SrcController`]) watches the channels the target sends on (read data
//!   and completions back to the initiators) and, on each DCQCN rate change there — a cut on a
//!   CNP (the paper's "pause", lowering r) or a raise (its "retrieval") — runs Algorithm 1 with r =
//!   the channel's new rate and sets each device's write weight when it changes.
//!
//! r is the sending rate of the one channel the event is for (the paper has one initiator per
//! target; with several, the weights follow the latest event). The rate is the channel's wire rate
//! in bits/s, compared with the model's read throughput in bytes/s after dividing by 8 (headers
//! are not taken off: ~2 % at 4 KiB frames).
//!
//! **A flash array** (the paper's targets hold several SSDs, SRC §IV-A): the target's channel
//! carries the reads of all its drives, so r is the demand on the array. Each drive is asked for
//! the share of r that its reads have of the target's reads over δ (the read flow speed its
//! monitor saw), and runs Algorithm 1 on its own Ch with that share; with no reads seen the
//! share is equal. The paper does not say how it divides r; a drive asked for little is slowed
//! little, which is what the proportional split keeps.
//!
//! Synthetic events (`events`: time, demanded rate) are handled exactly as rate changes, at
//! wake-ups the controller asks for; they count as rate events, not as pauses.
//!
//! **Pauses** (the paper's per-millisecond count, Fig 7) are the congestion signals the target's
//! channels receive: DCQCN rate cuts (one per CNP acted on) and PFC pauses.

use super::algorithm::{DynamicAdjustment, ThroughputModel};
use super::monitor::Features;
use crate::congestion_monitor::BusiestMs;
use crate::{Action, Congestion, Coordinator, Outbox};
use nest_core::{DeviceId, FlowId, SimTime};
use nest_nvme::{CmdInfo, Router, RouterOut};
use std::sync::{Arc, Mutex, MutexGuard};

const MS: u64 = 1_000_000_000;

/// The agent's time series: the write weight (the mean over the target's SRC devices), the last
/// demanded read rate (Gb/s) and the pauses per millisecond since the previous sample.
pub const SERIES: [&str; 3] = ["write_weight", "demanded_read_gbps", "pauses_per_ms"];

#[derive(Clone, Debug, PartialEq)]
pub struct SrcConfig {
    /// The SSDs behind split SQs whose write weights it sets (one, or a target's array), each
    /// with its write weight when the run starts.
    pub devices: Vec<(DeviceId, u32)>,
    /// The channels the target sends on.
    pub flows: Vec<FlowId>,
    /// The monitor's window δ (10 ms in the paper) and Algorithm 1's τ (10 %) and its bound on w.
    pub delta: SimTime,
    pub tau: f64,
    pub w_max: u32,
    /// Synthetic congestion events (time, demanded rate in bits/s), in time order: each is
    /// handled as a DCQCN rate change to that rate (SRC §IV-E's evaluation of the control loop).
    pub events: Vec<(SimTime, f64)>,
}

/// One SRC device: its monitor and model, and its weight's history.
struct Drive {
    adj: DynamicAdjustment,
    device: DeviceId,
    w: u32,
    arrivals: u64,
    weight_changes: u64,
    max_w: u32,
    /// ∫ w dt (ps) up to the state's `touched`, for the time-weighted mean weight.
    w_area: f64,
    /// Ch at the last event: Algorithm 1's input, and its read flow speed the drive's share of r.
    ch: Features,
}

struct State {
    drives: Vec<Drive>,
    /// Last demanded read rate (bits/s); NaN before the first event.
    r_bps: f64,
    synthetic: u64,
    cuts: u64,
    raises: u64,
    pfc_pauses: u64,
    touched: SimTime,
    /// Pauses per millisecond.
    busiest_ms: BusiestMs,
    /// Pauses and time at the previous sample.
    sampled: (u64, SimTime),
}

impl State {
    fn touch(&mut self, now: SimTime) {
        let dt = now.0.saturating_sub(self.touched.0) as f64;
        for d in &mut self.drives {
            d.w_area += d.w as f64 * dt;
        }
        self.touched = self.touched.max(now);
    }

    fn pauses(&self) -> u64 {
        self.cuts + self.pfc_pauses
    }

    fn mean_w(&self) -> f64 {
        self.drives.iter().map(|d| d.w as f64).sum::<f64>() / self.drives.len() as f64
    }
}

type Shared = Arc<Mutex<State>>;

fn lock(s: &Shared) -> MutexGuard<'_, State> {
    s.lock().expect("SRC state: no holder panics while holding it")
}

pub struct SrcController {
    s: Shared,
    flows: Vec<FlowId>,
    events: Vec<(SimTime, f64)>,
}

pub struct SrcAgent {
    s: Shared,
}

/// The controller and the agent of one SRC target, sharing its devices' monitors; the devices
/// share the model (an array of one drive type).
pub fn src(cfg: SrcConfig, model: Arc<dyn ThroughputModel>) -> (SrcController, SrcAgent) {
    assert!(!cfg.devices.is_empty() && cfg.devices.iter().all(|&(_, w0)| w0 >= 1), "a device and w ≥ 1 (checked at resolution)");
    let drives = cfg
        .devices
        .iter()
        .map(|&(device, w0)| Drive {
            adj: DynamicAdjustment::new(cfg.delta, Box::new(model.clone()), cfg.tau, cfg.w_max),
            device,
            w: w0,
            arrivals: 0,
            weight_changes: 0,
            max_w: w0,
            w_area: 0.0,
            ch: Features::default(),
        })
        .collect();
    let s = Arc::new(Mutex::new(State {
        drives,
        r_bps: f64::NAN,
        synthetic: 0,
        cuts: 0,
        raises: 0,
        pfc_pauses: 0,
        touched: SimTime::ZERO,
        busiest_ms: BusiestMs::default(),
        sampled: (0, SimTime::ZERO),
    }));
    (SrcController { s: s.clone(), flows: cfg.flows, events: cfg.events }, SrcAgent { s })
}

impl State {
    /// A demanded read rate of `rate_bps` at `now`: each drive's share of it, Algorithm 1 on it,
    /// and the weights set that changed.
    fn demand(&mut self, now: SimTime, rate_bps: f64, out: &mut Outbox) {
        self.r_bps = rate_bps;
        self.touch(now);
        let r = rate_bps / 8.0;
        let n = self.drives.len();
        let mut total = 0.0;
        for d in &mut self.drives {
            d.ch = d.adj.monitor.features(now);
            total += d.ch.speed[0];
        }
        for d in &mut self.drives {
            let r_d = if n == 1 {
                r
            } else if total > 0.0 {
                r * d.ch.speed[0] / total
            } else {
                r / n as f64
            };
            let w = d.adj.decide_on(&d.ch, r_d);
            if w != d.w {
                d.w = w;
                d.weight_changes += 1;
                d.max_w = d.max_w.max(w);
                out.push(Action::SetWriteWeight { device: d.device, w });
            }
        }
    }
}

impl Coordinator for SrcController {
    fn start(&mut self, _now: SimTime, out: &mut Outbox) {
        for &flow in &self.flows {
            out.push(Action::Watch { flow });
        }
        for (k, &(at, _)) in self.events.iter().enumerate() {
            out.push(Action::WakeAt { at, token: k as u32 });
        }
    }

    fn on_wake(&mut self, now: SimTime, token: u32, out: &mut Outbox) {
        let (_, rate_bps) = self.events[token as usize];
        let mut s = lock(&self.s);
        s.synthetic += 1;
        s.demand(now, rate_bps, out);
    }

    fn on_congestion(&mut self, now: SimTime, _flow: FlowId, c: Congestion, out: &mut Outbox) {
        let mut s = lock(&self.s);
        let rate_bps = match c {
            Congestion::RateCut { rate_bps } => {
                s.cuts += 1;
                s.busiest_ms.count(now);
                rate_bps
            }
            Congestion::RateRaised { rate_bps } => {
                s.raises += 1;
                rate_bps
            }
            Congestion::Paused => {
                s.pfc_pauses += 1;
                s.busiest_ms.count(now);
                return;
            }
        };
        s.demand(now, rate_bps, out);
    }

    /// Weights are over the target's SRC devices: changes summed, the largest, and the mean of
    /// the final and of the time-weighted means (one device: its own).
    fn report(&self) -> Vec<(&'static str, f64)> {
        let s = lock(&self.s);
        let n = s.drives.len() as f64;
        let mean_w = s.drives.iter().map(|d| if s.touched > SimTime::ZERO { d.w_area / s.touched.0 as f64 } else { d.w as f64 }).sum::<f64>() / n;
        vec![
            ("devices", n),
            ("commands_seen", s.drives.iter().map(|d| d.arrivals).sum::<u64>() as f64),
            ("rate_events", (s.cuts + s.raises + s.synthetic) as f64),
            ("synthetic_events", s.synthetic as f64),
            ("rate_cuts", s.cuts as f64),
            ("rate_raises", s.raises as f64),
            ("pfc_pauses", s.pfc_pauses as f64),
            ("pauses", s.pauses() as f64),
            ("busiest_ms_pauses", s.busiest_ms.busiest as f64),
            ("weight_changes", s.drives.iter().map(|d| d.weight_changes).sum::<u64>() as f64),
            ("final_w", s.mean_w()),
            ("max_w", s.drives.iter().map(|d| d.max_w).max().unwrap_or(1) as f64),
            ("mean_w", mean_w),
        ]
    }
}

impl Router for SrcAgent {
    #[inline]
    fn route(&mut self, now: SimTime, cmd: &CmdInfo, _out: &mut RouterOut) -> Option<DeviceId> {
        let mut s = lock(&self.s);
        if let Some(k) = s.drives.iter().position(|d| d.device == cmd.device) {
            s.touch(now);
            let d = &mut s.drives[k];
            d.arrivals += 1;
            d.adj.monitor.record(now, cmd.bytes, cmd.write);
        }
        Some(cmd.device)
    }

    fn series(&self) -> &'static [&'static str] {
        &SERIES
    }

    fn sample(&mut self, now: SimTime, _out: &mut RouterOut, values: &mut Vec<f64>) {
        let mut s = lock(&self.s);
        let (p0, t0) = s.sampled;
        let ms = now.0.saturating_sub(t0.0) as f64 / MS as f64;
        let pauses = s.pauses();
        values.push(s.mean_w());
        values.push(if s.r_bps.is_finite() { s.r_bps / 1e9 } else { 0.0 });
        values.push(if ms > 0.0 { (pauses - p0) as f64 / ms } else { 0.0 });
        s.sampled = (pauses, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate_control::Features;
    use nest_core::{HostId, Priority};

    /// Predicts read throughput = the read speed the monitor saw / w (bytes/s).
    struct Speed;
    impl ThroughputModel for Speed {
        fn predict(&self, ch: &Features, w: u32) -> (f64, f64) {
            (ch.speed[0] / w as f64, 0.0)
        }
    }

    fn cmd(device: u32, write: bool, bytes: u32) -> CmdInfo {
        CmdInfo { host: HostId(0), device: DeviceId(device), write, offset: 0, bytes, class: Priority::High, class_id: 0 }
    }

    fn setup() -> (SrcController, SrcAgent) {
        let cfg = SrcConfig {
            devices: vec![(DeviceId(1), 1)],
            flows: vec![FlowId(3), FlowId(5)],
            delta: SimTime::from_ms(10),
            tau: 0.1,
            w_max: 8,
            events: Vec::new(),
        };
        src(cfg, Arc::new(Speed))
    }

    #[test]
    fn it_watches_the_targets_channels_and_routes_every_command_where_it_names() {
        let (mut c, mut a) = setup();
        let mut out = Outbox::default();
        c.start(SimTime::ZERO, &mut out);
        assert_eq!(out.actions, vec![Action::Watch { flow: FlowId(3) }, Action::Watch { flow: FlowId(5) }]);
        let mut ro = RouterOut::default();
        assert_eq!(a.route(SimTime::ZERO, &cmd(0, false, 4096), &mut ro), Some(DeviceId(0)));
        assert_eq!(a.route(SimTime::ZERO, &cmd(1, true, 4096), &mut ro), Some(DeviceId(1)));
        assert_eq!(c.report()[1], ("commands_seen", 1.0), "only the SRC device's commands are monitored");
    }

    #[test]
    fn a_cut_sets_the_weight_algorithm_1_picks_and_a_raise_brings_it_back() {
        let (mut c, mut a) = setup();
        let mut ro = RouterOut::default();
        // 40 KB reads every 10 µs for 10 ms: 4 GB/s = 32 Gb/s of reads arriving.
        for k in 0..1000 {
            a.route(SimTime::from_us(10 * k), &cmd(1, false, 40_000), &mut ro);
        }
        let now = SimTime::from_us(9_995);
        let mut out = Outbox::default();
        c.on_congestion(now, FlowId(3), Congestion::RateCut { rate_bps: 8e9 }, &mut out);
        assert_eq!(out.actions, vec![Action::SetWriteWeight { device: DeviceId(1), w: 4 }], "32 / w closest to 8 Gb/s");
        out.actions.clear();
        c.on_congestion(now, FlowId(3), Congestion::RateCut { rate_bps: 7.9e9 }, &mut out);
        assert!(out.actions.is_empty(), "the same weight is not set again");
        c.on_congestion(now, FlowId(5), Congestion::Paused, &mut out);
        c.on_congestion(now, FlowId(3), Congestion::RateRaised { rate_bps: 40e9 }, &mut out);
        assert_eq!(out.actions, vec![Action::SetWriteWeight { device: DeviceId(1), w: 1 }], "demand above what arrives: w = 1");
        let r: std::collections::HashMap<_, _> = c.report().into_iter().collect();
        assert_eq!((r["rate_cuts"], r["rate_raises"], r["pfc_pauses"], r["pauses"], r["busiest_ms_pauses"]), (2.0, 1.0, 1.0, 3.0, 3.0));
        assert_eq!((r["weight_changes"], r["final_w"], r["max_w"]), (2.0, 1.0, 4.0));
    }

    #[test]
    fn samples_give_the_weight_the_demand_and_pauses_per_millisecond() {
        let (mut c, mut a) = setup();
        let mut ro = RouterOut::default();
        let mut out = Outbox::default();
        for k in 0..6 {
            c.on_congestion(SimTime::from_us(100 * k), FlowId(3), Congestion::Paused, &mut out);
        }
        let mut v = Vec::new();
        a.sample(SimTime::from_ms(2), &mut ro, &mut v);
        assert_eq!(v, vec![1.0, 0.0, 3.0], "6 pauses over 2 ms; no rate yet");
        v.clear();
        c.on_congestion(SimTime::from_us(2_500), FlowId(3), Congestion::RateCut { rate_bps: 5e9 }, &mut out);
        a.sample(SimTime::from_ms(3), &mut ro, &mut v);
        assert_eq!(v, vec![1.0, 5.0, 1.0], "nothing arrived: the prediction (0) is below r, w stays 1");
    }

    #[test]
    fn synthetic_events_wake_the_controller_at_their_times_and_act_as_rate_changes() {
        let cfg = SrcConfig {
            devices: vec![(DeviceId(1), 1)],
            flows: vec![],
            delta: SimTime::from_ms(10),
            tau: 0.1,
            w_max: 8,
            events: vec![(SimTime::from_ms(5), 8e9), (SimTime::from_ms(8), 40e9)],
        };
        let (mut c, mut a) = src(cfg, Arc::new(Speed));
        let mut out = Outbox::default();
        c.start(SimTime::ZERO, &mut out);
        assert_eq!(out.actions, vec![Action::WakeAt { at: SimTime::from_ms(5), token: 0 }, Action::WakeAt { at: SimTime::from_ms(8), token: 1 }]);
        out.actions.clear();
        let mut ro = RouterOut::default();
        for k in 0..500 {
            a.route(SimTime::from_us(10 * k), &cmd(1, false, 40_000), &mut ro); // 4 GB/s over 5 ms (δ = 10 ms: 2 GB/s)
        }
        c.on_wake(SimTime::from_ms(5), 0, &mut out);
        assert_eq!(out.actions, vec![Action::SetWriteWeight { device: DeviceId(1), w: 2 }], "2 GB/s seen, 1 GB/s demanded");
        out.actions.clear();
        c.on_wake(SimTime::from_ms(8), 1, &mut out);
        assert_eq!(out.actions, vec![Action::SetWriteWeight { device: DeviceId(1), w: 1 }]);
        let r: std::collections::HashMap<_, _> = c.report().into_iter().collect();
        assert_eq!((r["synthetic_events"], r["rate_events"], r["pauses"]), (2.0, 2.0, 0.0));
    }

    #[test]
    fn an_array_divides_the_demand_by_each_drives_share_of_the_reads() {
        let cfg = SrcConfig {
            devices: vec![(DeviceId(1), 1), (DeviceId(2), 1), (DeviceId(4), 2)],
            flows: vec![FlowId(3)],
            delta: SimTime::from_ms(10),
            tau: 0.1,
            w_max: 8,
            events: Vec::new(),
        };
        let (mut c, mut a) = src(cfg, Arc::new(Speed));
        let mut ro = RouterOut::default();
        // Drive 1 is asked for 3 GB/s of reads, drive 2 for 1 GB/s, drive 4 for none.
        for k in 0..1000 {
            a.route(SimTime::from_us(10 * k), &cmd(1, false, 30_000), &mut ro);
            a.route(SimTime::from_us(10 * k), &cmd(2, false, 10_000), &mut ro);
            a.route(SimTime::from_us(10 * k), &cmd(4, true, 10_000), &mut ro);
        }
        let mut out = Outbox::default();
        // 16 Gb/s = 2 GB/s for the array: 1.5 GB/s for drive 1 (3/1.5: w = 2), 0.5 GB/s for
        // drive 2 (1/0.5: w = 2), nothing for drive 4, which reads nothing: 0 < 0 is false, but
        // its prediction is 0 and the search stops at once: w = 1.
        c.on_congestion(SimTime::from_us(9_995), FlowId(3), Congestion::RateCut { rate_bps: 16e9 }, &mut out);
        assert_eq!(
            out.actions,
            vec![
                Action::SetWriteWeight { device: DeviceId(1), w: 2 },
                Action::SetWriteWeight { device: DeviceId(2), w: 2 },
                Action::SetWriteWeight { device: DeviceId(4), w: 1 }
            ]
        );
        out.actions.clear();
        // 8 Gb/s = 1 GB/s: 0.75 GB/s for drive 1 (w = 4), 0.25 GB/s for drive 2 (w = 4).
        c.on_congestion(SimTime::from_us(9_996), FlowId(3), Congestion::RateCut { rate_bps: 8e9 }, &mut out);
        assert_eq!(out.actions, vec![Action::SetWriteWeight { device: DeviceId(1), w: 4 }, Action::SetWriteWeight { device: DeviceId(2), w: 4 }]);
        let r: std::collections::HashMap<_, _> = c.report().into_iter().collect();
        assert_eq!((r["devices"], r["commands_seen"], r["weight_changes"], r["max_w"], r["final_w"]), (3.0, 3000.0, 5.0, 4.0, 3.0));
        let mut v = Vec::new();
        a.sample(SimTime::from_ms(10), &mut ro, &mut v);
        assert_eq!(v[0], 3.0, "the series gives the mean weight");
    }
}
