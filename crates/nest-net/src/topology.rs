//! The fabric's graph: hosts, switches and full-duplex links, plus builders for the standard
//! datacenter shapes (SPEC §4); their routing tables are `routes.rs`.
//!
//! A full-duplex link is two *ports*, one egress port at each end; port `p`'s `peer` is the port
//! at the other end of the same link. Everything downstream (queues, counters, events) is
//! indexed by port id, so a hop is an array access.

use nest_core::SimTime;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// Egress ports of this node.
    pub ports: Vec<u32>,
    /// Host index (position in `Topology::hosts`) for hosts; `u32::MAX` for switches.
    pub host: u32,
}

#[derive(Copy, Clone, Debug)]
pub struct PortSpec {
    pub node: u32,
    /// Node at the far end of the link.
    pub peer_node: u32,
    /// The far end's port on the same link (its egress back towards `node`).
    pub peer: u32,
    pub rate_bps: u64,
    pub delay: SimTime,
}

#[derive(Clone, Debug, Default)]
pub struct Topology {
    pub nodes: Vec<Node>,
    pub ports: Vec<PortSpec>,
    /// Node id of each host, in host-index order.
    pub hosts: Vec<u32>,
}

impl Topology {
    pub fn add_host(&mut self, name: &str) -> u32 {
        let host = self.hosts.len() as u32;
        let id = self.push(name, NodeKind::Host, host);
        self.hosts.push(id);
        id
    }

    pub fn add_switch(&mut self, name: &str) -> u32 {
        self.push(name, NodeKind::Switch, u32::MAX)
    }

    fn push(&mut self, name: &str, kind: NodeKind, host: u32) -> u32 {
        self.nodes.push(Node { name: name.to_string(), kind, ports: Vec::new(), host });
        (self.nodes.len() - 1) as u32
    }

    /// A full-duplex link between nodes `a` and `b`; returns (port at a, port at b).
    pub fn connect(&mut self, a: u32, b: u32, rate_bps: u64, delay: SimTime) -> (u32, u32) {
        let pa = self.ports.len() as u32;
        let pb = pa + 1;
        self.ports.push(PortSpec { node: a, peer_node: b, peer: pb, rate_bps, delay });
        self.ports.push(PortSpec { node: b, peer_node: a, peer: pa, rate_bps, delay });
        self.nodes[a as usize].ports.push(pa);
        self.nodes[b as usize].ports.push(pb);
        (pa, pb)
    }

    pub fn node_by_name(&self, name: &str) -> Option<u32> {
        self.nodes.iter().position(|n| n.name == name).map(|i| i as u32)
    }

    pub fn host_by_name(&self, name: &str) -> Option<u32> {
        self.node_by_name(name).and_then(|n| match self.nodes[n as usize].kind {
            NodeKind::Host => Some(self.nodes[n as usize].host),
            NodeKind::Switch => None,
        })
    }

    pub fn host_name(&self, host: u32) -> &str {
        &self.nodes[self.hosts[host as usize] as usize].name
    }

    /// The port from node `a` to node `b` (named), if a link joins them.
    pub fn port_between(&self, a: &str, b: &str) -> Option<u32> {
        let (a, b) = (self.node_by_name(a)?, self.node_by_name(b)?);
        self.nodes[a as usize].ports.iter().copied().find(|&p| self.ports[p as usize].peer_node == b)
    }

    pub fn is_switch(&self, node: u32) -> bool {
        self.nodes[node as usize].kind == NodeKind::Switch
    }

    /// `senders` hosts `s0…` and `receivers` hosts `r0…` on one switch `sw0`: the dumbbell /
    /// N-to-1 incast of the DCTCP and QTCP experiments (the receiver's link is the bottleneck).
    pub fn dumbbell(senders: u32, receivers: u32, rate_bps: u64, delay: SimTime) -> Topology {
        let mut t = Topology::default();
        let sw = t.add_switch("sw0");
        for i in 0..senders {
            let h = t.add_host(&format!("s{i}"));
            t.connect(h, sw, rate_bps, delay);
        }
        for i in 0..receivers {
            let h = t.add_host(&format!("r{i}"));
            t.connect(h, sw, rate_bps, delay);
        }
        t
    }

    /// The k-ary fat-tree (Al-Fares et al.; thesis Fig 4.8): k pods of k/2 edge and k/2
    /// aggregation switches, (k/2)² cores, k/2 hosts per edge switch — k³/4 hosts `h0…`.
    /// Edge switches are `e{pod}_{i}`, aggregation `a{pod}_{i}`, cores `c{i}`.
    pub fn fat_tree(k: u32, rate_bps: u64, delay: SimTime) -> Result<Topology, String> {
        if k < 2 || !k.is_multiple_of(2) {
            return Err(format!("fat-tree k must be an even number >= 2, got {k}"));
        }
        let half = k / 2;
        let mut t = Topology::default();
        let cores: Vec<u32> = (0..half * half).map(|i| t.add_switch(&format!("c{i}"))).collect();
        let mut host = 0;
        for pod in 0..k {
            let aggs: Vec<u32> = (0..half).map(|i| t.add_switch(&format!("a{pod}_{i}"))).collect();
            for i in 0..half {
                let e = t.add_switch(&format!("e{pod}_{i}"));
                for _ in 0..half {
                    let h = t.add_host(&format!("h{host}"));
                    host += 1;
                    t.connect(h, e, rate_bps, delay);
                }
                for &a in &aggs {
                    t.connect(e, a, rate_bps, delay);
                }
            }
            for (j, &a) in aggs.iter().enumerate() {
                for c in 0..half {
                    t.connect(a, cores[j * half as usize + c as usize], rate_bps, delay);
                }
            }
        }
        Ok(t)
    }

    /// Leaf-spine Clos as in SRC: `pods` pods, each with `leaves` leaf and `tors` ToR switches
    /// (every ToR on every leaf of its pod) and `hosts_per_tor` hosts; every leaf connects to
    /// every one of `spines` spines. Hosts are `h0…`, ToRs `t{pod}_{i}`, leaves `l{pod}_{i}`,
    /// spines `sp{i}`.
    pub fn clos(pods: u32, leaves: u32, tors: u32, hosts_per_tor: u32, spines: u32, rate_bps: u64, delay: SimTime) -> Result<Topology, String> {
        if pods == 0 || leaves == 0 || tors == 0 || hosts_per_tor == 0 {
            return Err("clos: pods, leaves, tors and hosts_per_tor must be positive".into());
        }
        if pods > 1 && spines == 0 {
            return Err("clos: more than one pod needs at least one spine".into());
        }
        let mut t = Topology::default();
        let sp: Vec<u32> = (0..spines).map(|i| t.add_switch(&format!("sp{i}"))).collect();
        let mut host = 0;
        for pod in 0..pods {
            let ls: Vec<u32> = (0..leaves).map(|i| t.add_switch(&format!("l{pod}_{i}"))).collect();
            for &l in &ls {
                for &s in &sp {
                    t.connect(l, s, rate_bps, delay);
                }
            }
            for i in 0..tors {
                let tor = t.add_switch(&format!("t{pod}_{i}"));
                for &l in &ls {
                    t.connect(tor, l, rate_bps, delay);
                }
                for _ in 0..hosts_per_tor {
                    let h = t.add_host(&format!("h{host}"));
                    host += 1;
                    t.connect(h, tor, rate_bps, delay);
                }
            }
        }
        Ok(t)
    }
}

pub use crate::routes::{ecmp_pick, Routes};
