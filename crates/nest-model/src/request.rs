//! Requests in flight live in a pool and are referenced by [`ReqId`]; a finished request's slot
//! is reused (free list), so the steady state allocates nothing per request.
//! Finished requests are appended to [`RequestColumns`] (when per-request output is on), which
//! the caller drains in chunks and writes out incrementally.

use nest_core::{DeviceId, HostId, SimTime};
use nest_ssd::{DevParts, DEV_PARTS};
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
    /// I/O a storage server's router started on its own (`nest_nvme::BackgroundIo`): it never
    /// crosses the fabric, and only the router waits for it (`tag`).
    TargetIo,
}

/// One request and the time it reached each stage of its path.
#[derive(Copy, Clone, Debug)]
pub struct Request {
    pub seq: u64,
    pub workload: u32,
    pub class: u16,
    pub host: HostId,
    /// The device the request names (its connection and SQ credits are this device's).
    pub device: DeviceId,
    /// The device that serves it: the one it names, unless a target's router sent it elsewhere.
    pub served: DeviceId,
    pub op: Op,
    pub size: u32,
    pub offset: u64,
    pub kind: Kind,
    /// The `Split` request a `Child` belongs to.
    pub parent: Option<ReqId>,
    /// Children still at the device (`Cached`).
    pub pending: u32,
    /// Cache CPU time added at completion, in ps (`Cached`).
    pub cache_ps: u64,
    /// 4 KiB blocks served from the host cache (`Cached`).
    pub hit_blocks: u32,
    /// The router's name for a `TargetIo` (0 otherwise).
    pub tag: u32,
    /// A read of an NVM-set pool: served by the replica in DTWin (true, the default), or — its
    /// host's PLMC allocation did not cover it — by one in NDWin.
    pub dt: bool,
    /// It holds `size` bytes of its storage server's I/O buffer (`[nvmeof] target_buffer`).
    pub buffered: bool,
    /// Generated at the application.
    pub t_arrive: SimTime,
    /// Left the host queue towards the device (into its SQ, or onto its NVMe-oF connection).
    pub t_dispatch: SimTime,
    /// The command (and any write data it carries) fully received at the storage server's target
    /// (= `t_dispatch` for a directly attached device).
    pub t_tgt_arrive: SimTime,
    /// Placed in the device's submission queue, past the target's FIFO request queue, its wait
    /// for the server's buffer pool and, for a write whose data the target pulls (RDMA), the
    /// RDMA READ's round trip.
    pub t_sq: SimTime,
    /// Entered service at the device (fetched by the NVMe controller).
    pub t_dev_start: SimTime,
    /// Left service at the device.
    pub t_dev_done: SimTime,
    /// The response (completion and any read data) handed to the transport, past the target's
    /// response queue (= `t_dev_done` locally).
    pub t_resp_sent: SimTime,
    /// The response fully received at the host (= `t_dev_done` locally).
    pub t_resp_arrive: SimTime,
    /// Completion seen by the application.
    pub t_complete: SimTime,
    /// Where the SSD's service time went (`nest_ssd::DEV_PARTS`, ps; they add up to
    /// `t_dev_done − t_dev_start`). Zero for other devices.
    pub dev_parts: DevParts,
}

/// The parts of a request's latency in path order (SPEC §1, thesis 5.4.1); consecutive stamps,
/// so they add up to `t_complete − t_arrive` exactly.
pub const PARTS: [&str; 8] =
    ["host_queue", "fwd_network", "target_request_queue", "nvme_queue", "device", "target_response_queue", "back_network", "host_completion"];

impl Request {
    /// A request issued at `now`: every stage stamped `now` until it reaches it.
    pub fn stamp_all(&mut self, now: SimTime) {
        self.t_arrive = now;
        self.t_dispatch = now;
        self.t_tgt_arrive = now;
        self.t_sq = now;
        self.t_dev_start = now;
        self.t_dev_done = now;
        self.t_resp_sent = now;
        self.t_resp_arrive = now;
        self.t_complete = now;
        self.dev_parts = DevParts::default();
    }

    #[inline]
    pub fn stamps(&self) -> [SimTime; 9] {
        [self.t_arrive, self.t_dispatch, self.t_tgt_arrive, self.t_sq, self.t_dev_start, self.t_dev_done, self.t_resp_sent, self.t_resp_arrive, self.t_complete]
    }

    /// Latency parts in ps, in the order of [`PARTS`].
    #[inline]
    pub fn parts(&self) -> [u64; 8] {
        let s = self.stamps();
        std::array::from_fn(|i| (s[i + 1] - s[i]).0)
    }

    /// Takes the path of `part` (the last device part of a split request) between this
    /// request's arrival and completion, keeping the stamps in order.
    pub fn take_path(&mut self, part: &Request) {
        self.t_dispatch = part.t_dispatch.max(self.t_arrive);
        self.t_tgt_arrive = part.t_tgt_arrive.max(self.t_dispatch);
        self.t_sq = part.t_sq.max(self.t_tgt_arrive);
        self.t_dev_start = part.t_dev_start.max(self.t_sq);
        self.t_dev_done = part.t_dev_done.max(self.t_dev_start);
        self.t_resp_sent = part.t_resp_sent.max(self.t_dev_done);
        self.t_resp_arrive = part.t_resp_arrive.max(self.t_resp_sent);
        self.dev_parts = part.dev_parts;
    }
}

/// The requests in flight, by slot, with a count per [`Kind`] for the conservation check.
#[derive(Default)]
pub struct RequestPool {
    slots: nest_core::Pool<Request>,
    live_kind: [u64; 5],
}

impl RequestPool {
    #[inline]
    pub fn alloc(&mut self, r: Request) -> ReqId {
        self.live_kind[r.kind as usize] += 1;
        ReqId(self.slots.alloc(r))
    }
    #[inline]
    pub fn release(&mut self, id: ReqId) {
        self.live_kind[self.slots.get(id.0).kind as usize] -= 1;
        self.slots.release(id.0);
    }
    #[inline]
    pub fn get(&self, id: ReqId) -> &Request {
        self.slots.get(id.0)
    }
    #[inline]
    pub fn get_mut(&mut self, id: ReqId) -> &mut Request {
        self.slots.get_mut(id.0)
    }
    /// Requests currently allocated (in flight anywhere on the path).
    pub fn live(&self) -> u64 {
        self.slots.live()
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
    pub t_tgt_arrive_ps: Vec<u64>,
    pub t_sq_ps: Vec<u64>,
    pub t_dev_start_ps: Vec<u64>,
    pub t_dev_done_ps: Vec<u64>,
    pub t_resp_sent_ps: Vec<u64>,
    pub t_resp_arrive_ps: Vec<u64>,
    pub t_complete_ps: Vec<u64>,
    /// The device-internal parts (`DEV_PARTS`), one column each.
    pub dev_parts_ps: [Vec<u64>; DEV_PARTS.len()],
}

impl RequestColumns {
    #[inline]
    pub fn push(&mut self, r: &Request) {
        self.seq.push(r.seq);
        self.workload.push(r.workload);
        self.class.push(r.class);
        self.host.push(r.host.0);
        self.device.push(r.device.0);
        self.op.push(r.op as u8);
        self.size.push(r.size);
        self.offset.push(r.offset);
        self.cache_hit_blocks.push(r.hit_blocks);
        self.t_arrive_ps.push(r.t_arrive.0);
        self.t_dispatch_ps.push(r.t_dispatch.0);
        self.t_tgt_arrive_ps.push(r.t_tgt_arrive.0);
        self.t_sq_ps.push(r.t_sq.0);
        self.t_dev_start_ps.push(r.t_dev_start.0);
        self.t_dev_done_ps.push(r.t_dev_done.0);
        self.t_resp_sent_ps.push(r.t_resp_sent.0);
        self.t_resp_arrive_ps.push(r.t_resp_arrive.0);
        self.t_complete_ps.push(r.t_complete.0);
        for (col, &p) in self.dev_parts_ps.iter_mut().zip(&r.dev_parts) {
            col.push(p);
        }
    }
    pub fn len(&self) -> usize {
        self.seq.len()
    }
    pub fn is_empty(&self) -> bool {
        self.seq.is_empty()
    }

    /// Empties every column and keeps its capacity: the next drain's rows go into memory that
    /// is already mapped, where fresh columns would regrow by doubling and fault in new pages
    /// on every drain (issue 24). Destructured, so that a column added later cannot be missed.
    pub fn clear(&mut self) {
        let RequestColumns {
            seq,
            workload,
            class,
            host,
            device,
            op,
            size,
            offset,
            cache_hit_blocks,
            t_arrive_ps,
            t_dispatch_ps,
            t_tgt_arrive_ps,
            t_sq_ps,
            t_dev_start_ps,
            t_dev_done_ps,
            t_resp_sent_ps,
            t_resp_arrive_ps,
            t_complete_ps,
            dev_parts_ps,
        } = self;
        seq.clear();
        workload.clear();
        class.clear();
        host.clear();
        device.clear();
        op.clear();
        size.clear();
        offset.clear();
        cache_hit_blocks.clear();
        for c in [t_arrive_ps, t_dispatch_ps, t_tgt_arrive_ps, t_sq_ps, t_dev_start_ps, t_dev_done_ps, t_resp_sent_ps, t_resp_arrive_ps, t_complete_ps] {
            c.clear();
        }
        dev_parts_ps.iter_mut().for_each(Vec::clear);
    }
}
