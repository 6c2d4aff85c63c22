//! A Haechi run's events and what a step asks of its caller (`run::HaechiRun`): events to
//! schedule and, on the packet fabric, messages to send.

use nest_core::SimTime;

/// A Haechi run's events. Alone, the run's own queue holds them; in a World run they travel
/// as `Event::Haechi` in the World's queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ev {
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
    /// Data node `j`'s NIC executed the monitor's CAS on the pool: the check reads (and, with
    /// conversion, sets) the pool now.
    PoolCas(u32),
    /// The monitor closes a period and opens the next.
    PeriodEnd,
    /// On the packet fabric: op `o`'s request leaves its client (its I/O thread posted it).
    Leave(u32),
    /// On the packet fabric: op `o`'s answer (or the monitor's message) is on the data node's
    /// port.
    Answer(u32),
}

impl Ev {
    /// A small tag for the World's trajectory fingerprint.
    pub fn tag(&self) -> u64 {
        let (k, a, b) = match *self {
            Ev::Arrive(c, chain) => (0, c, chain),
            Ev::Start(c) => (1, c, 0),
            Ev::Stop(c) => (2, c, 0),
            Ev::AtTarget(o) => (3, o, 0),
            Ev::CpuDone(o) => (4, o, 0),
            Ev::AtClient(o) => (5, o, 0),
            Ev::ClientPeriod => (6, 0, 0),
            Ev::Tick => (7, 0, 0),
            Ev::Check => (8, 0, 0),
            Ev::PeriodEnd => (9, 0, 0),
            Ev::Leave(o) => (10, o, 0),
            Ev::Answer(o) => (11, o, 0),
            Ev::PoolCas(j) => (12, j, 0),
        };
        (k << 56) | ((a as u64) << 24) | b as u64
    }
}

/// Where the verbs travel: the verbs model's own switch (a run alone), or the World's packet
/// fabric, as messages the World sends on each (client, node) pair's channels.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Wire {
    Verbs,
    Fabric,
}

/// A message for the World to send on the packet fabric: op `op`'s request (client → node) or
/// its answer (node → client), `bytes` of payload.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Send {
    pub op: u32,
    pub client: u32,
    pub node: u32,
    pub to_node: bool,
    pub bytes: u32,
}

/// What a step of the run asks of its caller: events to schedule, and (on the packet fabric)
/// messages to send, each in the order asked.
#[derive(Default)]
pub struct Outbox {
    pub events: Vec<(SimTime, Ev)>,
    pub sends: Vec<Send>,
}
