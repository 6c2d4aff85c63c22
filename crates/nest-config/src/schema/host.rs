//! `[[host]]` (with its cache) and `[[volume]]`.

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    pub name: String,
    /// The topology host this host's NIC is (default: the topology host of the same name).
    #[serde(default)]
    pub node: Option<String>,
    /// Requests a host keeps outstanding at devices; the rest wait in its class queues.
    #[serde(default)]
    pub queue_depth: Option<u32>,
    /// A host cache between this host's workloads and its storage (docs/fussycache.md).
    #[serde(default)]
    pub cache: Option<HostCacheConfig>,
    /// How long an I/O may go unanswered before the host gives up on it and on its device
    /// (Linux's `nvme_core.io_timeout`, 30 s by default).
    #[serde(default)]
    pub io_timeout: Option<String>,
}

/// `[[fault]]`: something that goes wrong at a time in the run (docs/faults.md).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultConfig {
    /// device_fail: the device stops answering (a dead or hung drive); device_slow: an SSD's
    /// flash array becomes `factor` times slower (a fail-slow drive), until `until`; link_down:
    /// a network link fails, until `until`, and the routes go around it after `detect`;
    /// switch_down: likewise every link of a switch; gc_storm: an SSD collects garbage flat out,
    /// until `until`; server_down: a storage server stops (every device in it), until `until`;
    /// host_crash: a host crashes with its applications (for the rest of the run).
    pub kind: String,
    /// device_fail, device_slow: the device.
    #[serde(default)]
    pub device: Option<String>,
    /// link_down: the two nodes (hosts or switches) the link joins.
    #[serde(default)]
    pub link: Option<Vec<String>>,
    /// switch_down: the switch that fails (every link of it).
    #[serde(default)]
    pub switch: Option<String>,
    /// server_down: the storage server (a host of the topology that devices sit in).
    #[serde(default)]
    pub server: Option<String>,
    /// host_crash: the host (`[[host]]`) that crashes with its applications.
    #[serde(default)]
    pub host: Option<String>,
    /// When it happens.
    pub at: String,
    /// device_slow: how many times longer the array's operations take (> 1).
    #[serde(default)]
    pub factor: Option<f64>,
    /// device_fail: when the device answers again; device_slow: when the drive is back to its
    /// speed; gc_storm: when the storm ends;
    /// link_down, switch_down: when the links are back up; server_down: when the server is back
    /// (default: never).
    #[serde(default)]
    pub until: Option<String>,
    /// link_down, switch_down: the routing protocol's detection and convergence time (default 1 ms).
    #[serde(default)]
    pub detect: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VolumeConfig {
    pub name: String,
    /// single | stripe | replicate
    pub layout: String,
    pub devices: Vec<String>,
    /// Per device entry, the NVM set of it the member is (its address range): a device may then
    /// appear once per set, so a pool's replicas can be sets of one drive (SPEC §13.6).
    #[serde(default)]
    pub sets: Option<Vec<u32>>,
    /// stripe: bytes per device before moving to the next (a multiple of 4 KiB).
    #[serde(default)]
    pub stripe_unit: Option<String>,
    /// replicate: which replica serves a read — round-robin (default), or dt-active: the volume
    /// is an NVM-set pool, its replicas take turns in DTWin and reads go to the one in DTWin.
    #[serde(default)]
    pub read: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostCacheConfig {
    /// lru | arc | sarc | fussy | fussy-qos
    pub algorithm: String,
    /// Capacity as bytes ("64MiB") …
    #[serde(default)]
    pub size: Option<String>,
    /// … or in 4 KiB blocks.
    #[serde(default)]
    pub blocks: Option<u64>,
    /// through (default) | allocate
    #[serde(default)]
    pub write_miss: Option<String>,
    #[serde(default)]
    pub freq_threshold: Option<u32>,
    #[serde(default)]
    pub access_threshold: Option<u32>,
    #[serde(default)]
    pub hr_count: Option<u32>,
    #[serde(default)]
    pub warmup: Option<u32>,
    #[serde(default)]
    pub dmc_size: Option<u64>,
    #[serde(default)]
    pub lru_fallback: Option<bool>,
    #[serde(default)]
    pub prefetch_degree: Option<u32>,
    #[serde(default)]
    pub urgent_share: Option<f64>,
    #[serde(default)]
    pub rebalance_every: Option<u32>,
    /// Per-operation costs overriding the measured defaults.
    #[serde(default)]
    pub costs: Option<CacheCostConfig>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheCostConfig {
    #[serde(default)]
    pub lookup: Option<String>,
    #[serde(default)]
    pub dm: Option<String>,
    #[serde(default)]
    pub mdm: Option<String>,
    #[serde(default)]
    pub copy: Option<String>,
}
