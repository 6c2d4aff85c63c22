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
use nest_qos::haechi::{CapacityEstimator, Check, DeltaCap, Engine, EngineConfig, GlobalPool, Issue, Ledger, Monitor, MonitorConfig};
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

impl Client {
    /// The period's demand is not all submitted yet (no demand: never all).
    fn demand_left(&self) -> bool {
        self.spec.demand.is_none_or(|d| self.submitted < d)
    }

    fn drop_pending(&mut self) {
        self.abandoned += self.pending.len() as u64;
        self.pending.clear();
    }
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
    /// Each engine's ledger at the last period end, and what it did in each period since.
    last_ledgers: Vec<Ledger>,
    pub tokens: Vec<Vec<Ledger>>,
    /// Pool level at each check (t in s, value), thinned to every `POOL_EVERY`-th check.
    pub pool_series: Vec<(f64, i64)>,
    checks: u64,
    pub events: u64,
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
        Ok(HaechiRun { q: EventQueue::new(), now: SimTime::ZERO, end, warmup, period, delta, check, grace, verbs, ops: Pool::default(), clients, pool: GlobalPool::default(), monitor, reported: vec![0; n], last_ledgers: vec![Ledger::default(); n], tokens: vec![Vec::new(); n], pool_series: Vec::new(), checks: 0, events: 0, spec })
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
                for c in 0..self.clients.len() {
                    if self.clients[c].active {
                        self.begin_client_period(c);
                    }
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
                        self.tokens[i].push(e.ledger.since(&self.last_ledgers[i]));
                        self.last_ledgers[i] = e.ledger.clone();
                    }
                }
                self.monitor_period_start();
                self.q.schedule(self.now + self.period, Ev::PeriodEnd);
            }
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
            self.q.schedule(self.now, Ev::Arrive(c as u32, cl.chain));
        }
        self.refill(c);
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
        !cl.pending.is_empty() || (cl.active && cl.spec.pattern == Pattern::Burst && cl.demand_left())
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
            while (cl.pending.len() as u64 + cl.in_flight as u64) < cl.spec.outstanding as u64 && cl.demand_left() {
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
