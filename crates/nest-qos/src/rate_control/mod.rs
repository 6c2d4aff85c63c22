//! SRC — storage-side rate control (SRC paper; SPEC §9): the workload monitor whose features the
//! throughput prediction model reads (`monitor.rs`) and Algorithm 1 over any model
//! (`algorithm.rs`). The split read/write SQs it steers are an NVMe arbitration
//! (`nest_nvme::SplitQueues`); the trained model is to come (docs/src.md).

pub mod algorithm;
pub mod monitor;

pub use algorithm::{predict_weight_ratio, DynamicAdjustment, ThroughputModel};
pub use monitor::{Features, WorkloadMonitor, FEATURE_NAMES};
