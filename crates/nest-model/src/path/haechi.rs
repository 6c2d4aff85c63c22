//! Haechi's run on the packet fabric in the World (`haechi::world`): its events through the
//! World's queue, its verbs over the message channels, its messages back to it on arrival.

use crate::events::Event;
use crate::haechi::run::Ev;
use crate::messages::{HAECHI_ANSWER, HAECHI_REQUEST};
use crate::sim::Simulation;
use nest_core::queue::PendingEvents;
use nest_transport::{Message, MsgKind};

impl Simulation {
    pub(crate) fn haechi_start(&mut self) {
        if let Some(h) = self.haechi.as_deref_mut() {
            h.run.start();
            self.haechi_flush();
        }
    }

    pub(crate) fn on_haechi(&mut self, e: Ev) {
        let h = self.haechi.as_deref_mut().expect("a Haechi event without [haechi]");
        h.run.handle(self.now, e);
        self.haechi_flush();
    }

    /// A Haechi message fully arrived: a request at its data node, or an answer at its client.
    pub(crate) fn haechi_deliver(&mut self, kind: MsgKind, op: u32) {
        let h = self.haechi.as_deref_mut().expect("a Haechi message without [haechi]");
        if kind == HAECHI_REQUEST {
            h.run.at_node(self.now, op);
        } else {
            h.run.at_its_client(self.now, op);
        }
        self.haechi_flush();
    }

    /// What the run asked for: its events into the World's queue (none past the run's
    /// duration: its periods and clients never stop on their own), its messages onto the
    /// fabric.
    fn haechi_flush(&mut self) {
        let Simulation { haechi, queue, net, now, .. } = self;
        let h = haechi.as_deref_mut().expect("[haechi]");
        for (t, e) in h.run.out.events.drain(..) {
            if t <= h.end {
                queue.schedule(t, Event::Haechi(e));
            }
        }
        if h.run.out.sends.is_empty() {
            return;
        }
        let net = net.as_deref_mut().expect("[haechi] runs on the [network]");
        for s in h.run.out.sends.drain(..) {
            let (request, answer) = h.channels[s.client as usize * h.nodes + s.node as usize];
            let (flow, kind) = if s.to_node { (request, HAECHI_REQUEST) } else { (answer, HAECHI_ANSWER) };
            // A WRITE's acknowledgement carries no payload; on a byte stream it is one byte.
            net.send_message(*now, flow, s.bytes.max(1) as u64, Message { kind, tag: s.op }, queue);
        }
    }
}
