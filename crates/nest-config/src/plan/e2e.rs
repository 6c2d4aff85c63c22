//! The end-to-end path's plans: how each layer treats the class tag, and the NVMe-oF connections.

use nest_core::class::Priority;
use nest_core::SimTime;

/// How the layers of the path treat each class (indexed by class); thesis 4.4.3, Fig 4.20.
#[derive(Debug, Clone, PartialEq)]
pub struct Tagging {
    /// Priority queue at the host (all `BestEffort` — one FIFO — when the host ignores classes).
    pub host: Vec<Priority>,
    /// Whether the class's packets get the switches' urgent strict priority and reserve.
    pub network_urgent: Vec<bool>,
    /// The class whose QTCP/QRDMA target the class's connections steer to (`None`: no target —
    /// the transport ignores classes and behaves like its base protocol).
    pub transport: Vec<Option<usize>>,
    /// NVMe submission-queue level (all `Medium` — one round robin — when NVMe ignores classes).
    pub nvme: Vec<Priority>,
    /// The SSD's per-class flash transaction queue (all `Medium` when the device ignores them).
    pub device: Vec<Priority>,
}

/// One NVMe-oF connection: host → server carries commands (and write data), server → host
/// carries completions (and read data). Flow indices are into the network plan's flows.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnPlan {
    pub host: usize,
    /// Topology host index of the storage server.
    pub server: u32,
    pub class: usize,
    pub fwd: u32,
    pub back: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NvmeofPlan {
    /// Topology host index of each host's NIC (`None`: the host is not on the network).
    pub host_node: Vec<Option<u32>>,
    /// Topology host index of each device's storage server (`None`: directly attached).
    pub device_server: Vec<Option<u32>>,
    pub conns: Vec<ConnPlan>,
    pub command_capsule: u32,
    pub completion_capsule: u32,
    pub data_header: u32,
    pub target_overhead: SimTime,
    pub response_overhead: SimTime,
    pub host_overhead: SimTime,
    /// I/O buffer bytes per storage server (`None`: unlimited).
    pub target_buffer: Option<u64>,
    /// Per class: whether its connections are RDMA queue pairs (DCQCN, QRDMA), whose writes
    /// beyond `in_capsule_data` have their data pulled by the target.
    pub rdma: Vec<bool>,
    /// Write bytes an RDMA command capsule carries (SPDK's `in_capsule_data_size`).
    pub in_capsule_data: u32,
    /// Commands a host keeps outstanding per device and SQ level (`None`: the SQ depth).
    pub queue_depth: Option<u32>,
    /// Keep Alive Timeout (`None`: no keep-alive).
    pub keep_alive: Option<SimTime>,
    /// Time between a host's attempts to reconnect to a lost controller (`None`: at once).
    pub reconnect_delay: Option<SimTime>,
    /// How long a host tries to reconnect to a lost controller before removing it (`None`: for
    /// ever).
    pub ctrl_loss_tmo: Option<SimTime>,
}

/// SPDK's RDMA transport defaults (`lib/nvmf/rdma.c`): 4,095 shared buffers of one io unit
/// (max I/O size 128 KiB / 16 SGL entries = 8 KiB) each, 4 KiB of in-capsule data, and I/O queues
/// of 128 entries (Linux's `nvme-rdma` also asks for 128).
pub const SPDK_IO_UNIT: u64 = 8192;
pub const SPDK_SHARED_BUFFERS: u64 = 4095;
pub const SPDK_IN_CAPSULE_DATA: u32 = 4096;
pub const SPDK_QUEUE_DEPTH: u32 = 128;

/// Linux's default `ctrl_loss_tmo` (`NVMF_DEF_CTRL_LOSS_TMO`).
pub const DEFAULT_CTRL_LOSS_TMO: SimTime = SimTime::from_ms(600_000);

/// Linux's default delay between reconnect attempts (`NVMF_DEF_RECONNECT_DELAY`).
pub const DEFAULT_RECONNECT_DELAY: SimTime = SimTime::from_ms(10_000);

/// Linux's default Keep Alive Timeout for NVMe over Fabrics (`NVME_DEFAULT_KATO`).
pub const DEFAULT_KEEP_ALIVE: SimTime = SimTime::from_ms(5_000);

impl NvmeofPlan {
    /// Whether host `h` reaches device `d` over the fabric.
    pub fn is_remote(&self, h: usize, d: usize) -> bool {
        matches!(self.device_server[d], Some(s) if self.host_node[h] != Some(s))
    }

    /// Whether a write of `bytes` on class `class`'s connection has its data pulled by the
    /// target (an RDMA READ) instead of carried behind its command capsule.
    #[inline]
    pub fn pulls(&self, class: usize, bytes: u32) -> bool {
        self.rdma[class] && bytes > self.in_capsule_data
    }
}
