//! The QoS seam in the World: coordinators started, woken and told of completions, and their
//! actions carried out — budgets to the hosts' admission gates, wake-ups into the queue (the
//! component state is in `crate::qos`).

use crate::device::DeviceRt;
use crate::events::Event;
use crate::messages::CONTROL;
use crate::qos::{InTransit, QosEvent, CONTROL_MESSAGE_BYTES};
use crate::request::Request;
use crate::request::{Kind, ReqId};
use crate::sim::Simulation;
use crate::stats::r6;
use nest_core::queue::PendingEvents;
use nest_core::{CoordId, FlowId, HostId};
use nest_qos::{Action, Completion, Msg};
use nest_transport::Message;
use serde_json::{json, Map, Value};

impl Simulation {
    /// Starts every coordinator (before any workload issues, so first budgets are in place).
    pub(crate) fn qos_start(&mut self) {
        let n = self.qos.as_ref().map_or(0, |rt| rt.coords.len());
        for c in 0..n {
            let rt = self.qos.as_deref_mut().expect("coordinators");
            rt.coords[c].start(self.now, &mut rt.out);
            self.qos_apply(CoordId(c as u32), true);
        }
    }

    pub(crate) fn on_qos(&mut self, e: QosEvent) {
        match e {
            QosEvent::Wake(c, token) => {
                let rt = self.qos.as_deref_mut().expect("a QoS event without coordinators");
                rt.coords[c.ix()].on_wake(self.now, token, &mut rt.out);
                self.qos_apply(c, false);
            }
        }
    }

    /// An application request completed: coordinators that measure are told.
    #[inline]
    pub(crate) fn qos_completed(&mut self, req: &Request) {
        let n = match self.qos.as_deref() {
            Some(rt) if rt.measuring => rt.coords.len(),
            _ => return,
        };
        let c = Completion {
            host: req.host,
            class: req.class,
            write: req.op == nest_workload::Op::Write,
            bytes: req.size,
            latency: req.t_complete - req.t_arrive,
            dt: req.dt,
        };
        for k in 0..n {
            let rt = self.qos.as_deref_mut().expect("coordinators");
            if rt.coords[k].measures_completions() {
                rt.coords[k].on_completion(self.now, &c, &mut rt.out);
                self.qos_apply(CoordId(k as u32), false);
            }
        }
    }

    /// Carries out what coordinator `c` put in the outbox (`starting`: at time zero, before
    /// any workload has started).
    pub(crate) fn qos_apply(&mut self, c: CoordId, starting: bool) {
        let mut actions = std::mem::take(&mut self.qos.as_deref_mut().expect("coordinators").out.actions);
        for a in actions.drain(..) {
            match a {
                Action::SetBudget { host, ios } => {
                    let gate = self.gates[host.ix()].as_mut().expect("a budget for a host without a gate");
                    gate.set_budget(ios);
                    self.release_held(host);
                }
                Action::Watch { flow } => {
                    let net = self.net.as_deref_mut().expect("a coordinator watching a flow without a network");
                    net.tp.channels.watch(flow.0, &mut net.fabric);
                    let rt = self.qos.as_deref_mut().expect("coordinators");
                    let at = rt.watchers.partition_point(|&(f, k)| (f, k) < (flow, c));
                    rt.watchers.insert(at, (flow, c));
                }
                Action::SetWriteWeight { device, w } => {
                    let DeviceRt::Ssd(dev) = &mut self.devices[device.ix()] else { unreachable!("resolution checked an SRC device is an SSD") };
                    dev.ctrl.set_write_weight(w).expect("resolution checked the device has split SQs and w_max ≤ 1024");
                    // A new depth share may let waiting commands in.
                    self.ssd_fetch(device.0);
                }
                Action::Send(m) => self.qos_send(c, m),
                Action::Place { req, dt } => {
                    let r = ReqId(req as u32);
                    let held = self.pool.get_mut(r);
                    held.dt = dt;
                    if held.kind == Kind::App {
                        self.qos.as_deref_mut().expect("coordinators").msgs.asking_apps -= 1;
                    }
                    self.pass_gate(r);
                }
                Action::WakeAt { at, token } => {
                    // A coordinator's clock alone does not keep a run going: once no request is
                    // in flight and no workload can issue another, its wake-ups stop.
                    if starting || !self.requests_quiescent() {
                        self.queue.schedule(at.max(self.now), Event::Qos(QosEvent::Wake(c, token)));
                    }
                }
            }
        }
        self.qos.as_deref_mut().expect("coordinators").out.actions = actions;
        self.qos_deliver_instant();
    }

    /// Coordinator `c` sends `m`: on the network when it has links, else at once (in order,
    /// after what is already waiting).
    fn qos_send(&mut self, c: CoordId, m: Msg) {
        let rt = self.qos.as_deref_mut().expect("coordinators");
        let Some(links) = rt.msgs.links[c.ix()].as_ref() else {
            rt.msgs.instant.push_back((c, m));
            return;
        };
        let j = rt.plans[c.ix()].hosts.iter().position(|&h| h == m.host.ix()).expect("a message for one of the coordinator's hosts");
        let (up, down) = links[j];
        let flow = if m.to_host { down } else { up };
        let tag = rt.msgs.on_wire.alloc(InTransit { coord: c, msg: m, sent: self.now });
        rt.msgs.books[c.ix()].sent += 1;
        let net = self.net.as_deref_mut().expect("links without a network");
        net.send_message(self.now, flow.0, CONTROL_MESSAGE_BYTES, Message { kind: CONTROL, tag }, &mut self.queue);
    }

    /// Delivers the messages that take no time, unless a delivery further up is doing so.
    fn qos_deliver_instant(&mut self) {
        let rt = self.qos.as_deref_mut().expect("coordinators");
        if rt.msgs.delivering {
            return;
        }
        rt.msgs.delivering = true;
        loop {
            let rt = self.qos.as_deref_mut().expect("coordinators");
            let Some((c, m)) = rt.msgs.instant.pop_front() else { break };
            rt.coords[c.ix()].on_message(self.now, &m, &mut rt.out);
            self.qos_apply(c, false);
        }
        self.qos.as_deref_mut().expect("coordinators").msgs.delivering = false;
    }

    /// A control message with tag `tag` arrived over the network.
    pub(crate) fn qos_deliver(&mut self, tag: u32) {
        let rt = self.qos.as_deref_mut().expect("a control message without coordinators");
        let t = *rt.msgs.on_wire.get(tag);
        rt.msgs.on_wire.release(tag);
        let b = &mut rt.msgs.books[t.coord.ix()];
        let delay = self.now - t.sent;
        b.received += 1;
        b.delay_ps += delay.0;
        b.max_delay = b.max_delay.max(delay);
        rt.coords[t.coord.ix()].on_message(self.now, &t.msg, &mut rt.out);
        self.qos_apply(t.coord, false);
    }

    /// Every control message sent over the network arrived or is still on its channel.
    pub(crate) fn qos_check(&self, tp: &nest_transport::Transports) -> Result<(), String> {
        let Some(rt) = self.qos.as_deref() else { return Ok(()) };
        let sent: u64 = rt.msgs.books.iter().map(|b| b.sent).sum();
        let received: u64 = rt.msgs.books.iter().map(|b| b.received).sum();
        let on_wire = tp.channels.in_transit(CONTROL);
        let held = rt.msgs.on_wire.live();
        if sent != received + on_wire || held != on_wire {
            return Err(format!("coordinator messages: {sent} sent, {received} received, {on_wire} on the fabric, {held} awaited"));
        }
        Ok(())
    }

    /// Congestion the transport reported at watched flows goes to the coordinators watching
    /// them, in the order it happened.
    pub(crate) fn qos_congestion(&mut self) {
        let net = self.net.as_deref_mut().expect("congestion without a network");
        let events = std::mem::take(&mut net.tp.channels.congestion);
        for e in &events {
            let flow = FlowId(e.flow);
            // The flow's watchers in coordinator order, each looked up after the one before
            // (one that starts watching more meanwhile moves the list).
            let mut after: Option<CoordId> = None;
            loop {
                let rt = self.qos.as_deref_mut().expect("watched flows without coordinators");
                let k = rt.watchers.partition_point(|&(f, c)| f < flow || (f == flow && after.is_some_and(|a| c <= a)));
                let Some(&(f, coord)) = rt.watchers.get(k) else { break };
                if f != flow {
                    break;
                }
                rt.coords[coord.ix()].on_congestion(self.now, flow, e.what, &mut rt.out);
                self.qos_apply(coord, false);
                after = Some(coord);
            }
        }
        let mut events = events;
        events.clear();
        self.net.as_deref_mut().expect("network").tp.channels.congestion = events;
    }

    /// No request is in flight anywhere and no workload will issue another.
    fn requests_quiescent(&self) -> bool {
        self.pool.live() == 0 && !self.workloads.iter().any(|w| w.wake_pending)
    }

    /// Lets through the requests host `h`'s gate now admits.
    fn release_held(&mut self, h: HostId) {
        while let Some(r) = self.gates[h.ix()].as_mut().and_then(|g| g.release(self.now)) {
            self.admit(r);
        }
    }

    /// `coordinators` and per-host `admission` for the summary (only when the run has any).
    pub(crate) fn qos_summary(&self) -> Option<(Value, Map<String, Value>)> {
        let rt = self.qos.as_deref()?;
        let mut coords = Map::new();
        for (k, p) in rt.plans.iter().enumerate() {
            let plan = p.kind.plan();
            let (kind, params) = (plan.kind(), plan.params(&self.resolved.devices));
            let hosts: Vec<&str> = p.hosts.iter().map(|&h| self.hosts[h].name.as_str()).collect();
            let report: Map<String, Value> = rt.coords[k].report().into_iter().map(|(n, v)| (n.to_string(), json!(r6(v)))).collect();
            let mut entry = json!({"kind": kind, "params": params, "hosts": hosts, "report": report});
            let b = rt.msgs.books[k];
            if b.sent > 0 {
                let mean = if b.received > 0 { b.delay_ps as f64 / b.received as f64 / 1e6 } else { 0.0 };
                entry["messages"] = json!({"sent": b.sent, "received": b.received, "mean_delay_us": r6(mean), "max_delay_us": r6(b.max_delay.as_us_f64())});
            }
            let per_host = rt.coords[k].host_report();
            if !per_host.is_empty() {
                let hosts: Map<String, Value> = per_host
                    .into_iter()
                    .map(|(h, kv)| {
                        (
                            self.hosts[h.ix()].name.clone(),
                            Value::Object(kv.into_iter().map(|(n, v)| (n.to_string(), if v.is_finite() { json!(r6(v)) } else { Value::Null })).collect()),
                        )
                    })
                    .collect();
                entry["per_host"] = Value::Object(hosts);
            }
            coords.insert(p.name.clone(), entry);
        }
        let mut gates = Map::new();
        for (h, g) in self.gates.iter().enumerate() {
            let Some(g) = g else { continue };
            let mean = if g.waited > 0 { g.wait_ps as f64 / g.waited as f64 / 1e6 } else { 0.0 };
            gates.insert(
                self.hosts[h].name.clone(),
                json!({
                    "offered": g.books.issued, "admitted": g.books.completed, "held_now": g.held(),
                    "waited": g.waited, "mean_wait_us": r6(mean), "max_wait_us": r6(g.max_wait.as_us_f64()),
                    "max_held": g.max_held, "budgets": g.grants, "budget_total": g.granted,
                }),
            );
        }
        Some((Value::Object(coords), gates))
    }
}
