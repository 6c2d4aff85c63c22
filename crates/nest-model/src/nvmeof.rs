//! NVMe-oF between hosts and storage servers (SPEC §1, §5; thesis 4.4.1, 5.4.1).
//!
//! A host reaches a device in another node over one connection per (host, server, class): a
//! pair of message channels of the class's transport. The initiator sends the command capsule
//! (with the write data behind it) on the forward channel; the target receives it whole,
//! passes it through its FIFO request queue (one worker, `target_overhead` each — the
//! storage server's receive end is FIFO, thesis 4.4.1), and places it in the device's
//! submission queue for the host and class. The completion (with the read data in front of
//! it) passes the target's response queue and goes back on the reverse channel; the host
//! completes the request `host_overhead` after it has fully arrived.
//!
//! Over RDMA (DCQCN, QRDMA connections) the target moves data as SPDK's RDMA transport does
//! (SPEC §13.8): a write whose data exceed the in-capsule size (4 KiB) arrives as a bare
//! command; once the target has processed it and found room in its buffer pool it posts an RDMA
//! READ on its queue pair — behind the read data that queue pair is already sending, at the
//! rate DCQCN allows it — and the host's NIC answers with the data. Read data go back as RDMA
//! WRITEs in front of the completion. So DCQCN's throttle at a target delays its writes' data
//! too, and read data held back there keep the buffer pool full (SRC §II-B).
//!
//! The hosts' side (connections, SQ credits) is `host::initiator`; this module holds the
//! storage servers' targets, the message kinds and the layer's books.

use crate::host::initiator::Initiator;
use crate::messages::{COMMAND, DATA_PULL, RESPONSE, WRITE_DATA};
use crate::request::ReqId;
use nest_config::plan::e2e::SPDK_IO_UNIT;
use nest_config::resolve::e2e::NvmeofPlan;
use nest_core::{DeviceId, HostId};
use nest_nvme::{Direct, Target, TargetAction};

/// Timers of the NVMe-oF layer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NvmeofEvent {
    /// Server `s`'s target finished processing the command at the head of its request queue.
    RequestDone(u32),
    /// Server `s`'s target finished the completion at the head of its response queue.
    ResponseDone(u32),
    /// The host finished processing request `r`'s completion.
    HostDone(ReqId),
    /// Server `s`'s router asked to be woken.
    RouterWake(u32),
}

impl NvmeofEvent {
    pub fn tag(&self) -> u64 {
        match *self {
            NvmeofEvent::RequestDone(s) => s as u64,
            NvmeofEvent::ResponseDone(s) => (1 << 32) | s as u64,
            NvmeofEvent::HostDone(r) => (2 << 32) | r.0 as u64,
            NvmeofEvent::RouterWake(s) => (3 << 32) | s as u64,
        }
    }
}

/// Messages and bytes each way, for the conservation check and the summary.
#[derive(Default, Clone, Copy, Debug)]
pub struct Books {
    pub commands_sent: u64,
    pub commands_received: u64,
    pub responses_sent: u64,
    pub responses_received: u64,
    /// Write payload bytes the hosts sent, that reached the targets, and that the devices
    /// completed; read payload bytes the devices completed and that reached the hosts.
    pub write_bytes_sent: u64,
    pub write_bytes_at_target: u64,
    pub write_bytes_at_device: u64,
    pub read_bytes_at_device: u64,
    pub read_bytes_at_host: u64,
    /// Commands their hosts gave up on (`io_timeout`, or aborted with their connection): no
    /// response will come.
    pub timed_out: u64,
    /// Messages a torn-down connection's channels still held (`path/connection.rs`): dropped.
    pub commands_dropped: u64,
    pub responses_dropped: u64,
    /// RDMA READs the targets posted for writes' data, that reached the hosts, and dropped with
    /// their connection; the data they fetched, likewise.
    pub pulls_sent: u64,
    pub pulls_received: u64,
    pub pulls_dropped: u64,
    pub data_sent: u64,
    pub data_received: u64,
    pub data_dropped: u64,
}

pub struct NvmeofRt {
    pub plan: NvmeofPlan,
    /// The hosts' side: connections and SQ credits.
    pub initiator: Initiator,
    /// Storage server of each device, as an index into `targets` (`None`: directly attached).
    pub(crate) target_of: Vec<Option<u32>>,
    pub targets: Vec<Target<ReqId>>,
    /// What the last target call asked for (reused buffer).
    pub(crate) actions: Vec<TargetAction<ReqId>>,
    /// Target topology host of each entry of `targets`.
    pub target_node: Vec<u32>,
    pub books: Books,
    /// Per target: its router's background I/O waiting for room in its device's SQ.
    pub(crate) background_wait: Vec<std::collections::VecDeque<ReqId>>,
    /// Per target: its router's time-series ids (empty: it samples none).
    pub(crate) router_series: Vec<Vec<u32>>,
    /// Values the last router sample gave (reused buffer).
    pub(crate) router_values: Vec<f64>,
    /// Per target: its I/O buffer (`[nvmeof] target_buffer`; empty when unlimited), and the
    /// devices that fetch against it.
    pub buffers: Vec<TargetBuffer>,
    /// Per target with a bounded buffer: the commands waiting for room, in order (SPDK's
    /// `pending_buf_queue`).
    pub(crate) buffer_wait: Vec<std::collections::VecDeque<ReqId>>,
}

/// A storage server's I/O buffer (SPDK's shared buffer pool; docs/e2e.md): whole io units
/// (8 KiB) for each command it serves, from the moment the target has processed the command —
/// before a write's data is pulled or a read is executed — until a write completes at its device
/// or a read's data has reached its host. Commands that find it full wait in order; so read data
/// the network holds back at the target (DCQCN) keep the server's writes from being fetched and
/// its drives from being fed — SRC's premise (SRC §II-B, Fig 2-b). A command is let in while any
/// room is left, so the pool may be exceeded by less than one command (and a command larger
/// than the pool still runs, alone).
#[derive(Clone, Copy, Debug, Default)]
pub struct TargetBuffer {
    pub capacity: u64,
    pub used: u64,
    /// Commands holding bytes of it.
    pub holders: u64,
    pub peak: u64,
    /// Commands that found it full and waited.
    pub stalls: u64,
}

impl TargetBuffer {
    #[inline]
    pub fn has_room(&self) -> bool {
        self.used < self.capacity
    }

    /// The bytes a command of `size` bytes holds: whole io units.
    #[inline]
    pub fn units(size: u32) -> u64 {
        (size as u64).div_ceil(SPDK_IO_UNIT) * SPDK_IO_UNIT
    }
}

impl NvmeofRt {
    /// `depth[d]`: commands a host may keep outstanding per SQ level of device `d`.
    pub fn new(plan: &NvmeofPlan, hosts: usize, classes: usize, depth: Vec<u32>) -> NvmeofRt {
        let mut target_node: Vec<u32> = plan.device_server.iter().flatten().copied().collect();
        target_node.sort_unstable();
        target_node.dedup();
        let target_of: Vec<Option<u32>> = plan.device_server.iter().map(|s| s.map(|s| target_node.binary_search(&s).expect("listed") as u32)).collect();
        let background_wait = (0..target_node.len()).map(|_| Default::default()).collect();
        let buffer_wait = vec![Default::default(); if plan.target_buffer.is_some() { target_node.len() } else { 0 }];
        // The I/O queue size bounds each (host, device, level)'s commands beside the SQ depth.
        let depth = depth.into_iter().map(|q| plan.queue_depth.map_or(q, |n| q.min(n))).collect();
        NvmeofRt {
            background_wait,
            router_series: Vec::new(),
            router_values: Vec::new(),
            buffers: match plan.target_buffer {
                Some(capacity) => vec![TargetBuffer { capacity, ..Default::default() }; target_node.len()],
                None => Vec::new(),
            },
            buffer_wait,
            targets: target_node.iter().map(|_| Target::new(plan.target_overhead, plan.response_overhead, Box::new(Direct))).collect(),
            actions: Vec::new(),
            target_node,
            target_of,
            initiator: Initiator::new(plan, hosts, classes, depth),
            plan: plan.clone(),
            books: Books::default(),
        }
    }

    #[inline]
    pub fn is_remote(&self, h: HostId, d: DeviceId) -> bool {
        self.plan.is_remote(h.ix(), d.ix())
    }

    /// Routers' background I/O in flight (started, not completed) over every target.
    pub fn background_in_flight(&self) -> u64 {
        self.targets.iter().map(|t| t.background.in_flight()).sum()
    }

    /// Replaces the routing hook of the target at storage server `node` (a topology host).
    pub fn set_router(&mut self, node: u32, router: Box<dyn nest_nvme::Router>) -> Result<(), String> {
        let s = self.target_node.binary_search(&node).map_err(|_| format!("network host {node} is not a storage server"))?;
        self.targets[s].set_router(router);
        Ok(())
    }

    /// The targets' I/O buffer pools are bounded (`target_buffer`): `buffers[s]` is target `s`'s.
    #[inline]
    pub(crate) fn bounded_buffers(&self) -> bool {
        !self.buffers.is_empty()
    }

    /// The target of device `d`'s storage server.
    #[inline]
    pub(crate) fn target_of(&self, d: DeviceId) -> u32 {
        self.target_of[d.ix()].expect("a remote device sits in a storage server")
    }

    /// Commands on the fabric or at the targets, per the books.
    pub fn in_flight(&self) -> u64 {
        self.books.commands_sent - self.books.responses_received - self.books.timed_out
    }

    /// Checks the message books against the channels: every message sent is delivered or
    /// still on its channel (the channels check their own order and ends).
    pub fn check(&self, tp: &nest_transport::Transports) -> Result<(), String> {
        let b = &self.books;
        let fwd_queued = tp.channels.in_transit(COMMAND);
        let back_queued = tp.channels.in_transit(RESPONSE);
        if b.commands_sent != b.commands_received + fwd_queued + b.commands_dropped {
            return Err(format!(
                "NVMe-oF: {} commands sent, {} received, {} on the fabric, {} dropped with their connection",
                b.commands_sent, b.commands_received, fwd_queued, b.commands_dropped
            ));
        }
        if b.responses_sent != b.responses_received + back_queued + b.responses_dropped {
            return Err(format!(
                "NVMe-oF: {} responses sent, {} received, {} on the fabric, {} dropped with their connection",
                b.responses_sent, b.responses_received, back_queued, b.responses_dropped
            ));
        }
        for (what, kind, sent, received, dropped) in [
            ("RDMA READs", DATA_PULL, b.pulls_sent, b.pulls_received, b.pulls_dropped),
            ("pulled data", WRITE_DATA, b.data_sent, b.data_received, b.data_dropped),
        ] {
            let queued = tp.channels.in_transit(kind);
            if sent != received + queued + dropped {
                return Err(format!("NVMe-oF: {sent} {what} sent, {received} received, {queued} on the fabric, {dropped} dropped with their connection"));
            }
        }
        if b.write_bytes_at_target > b.write_bytes_sent || b.read_bytes_at_host > b.read_bytes_at_device {
            return Err(format!("NVMe-oF: more payload arrived than was sent ({b:?})"));
        }
        tp.check_channels()
    }
}
