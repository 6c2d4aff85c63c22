//! The fabric's graph: hosts, switches and full-duplex links, plus builders for the standard
//! datacenter shapes (SPEC §4) and shortest-path ECMP routing tables.
//!
//! A full-duplex link is two *ports*, one egress port at each end; port `p`'s `peer` is the port
//! at the other end of the same link. Everything downstream (queues, counters, events) is
//! indexed by port id, so a hop is an array access.

use nest_core::SimTime;
use std::collections::VecDeque;

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
        if k < 2 || k % 2 != 0 {
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

/// Shortest-path next hops for every (node, destination host): ECMP picks among them per flow.
#[derive(Clone, Debug, Default)]
pub struct Routes {
    hosts: usize,
    /// `start[node * hosts + dst] .. start[.. + 1]` indexes `ports`.
    start: Vec<u32>,
    ports: Vec<u32>,
}

impl Routes {
    /// Breadth-first search from every host; hosts never forward (a host is only ever the
    /// last hop). Fails when some host cannot reach another.
    pub fn compute(t: &Topology) -> Result<Routes, String> {
        let r = Routes::compute_avoiding(t, &[]);
        for (si, &s) in t.hosts.iter().enumerate() {
            for (di, &d) in t.hosts.iter().enumerate() {
                if si != di && r.next_hops(s, di as u32).is_empty() {
                    return Err(format!("host '{}' cannot reach host '{}'", t.nodes[s as usize].name, t.nodes[d as usize].name));
                }
            }
        }
        Ok(r)
    }

    /// The routes around the links whose ports are `down` (`down[port]`; empty: none): a host
    /// another cannot reach any more has no next hop towards it.
    pub fn compute_avoiding(t: &Topology, down: &[bool]) -> Routes {
        let up = |p: u32| !down.get(p as usize).copied().unwrap_or(false);
        let n = t.nodes.len();
        let h = t.hosts.len();
        let mut start = Vec::with_capacity(n * h + 1);
        let mut dists: Vec<Vec<u32>> = Vec::with_capacity(h);
        for &dst in &t.hosts {
            let mut dist = vec![u32::MAX; n];
            dist[dst as usize] = 0;
            let mut q = VecDeque::from([dst]);
            while let Some(u) = q.pop_front() {
                // Only the destination itself or switches relay towards it.
                if u != dst && !t.is_switch(u) {
                    continue;
                }
                for &p in &t.nodes[u as usize].ports {
                    let v = t.ports[p as usize].peer_node;
                    if dist[v as usize] == u32::MAX && up(p) {
                        dist[v as usize] = dist[u as usize] + 1;
                        q.push_back(v);
                    }
                }
            }
            dists.push(dist);
        }
        let mut ports = Vec::new();
        for u in 0..n {
            for (di, &dst) in t.hosts.iter().enumerate() {
                start.push(ports.len() as u32);
                let d = dists[di][u];
                if u as u32 == dst || d == u32::MAX {
                    continue;
                }
                for &p in &t.nodes[u].ports {
                    let v = t.ports[p as usize].peer_node;
                    if up(p) && dists[di][v as usize] != u32::MAX && dists[di][v as usize] + 1 == d && (v == dst || t.is_switch(v)) {
                        ports.push(p);
                    }
                }
            }
        }
        start.push(ports.len() as u32);
        Routes { hosts: h, start, ports }
    }

    /// Equal-cost next-hop ports from `node` towards host `dst`.
    #[inline]
    pub fn next_hops(&self, node: u32, dst: u32) -> &[u32] {
        let i = node as usize * self.hosts + dst as usize;
        &self.ports[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// Hop count of a path from host node `src` to host `dst` (following any next hop).
    pub fn hops(&self, t: &Topology, src_host: u32, dst: u32) -> u32 {
        let mut node = t.hosts[src_host as usize];
        let target = t.hosts[dst as usize];
        let mut hops = 0;
        while node != target {
            let p = self.next_hops(node, dst)[0];
            node = t.ports[p as usize].peer_node;
            hops += 1;
        }
        hops
    }
}

/// ECMP: a stable per-(flow, switch) choice, so a flow keeps one path (no reordering) and
/// different flows spread.
#[inline]
pub fn ecmp_pick(choices: &[u32], flow: u32, node: u32) -> u32 {
    if choices.len() == 1 {
        return choices[0];
    }
    let mut z = ((flow as u64) << 32 | node as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    choices[(z % choices.len() as u64) as usize]
}
