//! The host NIC as a shared resource: flows that find their NIC queue at its limit (TCP Small
//! Queues; a QP over its NIC backlog) wait in a per-host list and are woken in turn as the NIC
//! starts packets, as Linux wakes throttled sockets on TX completion.

use crate::flow::Flow;
use crate::{Scheduler, Transports};
use nest_core::SimTime;
use nest_net::Fabric;
use std::collections::VecDeque;

impl Transports {
    /// `host`'s NIC started a packet: waiting flows try again in turn until one finds the
    /// queue full again or none is left. One that sent nothing keeps its turn at the head of
    /// the list, as a queue pair the NIC's arbiter could not serve yet does; one that sent and
    /// filled the queue again goes to the end. (Sent to the end even when it had sent nothing,
    /// a flow that always came second, right after the one the freed slot went to, lost every
    /// turn: three line-rate QPs kept a fourth at one packet for a whole run.)
    pub(crate) fn wake_nic_waiters(&mut self, now: SimTime, host: u32, fabric: &mut Fabric, q: &mut impl Scheduler) {
        let h = host as usize;
        for _ in 0..self.nic_waiters[h].len() {
            let Some(f) = self.nic_waiters[h].pop_front() else { break };
            self.flows[f as usize].s.nic_wait = false;
            let before = self.flows[f as usize].s.snd_nxt;
            self.try_send(now, f, fabric, q);
            let fl = &self.flows[f as usize];
            if fl.s.nic_wait {
                if fl.s.snd_nxt == before {
                    // `wait_for_nic` put it at the end: back to the head.
                    let back = self.nic_waiters[h].pop_back();
                    debug_assert_eq!(back, Some(f));
                    self.nic_waiters[h].push_front(f);
                }
                break;
            }
        }
    }

    /// Parks flow `f` until its NIC starts another packet.
    pub(crate) fn wait_for_nic(fl: &mut Flow, f: u32, waiters: &mut [VecDeque<u32>], fabric: &mut Fabric) {
        fl.s.nic_wait = true;
        waiters[fl.spec.src as usize].push_back(f);
        fabric.watch_nic(fl.spec.src);
    }
}
