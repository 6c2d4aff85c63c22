//! FIFO: no device-level QoS. Every user transaction waits in class 0's queue of its kind, so
//! the order is arrival order (MQSim's `OUT_OF_ORDER` scheduler, which also lets a transaction
//! pass one that cannot start).

use super::DiePolicy;
use crate::params::SchedParams;

#[derive(Clone, Debug, Default)]
pub(crate) struct Fifo;

impl DiePolicy for Fifo {
    const NAME: &'static str = "fifo";

    fn new(_: &SchedParams) -> Self {
        Fifo
    }

    #[inline]
    fn class(&mut self, _kind: usize, has: impl Fn(usize) -> bool) -> Option<usize> {
        has(0).then_some(0)
    }
}
