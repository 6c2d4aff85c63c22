//! `[network]` (topology, links, switches, TCP/QTCP/DCQCN parameters) and `[[flow]]`.

use serde::Deserialize;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkConfig {
    /// dumbbell | fat_tree | clos | graph
    pub topology: String,
    /// Every link's rate and one-way propagation delay, unless a graph link says otherwise.
    pub link_rate: Option<String>,
    pub link_delay: Option<String>,
    /// IP MTU in bytes (1500 or 9000); the TCP segment is MTU − header.
    pub mtu: Option<u32>,
    /// Link-layer bytes per frame: "ethernet" (38: header, FCS, preamble, gap), "ppp" (2, as
    /// ns-3's point-to-point links) or a number.
    pub framing: Option<toml::Value>,
    /// dumbbell: senders `s0…` and receivers `r0…` on switch `sw0`.
    pub senders: Option<u32>,
    pub receivers: Option<u32>,
    /// fat_tree: k (even); k³/4 hosts `h0…`.
    pub k: Option<u32>,
    /// clos: pods × (leaves, tors, hosts_per_tor) + spines (SRC: 4 × (2, 4, 16) + 2).
    pub pods: Option<u32>,
    pub leaves: Option<u32>,
    pub tors: Option<u32>,
    pub hosts_per_tor: Option<u32>,
    pub spines: Option<u32>,
    /// graph: explicit nodes and links.
    #[serde(default, rename = "node")]
    pub nodes: Vec<NodeConfig>,
    #[serde(default, rename = "link")]
    pub links: Vec<LinkConfig>,
    #[serde(default)]
    pub switch: SwitchConfig,
    #[serde(default)]
    pub tcp: TcpConfig,
    #[serde(default)]
    pub qtcp: QtcpConfig,
    #[serde(default)]
    pub dcqcn: DcqcnConfig,
    /// Sample every egress port's queue into the time series (default: switch ports only).
    pub sample_ports: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
    pub name: String,
    /// host | switch
    pub kind: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    pub a: String,
    pub b: String,
    pub rate: Option<String>,
    pub delay: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchConfig {
    /// Shared packet buffer per switch ("4MiB").
    pub buffer: Option<String>,
    /// Part of the buffer reserved for urgent packets ("64KiB").
    pub urgent_reserve: Option<String>,
    /// step (DCTCP, K) | red (Kmin, Kmax, Pmax) | none
    pub ecn: Option<String>,
    /// Thresholds: a number of packets (65) or a size ("97KB").
    pub ecn_k: Option<toml::Value>,
    pub ecn_kmin: Option<toml::Value>,
    pub ecn_kmax: Option<toml::Value>,
    pub ecn_pmax: Option<f64>,
    /// Lossless fabric with PFC.
    pub pfc: Option<bool>,
    pub pfc_xoff: Option<String>,
    pub pfc_xon: Option<String>,
    /// ACKs and CNPs in the strict-priority control queue (default true).
    pub control_priority: Option<bool>,
    /// Strict priority for the urgent class (default true).
    pub urgent_priority: Option<bool>,
    /// Host NICs mark ECN with the same rule (default false).
    pub nic_ecn: Option<bool>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    pub g: Option<f64>,
    pub alpha_init: Option<f64>,
    pub init_cwnd: Option<u32>,
    pub min_cwnd: Option<u32>,
    pub delayed_ack: Option<u32>,
    pub delayed_ack_timeout: Option<String>,
    pub min_rto: Option<String>,
    pub max_rto: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QtcpConfig {
    /// Weight of the old value in the throughput/latency EWMAs (default 15/16).
    pub gamma: Option<f64>,
    /// Bottleneck bandwidth the class shares divide (default: the link rate × goodput share).
    pub bottleneck: Option<String>,
    pub interference: Option<bool>,
    pub sigma: Option<f64>,
    /// When a flow with slack gives it back: "while_congested" (default, SPEC §4) or "on_mark".
    pub slack: Option<String>,
    /// α above which congestion lasts, for while_congested (default 0.001).
    pub epsilon: Option<f64>,
    /// QRDMA's recovery target when a flow with slack cuts: "scaled" (default) or "kept".
    pub recovery_target: Option<String>,
}

/// DCQCN/QRDMA reaction and notification point parameters (defaults: the DCQCN authors' set).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DcqcnConfig {
    pub g: Option<f64>,
    pub alpha_period: Option<String>,
    pub rate_timer: Option<String>,
    /// Bytes per byte-counter event ("300KB"; "0" = off).
    pub byte_counter: Option<String>,
    pub cnp_interval: Option<String>,
    pub fast_recovery_steps: Option<u32>,
    pub rate_ai: Option<String>,
    pub rate_hai: Option<String>,
    pub min_rate: Option<String>,
    pub clamp_target: Option<bool>,
    pub initial_rate: Option<String>,
    /// Each message of a channel its own queue pair (the ns-3 RDMA modules' flows).
    pub qp_per_message: Option<bool>,
    /// RoCE retransmission timeout floor (NIC local-ACK timeout).
    pub min_rto: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    pub name: String,
    /// Source and destination host names of the topology.
    pub src: String,
    pub dst: String,
    pub class: String,
    /// dctcp | qtcp | d2tcp | dcqcn | qrdma
    pub transport: String,
    pub start: Option<String>,
    /// Stop producing data (default: the run's duration).
    pub stop: Option<String>,
    /// Message size ("2MB"); absent = long-lived.
    pub size: Option<String>,
    /// Offered load of a rate-limited application ("3Gbps").
    pub rate: Option<String>,
    /// D2TCP deadline after `start`.
    pub deadline: Option<String>,
}
