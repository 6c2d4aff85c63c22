//! QoS coordinators (SPEC §8–§10: PLMC, PLMLight, SRC, Haechi) as sans-IO state machines.
//!
//! A coordinator never touches the World. The World's QoS adapter (`nest-model/src/qos.rs`)
//! tells it what happened — its start, the wake-ups it asked for, completed requests, congestion
//! at the flows it watches — and carries out what it puts in its [`Outbox`]: budgets for the
//! hosts' admission gates, wake-ups, flows to watch. Mechanisms add the inputs and actions they need here, in the vocabulary of
//! `nest-core` only, so each can be unit-tested without a World.
#![deny(unsafe_code)]

pub mod congestion_monitor;
pub mod fixed_budget;
pub mod haechi;
pub mod plmc;
pub mod plmlight;
pub mod rate_control;

pub use congestion_monitor::CongestionMonitor;
pub use fixed_budget::FixedBudget;
pub use plmc::Plmc;
pub use plmlight::PlmLight;
pub use rate_control::controller::src;

pub use nest_core::Congestion;
use nest_core::{DeviceId, FlowId, HostId, SimTime};

/// What a coordinator asks the World to do.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Host `host`'s admission gate may let `ios` more requests through; this replaces what
    /// was left of its budget (a budget for the next period, not an addition).
    SetBudget { host: HostId, ios: u64 },
    /// Call [`Coordinator::on_wake`] with `token` at `at`.
    WakeAt { at: SimTime, token: u32 },
    /// Report the congestion of flow `flow` (a message channel) to
    /// [`Coordinator::on_congestion`] from now on.
    Watch { flow: FlowId },
    /// Set the write weight of device `device`'s split submission queues (SRC).
    SetWriteWeight { device: DeviceId, w: u32 },
    /// Carry a control message between the coordinator and one of its hosts' agents.
    Send(Msg),
    /// Host read `req`, held while its agent asked ([`DtRead::Asked`]), goes on: to the
    /// DT-active replica (`dt`) or to one in NDWin.
    Place { req: u64, dt: bool },
}

/// A control message between a coordinator and the agent it keeps at one of its hosts (PLMC's
/// window close, demand report, allocation, ask and grant). The World carries it: over the
/// network when the coordinator sits at a storage server its hosts reach, at once otherwise —
/// delivered in the order sent either way.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Msg {
    pub host: HostId,
    /// Towards the host's agent (else from it, towards the coordinator).
    pub to_host: bool,
    pub body: MsgBody,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MsgBody {
    /// Window `window` of the pool started: the host closes its window and reports.
    Close { window: u64 },
    /// The host's DT-count demand in the window that `Close { window }` closed.
    Report { window: u64, demand: u64 },
    /// The host's allocation for window `window`.
    Alloc { window: u64, counts: u64 },
    /// The host asks for `counts` more for its read `req`.
    Ask { req: u64, counts: u64 },
    /// The answer to an ask, from the allocation of window `window`.
    Grant { req: u64, window: u64, counts: u64, granted: bool },
}

/// Where a host's read of a pool goes, as its agent decides.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DtRead {
    /// To the DT-active replica.
    Dt,
    /// To a replica in NDWin.
    Nd,
    /// Held: the agent asked its coordinator, and an [`Action::Place`] will say.
    Asked,
}

/// Actions collected during one call (reused; the adapter drains it).
#[derive(Default, Debug)]
pub struct Outbox {
    pub actions: Vec<Action>,
}

impl Outbox {
    #[inline]
    pub fn push(&mut self, a: Action) {
        self.actions.push(a);
    }
}

/// A request that completed, as a coordinator measures it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub host: HostId,
    /// Index of the request's QoS class in the scenario.
    pub class: u16,
    pub write: bool,
    pub bytes: u32,
    /// From arrival at the application to completion.
    pub latency: SimTime,
    /// A read of an NVM-set pool served by the copy in DTWin (true for every other request).
    pub dt: bool,
}

/// What the coordinator of an NVM-set pool's DT counts hears besides [`Coordinator`]'s calls
/// (PLMC): a capability asked for with [`Coordinator::as_dt_pool`], so a coordinator without a
/// pool carries none of it.
pub trait DtPool {
    /// HoD: its hosts' exact demand over the window about to start (in its hosts' order), just
    /// before [`DtPool::on_dt_window`].
    fn exact_demand(&mut self, demand: &[u64]);
    /// A DTWin of the NVM-set pool it coordinates started (PLMC allocates at every one).
    fn on_dt_window(&mut self, now: SimTime, out: &mut Outbox);
    /// Host `host` has read `req` of `counts` DT counts (4 KiB units): where its agent sends
    /// it; `None` when the coordinator does not decide for this host.
    fn dt_read(&mut self, now: SimTime, host: HostId, counts: u64, req: u64, out: &mut Outbox) -> Option<DtRead>;
}

/// `Send + Sync`: a run is stepped with the GIL released, possibly on another thread.
pub trait Coordinator: Send + Sync {
    /// Called once, at time zero.
    fn start(&mut self, now: SimTime, out: &mut Outbox);
    /// A wake-up asked for with [`Action::WakeAt`].
    fn on_wake(&mut self, now: SimTime, token: u32, out: &mut Outbox);
    /// An application request completed (only coordinators that measure need this).
    fn on_completion(&mut self, _now: SimTime, _c: &Completion, _out: &mut Outbox) {}
    /// Whether [`Coordinator::on_completion`] wants to be called (it costs a call per request).
    fn measures_completions(&self) -> bool {
        false
    }
    /// Congestion at a flow it watches ([`Action::Watch`]).
    fn on_congestion(&mut self, _now: SimTime, _flow: FlowId, _c: Congestion, _out: &mut Outbox) {}
    /// Its hooks as the coordinator of an NVM-set pool's DT counts, if it is one (PLMC).
    fn as_dt_pool(&mut self) -> Option<&mut dyn DtPool> {
        None
    }
    /// A control message it sent ([`Action::Send`]) arrived at its other end.
    fn on_message(&mut self, _now: SimTime, _msg: &Msg, _out: &mut Outbox) {}
    /// What it reports in the summary (name, value), in a fixed order.
    fn report(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// What it reports per host, in its hosts' order.
    fn host_report(&self) -> Vec<(HostId, Vec<(&'static str, f64)>)> {
        Vec::new()
    }
}
