//! The fabric's plan: topology, switch and transport parameters, flows.

use nest_net::{FabricParams, Topology};
use nest_transport::{DcqcnParams, FlowSpec, QtcpParams, TcpParams};

/// Everything the model needs to build the fabric and its transports.
#[derive(Debug, Clone)]
pub struct NetworkPlan {
    pub topology: Topology,
    pub fabric: FabricParams,
    pub tcp: TcpParams,
    pub qtcp: QtcpParams,
    pub dcqcn: DcqcnParams,
    pub flows: Vec<FlowSpec>,
    /// Target ratio per class index (QTCP).
    pub class_ratio: Vec<f64>,
    /// Sample queues of: switch ports only (default), every port, or none.
    pub sample_ports: SamplePorts,
    pub mtu: u32,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SamplePorts {
    Switches,
    All,
    None,
}
