//! The network in the World: the fabric, its transports, their time series and summary.
//!
//! The fabric and transports are sans-IO; [`Sched`] adapts the World's event queue to them, so
//! their events travel as `Event::Net` / `Event::Tp` beside storage events in one queue.

use crate::events::Event;
use crate::stats::r6;
use nest_config::resolve::network::{NetworkPlan, SamplePorts};
use nest_config::resolve::ClassPlan;
use nest_core::queue::PendingEvents;
use nest_core::{EventQueue, SimTime};
use nest_net::topology::NodeKind;
use nest_net::{Fabric, NetEvent, NetScheduler};
use nest_transport::{Scheduler, TpEvent, Transports};
use serde_json::{json, Map, Value};

pub struct Sched<'a>(pub &'a mut EventQueue<Event>);

impl NetScheduler for Sched<'_> {
    #[inline]
    fn at(&mut self, t: SimTime, e: NetEvent) {
        self.0.schedule(t, Event::Net(e));
    }
}

impl Scheduler for Sched<'_> {
    #[inline]
    fn tp_at(&mut self, t: SimTime, e: TpEvent) {
        self.0.schedule(t, Event::Tp(e));
    }
}

/// Per-flow series: cwnd (packets), α, Q, smoothed RTT (µs), throughput (Gb/s).
/// (A rate-based flow reports its current rate RC, in Gb/s, as `rate_gbps` instead of cwnd.)
const FLOW_METRICS: [&str; 5] = ["cwnd_pkts", "alpha", "q_factor", "srtt_us", "throughput_gbps"];
const RATE_METRICS: [&str; 5] = ["rate_gbps", "alpha", "q_factor", "srtt_us", "throughput_gbps"];

pub struct NetRt {
    pub fabric: Fabric,
    pub tp: Transports,
    flow_series: Vec<[u32; 5]>,
    /// Sampled ports and their queue-length series.
    port_series: Vec<(u32, u32)>,
    /// With PFC: sampled ports, their paused-fraction series and paused time at the last sample.
    pause_series: Vec<(u32, u32, u64)>,
    last_acked: Vec<u64>,
    last_sample: SimTime,
    /// With QTCP/QRDMA flows: their bottleneck estimate λ (Gb/s; interference adaptation moves it).
    lambda_series: Option<u32>,
}

/// "sw0→r0": the egress port from `node` towards its peer.
pub fn port_name(f: &Fabric, port: u32) -> String {
    let p = &f.topo.ports[port as usize];
    format!("{}->{}", f.topo.nodes[p.node as usize].name, f.topo.nodes[p.peer_node as usize].name)
}

impl NetRt {
    pub fn new(plan: &NetworkPlan, seed: u64, window: (SimTime, SimTime), register: &mut dyn FnMut(&str, &str) -> u32) -> Result<NetRt, String> {
        let fabric = Fabric::new(plan.topology.clone(), plan.fabric.clone(), seed)?;
        let mut tp = Transports::new(plan.tcp.clone(), plan.qtcp.clone(), plan.flows.clone(), plan.class_ratio.clone())?;
        tp.dcqcn = plan.dcqcn.clone();
        tp.set_measure_window(window.0, window.1);
        let flow_series = tp
            .flows
            .iter()
            .map(|f| {
                let e = format!("flow:{}", f.spec.name);
                if f.spec.cc.is_rate_based() { RATE_METRICS } else { FLOW_METRICS }.map(|m| register(&e, m))
            })
            .collect();
        let mut port_series = Vec::new();
        let mut pause_series = Vec::new();
        for (i, p) in fabric.topo.ports.iter().enumerate() {
            let sample = match plan.sample_ports {
                SamplePorts::All => true,
                SamplePorts::Switches => fabric.topo.nodes[p.node as usize].kind == NodeKind::Switch,
                SamplePorts::None => false,
            };
            if sample {
                let e = format!("port:{}", port_name(&fabric, i as u32));
                port_series.push((i as u32, register(&e, "queue_kib")));
                // Only a lossless fabric pauses; elsewhere the series would be all zeros.
                if plan.fabric.pfc.is_some() {
                    pause_series.push((i as u32, register(&e, "paused_frac"), 0));
                }
            }
        }
        let managed = tp.flows.iter().any(|f| matches!(f.spec.cc, nest_transport::Cc::Qtcp | nest_transport::Cc::Qrdma));
        let lambda_series = managed.then(|| register("qtcp", "lambda_gbps"));
        let n = tp.flows.len();
        Ok(NetRt { fabric, tp, flow_series, port_series, pause_series, last_acked: vec![0; n], last_sample: SimTime::ZERO, lambda_series })
    }

    pub fn start(&mut self, q: &mut EventQueue<Event>) {
        self.tp.start(&self.fabric, &mut Sched(q));
    }

    #[inline]
    pub fn on_net(&mut self, now: SimTime, e: NetEvent, q: &mut EventQueue<Event>) {
        self.tp.on_net_event(now, e, &mut self.fabric, &mut Sched(q));
    }

    #[inline]
    pub fn on_tp(&mut self, now: SimTime, e: TpEvent, q: &mut EventQueue<Event>) {
        self.tp.handle(now, e, &mut self.fabric, &mut Sched(q));
    }

    /// Sends `msg`, `bytes` long, on message channel `f`.
    #[inline]
    pub fn send_message(&mut self, now: SimTime, f: u32, bytes: u64, msg: nest_transport::Message, q: &mut EventQueue<Event>) {
        self.tp.send_message(now, f, bytes, msg, &mut self.fabric, &mut Sched(q));
    }

    /// One time-series sample of every flow and sampled port.
    pub fn sample(&mut self, now: SimTime, add: &mut impl FnMut(u32, f64)) {
        let dt = (now - self.last_sample).as_secs_f64();
        let mss = self.tp.tcp.mss as f64;
        for (i, f) in self.tp.flows.iter().enumerate() {
            if !f.s.started {
                continue;
            }
            let ids = self.flow_series[i];
            add(ids[0], if f.spec.cc.is_rate_based() { f.s.rate.rc / 1e9 } else { f.s.win.cwnd / mss });
            add(ids[1], f.s.alpha);
            add(ids[2], f.s.quality.q);
            add(ids[3], f.s.srtt / 1e6);
            if dt > 0.0 {
                add(ids[4], (f.stats.acked_bytes - self.last_acked[i]) as f64 * 8.0 / dt / 1e9);
            }
            self.last_acked[i] = f.stats.acked_bytes;
        }
        if let Some(id) = self.lambda_series {
            add(id, self.tp.qtcp_lambda / 1e9);
        }
        for &(p, id) in &self.port_series {
            add(id, self.fabric.queue_bytes(p) as f64 / 1024.0);
        }
        for (p, id, last) in &mut self.pause_series {
            let paused = self.fabric.paused_ps_until(*p, now);
            if dt > 0.0 {
                add(*id, (paused - *last) as f64 * 1e-12 / dt);
            }
            *last = paused;
        }
        self.last_sample = now;
    }

    pub fn summary(&mut self, now: SimTime, window_s: f64, classes: &[ClassPlan]) -> Value {
        self.fabric.finish(now);
        let f = &self.fabric;
        let mut flows = Map::new();
        let mut per_class = vec![0.0f64; classes.len()];
        let window = SimTime::from_secs_f64(window_s).unwrap_or(SimTime::ZERO);
        for (i, fl) in self.tp.flows.iter().enumerate() {
            let thr = self.tp.window_throughput_bps(i as u32, window) / 1e9;
            per_class[fl.spec.class as usize] += thr;
            let st = &fl.stats;
            let deadline_met = match (fl.spec.deadline, st.fct) {
                (Some(d), Some(fct)) => Some(fct <= d),
                (Some(_), None) => Some(false),
                _ => None,
            };
            // Bytes (packets) acknowledged after the deadline; undecided while the run ends
            // before it with the flow unfinished.
            let late_bytes =
                fl.spec.deadline.filter(|&d| fl.s.finished || now >= fl.spec.start + d).map(|_| fl.total - st.acked_by_deadline.unwrap_or(st.acked_bytes));
            flows.insert(
                fl.spec.name.clone(),
                json!({
                    "transport": fl.spec.cc.name(),
                    "class": classes[fl.spec.class as usize].name,
                    "src": f.topo.host_name(fl.spec.src),
                    "dst": f.topo.host_name(fl.spec.dst),
                    "throughput_gbps": r6(thr),
                    "acked_bytes": st.acked_bytes,
                    "finished": fl.s.finished,
                    "fct_us": st.fct.map(|t| r6(t.as_us_f64())),
                    "deadline_met": deadline_met,
                    "late_bytes": late_bytes,
                    "mean_rtt_us": if st.rtt_samples > 0 { Some(r6(st.rtt_sum_ps / st.rtt_samples as f64 / 1e6)) } else { None },
                    "cuts": st.cuts,
                    "timeouts": st.timeouts,
                    "fast_retransmits": st.fast_retransmits,
                    "segments": st.segments,
                    "retransmitted_segments": st.retransmitted_segments,
                    "ece_acks": fl.r.ece_acks,
                    "acks": fl.r.acks,
                    "alpha_end": r6(fl.s.alpha),
                    "q_end": r6(fl.s.quality.q),
                    "cwnd_end_pkts": if fl.spec.cc.is_rate_based() { None } else { Some(r6(fl.s.win.cwnd / self.tp.tcp.mss as f64)) },
                    "rate_end_gbps": if fl.spec.cc.is_rate_based() { Some(r6(fl.s.rate.rc / 1e9)) } else { None },
                    "cnps": fl.s.rate.cnps,
                }),
            );
        }
        let mut class_map = Map::new();
        for (c, plan) in classes.iter().enumerate() {
            if self.tp.flows.iter().any(|fl| fl.spec.class as usize == c) {
                class_map.insert(plan.name.clone(), json!({"throughput_gbps": r6(per_class[c]), "ratio": plan.ratio}));
            }
        }
        let mut switches = Map::new();
        for (n, node) in f.topo.nodes.iter().enumerate() {
            if node.kind != NodeKind::Switch {
                continue;
            }
            let ps: Vec<_> = node.ports.iter().map(|&p| f.port_stats(p)).collect();
            let mut ports = Map::new();
            for &p in &node.ports {
                let s = f.port_stats(p);
                if s.tx_pkts > 0 || s.dropped > 0 {
                    ports.insert(
                        port_name(f, p),
                        json!({
                            "tx_pkts": s.tx_pkts, "tx_bytes": s.tx_bytes, "marked": s.marked, "dropped": s.dropped,
                            "max_queue_bytes": s.max_queue_bytes, "pauses_sent": s.pauses_sent,
                            "pauses_received": s.pauses_received, "paused_s": r6(s.paused_ps as f64 / 1e12),
                        }),
                    );
                }
            }
            let mut sw = json!({
                "marked": ps.iter().map(|s| s.marked).sum::<u64>(),
                "dropped": f.switch_drops(n as u32),
                "pauses_sent": ps.iter().map(|s| s.pauses_sent).sum::<u64>(),
                "max_queue_bytes": ps.iter().map(|s| s.max_queue_bytes).max().unwrap_or(0),
            });
            // Moved in: `json!` would serialize an interpolated map into a copy.
            sw["ports"] = Value::Object(ports);
            switches.insert(node.name.clone(), sw);
        }
        let host_ports = || f.topo.hosts.iter().flat_map(|&h| f.topo.nodes[h as usize].ports.iter()).map(|&p| f.port_stats(p));
        let host_pauses: u64 = host_ports().map(|s| s.pauses_received).sum();
        let nic_marked: u64 = host_ports().map(|s| s.marked).sum();
        let t = &f.totals;
        let mut out = json!({
            "hosts": f.topo.hosts.len(),
            "switches": f.topo.nodes.len() - f.topo.hosts.len(),
            "links": f.topo.ports.len() / 2,
            "lossless": f.params.pfc.is_some(),
            "total_throughput_gbps": r6(per_class.iter().sum()),
            "host_pauses_received": host_pauses,
            "nic_marked": nic_marked,
            "packets": {
                "injected": t.injected, "delivered": t.delivered, "dropped": t.dropped,
                "in_network": f.pool.live(), "hops": t.hops, "peak_alive": f.pool.capacity(),
            },
            "conservation": match f.check_conservation() { Ok(()) => json!("ok"), Err(e) => json!(e) },
        });
        for (key, map) in [("flows", flows), ("classes", class_map), ("switch", switches)] {
            out[key] = Value::Object(map);
        }
        // Links that failed (`[[fault]] kind = "link_down"`): what they took.
        if t.link_drops + t.unroutable > 0 || (0..f.topo.ports.len() as u32).any(|p| f.is_down(p)) {
            out["packets"]["link_drops"] = json!(t.link_drops);
            out["packets"]["unroutable"] = json!(t.unroutable);
            let lost: u64 = (0..f.topo.ports.len() as u32).map(|p| f.port_stats(p).lost_pkts).sum();
            out["packets"]["lost_on_wire"] = json!(lost);
        }
        out
    }
}
