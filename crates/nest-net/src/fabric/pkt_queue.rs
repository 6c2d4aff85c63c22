//! A port's FIFO of packets, linked through the packets themselves (`Packet::queue_next`).
//!
//! A `VecDeque` of ids kept a buffer per port and queue: taking a packet out read the buffer
//! and then the packet, two cache misses on a large fabric where one will do — the packet is
//! read right after anyway (issue 24, item 3: on the k = 16 fat-tree a third of `try_start`'s
//! samples were the buffer). The port's record also shrinks by 60 bytes.

use crate::packet::PacketPool;

/// No packet.
const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
pub(crate) struct PktQueue {
    head: u32,
    tail: u32,
    len: u32,
}

impl Default for PktQueue {
    fn default() -> Self {
        PktQueue { head: NONE, tail: NONE, len: 0 }
    }
}

impl PktQueue {
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The packet that leaves next.
    #[inline]
    pub(crate) fn front(&self) -> Option<u32> {
        (self.len > 0).then_some(self.head)
    }

    #[inline]
    pub(crate) fn push_back(&mut self, pool: &mut PacketPool, id: u32) {
        pool.get_mut(id).queue_next = NONE;
        if self.len == 0 {
            self.head = id;
        } else {
            pool.get_mut(self.tail).queue_next = id;
        }
        self.tail = id;
        self.len += 1;
    }

    #[inline]
    pub(crate) fn pop_front(&mut self, pool: &PacketPool) -> Option<u32> {
        let id = self.front()?;
        self.len -= 1;
        self.head = pool.get(id).queue_next;
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, PacketKind};

    #[test]
    fn packets_leave_in_the_order_they_came_and_queues_share_the_pool() {
        let mut pool = PacketPool::default();
        let ids: Vec<u32> = (0..6).map(|i| pool.alloc(Packet::new(PacketKind::Data, i, 0, 1, 1500))).collect();
        let (mut a, mut b) = (PktQueue::default(), PktQueue::default());
        assert_eq!((a.pop_front(&pool), a.front(), a.len()), (None, None, 0));
        for &i in &ids[..3] {
            a.push_back(&mut pool, i);
        }
        b.push_back(&mut pool, ids[3]);
        assert_eq!(a.pop_front(&pool), Some(ids[0]));
        // A packet moves on to another queue (the next hop's) while others wait behind it.
        b.push_back(&mut pool, ids[0]);
        a.push_back(&mut pool, ids[4]);
        let drain = |q: &mut PktQueue, pool: &PacketPool| std::iter::from_fn(|| q.pop_front(pool)).collect::<Vec<_>>();
        assert_eq!(a.len(), 3);
        assert_eq!(drain(&mut a, &pool), vec![ids[1], ids[2], ids[4]]);
        assert_eq!(drain(&mut b, &pool), vec![ids[3], ids[0]]);
        assert!(a.is_empty() && b.is_empty());
        // Emptied, a queue starts again from its next packet.
        a.push_back(&mut pool, ids[5]);
        assert_eq!((a.front(), a.len()), (Some(ids[5]), 1));
    }
}
