//! Device-level QoS (thesis 4.4.2, Fig 4.6; MQSim's `PRIORITY_OUT_OF_ORDER`): per-class queues,
//! urgent served strictly first, then weighted round-robin over High/Medium/Low with one WRR
//! state for the reads and one for the writes, so reads do not spend the writes' credits.

use super::DiePolicy;
use crate::params::SchedParams;
use nest_core::wrr::Wrr;

#[derive(Clone, Debug)]
pub(crate) struct UrgentWrr {
    /// WRR state of the read and of the write queues.
    wrr: [Wrr; 2],
}

impl DiePolicy for UrgentWrr {
    const NAME: &'static str = "urgent-wrr";

    fn new(p: &SchedParams) -> Self {
        UrgentWrr { wrr: [Wrr::new(p.weights), Wrr::new(p.weights)] }
    }

    #[inline]
    fn class(&mut self, kind: usize, has: impl Fn(usize) -> bool) -> Option<usize> {
        self.wrr[kind].pick_class(has(0), has)
    }
}
