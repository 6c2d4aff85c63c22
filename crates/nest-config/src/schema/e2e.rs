//! `[nvmeof]` and `[qos]`: how hosts reach devices in storage servers, and how each layer treats
//! the class tag.

use serde::Deserialize;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NvmeofConfig {
    /// Transport of every class's connections: dctcp | qtcp | d2tcp | dcqcn | qrdma (default dctcp).
    pub transport: Option<String>,
    /// Per-class transport overrides by class name ({ urgent = "qrdma" }).
    #[serde(default)]
    pub class_transport: std::collections::BTreeMap<String, String>,
    /// Command capsule bytes (NVMe/TCP: 8 B PDU header + 64 B SQE = 72).
    pub command_capsule: Option<String>,
    /// Completion capsule bytes (8 B PDU header + 16 B CQE = 24).
    pub completion_capsule: Option<String>,
    /// Header bytes of a data PDU (H2C/C2H data: 24).
    pub data_header: Option<String>,
    /// Target software time per received command (its FIFO request queue), per completion
    /// (its response queue), and the host's time per completion.
    pub target_overhead: Option<String>,
    pub response_overhead: Option<String>,
    pub host_overhead: Option<String>,
    /// Bytes of I/O buffer a storage server holds for the commands it serves (SPDK's shared
    /// buffer pool, in whole 8 KiB io units): taken when the target has processed a command
    /// (before a write's data is pulled or a read is executed), given back when a write completes
    /// at the device or a read's data has reached its host. Default: SPDK's 4,095 × 8 KiB when
    /// the connections are RDMA (`transport` dcqcn or qrdma), else "unlimited".
    pub target_buffer: Option<String>,
    /// Write data an RDMA connection carries inside the command capsule (SPDK's
    /// `in_capsule_data_size`, 4 KiB); the target pulls a larger write's data with an RDMA READ
    /// posted on its queue pair, behind whatever that queue pair is sending. NVMe/TCP connections
    /// carry every write's data behind its capsule.
    pub in_capsule_data: Option<String>,
    /// Commands a host keeps outstanding per device and SQ level over the fabric (the NVMe-oF I/O
    /// queue size; Linux's and SPDK's 128). Default: 128 when the connections are RDMA, else the
    /// device's SQ depth alone limits them.
    pub queue_depth: Option<u32>,
    /// NVMe-oF Keep Alive Timeout (KATO; Linux's default for fabrics 5 s; "0s": none): a host
    /// sends a Keep Alive command every KATO and takes the controller as lost when one goes
    /// unanswered for KATO — how it finds a failed storage server without waiting for an I/O
    /// to time out.
    pub keep_alive: Option<String>,
    /// How long after losing a storage server's connection (by keep-alive or an I/O timeout) a
    /// host tries to reconnect, and again every as long (Linux's `reconnect_delay`, 10 s): a
    /// device or server that came back is used again from the first attempt after it did.
    pub reconnect_delay: Option<String>,
    /// How long after losing a controller a host goes on trying to reconnect before it removes
    /// it for good (Linux's `ctrl_loss_tmo`, 600 s; it allows ⌈ctrl_loss_tmo / reconnect_delay⌉
    /// attempts; "forever": no limit; "0s": the first loss removes it).
    pub ctrl_loss_tmo: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QosConfig {
    /// Each: "follow" (default), "ignore", or a table { CLASS = "OTHER CLASS", ... }.
    pub host: Option<toml::Value>,
    pub network: Option<toml::Value>,
    pub transport: Option<toml::Value>,
    pub nvme: Option<toml::Value>,
    pub device: Option<toml::Value>,
}
