//! SRC — storage-side rate control (SRC paper; SPEC §9): the workload monitor whose features the
//! throughput prediction model reads (`monitor.rs`) and Algorithm 1 over any model
//! (`algorithm.rs`), the trained model's evaluator (`forest.rs`) and the coordinator that runs
//! Algorithm 1 at a storage target on its channels' congestion (`controller.rs`). The split
//! read/write SQs it steers are an NVMe arbitration (`nest_nvme::SplitQueues`); docs/src.md.

pub mod algorithm;
pub mod controller;
pub mod forest;
pub mod monitor;

pub use algorithm::{predict_weight_ratio, DynamicAdjustment, ThroughputModel};
pub use controller::{SrcAgent, SrcConfig, SrcController};
pub use forest::{shipped_text, TreeEnsemble, SHIPPED, SHIPPED_PREFIX};
pub use monitor::{Features, WorkloadMonitor, FEATURE_NAMES};
