//! A Haechi run: clients with their request patterns, each behind its QoS engine, one-sided
//! verbs over the fabric to the KV data nodes, and each data node's QoS monitor — all driven by
//! one event queue. The protocol's rules are nest-qos's state machines; the fabric's timing is
//! nest-transport's verbs model; this file only moves messages between them.
//!
//! A data node is a memory-resident KV store (Haechi §III-A: 1 M records of 4 KiB): every
//! record is one DMA of the same size from flat memory, so which key a request reads does not
//! change its service. With one node keys are not drawn; with several a key decides the node
//! ([`super::keys`]), and each node runs Haechi on its own: a client has an engine and a queue
//! of waiting requests per node (a lane), and one I/O thread and one outstanding budget for all.

use super::keys::Placement;
use super::spec::{secs, Cap, HaechiSpec, Pattern, QosMode};
use nest_core::pool::Pool;
use nest_core::queue::PendingEvents;
use nest_core::rng::RngStream;
use nest_core::stats::LatencyHistogram;
use nest_core::{EventQueue, SimTime};
use nest_qos::haechi::{CapacityEstimator, DeltaCap, Engine, EngineConfig, GlobalPool, Issue, Ledger, Monitor, MonitorConfig};
use nest_transport::verbs::{answer_payload, request_payload, AtTarget, Served, Verb, Verbs};
use std::collections::VecDeque;

pub use super::events::{Ev, Outbox, Send, Wire};
pub use super::state::Node;
use super::state::{Client, Lane};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum OpKind {
    Io,
    /// A Fetch-and-Add for global tokens; `got` once the NIC executed it.
    Faa {
        got: u64,
    },
    /// A report (one-sided 64-bit write): residual reservation, completed I/Os.
    Report {
        residual: u64,
        completed: u64,
    },
    /// The monitor's period-start message with R_i tokens.
    PeriodStart {
        tokens: u64,
    },
    StartReporting,
    /// Alg. 1's alert: the client may have over-estimated its reservation.
    Alert,
}

#[derive(Copy, Clone, Debug)]
pub(super) struct Op {
    pub(super) client: u32,
    pub(super) node: u32,
    pub(super) kind: OpKind,
    pub(super) verb: Verb,
    /// When the client submitted the request, and when its verb was posted (an I/O's latency
    /// counts from the first; from the second it leaves out the wait for a token).
    pub(super) submitted: SimTime,
    pub(super) posted: SimTime,
}

pub struct HaechiRun {
    pub(super) spec: HaechiSpec,
    pub(super) q: EventQueue<Ev>,
    pub(super) wire: Wire,
    pub out: Outbox,
    pub(super) now: SimTime,
    pub(super) end: SimTime,
    pub(super) warmup: SimTime,
    pub(super) period: SimTime,
    pub(super) delta: SimTime,
    pub(super) check: SimTime,
    pub(super) grace: SimTime,
    pub(super) verbs: Verbs,
    pub(super) ops: Pool<Op>,
    pub(super) clients: Vec<Client>,
    pub(super) nodes: Vec<Node>,
    pub(super) placement: Placement,
    pub(super) checks: u64,
    pub events: u64,
}

pub(super) const POOL_EVERY: u64 = 10;

/// Bytes of the monitor's messages to a client (its reservation tokens, "start reporting").
pub(super) const MONITOR_MESSAGE: u32 = 16;

impl HaechiRun {
    pub fn new(spec: HaechiSpec) -> Result<HaechiRun, String> {
        Self::on(spec, Wire::Verbs)
    }

    /// A run whose verbs travel on `wire`.
    pub fn on(spec: HaechiSpec, wire: Wire) -> Result<HaechiRun, String> {
        let verbs = Verbs::new(spec.verbs_params()?, spec.clients.len(), spec.nodes as usize)?;
        let placement = Placement::new(&spec.keys, spec.nodes, spec.clients.len(), spec.seed)?;
        let period = secs(spec.period_s, "period_s")?;
        let p = &spec.protocol;
        let delta = SimTime((p.delta_ms * 1e9).round() as u64);
        let check = SimTime((p.check_ms * 1e9).round() as u64);
        let grace = SimTime((p.report_grace_us * 1e6).round() as u64);
        let managed = spec.qos != QosMode::None;
        let cap = match p.cap {
            Cap::Pace => DeltaCap::Pace,
            Cap::Idle => DeltaCap::Idle,
        };
        let n = spec.nodes as usize;
        let splits: Vec<Vec<u64>> = spec.clients.iter().map(|c| placement.split(c.reservation)).collect();
        let clients: Vec<Client> = spec
            .clients
            .iter()
            .zip(&splits)
            .map(|(c, reservations)| {
                let verb = if c.two_sided { Verb::Send { bytes: 64, reply: c.bytes } } else { Verb::Read { bytes: c.bytes } };
                let limits: Vec<Option<u64>> = match c.limit {
                    Some(l) => placement.split(l).into_iter().map(Some).collect(),
                    None => vec![None; n],
                };
                let lanes = (0..n)
                    .map(|j| Lane {
                        engine: (managed && c.managed)
                            .then(|| Engine::new(EngineConfig { reservation: reservations[j], limit: limits[j], period, batch: p.batch, cap })),
                        pending: VecDeque::new(),
                        per_period: Vec::new(),
                    })
                    .collect();
                Client {
                    spec: c.clone(),
                    verb,
                    lanes,
                    next_lane: 0,
                    active: false,
                    in_flight: 0,
                    submitted: 0,
                    next_arrival: 0,
                    chain: 0,
                    period_start: SimTime::ZERO,
                    per_period: Vec::new(),
                    latency: LatencyHistogram::new(),
                    latency_from_post: LatencyHistogram::new(),
                    completed: 0,
                    abandoned: 0,
                    total_submitted: 0,
                    alerts: 0,
                    c_l: super::c_l(&verbs, c.two_sided),
                }
            })
            .collect();
        let nodes = (0..n)
            .map(|j| {
                // The monitor pushes R_i to the managed clients; unmanaged ones reserve nothing.
                let reservations: Vec<u64> = clients.iter().zip(&splits).map(|(c, r)| if c.managed() { r[j] } else { 0 }).collect();
                let monitor = managed.then(|| {
                    Monitor::new(
                        MonitorConfig { reservations: reservations.clone(), period, conversion: spec.qos == QosMode::Haechi, alert_periods: p.alert_periods },
                        CapacityEstimator::new(p.capacity, p.sigma, p.eta, p.window),
                    )
                });
                Node {
                    pool: GlobalPool::default(),
                    monitor,
                    reported: vec![0; clients.len()],
                    last_ledgers: vec![Ledger::default(); clients.len()],
                    tokens: vec![Vec::new(); clients.len()],
                    pool_series: Vec::new(),
                    reservations,
                    speeds: Vec::new(),
                    cas: 0,
                    speed_rng: RngStream::derive(spec.seed, "haechi-node", j as u64, "service"),
                }
            })
            .collect();
        let end = secs(spec.duration_s, "duration_s")?;
        let warmup = secs(spec.warmup_s, "warmup_s")?;
        Ok(HaechiRun {
            q: EventQueue::new(),
            wire,
            out: Outbox::default(),
            now: SimTime::ZERO,
            end,
            warmup,
            period,
            delta,
            check,
            grace,
            verbs,
            ops: Pool::default(),
            clients,
            nodes,
            placement,
            checks: 0,
            events: 0,
            spec,
        })
    }

    /// Runs alone, on the run's own queue, to its end.
    pub fn run(&mut self) {
        self.start();
        self.flush();
        while let Some((t, e)) = self.q.pop_until(self.end) {
            self.handle(t, e);
            self.flush();
        }
        self.now = self.end;
    }

    /// The outbox's events into the run's own queue, in the order they were asked for.
    fn flush(&mut self) {
        for (t, e) in self.out.events.drain(..) {
            self.q.schedule(t, e);
        }
    }

    #[inline]
    pub(super) fn at(&mut self, t: SimTime, e: Ev) {
        self.out.events.push((t, e));
    }

    /// The run's first events (and the monitor's first tokens): into the outbox.
    pub fn start(&mut self) {
        for i in 0..self.clients.len() {
            let c = &self.clients[i];
            let start = SimTime::from_secs_f64(c.spec.start_s).unwrap_or(SimTime::ZERO);
            let stop = c.spec.stop_s.and_then(SimTime::from_secs_f64);
            self.at(start, Ev::Start(i as u32));
            if let Some(s) = stop {
                self.at(s, Ev::Stop(i as u32));
            }
        }
        self.node_speeds();
        self.at(self.period, Ev::ClientPeriod);
        if self.spec.qos != QosMode::None {
            self.monitor_period_start();
            self.at(self.delta, Ev::Tick);
            self.at(self.check, Ev::Check);
            self.at(self.period + self.grace, Ev::PeriodEnd);
        }
    }

    /// The run's end (its duration).
    pub fn end(&self) -> SimTime {
        self.end
    }

    /// The run has got to `t` (a World run ending: its results count periods up to there).
    pub fn settle(&mut self, t: SimTime) {
        self.now = self.now.max(t);
    }

    pub fn wire(&self) -> Wire {
        self.wire
    }

    /// Event `e` at `t`: what it asks of the caller goes into the outbox.
    pub fn handle(&mut self, t: SimTime, e: Ev) {
        self.now = t;
        self.events += 1;
        match e {
            Ev::Start(c) => {
                self.clients[c as usize].active = true;
                self.begin_client_period(c as usize);
            }
            Ev::Stop(c) => {
                let cl = &mut self.clients[c as usize];
                cl.active = false;
                cl.drop_pending();
            }
            Ev::Arrive(c, chain) => self.arrive(c as usize, chain),
            Ev::ClientPeriod => {
                self.node_speeds();
                for c in 0..self.clients.len() {
                    if self.clients[c].active {
                        self.begin_client_period(c);
                    }
                }
                self.at(self.now + self.period, Ev::ClientPeriod);
            }
            Ev::AtTarget(o) => self.at_target(o),
            Ev::CpuDone(o) => {
                let op = self.ops[o as usize];
                let reply = match op.verb {
                    Verb::Send { reply, .. } => reply,
                    _ => unreachable!("only two-sided requests reach the CPU"),
                };
                match self.wire {
                    Wire::Verbs => {
                        let t = self.verbs.reply(self.now, op.node as usize, op.client as usize, reply);
                        self.at(t, Ev::AtClient(o));
                    }
                    Wire::Fabric => {
                        let t = self.verbs.send_out(self.now, op.node as usize, reply);
                        self.answer_at(t, o);
                    }
                }
            }
            Ev::Leave(o) => self.send(o, true),
            Ev::Answer(o) => self.send(o, false),
            Ev::AtClient(o) => self.at_client(o),
            Ev::Tick => {
                for c in 0..self.clients.len() {
                    let wants_more = self.wants_more(c);
                    for j in 0..self.nodes.len() {
                        let lane = &mut self.clients[c].lanes[j];
                        let backlogged = wants_more || !lane.pending.is_empty();
                        let Some(e) = lane.engine.as_mut() else { continue };
                        if let Some(r) = e.tick(self.now, backlogged) {
                            // The reporting thread's own post: not behind the I/O thread's verbs.
                            self.post(c, j, OpKind::Report { residual: r.residual, completed: r.completed }, Verb::Write { bytes: 8 }, self.now, false);
                        }
                    }
                    self.try_issue(c);
                }
                self.at(self.now + self.delta, Ev::Tick);
            }
            Ev::Check => self.on_check(),
            Ev::PoolCas(j) => self.on_pool_cas(j as usize),
            Ev::PeriodEnd => self.on_period_end(),
        }
    }

    /// Client `c`'s demand starts over (at its start, and at each k·T). What it submitted and
    /// did not issue is dropped with the period: a client's target is per period (Haechi
    /// §III-B), and a backlog carried on would grow without bound whenever the demand exceeds
    /// what the tokens allow. A constant-rate client's arrivals not yet come stop with their
    /// chain.
    fn begin_client_period(&mut self, c: usize) {
        let cl = &mut self.clients[c];
        cl.drop_pending();
        cl.submitted = 0;
        cl.period_start = self.now;
        if cl.spec.pattern == Pattern::Constant {
            cl.next_arrival = 0;
            cl.chain += 1;
            let chain = cl.chain;
            self.at(self.now, Ev::Arrive(c as u32, chain));
        }
        self.refill(c);
    }

    fn post(&mut self, c: usize, j: usize, kind: OpKind, verb: Verb, submitted: SimTime, io_thread: bool) {
        let o = self.ops.alloc(Op { client: c as u32, node: j as u32, kind, verb, submitted, posted: self.now });
        match self.wire {
            Wire::Verbs => {
                let at = self.verbs.post(self.now, c, verb, io_thread);
                self.at(at, Ev::AtTarget(o));
            }
            Wire::Fabric => {
                let t = self.verbs.client_post(self.now, c, verb, io_thread);
                if t == self.now {
                    self.send(o, true);
                } else {
                    self.at(t, Ev::Leave(o));
                }
            }
        }
    }

    /// On the packet fabric: op `o`'s answer is on its data node's port at `t`.
    pub(super) fn answer_at(&mut self, t: SimTime, o: u32) {
        if t == self.now {
            self.send(o, false);
        } else {
            self.at(t, Ev::Answer(o));
        }
    }

    /// On the packet fabric: op `o`'s request (`to_node`) or answer goes on the wire now.
    fn send(&mut self, o: u32, to_node: bool) {
        let op = &self.ops[o as usize];
        let bytes = match (to_node, op.kind) {
            (true, _) => request_payload(op.verb),
            (false, OpKind::PeriodStart { .. } | OpKind::StartReporting | OpKind::Alert) => MONITOR_MESSAGE,
            (false, _) => answer_payload(op.verb),
        };
        self.out.sends.push(Send { op: o, client: op.client, node: op.node, to_node, bytes });
    }

    /// On the packet fabric: op `o`'s request fully reached its data node.
    pub fn at_node(&mut self, now: SimTime, o: u32) {
        self.now = now;
        self.at_target(o);
    }

    /// On the packet fabric: op `o`'s answer (or the monitor's message) fully reached its client.
    pub fn at_its_client(&mut self, now: SimTime, o: u32) {
        self.now = now;
        self.at_client(o);
    }

    fn at_target(&mut self, o: u32) {
        let op = self.ops[o as usize];
        let n = &mut self.nodes[op.node as usize];
        match op.kind {
            OpKind::Faa { .. } => {
                let (_, got) = n.pool.fetch_and_add(self.spec.protocol.batch);
                self.ops[o as usize].kind = OpKind::Faa { got };
            }
            OpKind::Report { residual, completed } => {
                if let Some(m) = n.monitor.as_mut() {
                    m.report(op.client as usize, residual);
                }
                n.reported[op.client as usize] = completed;
            }
            _ => {}
        }
        match self.wire {
            Wire::Verbs => match self.verbs.at_target(self.now, op.node as usize, op.client as usize, op.verb) {
                AtTarget::Answered(t) => self.at(t, Ev::AtClient(o)),
                AtTarget::Cpu(t) => self.at(t, Ev::CpuDone(o)),
            },
            Wire::Fabric => match self.verbs.serve(self.now, op.node as usize, op.verb) {
                Served::Answer(t) => self.answer_at(t, o),
                Served::Cpu(t) => self.at(t, Ev::CpuDone(o)),
            },
        }
    }

    fn at_client(&mut self, o: u32) {
        let op = self.ops[o as usize];
        let c = op.client as usize;
        let lane = &mut self.clients[c].lanes[op.node as usize];
        match op.kind {
            OpKind::Io => {
                self.verbs.answered();
                let in_window = self.now >= self.warmup;
                let idx = (self.now.0 / self.period.0) as usize;
                count_in(&mut lane.per_period, idx);
                if let Some(e) = lane.engine.as_mut() {
                    e.completed();
                }
                let cl = &mut self.clients[c];
                cl.in_flight -= 1;
                cl.completed += 1;
                count_in(&mut cl.per_period, idx);
                if in_window {
                    cl.latency.record((self.now - op.submitted).0);
                    cl.latency_from_post.record((self.now - op.posted).0);
                }
                self.refill(c);
            }
            OpKind::Faa { got } => {
                self.verbs.answered();
                lane.engine.as_mut().expect("an FAA comes from an engine").fetched(got);
                self.try_issue(c);
            }
            OpKind::Report { .. } => self.verbs.answered(),
            OpKind::PeriodStart { tokens } => {
                lane.engine.as_mut().expect("a managed client").period_start(self.now, tokens);
                self.try_issue(c);
            }
            OpKind::StartReporting => lane.engine.as_mut().expect("a managed client").start_reporting(),
            OpKind::Alert => self.clients[c].alerts += 1,
        }
        self.ops.release(o);
    }

    /// The client may still submit I/Os this period (a burst client with demand left), to any
    /// node its keys lead to.
    pub(super) fn wants_more(&self, c: usize) -> bool {
        let cl = &self.clients[c];
        cl.active && cl.spec.pattern == Pattern::Burst && cl.demand_left()
    }

    /// A request submitted now by client `c`: the node its key is on decides its lane.
    fn submit(&mut self, c: usize) {
        let j = self.placement.draw(c);
        let cl = &mut self.clients[c];
        cl.lanes[j].pending.push_back(self.now);
        cl.submitted += 1;
        cl.total_submitted += 1;
    }

    fn arrive(&mut self, c: usize, chain: u32) {
        let cl = &mut self.clients[c];
        let d = cl.spec.demand.expect("a constant-rate client has a demand");
        if !cl.active || chain != cl.chain || cl.next_arrival >= d {
            return;
        }
        cl.next_arrival += 1;
        if cl.next_arrival < d {
            let t = cl.period_start + SimTime((self.period.0 as u128 * cl.next_arrival as u128 / d as u128) as u64);
            self.at(t, Ev::Arrive(c as u32, chain));
        }
        self.submit(c);
        self.try_issue(c);
    }

    /// Burst: keep `outstanding` requests submitted while the period's demand lasts.
    fn refill(&mut self, c: usize) {
        while self.wants_more(c) {
            let cl = &self.clients[c];
            if (cl.waiting() as u64 + cl.in_flight as u64) >= cl.spec.outstanding as u64 {
                break;
            }
            self.submit(c);
        }
        self.try_issue(c);
    }

    /// Issues submitted requests while their node's engine has tokens and the queue pair has
    /// room, taking the lanes in turn.
    fn try_issue(&mut self, c: usize) {
        let lanes = self.nodes.len();
        for k in 0..lanes {
            let j = (self.clients[c].next_lane + k) % lanes;
            loop {
                let cl = &mut self.clients[c];
                if cl.in_flight >= cl.spec.outstanding {
                    cl.next_lane = j;
                    return;
                }
                let lane = &mut cl.lanes[j];
                if lane.pending.is_empty() {
                    break;
                }
                if let Some(e) = lane.engine.as_mut() {
                    match e.issue() {
                        Issue::Reservation | Issue::Global => {}
                        Issue::Fetch => {
                            self.post(c, j, OpKind::Faa { got: 0 }, Verb::FetchAdd, self.now, true);
                            break;
                        }
                        Issue::Fetching | Issue::PoolEmpty | Issue::Throttled => break,
                    }
                }
                let submitted = lane.pending.pop_front().expect("checked above");
                cl.in_flight += 1;
                let v = cl.verb;
                self.post(c, j, OpKind::Io, v, submitted, true);
            }
        }
        let cl = &mut self.clients[c];
        cl.next_lane = (cl.next_lane + 1) % lanes;
    }
}

/// One more at index `idx`, growing the list as periods pass.
fn count_in(v: &mut Vec<u64>, idx: usize) {
    if v.len() <= idx {
        v.resize(idx + 1, 0);
    }
    v[idx] += 1;
}
