//! Requests in flight live in a pool and are referenced by [`ReqId`]; a finished request's slot
//! is reused (free list), so the steady state allocates nothing per request.
//! Finished requests are appended to [`RequestColumns`] (when per-request output is on), which
//! the caller drains in chunks and writes out incrementally.

use nest_core::SimTime;
use nest_workload::Op;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReqId(pub u32);

/// Where a request came from and who waits for it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An application request sent to its device as it is (no host cache).
    App,
    /// An application request split into device parts — by a host cache (the blocks it
    /// misses) and/or a volume (stripes, replicas): the parts go to devices as `Child`
    /// requests, and it completes when they have and any cache CPU work is done.
    Split,
    /// A device part of a `Split` request (`parent`).
    Child,
    /// Cache traffic nobody waits for: a dirty block's write-back, a promotion or prefetch read.
    Background,
}

/// No parent.
pub const NO_PARENT: u32 = u32::MAX;

/// One request and the time it reached each stage of its path.
#[derive(Copy, Clone, Debug)]
pub struct Request {
    pub seq: u64,
    pub workload: u32,
    pub class: u16,
    pub host: u32,
    pub device: u32,
    pub op: Op,
    pub size: u32,
    pub offset: u64,
    pub kind: Kind,
    /// The `Cached` request a `Child` belongs to.
    pub parent: u32,
    /// Children still at the device (`Cached`).
    pub pending: u32,
    /// Cache CPU time added at completion, in ps (`Cached`).
    pub cache_ps: u64,
    /// 4 KiB blocks served from the host cache (`Cached`).
    pub hit_blocks: u32,
    /// Generated at the application.
    pub t_arrive: SimTime,
    /// Left the host queue towards the device.
    pub t_dispatch: SimTime,
    /// Entered service at the device.
    pub t_dev_start: SimTime,
    /// Left service at the device.
    pub t_dev_done: SimTime,
    /// Completion seen by the application.
    pub t_complete: SimTime,
}

#[derive(Default)]
pub struct RequestPool {
    slots: Vec<Request>,
    free: Vec<u32>,
    live: u64,
    /// Live requests per [`Kind`], for the conservation check.
    live_kind: [u64; 4],
}

impl RequestPool {
    #[inline]
    pub fn alloc(&mut self, r: Request) -> ReqId {
        self.live += 1;
        self.live_kind[r.kind as usize] += 1;
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = r;
            ReqId(i)
        } else {
            self.slots.push(r);
            ReqId((self.slots.len() - 1) as u32)
        }
    }
    #[inline]
    pub fn release(&mut self, id: ReqId) {
        self.live -= 1;
        self.live_kind[self.slots[id.0 as usize].kind as usize] -= 1;
        self.free.push(id.0);
    }
    #[inline]
    pub fn get(&self, id: ReqId) -> &Request {
        &self.slots[id.0 as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, id: ReqId) -> &mut Request {
        &mut self.slots[id.0 as usize]
    }
    /// Requests currently allocated (in flight anywhere on the path).
    pub fn live(&self) -> u64 {
        self.live
    }
    /// Live requests of one kind.
    pub fn live_of(&self, k: Kind) -> u64 {
        self.live_kind[k as usize]
    }
}

/// Finished requests, column by column (handed to Python as arrays, written as Parquet there).
#[derive(Default, Clone, Debug)]
pub struct RequestColumns {
    pub seq: Vec<u64>,
    pub workload: Vec<u32>,
    pub class: Vec<u16>,
    pub host: Vec<u32>,
    pub device: Vec<u32>,
    pub op: Vec<u8>,
    pub size: Vec<u32>,
    pub offset: Vec<u64>,
    pub cache_hit_blocks: Vec<u32>,
    pub t_arrive_ps: Vec<u64>,
    pub t_dispatch_ps: Vec<u64>,
    pub t_dev_start_ps: Vec<u64>,
    pub t_dev_done_ps: Vec<u64>,
    pub t_complete_ps: Vec<u64>,
}

impl RequestColumns {
    #[inline]
    pub fn push(&mut self, r: &Request) {
        self.seq.push(r.seq);
        self.workload.push(r.workload);
        self.class.push(r.class);
        self.host.push(r.host);
        self.device.push(r.device);
        self.op.push(r.op as u8);
        self.size.push(r.size);
        self.offset.push(r.offset);
        self.cache_hit_blocks.push(r.hit_blocks);
        self.t_arrive_ps.push(r.t_arrive.0);
        self.t_dispatch_ps.push(r.t_dispatch.0);
        self.t_dev_start_ps.push(r.t_dev_start.0);
        self.t_dev_done_ps.push(r.t_dev_done.0);
        self.t_complete_ps.push(r.t_complete.0);
    }
    pub fn len(&self) -> usize {
        self.seq.len()
    }
    pub fn is_empty(&self) -> bool {
        self.seq.is_empty()
    }
}
