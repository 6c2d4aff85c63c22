//! The event queue: pending events ordered by `(time, seq)`.
//!
//! `seq` is a counter stamped at scheduling, so events at the same picosecond fire in the order
//! they were scheduled (FIFO), never in the heap's accidental order — a determinism requirement.
//! The two are packed into one `u128` key so ordering is a single comparison.
//!
//! Four implementations are kept because the issue asks us to measure alternatives
//! (`make bench`, figures in BENCHMARKS.md): [`CalendarQueue`] (the default, `EventQueue`: a
//! calendar for the next microseconds beside a [`QuadHeap`] for the rest), the 4-ary heap alone,
//! a thin wrapper over `std::collections::BinaryHeap` ([`StdHeap`]), and a monotone
//! [`RadixHeap`]. All present the same API through [`PendingEvents`], and a property test checks
//! they pop identical sequences.

use crate::time::SimTime;

#[inline]
fn pack(t: SimTime, seq: u64) -> u128 {
    ((t.0 as u128) << 64) | seq as u128
}

#[inline]
fn unpack_time(key: u128) -> SimTime {
    SimTime((key >> 64) as u64)
}

/// The operations the engine needs from a pending-event set.
pub trait PendingEvents<E: Copy> {
    /// Schedules `ev` at absolute time `at` (must not be earlier than the last popped time).
    fn schedule(&mut self, at: SimTime, ev: E);
    /// Removes and returns the earliest event.
    fn pop(&mut self) -> Option<(SimTime, E)>;
    fn peek_time(&self) -> Option<SimTime>;
    /// Removes and returns the earliest event if it is due at or before `limit`.
    #[inline]
    fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, E)> {
        if self.peek_time()? > limit {
            return None;
        }
        self.pop()
    }
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Copy)]
struct Entry<E: Copy> {
    key: u128,
    ev: E,
}

/// A 4-ary min-heap: half the depth of a binary heap and its four children share a cache line
/// or two, which is where a DES spends its time (STYLE.md: ~75% in the heap for SimCore).
pub struct QuadHeap<E: Copy> {
    heap: Vec<Entry<E>>,
    seq: u64,
}

/// The engine's default queue (the winner of the `make bench` comparison).
pub type EventQueue<E> = CalendarQueue<E>;

impl<E: Copy> Default for QuadHeap<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> QuadHeap<E> {
    pub fn new() -> Self {
        Self::with_capacity(1024)
    }
    pub fn with_capacity(n: usize) -> Self {
        QuadHeap { heap: Vec::with_capacity(n), seq: 0 }
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let item = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / 4;
            let p = self.heap[parent];
            if p.key <= item.key {
                break;
            }
            self.heap[i] = p;
            i = parent;
        }
        self.heap[i] = item;
    }

    /// Floyd's pop: walk the hole from the root to a leaf along the smallest children (one
    /// comparison per child, none against the moved element), then sift the last element up
    /// from there. The last element usually belongs near the bottom, so this saves roughly one
    /// comparison per level over a classic sift-down — the trick std's BinaryHeap uses.
    #[inline]
    fn sift_down_to_bottom(&mut self, item: Entry<E>) {
        let n = self.heap.len();
        let mut i = 0;
        loop {
            let first = 4 * i + 1;
            if first >= n {
                break;
            }
            let last = (first + 4).min(n);
            let mut best = first;
            let mut best_key = self.heap[first].key;
            for c in first + 1..last {
                let k = self.heap[c].key;
                if k < best_key {
                    best = c;
                    best_key = k;
                }
            }
            self.heap[i] = self.heap[best];
            i = best;
        }
        self.heap[i] = item;
        self.sift_up(i);
    }
}

impl<E: Copy> QuadHeap<E> {
    #[inline]
    fn push_key(&mut self, key: u128, ev: E) {
        self.heap.push(Entry { key, ev });
        let last = self.heap.len() - 1;
        self.sift_up(last);
    }

    #[inline]
    fn top_key(&self) -> u128 {
        self.heap.first().map_or(u128::MAX, |e| e.key)
    }

    #[inline]
    fn pop_entry(&mut self) -> Option<Entry<E>> {
        let n = self.heap.len();
        if n == 0 {
            return None;
        }
        let top = self.heap[0];
        let last = self.heap.pop().expect("non-empty");
        if n > 1 {
            self.sift_down_to_bottom(last);
        }
        Some(top)
    }
}

impl<E: Copy> PendingEvents<E> for QuadHeap<E> {
    #[inline]
    fn schedule(&mut self, at: SimTime, ev: E) {
        let key = pack(at, self.seq);
        self.seq += 1;
        self.push_key(key, ev);
    }

    #[inline]
    fn pop(&mut self) -> Option<(SimTime, E)> {
        self.pop_entry().map(|e| (unpack_time(e.key), e.ev))
    }

    #[inline]
    fn peek_time(&self) -> Option<SimTime> {
        self.heap.first().map(|e| unpack_time(e.key))
    }

    #[inline]
    fn len(&self) -> usize {
        self.heap.len()
    }
}

/// A calendar queue for the near future beside a 4-ary heap for the rest. Packet events are
/// due within microseconds of now, densely: the calendar has a slot per `2^slot_bits` ps
/// (1.02 ns by default; 65 ns for storage runs, `with_slot_bits`) over the next `SLOTS` slots
/// (16.8 µs; 1.07 ms) and a two-level bitmap of non-empty slots; each slot is a list sorted by
/// key, so scheduling is usually an append (a later time, or the same time with a later `seq`)
/// and popping takes the earliest slot's head (the bitmap is scanned only when a slot empties)
/// — no sift through a heap. Slots are lists threaded through one pool of nodes (reused
/// newest-first, so they stay in cache) rather than a vector each, which kept a sparse
/// calendar (storage runs) cache-cold. Events further ahead (timers, erases), and events that
/// would land in the middle of an already long slot (thousands of packets within
/// microseconds), go to the heap instead, so no operation walks far; a pop takes the smaller of
/// the two heads. Ordering is by the full `(time, seq)` key everywhere, so the pop order is
/// exactly a single heap's.
pub struct CalendarQueue<E: Copy> {
    /// First and last node of each slot's list (`NIL` when empty), its length and the last
    /// one's time.
    slots: Vec<Slot>,
    nodes: Vec<Node<E>>,
    free: u32,
    /// Bit `i` set: slot `i` is non-empty.
    bits: [u64; SLOTS / 64],
    /// Bit `w % 64` of word `w / 64` set: word `w` of `bits` is non-zero (so a sparse
    /// calendar is not scanned).
    summary: [u64; SUMMARY_WORDS],
    /// Events in the calendar.
    count: usize,
    /// Absolute slot of the calendar's earliest event (meaningful while `count > 0`): kept as
    /// events come and go, so that finding the next event — twice per event with the engine's
    /// look ahead — reads no bitmap; the bitmap is scanned only when a slot empties.
    first_abs: u64,
    /// Absolute slot number (`time >> slot_bits`) of the calendar's first slot; it covers
    /// `base .. base + SLOTS`, each slot holding events of one absolute slot.
    base: u64,
    far: QuadHeap<E>,
    seq: u64,
    /// A slot is `2^slot_bits` ps (`with_slot_bits`).
    slot_bits: u32,
}

#[derive(Clone, Copy)]
struct Slot {
    head: u32,
    tail: u32,
    /// Events in the list. A slot this full (65,535 events within a nanosecond) sends the
    /// rest to the heap, so the count never wraps.
    len: u16,
    /// The tail's picoseconds within the slot: a new key is after the tail's exactly when its
    /// time is not before it (sequence numbers only grow), so an append reads no node — in a
    /// busy fabric the tail was scheduled long ago and its line is cold, and the store that
    /// links it does not stall. 12 bytes a slot keeps the ring at 192 KiB.
    tail_ps: u16,
}

/// A calendar entry. It keeps only what its slot does not say: the picoseconds within the slot
/// (the top `slot_bits` bits of `sub`) and the sequence number (the rest), so `sub` orders the
/// entries of one slot as the full key does, and a node is 32 bytes rather than a `u128` key's
/// 48 — the pending events of a busy fabric are a third fewer cache lines.
#[derive(Clone, Copy)]
struct Node<E: Copy> {
    sub: u64,
    ev: E,
    next: u32,
}

#[inline]
fn sub_key(ps: u64, seq: u64, seq_bits: u32) -> u64 {
    (ps << seq_bits) | seq
}

const NIL: u32 = u32::MAX;
/// The default slot, 1.02 ns: on a k = 16 fat-tree with 4.1 ns slots a fifth of the events
/// landed before a slot's tail and walked its list (~4 cold nodes each); at 1 ns none did
/// (BENCHMARKS.md). The calendar then reaches 16.8 µs ahead: a packet's next hop
/// (serialisation plus a datacentre link's delay) lands in it, not in the heap.
pub const PACKET_SLOT_BITS: u32 = 10;
/// 65.5 ns slots, the widest a node's 16 bits of picoseconds allow: the calendar reaches
/// 1.07 ms ahead, so a storage run's flash operations (sense 10s of µs, program and channel
/// transfers up to ms) land in it instead of the heap — the stock drive's 1 M requests
/// 8 % faster than with 1 ns slots (BENCHMARKS.md), for runs without a packet network.
pub const STORAGE_SLOT_BITS: u32 = 16;
const SLOTS: usize = 16384;
const SUMMARY_WORDS: usize = SLOTS / 64 / 64;
/// A slot at least this long takes out-of-order insertions no more (they go to the heap).
const SLOT_WALK: u16 = 16;

impl<E: Copy> Default for CalendarQueue<E> {
    fn default() -> Self {
        Self::with_capacity(1024)
    }
}

impl<E: Copy> CalendarQueue<E> {
    pub fn new() -> Self {
        Self::with_capacity(1024)
    }
    pub fn with_capacity(n: usize) -> Self {
        Self::with_slot_bits(n, PACKET_SLOT_BITS)
    }

    /// Slots of `2^bits` ps (1..=16: a node keeps the picoseconds within its slot in 16 bits
    /// and the sequence number in the other `64 - bits`; past 2^(64 - bits) events go to the
    /// heap). The width is only a matter of speed: the pop order is the single heap's for any.
    pub fn with_slot_bits(n: usize, bits: u32) -> Self {
        assert!((1..=16).contains(&bits), "calendar slots of 2^{bits} ps: 1..=16 bits");
        CalendarQueue {
            slots: vec![Slot { head: NIL, tail: NIL, len: 0, tail_ps: 0 }; SLOTS],
            nodes: Vec::with_capacity(n),
            free: NIL,
            bits: [0; SLOTS / 64],
            summary: [0; SUMMARY_WORDS],
            count: 0,
            first_abs: 0,
            base: 0,
            far: QuadHeap::with_capacity(n),
            seq: 0,
            slot_bits: bits,
        }
    }

    /// Bits of a node's `sub` that keep the sequence number.
    #[inline]
    fn seq_bits(&self) -> u32 {
        64 - self.slot_bits
    }

    /// The first non-empty slot at or after slot `start` (wrapping), as an index; the calendar
    /// must hold an event.
    #[inline]
    fn first_slot(&self, start: usize) -> usize {
        let (w0, b0) = (start / 64, start % 64);
        let first = self.bits[w0] & (!0u64 << b0);
        if first != 0 {
            return w0 * 64 + first.trailing_zeros() as usize;
        }
        // The next non-empty word after w0, else (wrapping) the first from 0, which may be w0
        // itself with bits below b0.
        let w = self.word_from(w0 + 1).or_else(|| self.word_from(0));
        let w = w.expect("count > 0 but no slot is marked");
        w * 64 + self.bits[w].trailing_zeros() as usize
    }

    /// The first non-zero word of `bits` at or after word `from` (no wrapping).
    #[inline]
    fn word_from(&self, from: usize) -> Option<usize> {
        let s0 = from / 64;
        if s0 >= SUMMARY_WORDS {
            return None;
        }
        let m = self.summary[s0] & (!0u64 << (from % 64));
        if m != 0 {
            return Some(s0 * 64 + m.trailing_zeros() as usize);
        }
        (s0 + 1..SUMMARY_WORDS).find(|&s| self.summary[s] != 0).map(|s| s * 64 + self.summary[s].trailing_zeros() as usize)
    }

    /// The calendar's earliest entry: (slot, key).
    #[inline]
    fn near_min(&self) -> Option<(usize, u128)> {
        if self.count == 0 {
            return None;
        }
        let slot = (self.first_abs as usize) % SLOTS;
        let sub = self.nodes[self.slots[slot].head as usize].sub;
        Some((slot, self.full_key(self.first_abs, sub)))
    }

    /// The full `(time, seq)` key of a node of absolute slot `abs`.
    #[inline]
    fn full_key(&self, abs: u64, sub: u64) -> u128 {
        let t = (abs << self.slot_bits) | (sub >> self.seq_bits());
        pack(SimTime(t), sub & ((1 << self.seq_bits()) - 1))
    }

    #[inline]
    fn alloc(&mut self, node: Node<E>) -> u32 {
        if self.free != NIL {
            let n = self.free;
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = node;
            n
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }
}

impl<E: Copy> CalendarQueue<E> {
    /// The earliest event of the calendar's near part, without removing it: a hint for what
    /// comes next (an event in the far heap may come first), so the caller can prefetch what
    /// that event will touch while it handles the current one.
    #[inline]
    pub fn peek_near(&self) -> Option<&E> {
        let (slot, _) = self.near_min()?;
        Some(&self.nodes[self.slots[slot].head as usize].ev)
    }
}

impl<E: Copy> PendingEvents<E> for CalendarQueue<E> {
    #[inline]
    fn schedule(&mut self, at: SimTime, ev: E) {
        let seq = self.seq;
        let key = pack(at, seq);
        self.seq += 1;
        let abs = at.0 >> self.slot_bits;
        if abs >= self.base + SLOTS as u64 {
            self.far.push_key(key, ev);
            return;
        }
        assert!(abs >= self.base, "event scheduled in the past (before the last popped time)");
        let slot = (abs as usize) % SLOTS;
        let ps = (at.0 & ((1 << self.slot_bits) - 1)) as u16;
        let sub = sub_key(ps as u64, seq, self.seq_bits());
        let tail = self.slots[slot].tail;
        if self.slots[slot].len == u16::MAX || seq >> self.seq_bits() != 0 {
            self.far.push_key(key, ev);
            return;
        }
        if tail == NIL {
            let n = self.alloc(Node { sub, ev, next: NIL });
            self.slots[slot].head = n;
            self.slots[slot].tail = n;
            self.slots[slot].tail_ps = ps;
            self.bits[slot / 64] |= 1 << (slot % 64);
            self.summary[slot / 4096] |= 1 << (slot / 64 % 64);
        } else if self.slots[slot].tail_ps <= ps {
            let n = self.alloc(Node { sub, ev, next: NIL });
            self.nodes[tail as usize].next = n;
            self.slots[slot].tail = n;
            self.slots[slot].tail_ps = ps;
        } else if self.slots[slot].len < SLOT_WALK {
            // Insert in order: find the first node with a larger key.
            let (mut prev, mut at) = (NIL, self.slots[slot].head);
            while self.nodes[at as usize].sub < sub {
                prev = at;
                at = self.nodes[at as usize].next;
            }
            let n = self.alloc(Node { sub, ev, next: at });
            if prev == NIL {
                self.slots[slot].head = n;
            } else {
                self.nodes[prev as usize].next = n;
            }
        } else {
            self.far.push_key(key, ev);
            return;
        }
        self.slots[slot].len += 1;
        if self.count == 0 || abs < self.first_abs {
            self.first_abs = abs;
        }
        self.count += 1;
    }

    #[inline]
    fn pop(&mut self) -> Option<(SimTime, E)> {
        self.pop_until(SimTime(u64::MAX))
    }

    /// One look at the head serves both the limit check and the removal.
    #[inline]
    fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, E)> {
        let near = self.near_min();
        let far = self.far.top_key();
        let head = near.map_or(far, |n| n.1.min(far));
        if head == u128::MAX || unpack_time(head) > limit {
            return None;
        }
        let e = match near {
            Some((slot, key)) if key < far => {
                let n = self.slots[slot].head;
                let next = self.nodes[n as usize].next;
                if next != NIL {
                    // Most likely the next event: its node is far from this one in the arena.
                    crate::hint::prefetch(&self.nodes[next as usize]);
                }
                self.slots[slot].head = next;
                self.slots[slot].len -= 1;
                let e = Entry { key, ev: self.nodes[n as usize].ev };
                self.nodes[n as usize].next = self.free;
                self.free = n;
                if next == NIL {
                    self.slots[slot].tail = NIL;
                    self.bits[slot / 64] &= !(1 << (slot % 64));
                    if self.bits[slot / 64] == 0 {
                        self.summary[slot / 4096] &= !(1 << (slot / 64 % 64));
                    }
                }
                self.count -= 1;
                if next == NIL && self.count > 0 {
                    // The next non-empty slot, scanned from this one (where the calendar now
                    // starts), and a prefetch of its first node: the next event to pop.
                    self.base = self.base.max(self.first_abs);
                    let from = (self.base as usize) % SLOTS;
                    let i = self.first_slot(from);
                    self.first_abs = self.base + ((i + SLOTS - from) % SLOTS) as u64;
                    crate::hint::prefetch(&self.nodes[self.slots[i].head as usize]);
                }
                e
            }
            _ => self.far.pop_entry()?,
        };
        // Nothing is ever scheduled before the popped time: the calendar moves up to it.
        self.base = self.base.max((e.key >> 64) as u64 >> self.slot_bits);
        Some((unpack_time(e.key), e.ev))
    }

    #[inline]
    fn peek_time(&self) -> Option<SimTime> {
        let k = self.near_min().map_or(u128::MAX, |n| n.1).min(self.far.top_key());
        (k != u128::MAX).then(|| unpack_time(k))
    }

    #[inline]
    fn len(&self) -> usize {
        self.count + self.far.len()
    }
}

pub use baselines::{RadixHeap, StdHeap};

#[path = "queue_baselines.rs"]
mod baselines;

#[cfg(test)]
#[path = "queue_tests.rs"]
mod tests;
