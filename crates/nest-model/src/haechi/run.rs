//! A Haechi run: clients with their request patterns, each behind its QoS engine, one-sided
//! verbs over the fabric to the KV data node, and the data node's QoS monitor — all driven by
//! one event queue. The protocol's rules are nest-qos's state machines; the fabric's timing is
//! nest-transport's verbs model; this file only moves messages between them.
//!
//! The data node is a memory-resident KV store (Haechi §III-A: 1 M records of 4 KiB): every
//! record is one DMA of the same size from flat memory, so which key a request reads does not
//! change its service, and keys are not drawn.

use super::spec::{secs, Cap, ClientSpec, HaechiSpec, Pattern, QosMode};
use nest_core::pool::Pool;
use nest_core::queue::PendingEvents;
use nest_core::stats::LatencyHistogram;
use nest_core::{EventQueue, SimTime};
use nest_qos::haechi::{CapacityEstimator, Check, DeltaCap, Engine, EngineConfig, GlobalPool, Issue, Monitor, MonitorConfig};
use nest_transport::verbs::{AtTarget, Verb, Verbs};
use std::collections::VecDeque;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Ev {
    /// A constant-rate client's next request arrives (client, its arrival chain: a new period
    /// starts a new chain and the old one stops).
    Arrive(u32, u32),
    Start(u32),
    Stop(u32),
    /// Op `o` reached the data node's NIC.
    AtTarget(u32),
    /// The data node's CPU has op `o`'s two-sided reply ready.
    CpuDone(u32),
    /// Op `o` (an answer, or the monitor's message) reached its client.
    AtClient(u32),
    /// Every client's period clock (its demand starts over).
    ClientPeriod,
    /// The engines' δ tick.
    Tick,
    /// The monitor's check.
    Check,
    /// The monitor closes a period and opens the next.
    PeriodEnd,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum OpKind {
    Io,
    /// A Fetch-and-Add for global tokens; `got` once the NIC executed it.
    Faa { got: u64 },
    /// A report (one-sided 64-bit write): residual reservation, completed I/Os.
    Report { residual: u64, completed: u64 },
    /// The monitor's period-start message with R_i tokens.
    PeriodStart { tokens: u64 },
    StartReporting,
}

#[derive(Copy, Clone, Debug)]
struct Op {
    client: u32,
    kind: OpKind,
    verb: Verb,
    /// When the client submitted the request, and when its verb was posted (an I/O's latency
    /// counts from the first; from the second it leaves out the wait for a token).
    submitted: SimTime,
    posted: SimTime,
}

struct Client {
    spec: ClientSpec,
    verb: Verb,
    engine: Option<Engine>,
    active: bool,
    /// Submitted requests not issued yet (their submission times).
    pending: VecDeque<SimTime>,
    in_flight: u32,
    /// Requests submitted in the client's current period.
    submitted: u64,
    /// Constant rate: the index of the next arrival in the period, the period's start, and the
    /// live arrival chain.
    next_arrival: u64,
    chain: u32,
    period_start: SimTime,
    /// Per period (by completion time): completed I/Os.
    per_period: Vec<u64>,
    latency: LatencyHistogram,
    latency_from_post: LatencyHistogram,
    completed: u64,
    abandoned: u64,
    total_submitted: u64,
}

/// Per client per period, what its engine did with tokens.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PeriodTokens {
    pub reservation_used: u64,
    pub reservation_returned: u64,
    pub reservation_expired: u64,
    pub global_received: u64,
    pub global_used: u64,
    pub faas: u64,
}

pub struct HaechiRun {
    spec: HaechiSpec,
    q: EventQueue<Ev>,
    now: SimTime,
    end: SimTime,
    warmup: SimTime,
    period: SimTime,
    delta: SimTime,
    check: SimTime,
    grace: SimTime,
    verbs: Verbs,
    ops: Pool<Op>,
    clients: Vec<Client>,
    pool: GlobalPool,
    monitor: Option<Monitor>,
    /// The monitor's view: last reported completed I/Os per client in the period.
    reported: Vec<u64>,
    /// Ledger snapshot at the last period end, for per-period token counts.
    last_ledgers: Vec<PeriodTokens>,
    pub tokens: Vec<Vec<PeriodTokens>>,
    /// Pool level at each check (t in s, value), thinned to every `pool_every`-th check.
    pub pool_series: Vec<(f64, i64)>,
    checks: u64,
    pub events: u64,
}

fn ledger_now(e: &Engine) -> PeriodTokens {
    let l = &e.ledger;
    PeriodTokens { reservation_used: l.reservation_used, reservation_returned: l.reservation_returned, reservation_expired: l.reservation_expired, global_received: l.global_received, global_used: l.global_used, faas: l.faas }
}

fn diff(a: PeriodTokens, b: PeriodTokens) -> PeriodTokens {
    PeriodTokens {
        reservation_used: a.reservation_used - b.reservation_used,
        reservation_returned: a.reservation_returned - b.reservation_returned,
        reservation_expired: a.reservation_expired - b.reservation_expired,
        global_received: a.global_received - b.global_received,
        global_used: a.global_used - b.global_used,
        faas: a.faas - b.faas,
    }
}

const POOL_EVERY: u64 = 10;

impl HaechiRun {
    pub fn new(spec: HaechiSpec) -> Result<HaechiRun, String> {
        let verbs = Verbs::new(spec.verbs_params()?, spec.clients.len())?;
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
        let clients: Vec<Client> = spec.clients.iter().map(|c| {
            let verb = if c.two_sided { Verb::Send { bytes: 64, reply: c.bytes } } else { Verb::Read { bytes: c.bytes } };
            let engine = (managed && c.managed).then(|| Engine::new(EngineConfig { reservation: c.reservation, limit: c.limit, period, batch: p.batch, cap }));
            Client { spec: c.clone(), verb, engine, active: false, pending: VecDeque::new(), in_flight: 0, submitted: 0, next_arrival: 0, chain: 0, period_start: SimTime::ZERO, per_period: Vec::new(), latency: LatencyHistogram::new(), latency_from_post: LatencyHistogram::new(), completed: 0, abandoned: 0, total_submitted: 0 }
        }).collect();
        let monitor = managed.then(|| {
            // The monitor pushes R_i to the managed clients; unmanaged ones reserve nothing.
            let reservations = clients.iter().map(|c| if c.engine.is_some() { c.spec.reservation } else { 0 }).collect();
            Monitor::new(MonitorConfig { reservations, period, conversion: spec.qos == QosMode::Haechi }, CapacityEstimator::new(p.capacity, p.sigma, p.eta, p.window))
        });
        let n = clients.len();
        let end = secs(spec.duration_s, "duration_s")?;
        let warmup = secs(spec.warmup_s, "warmup_s")?;
        Ok(HaechiRun { q: EventQueue::new(), now: SimTime::ZERO, end, warmup, period, delta, check, grace, verbs, ops: Pool::default(), clients, pool: GlobalPool::default(), monitor, reported: vec![0; n], last_ledgers: vec![PeriodTokens::default(); n], tokens: Vec::new(), pool_series: Vec::new(), checks: 0, events: 0, spec })
    }

    pub fn run(&mut self) {
        for (i, c) in self.clients.iter().enumerate() {
            let start = SimTime::from_secs_f64(c.spec.start_s).unwrap_or(SimTime::ZERO);
            self.q.schedule(start, Ev::Start(i as u32));
            if let Some(s) = c.spec.stop_s.and_then(SimTime::from_secs_f64) {
                self.q.schedule(s, Ev::Stop(i as u32));
            }
        }
        self.q.schedule(self.period, Ev::ClientPeriod);
        if self.monitor.is_some() {
            self.monitor_period_start();
            self.q.schedule(self.delta, Ev::Tick);
            self.q.schedule(self.check, Ev::Check);
            self.q.schedule(self.period + self.grace, Ev::PeriodEnd);
        }
        while let Some((t, e)) = self.q.pop_until(self.end) {
            self.now = t;
            self.events += 1;
            self.handle(e);
        }
        self.now = self.end;
    }

    fn handle(&mut self, e: Ev) {
        match e {
            Ev::Start(c) => {
                let cl = &mut self.clients[c as usize];
                cl.active = true;
                cl.period_start = self.now;
                cl.submitted = 0;
                cl.next_arrival = 0;
                cl.chain += 1;
                if cl.spec.pattern == Pattern::Constant {
                    self.q.schedule(self.now, Ev::Arrive(c, cl.chain));
                }
                self.refill(c as usize);
            }
            Ev::Stop(c) => {
                let cl = &mut self.clients[c as usize];
                cl.active = false;
                cl.abandoned += cl.pending.len() as u64;
                cl.pending.clear();
            }
            Ev::Arrive(c, chain) => self.arrive(c as usize, chain),
            Ev::ClientPeriod => {
                for c in 0..self.clients.len() {
                    let cl = &mut self.clients[c];
                    if !cl.active {
                        continue;
                    }
                    // The period's demand not issued by its end is dropped with it: a client's
                    // target is per period (Haechi §III-B), and a backlog carried on would grow
                    // without bound whenever the demand exceeds what the tokens allow.
                    cl.abandoned += cl.pending.len() as u64;
                    cl.pending.clear();
                    cl.submitted = 0;
                    cl.period_start = self.now;
                    if cl.spec.pattern == Pattern::Constant {
                        // Last period's arrivals that did not come are dropped with the period.
                        cl.next_arrival = 0;
                        cl.chain += 1;
                        self.q.schedule(self.now, Ev::Arrive(c as u32, cl.chain));
                    }
                    self.refill(c);
                }
                self.q.schedule(self.now + self.period, Ev::ClientPeriod);
            }
            Ev::AtTarget(o) => self.at_target(o),
            Ev::CpuDone(o) => {
                let op = self.ops[o as usize];
                let reply = match op.verb {
                    Verb::Send { reply, .. } => reply,
                    _ => unreachable!("only two-sided requests reach the CPU"),
                };
                let t = self.verbs.reply(self.now, op.client as usize, reply);
                self.q.schedule(t, Ev::AtClient(o));
            }
            Ev::AtClient(o) => self.at_client(o),
            Ev::Tick => {
                for c in 0..self.clients.len() {
                    let backlogged = self.backlogged(c);
                    let cl = &mut self.clients[c];
                    let Some(e) = cl.engine.as_mut() else { continue };
                    if let Some(r) = e.tick(self.now, backlogged) {
                        // The reporting thread's own post: not behind the I/O thread's verbs.
                        self.post(c, OpKind::Report { residual: r.residual, completed: r.completed }, Verb::Write { bytes: 8 }, self.now, false);
                    }
                    self.try_issue(c);
                }
                self.q.schedule(self.now + self.delta, Ev::Tick);
            }
            Ev::Check => {
                let m = self.monitor.as_mut().expect("checks only with a monitor");
                let c = m.check(self.now, &mut self.pool);
                self.checks += 1;
                if self.checks.is_multiple_of(POOL_EVERY) {
                    self.pool_series.push((self.now.as_secs_f64(), self.pool.value()));
                }
                if c == Check::StartReporting {
                    for i in 0..self.clients.len() {
                        if self.clients[i].engine.is_some() {
                            self.target_message(i, OpKind::StartReporting);
                        }
                    }
                }
                self.q.schedule(self.now + self.check, Ev::Check);
            }
            Ev::PeriodEnd => {
                let m = self.monitor.as_mut().expect("periods only with a monitor");
                m.period_end(&self.reported);
                for (i, c) in self.clients.iter().enumerate() {
                    if let Some(e) = &c.engine {
                        let now = ledger_now(e);
                        let d = diff(now, self.last_ledgers[i]);
                        self.last_ledgers[i] = now;
                        if self.tokens.len() <= i {
                            self.tokens.resize(i + 1, Vec::new());
                        }
                        self.tokens[i].push(d);
                    }
                }
                self.monitor_period_start();
                self.q.schedule(self.now + self.period, Ev::PeriodEnd);
            }
        }
    }

    fn monitor_period_start(&mut self) {
        let m = self.monitor.as_mut().expect("a monitor");
        let tokens = m.period_start(self.now, &mut self.pool);
        self.reported.iter_mut().for_each(|r| *r = 0);
        for (i, t) in tokens.into_iter().enumerate() {
            if self.clients[i].engine.is_some() {
                self.target_message(i, OpKind::PeriodStart { tokens: t });
            }
        }
    }

    /// A two-sided message from the data node's monitor to client `c`.
    fn target_message(&mut self, c: usize, kind: OpKind) {
        let at = self.verbs.target_send(self.now, 16);
        let o = self.ops.alloc(Op { client: c as u32, kind, verb: Verb::Write { bytes: 16 }, submitted: self.now, posted: self.now });
        self.q.schedule(at, Ev::AtClient(o));
    }

    fn post(&mut self, c: usize, kind: OpKind, verb: Verb, submitted: SimTime, io_thread: bool) {
        let at = self.verbs.post(self.now, c, verb, io_thread);
        let o = self.ops.alloc(Op { client: c as u32, kind, verb, submitted, posted: self.now });
        self.q.schedule(at, Ev::AtTarget(o));
    }

    fn at_target(&mut self, o: u32) {
        let op = self.ops[o as usize];
        match op.kind {
            OpKind::Faa { .. } => {
                let (_, got) = self.pool.fetch_and_add(self.spec.protocol.batch);
                self.ops[o as usize].kind = OpKind::Faa { got };
            }
            OpKind::Report { residual, completed } => {
                if let Some(m) = self.monitor.as_mut() {
                    m.report(op.client as usize, residual);
                }
                self.reported[op.client as usize] = completed;
            }
            _ => {}
        }
        match self.verbs.at_target(self.now, op.client as usize, op.verb) {
            AtTarget::Answered(t) => self.q.schedule(t, Ev::AtClient(o)),
            AtTarget::Cpu(t) => self.q.schedule(t, Ev::CpuDone(o)),
        }
    }

    fn at_client(&mut self, o: u32) {
        let op = self.ops[o as usize];
        let c = op.client as usize;
        match op.kind {
            OpKind::Io => {
                self.verbs.answered();
                let in_window = self.now >= self.warmup;
                let idx = (self.now.0 / self.period.0) as usize;
                let cl = &mut self.clients[c];
                cl.in_flight -= 1;
                cl.completed += 1;
                if cl.per_period.len() <= idx {
                    cl.per_period.resize(idx + 1, 0);
                }
                cl.per_period[idx] += 1;
                if in_window {
                    cl.latency.record((self.now - op.submitted).0);
                    cl.latency_from_post.record((self.now - op.posted).0);
                }
                if let Some(e) = cl.engine.as_mut() {
                    e.completed();
                }
                self.refill(c);
            }
            OpKind::Faa { got } => {
                self.verbs.answered();
                self.clients[c].engine.as_mut().expect("an FAA comes from an engine").fetched(got);
                self.try_issue(c);
            }
            OpKind::Report { .. } => self.verbs.answered(),
            OpKind::PeriodStart { tokens } => {
                self.clients[c].engine.as_mut().expect("a managed client").period_start(self.now, tokens);
                self.try_issue(c);
            }
            OpKind::StartReporting => self.clients[c].engine.as_mut().expect("a managed client").start_reporting(),
        }
        self.ops.release(o);
    }

    /// The client still wants I/Os this period.
    fn backlogged(&self, c: usize) -> bool {
        let cl = &self.clients[c];
        !cl.pending.is_empty() || (cl.active && cl.spec.pattern == Pattern::Burst && cl.spec.demand.is_none_or(|d| cl.submitted < d))
    }

    fn arrive(&mut self, c: usize, chain: u32) {
        let cl = &mut self.clients[c];
        let d = cl.spec.demand.expect("a constant-rate client has a demand");
        if !cl.active || chain != cl.chain || cl.next_arrival >= d {
            return;
        }
        cl.pending.push_back(self.now);
        cl.submitted += 1;
        cl.total_submitted += 1;
        cl.next_arrival += 1;
        if cl.next_arrival < d {
            let t = cl.period_start + SimTime((self.period.0 as u128 * cl.next_arrival as u128 / d as u128) as u64);
            self.q.schedule(t, Ev::Arrive(c as u32, chain));
        }
        self.try_issue(c);
    }

    /// Burst: keep `outstanding` requests submitted while the period's demand lasts.
    fn refill(&mut self, c: usize) {
        let cl = &mut self.clients[c];
        if cl.active && cl.spec.pattern == Pattern::Burst {
            while (cl.pending.len() as u64 + cl.in_flight as u64) < cl.spec.outstanding as u64 && cl.spec.demand.is_none_or(|d| cl.submitted < d) {
                cl.pending.push_back(self.now);
                cl.submitted += 1;
                cl.total_submitted += 1;
            }
        }
        self.try_issue(c);
    }

    /// Issues submitted requests while the engine has tokens and the queue pair has room.
    fn try_issue(&mut self, c: usize) {
        loop {
            let cl = &mut self.clients[c];
            if cl.pending.is_empty() || cl.in_flight >= cl.spec.outstanding {
                return;
            }
            if let Some(e) = cl.engine.as_mut() {
                match e.issue() {
                    Issue::Reservation | Issue::Global => {}
                    Issue::Fetch => {
                        self.post(c, OpKind::Faa { got: 0 }, Verb::FetchAdd, self.now, true);
                        return;
                    }
                    Issue::Fetching | Issue::PoolEmpty | Issue::Throttled => return,
                }
            }
            let cl = &mut self.clients[c];
            let submitted = cl.pending.pop_front().expect("checked above");
            cl.in_flight += 1;
            let v = cl.verb;
            self.post(c, OpKind::Io, v, submitted, true);
        }
    }

    pub fn spec(&self) -> &HaechiSpec {
        &self.spec
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    pub fn period(&self) -> SimTime {
        self.period
    }

    pub fn warmup(&self) -> SimTime {
        self.warmup
    }

    pub fn verbs(&self) -> &Verbs {
        &self.verbs
    }

    pub fn monitor(&self) -> Option<&Monitor> {
        self.monitor.as_ref()
    }

    pub fn pool(&self) -> &GlobalPool {
        &self.pool
    }

    pub fn engine(&self, c: usize) -> Option<&Engine> {
        self.clients[c].engine.as_ref()
    }

    /// Per client: completed I/Os per period (by completion time).
    pub fn per_period(&self, c: usize) -> &[u64] {
        &self.clients[c].per_period
    }

    /// Client `c`'s I/O latency in the measurement window: from submission, and from the post.
    pub fn latency(&self, c: usize) -> (&LatencyHistogram, &LatencyHistogram) {
        (&self.clients[c].latency, &self.clients[c].latency_from_post)
    }

    pub fn client_name(&self, c: usize) -> String {
        self.clients[c].spec.name.clone().unwrap_or_else(|| format!("C{}", c + 1))
    }

    pub fn clients(&self) -> usize {
        self.clients.len()
    }

    /// Every request submitted is completed, in flight, waiting at its client or abandoned when
    /// its client stopped; every verb posted is answered or in flight; every token accounted for.
    pub fn conservation(&self) -> Result<(), String> {
        for (i, c) in self.clients.iter().enumerate() {
            let accounted = c.completed + c.in_flight as u64 + c.pending.len() as u64 + c.abandoned;
            if c.total_submitted != accounted {
                return Err(format!("client {i}: {} submitted, {accounted} completed + in flight + waiting + abandoned", c.total_submitted));
            }
            if let Some(e) = &c.engine {
                if !e.balanced() {
                    return Err(format!("client {i}: its token ledger does not balance: {:?}", e.ledger));
                }
            }
        }
        let ios: u64 = self.clients.iter().map(|c| c.in_flight as u64).sum();
        if self.verbs.in_flight() < ios {
            return Err(format!("{} verbs in flight but {ios} I/Os", self.verbs.in_flight()));
        }
        if !self.pool.balanced() {
            return Err(format!("the global pool does not balance: {:?}", self.pool));
        }
        Ok(())
    }

    /// (submitted, completed, in flight, waiting, abandoned) for client `c`.
    pub fn counts(&self, c: usize) -> (u64, u64, u64, u64, u64) {
        let cl = &self.clients[c];
        (cl.total_submitted, cl.completed, cl.in_flight as u64, cl.pending.len() as u64, cl.abandoned)
    }
}
