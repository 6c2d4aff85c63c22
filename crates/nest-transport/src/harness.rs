//! A minimal event loop for a fabric and its transports alone — for tests, benchmarks and
//! tools that need no hosts or storage. The full model (`nest-model`) embeds the same two
//! components in its World instead.

use crate::{Scheduler, TpEvent, Transports};
use nest_core::queue::PendingEvents;
use nest_core::{EventQueue, SimTime};
use nest_net::{Fabric, NetEvent, NetScheduler};

#[derive(Copy, Clone, Debug)]
pub enum Ev {
    Net(NetEvent),
    Tp(TpEvent),
}

#[derive(Default)]
pub struct Queue(pub EventQueue<Ev>);

impl NetScheduler for Queue {
    #[inline]
    fn at(&mut self, t: SimTime, e: NetEvent) {
        self.0.schedule(t, Ev::Net(e));
    }
}

impl Scheduler for Queue {
    #[inline]
    fn tp_at(&mut self, t: SimTime, e: TpEvent) {
        self.0.schedule(t, Ev::Tp(e));
    }
}

/// Runs until `end` (or until nothing is pending); returns the number of events handled.
pub fn run_until(fabric: &mut Fabric, tp: &mut Transports, q: &mut Queue, end: SimTime) -> u64 {
    let mut events = 0;
    while let Some(t) = q.0.peek_time() {
        if t > end {
            break;
        }
        let (t, e) = q.0.pop().expect("peeked");
        events += 1;
        match e {
            Ev::Net(e) => tp.on_net_event(t, e, fabric, q),
            Ev::Tp(e) => tp.handle(t, e, fabric, q),
        }
    }
    events
}
