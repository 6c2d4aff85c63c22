//! The simulation: wiring from a resolved scenario, the event loop and dispatch.
//!
//! The loop runs in steps (`step(max_events)`) so a caller can drain finished requests and
//! time-series intervals between steps and write them out incrementally, show progress, and
//! release the GIL around each step.

use crate::device::{DeviceRt, PmRt, SsdDevice};
use crate::events::Event;
use crate::host::Host;
use crate::host_cache::HostCacheRt;
use crate::ideal_device::IdealDevice;
use crate::messages;
use crate::net::NetRt;
use crate::request::{Kind, ReqId, RequestColumns, RequestPool};
use crate::stats::RunStats;
use crate::workload::{Source, WorkloadRt};
use nest_config::resolve::{DeviceKindPlan, Resolved};
use nest_core::fingerprint::Fingerprint;
use nest_core::queue::PendingEvents;
use nest_core::{EventQueue, SimTime};
use nest_pm::PmDevice;
use nest_ssd::Ssd;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StepState {
    Running,
    Finished,
}

/// Sampling intervals with nothing due after which the sampler skips ahead to the next event.
const IDLE_TICKS: u64 = 1000;

pub struct Simulation {
    pub(crate) resolved: Resolved,
    pub(crate) queue: EventQueue<Event>,
    pub(crate) now: SimTime,
    pub(crate) events: u64,
    /// Pending events that can change nothing: timers of NVMe-oF connections with nothing left
    /// to time (`path/connection.rs`; the queue cannot cancel them). A run whose queue holds
    /// only dormant events has ended, so a stale 30 s `io_timeout` does not stretch a drained run.
    pub(crate) dormant_timers: usize,
    /// Fault-plan events and keep-alive checks still to come: dormant too once no request is
    /// live (a drained run does not go on to a device coming back at 90 ms, nor list it).
    pub(crate) pending_faults: usize,
    /// Time of the last event other than sampling: a run ends there, not at a trailing sample.
    last_event: SimTime,
    pub(crate) fingerprint: Fingerprint,
    pub(crate) workloads: Vec<WorkloadRt>,
    pub(crate) hosts: Vec<Host>,
    /// The hosts that may have requests waiting (see `wake_hosts`).
    pub(crate) waiting_hosts: crate::host::WaitingHosts,
    /// Each host's cache, if it has one.
    pub(crate) caches: Vec<Option<HostCacheRt>>,
    pub(crate) volumes: Vec<crate::host::volume::VolumeRt>,
    /// Device parts (`Kind::Child`) of split requests in flight.
    pub(crate) parts: nest_core::conservation::Conservation,
    /// (device, offset, bytes) parts of the extent being mapped (reused buffer).
    pub(crate) map_scratch: Vec<(usize, u64, u64)>,
    pub(crate) devices: Vec<DeviceRt>,
    /// The fabric and its flows, when the scenario has a network.
    pub(crate) net: Option<Box<NetRt>>,
    /// NVMe-oF initiators and targets, when some device sits in a storage server.
    pub(crate) nvmeof: Option<Box<crate::nvmeof::NvmeofRt>>,
    /// QoS coordinators, when the scenario has any, and each host's admission gate (only
    /// hosts a coordinator covers have one).
    pub(crate) qos: Option<Box<crate::qos::QosRt>>,
    pub(crate) gates: Vec<Option<crate::host::gate::AdmissionGate>>,
    /// Completed command tags taken from an SSD's outbox (reused buffer).
    pub(crate) done_scratch: Vec<nest_ssd::Done>,
    /// Messages taken from the channels' outbox (reused buffer).
    delivered_scratch: Vec<nest_transport::Delivery>,
    pub(crate) pool: RequestPool,
    pub(crate) stats: RunStats,
    pub(crate) columns: RequestColumns,
    record_requests: bool,
    /// SRC's aggregate throughput, in runs with an `src` coordinator.
    pub(crate) aggregate: Option<Box<crate::aggregate::Aggregate>>,
    pub(crate) next_seq: u64,
    stop_at: SimTime,
    pub(crate) finished: bool,
    pub(crate) hit_time_limit: bool,
    /// The run's `[[fault]]`s, when it has any.
    pub(crate) faults: Option<Box<crate::fault::FaultRt>>,
    /// Haechi's clients and data nodes on the fabric (`[haechi]`).
    pub(crate) haechi: Option<Box<crate::haechi::world::HaechiRt>>,
}

impl Simulation {
    pub fn new(resolved: Resolved) -> Result<Self, String> {
        let seed = resolved.run.seed;
        let arrivals_end = resolved.run.duration;
        let hosts: Vec<Host> = resolved.hosts.iter().map(|h| Host::new(&h.name, h.queue_depth)).collect();
        let caches = resolved
            .hosts
            .iter()
            .map(|h| h.cache.as_ref().map(|c| HostCacheRt::new(c, resolved.classes.len())).transpose())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("host cache: {e}"))?;
        let mut devices: Vec<DeviceRt> = Vec::with_capacity(resolved.devices.len());
        for (i, d) in resolved.devices.iter().enumerate() {
            devices.push(match &d.kind {
                DeviceKindPlan::Ideal(p) => DeviceRt::Ideal(IdealDevice::new(&d.name, p, seed, i as u64)),
                DeviceKindPlan::Ssd(p) => {
                    let mut params = p.params.clone();
                    if let Some(pre) = params.precondition.as_mut().filter(|q| q.from_workloads) {
                        pre.replay = crate::precondition_replay::replay_pages(&resolved, i, &p.params, seed)?;
                    }
                    let ssd = Ssd::new(params, seed, i as u64).map_err(|e| format!("device '{}': {e}", d.name))?;
                    DeviceRt::Ssd(Box::new(SsdDevice::new(&d.name, ssd, &p.nvme, resolved.hosts.len())?))
                }
                DeviceKindPlan::Pm(p) => DeviceRt::Pm(PmRt { name: d.name.clone(), pm: PmDevice::new(p.params.clone(), seed, i as u64) }),
            });
        }
        let volumes = resolved.volumes.iter().map(crate::host::volume::VolumeRt::new).collect();
        let mut workloads = Vec::with_capacity(resolved.workloads.len());
        for (i, w) in resolved.workloads.iter().enumerate() {
            let prio = resolved.tagging.host[w.class];
            workloads.push(WorkloadRt::new(w, prio, i as u64, seed, arrivals_end)?);
        }
        let window_end = resolved.run.duration.map(|d| d.saturating_sub(resolved.run.wrapup));
        let names = |v: Vec<&String>| v.into_iter().cloned().collect::<Vec<String>>();
        let mut stats = RunStats::new(
            (resolved.run.warmup, window_end),
            resolved.run.interval,
            &names(resolved.classes.iter().map(|c| &c.name).collect()),
            &names(resolved.workloads.iter().map(|w| &w.name).collect()),
            &names(resolved.devices.iter().map(|d| &d.name).collect()),
            &names(resolved.hosts.iter().map(|h| &h.name).collect()),
            resolved.output.timeseries,
            resolved.output.timeseries_rows,
        );
        for dev in devices.iter_mut() {
            if let DeviceRt::Ssd(s) = dev {
                let e = format!("device:{}", s.name);
                s.series = [
                    stats.series.register_gauge(&e, "gc_active_planes"),
                    stats.series.register_gauge(&e, "flash_queue"),
                    stats.series.register_gauge(&e, "dirty_cache_slots"),
                ];
                for set in 0..s.ssd.nvm_sets() {
                    let Some((w, _)) = s.ssd.plm_window(set) else { continue };
                    let e = format!("device:{}:set{set}", s.name);
                    // E_RD only where there is a read budget to count down.
                    let reads_left = (w.attrs.c_rd != u64::MAX).then(|| stats.series.register_gauge(&e, "plm_reads_left"));
                    s.plm_series.push((set, stats.series.register_gauge(&e, "plm_window"), reads_left, stats.series.register_gauge(&e, "nv_buffer_bytes")));
                }
            }
        }
        let net = match &resolved.network {
            Some(plan) => {
                let window = (resolved.run.warmup, window_end.unwrap_or(SimTime::MAX));
                let series = &mut stats.series;
                let mut register = |e: &str, m: &str| series.register_gauge(e, m);
                Some(Box::new(NetRt::new(plan, seed, window, &mut register)?))
            }
            None => None,
        };
        let nvmeof = resolved.nvmeof.as_ref().map(|plan| {
            let depth = resolved
                .devices
                .iter()
                .map(|d| match &d.kind {
                    DeviceKindPlan::Ssd(p) => p.nvme.sq_depth,
                    DeviceKindPlan::Ideal(p) => p.queue_depth,
                    DeviceKindPlan::Pm(p) => p.params.queue_depth,
                })
                .collect();
            Box::new(crate::nvmeof::NvmeofRt::new(plan, resolved.hosts.len(), resolved.classes.len(), depth))
        });
        let (mut qos, gates) = crate::qos::QosRt::new(&resolved.coordinators, resolved.hosts.len());
        if let Some(rt) = qos.as_deref_mut() {
            crate::qos::build_oracles(rt, &resolved, seed, arrivals_end)?;
        }
        let mut nvmeof = nvmeof;
        for (node, router) in qos.as_deref_mut().map(|rt| std::mem::take(&mut rt.routers)).unwrap_or_default() {
            // Resolution checked the device sits in a storage server.
            nvmeof.as_deref_mut().expect("NVMe-oF targets").set_router(node, router)?;
        }
        if let (Some(rt), Some(net)) = (nvmeof.as_deref_mut(), net.as_deref()) {
            // Routers' time series, as "router:SERVER" entities.
            for s in 0..rt.targets.len() {
                let e = format!("router:{}", net.fabric.topo.host_name(rt.target_node[s]));
                let ids = rt.targets[s].router().series().iter().map(|m| stats.series.register_gauge(&e, m)).collect();
                rt.router_series.push(ids);
            }
        }
        let stop_at = match (resolved.run.drain, resolved.run.duration, resolved.run.drain_limit) {
            (false, Some(d), _) => d.min(resolved.run.max_time),
            (true, Some(d), Some(l)) => (d + l).min(resolved.run.max_time),
            _ => resolved.run.max_time,
        };
        let faults = (!resolved.faults.is_empty())
            .then(|| Box::new(crate::fault::FaultRt::new(&resolved.faults, resolved.devices.len(), resolved.workloads.len(), resolved.hosts.len())));
        let haechi = resolved.haechi.as_ref().map(|p| crate::haechi::world::HaechiRt::new(p).map(Box::new)).transpose()?;
        let aggregate = resolved.coordinators.iter().any(|c| c.kind.plan().measures_aggregate()).then(Box::default);
        // Packets are nanoseconds apart, storage's flash steps microseconds to milliseconds:
        // the calendar's slots are sized to what the run holds (only speed depends on it).
        let slot_bits = if net.is_some() { nest_core::queue::PACKET_SLOT_BITS } else { nest_core::queue::STORAGE_SLOT_BITS };
        let mut sim = Simulation {
            haechi,
            faults,
            aggregate,
            record_requests: resolved.output.requests,
            resolved,
            queue: EventQueue::with_slot_bits(4096, slot_bits),
            now: SimTime::ZERO,
            events: 0,
            last_event: SimTime::ZERO,
            fingerprint: Fingerprint::default(),
            workloads,
            waiting_hosts: crate::host::WaitingHosts::new(hosts.len()),
            hosts,
            caches,
            volumes,
            parts: Default::default(),
            map_scratch: Vec::new(),
            devices,
            net,
            nvmeof,
            qos,
            gates,
            done_scratch: Vec::new(),
            delivered_scratch: Vec::new(),
            pool: RequestPool::default(),
            stats,
            columns: RequestColumns::default(),
            next_seq: 0,
            stop_at,
            finished: false,
            hit_time_limit: false,
            dormant_timers: 0,
            pending_faults: 0,
        };
        sim.start()?;
        Ok(sim)
    }

    fn start(&mut self) -> Result<(), String> {
        self.qos_start();
        self.pools_start();
        self.routers_start();
        self.faults_start();
        for w in 0..self.workloads.len() {
            match self.workloads[w].source {
                Source::Closed { .. } => self.refill(w as u32),
                _ => {
                    if let Some(t) = self.workloads[w].advance()? {
                        self.wake_at(w as u32, t);
                    }
                }
            }
        }
        if let Some(net) = self.net.as_mut() {
            net.start(&mut self.queue);
        }
        self.haechi_start();
        self.queue.schedule(SimTime::ZERO, Event::Sample);
        Ok(())
    }

    #[inline]
    pub(crate) fn wake_at(&mut self, w: u32, t: SimTime) {
        self.workloads[w as usize].wake_pending = true;
        self.queue.schedule(t, Event::WorkloadWake(w));
    }

    /// Runs up to `max_events` events (a sampling event counts once per series it writes).
    /// Errors (a malformed trace line met mid-run) stop the run.
    pub fn step(&mut self, max_events: u64) -> Result<StepState, String> {
        if self.finished {
            return Ok(StepState::Finished);
        }
        let mut budget = max_events;
        while budget > 0 {
            let dormant = self.dormant_events();
            if dormant > 0 && self.queue.len() == dormant {
                self.finished = true; // only events that can change nothing are left
                break;
            }
            let Some((t, ev)) = self.queue.pop_until(self.stop_at) else {
                if self.queue.len() > dormant {
                    self.hit_time_limit = true;
                    self.now = self.stop_at;
                }
                self.finished = true;
                break;
            };
            self.now = t;
            if !matches!(ev, Event::Sample) {
                self.last_event = t;
            }
            self.events += 1;
            self.fingerprint.add(t.0);
            self.fingerprint.add(ev.tag());
            budget -= 1;
            match ev {
                Event::WorkloadWake(w) => self.on_wake(w)?,
                Event::DeviceDone(d, r) => self.on_device_done(d, r),
                Event::Ssd(d, e) => self.on_ssd(d, e),
                Event::Net(e) => {
                    let net = self.net.as_mut().expect("network event without a network");
                    if let Some(Event::Net(nest_net::NetEvent::Arrive { port, pkt })) = self.queue.peek_near() {
                        net.fabric.warm_arrival(*port, *pkt);
                    }
                    net.on_net(t, e, &mut self.queue);
                    let congested = !net.tp.channels.congestion.is_empty();
                    if !net.tp.channels.delivered.is_empty() {
                        self.on_delivered();
                    }
                    if congested {
                        self.qos_congestion();
                    }
                }
                Event::Nvmeof(e) => self.on_nvmeof(e),
                Event::Tp(e) => {
                    let net = self.net.as_mut().expect("transport event without a network");
                    net.on_tp(t, e, &mut self.queue);
                    if !net.tp.channels.congestion.is_empty() {
                        self.qos_congestion();
                    }
                }
                Event::PartsDone(r) => self.parts_done(r),
                Event::Fault(i) => self.on_fault(i),
                Event::IoTimeout(r, sent) => self.on_io_timeout(r, sent),
                Event::Reconnect(d) => self.on_reconnect(d as usize),
                Event::Conn(e) => self.on_conn(e),
                Event::Qos(e) => self.on_qos(e),
                Event::Haechi(e) => self.on_haechi(e),
                Event::Sample => {
                    // A sample writes every series: a step's budget is work, so a step over a
                    // long drain with many series returns (and the caller checks its memory)
                    // as often as one of as many other events would.
                    budget = budget.saturating_sub(self.stats.series.names().len() as u64);
                    if self.queue.len() == self.dormant_events() {
                        // Nothing else will happen: the final (partial) interval ends with the
                        // last event, so the sampling interval never lengthens the run.
                        self.now = self.last_event;
                    }
                    self.on_sample()
                }
            }
        }
        Ok(if self.finished { StepState::Finished } else { StepState::Running })
    }

    /// Pending events that can change nothing (`dormant_timers`, `pending_faults`).
    #[inline]
    fn dormant_events(&self) -> usize {
        if self.pending_faults > 0 && self.pool.live() == 0 {
            self.dormant_timers + self.pending_faults
        } else {
            self.dormant_timers
        }
    }

    /// Messages that fully arrived on the message channels go to their owners, in order.
    fn on_delivered(&mut self) {
        let mut batch = std::mem::take(&mut self.delivered_scratch);
        loop {
            let net = self.net.as_deref_mut().expect("deliveries without a network");
            std::mem::swap(&mut batch, &mut net.tp.channels.delivered);
            if batch.is_empty() {
                break;
            }
            for d in batch.drain(..) {
                match d.msg.kind {
                    messages::COMMAND | messages::RESPONSE | messages::DATA_PULL | messages::WRITE_DATA => self.nvmeof_deliver(d.msg),
                    messages::CONTROL => self.qos_deliver(d.msg.tag),
                    k @ (messages::HAECHI_REQUEST | messages::HAECHI_ANSWER) => self.haechi_deliver(k, d.msg.tag),
                    k => unreachable!("a message of kind {k:?} with no owner"),
                }
            }
        }
        self.delivered_scratch = batch;
    }

    /// Replaces the routing hook of the NVMe-oF target at storage server `server` (a network host
    /// name): a mechanism's agent there (PLMLight's write-handling agent) decides where commands
    /// go and may start background I/O of its own.
    pub fn set_router(&mut self, server: &str, router: Box<dyn nest_nvme::Router>) -> Result<(), String> {
        let node = self.net.as_ref().and_then(|n| n.fabric.topo.host_by_name(server)).ok_or_else(|| format!("no network host named '{server}'"))?;
        self.nvmeof.as_deref_mut().ok_or("no device sits in a storage server")?.set_router(node, router)
    }

    /// Runs to the end.
    pub fn run(&mut self) -> Result<(), String> {
        while self.step(1 << 20)? == StepState::Running {}
        Ok(())
    }

    /// Request `r`'s completion reached its host: record it and let its host and workload
    /// move on.
    pub(crate) fn complete(&mut self, r: ReqId) {
        match self.pool.get(r).kind {
            Kind::App => {
                self.hosts[self.pool.get(r).host.ix()].completed();
                self.finish(r, true);
            }
            Kind::Child | Kind::Background => self.complete_part(r),
            Kind::Split => unreachable!("a split request completes when its parts have"),
            Kind::TargetIo => unreachable!("a target's own I/O completes at the target (device_done)"),
        }
    }

    /// Application request `r` is complete (`at_device`: it went to its device as it is).
    pub(crate) fn finish(&mut self, r: ReqId, at_device: bool) {
        if self.ghost_ends(r) {
            return;
        }
        let req = self.pool.get_mut(r);
        req.t_complete = self.now;
        let req = *req;
        self.pool.release(r);
        self.stats.record(&req, at_device);
        if self.record_requests {
            self.columns.push(&req);
        }
        if let Some(a) = self.aggregate.as_deref_mut() {
            a.record(&req);
        }
        let host = req.host;
        self.qos_completed(&req);
        let wl = &mut self.workloads[req.workload as usize];
        wl.in_flight -= 1;
        wl.books.complete(1);
        if matches!(wl.source, Source::Closed { .. }) {
            self.refill(req.workload);
        }
        self.try_dispatch(host);
    }

    /// The next sampling tick: one interval on, or — when nothing is due for more than
    /// [`IDLE_TICKS`] intervals — the last tick of the grid at or before the next event. Idle time
    /// costs nothing (issue 63, S1: one far-off trace timestamp had the run sample an idle gap of
    /// 10⁶ s tick by tick): nothing can change while the queue holds nothing earlier, so the
    /// skipped samples would all repeat the last one, and a series resumes with one row (rates
    /// over the whole gap, as `dt` is measured). Shorter idle stretches keep a row per interval.
    fn next_sample_after(&self, now: SimTime) -> SimTime {
        let iv = self.resolved.run.interval.0.max(1);
        match self.queue.peek_time() {
            Some(t) if t.0 > now.0.saturating_add(iv.saturating_mul(IDLE_TICKS)) => SimTime(now.0 + (t.0 - now.0) / iv * iv),
            _ => SimTime(now.0 + iv),
        }
    }

    fn on_sample(&mut self) {
        let now = self.now;
        // Without time series the gauges are not computed (a drive's flash queue length sums
        // its 704 die queues: 10 % of a 10,000-drive run), but PLM's windows are brought up to
        // date at the same times as with them, and the routers still act (below).
        let record = self.stats.records_series();
        for d in 0..self.devices.len() {
            if record {
                let ids = self.stats.device_series[d];
                let (q, b) = self.devices[d].occupancy();
                self.stats.sample(now, ids[0], q as f64);
                self.stats.sample(now, ids[1], b as f64);
            }
            if let DeviceRt::Ssd(s) = &mut self.devices[d] {
                let stats = &mut self.stats;
                s.sample_plm(now, &mut |id, v| stats.sample(now, id, v));
                if !record {
                    continue;
                }
                let dirty = s.ssd.cache().map_or(0, |c| c.dirty_slots());
                let vals = [s.ssd.gc_active() as f64, s.ssd.queued_txns() as f64, dirty as f64];
                let ids = s.series;
                for k in 0..3 {
                    self.stats.sample(now, ids[k], vals[k]);
                }
            }
        }
        if record {
            for h in 0..self.hosts.len() {
                let ids = self.stats.host_series[h];
                let (w, o) = (self.hosts[h].waiting() as f64, self.hosts[h].outstanding() as f64);
                self.stats.sample(now, ids[0], w);
                self.stats.sample(now, ids[1], o);
            }
            if let Some(net) = self.net.as_mut() {
                let stats = &mut self.stats;
                net.sample(now, &mut |id, v| stats.sample(now, id, v));
            }
        }
        self.sample_routers();
        // Keep sampling only while something else can still happen.
        if self.queue.len() > self.dormant_events() {
            self.queue.schedule(self.next_sample_after(now), Event::Sample);
        }
    }
}
