//! Shortest-path ECMP routing tables.
//!
//! Every host of the standard shapes (dumbbell, fat-tree, Clos) hangs off one switch, its ToR.
//! Then the next hops towards a host depend only on its ToR — except at the ToR itself, where the
//! next hop is the port down to the host — so the table is kept per (node, ToR): for a k = 16
//! fat-tree 1,344 × 128 two-byte entries instead of 1,344 × 1,024 four-byte ones plus the port
//! lists, each naming one of the node's distinct next-hop sets (an edge switch has two: "up" and
//! nothing), stored once. The table then mostly stays in
//! cache on the packet-arrival path, where a per-host table's two loads were a third of it
//! (issue 24). A topology where some host has several links, or links to another host, keeps the
//! per-host table. Both give the same next hops in the same order, so ECMP picks the same port.

use crate::topology::Topology;
use std::collections::VecDeque;

/// Shortest-path next hops for every (node, destination host): ECMP picks among them per flow.
#[derive(Clone, Debug, Default)]
pub struct Routes {
    hosts: usize,
    /// Per ToR (`Some`) or per host (`None`) table.
    tor: Option<TorTable>,
    /// The per-host table: `start[node * hosts + dst] .. start[.. + 1]` indexes `ports`.
    start: Vec<u32>,
    ports: Vec<u32>,
}

#[derive(Clone, Debug, Default)]
struct TorTable {
    /// Each host's node, ToR (an index into the ToRs) and the ToR's port down to it (in a
    /// one-element slice's storage: `down_port[h]`; `u32::MAX` when its link is down).
    host_node: Vec<u32>,
    host_tor: Vec<u32>,
    down_port: Vec<u32>,
    /// The ToRs' nodes, in ToR order.
    tor_nodes: Vec<u32>,
    /// Per node: the one set that leads to every ToR but its own (hosts, and the ToRs of a
    /// fat-tree or Clos: "up"), or `MIXED`. Such a node needs no row in `entry`: 1,152 of a
    /// k = 16 fat-tree's 1,344 nodes, so the rows left (49 KB) stay in cache on the
    /// packet-arrival path.
    uniform: Vec<u16>,
    /// `entry[row[node] * tors + tor]` for a `MIXED` node: which of its distinct next-hop sets
    /// leads to the ToR (`THE_TOR` at the ToR itself).
    row: Vec<u32>,
    entry: Vec<u16>,
    /// `node_sets[node]`: where the node's sets start in `ranges`.
    node_sets: Vec<u32>,
    /// (offset, length) of each set in `sets`.
    ranges: Vec<(u32, u32)>,
    /// Every node's distinct next-hop sets, concatenated.
    sets: Vec<u32>,
}

/// The entry of a ToR towards itself: the next hop is the port down to the host.
const THE_TOR: u16 = u16::MAX;
/// A node whose sets differ by ToR (it keeps a row of `entry`).
const MIXED: u16 = u16::MAX - 1;

impl Routes {
    /// Breadth-first search towards every destination; hosts never forward (a host is only ever
    /// the last hop). Fails when some host cannot reach another.
    pub fn compute(t: &Topology) -> Result<Routes, String> {
        let r = Routes::compute_avoiding(t, &[]);
        // The searches stop early past the build's wall deadline (`--max-wall`): the tables are
        // then incomplete, and the build stops with them.
        if nest_core::deadline::passed() {
            return Err(format!("stopped while computing the routes of {} nodes (the wall-time budget ran out)", t.nodes.len()));
        }
        if let Some((s, d)) = r.unreachable(t) {
            return Err(format!("host '{}' cannot reach host '{}'", t.nodes[t.hosts[s as usize] as usize].name, t.nodes[t.hosts[d as usize] as usize].name));
        }
        Ok(r)
    }

    /// A pair of hosts (indices) the first of which cannot reach the second, if any. Per ToR it
    /// is enough to look at every ToR towards every other ToR (a host reaches its own ToR by
    /// construction): a 200,000-host dumbbell is one ToR, not 4·10¹⁰ pairs.
    fn unreachable(&self, t: &Topology) -> Option<(u32, u32)> {
        let Some(tt) = &self.tor else {
            let h = t.hosts.len() as u32;
            return (0..h).flat_map(|s| (0..h).map(move |d| (s, d))).find(|&(s, d)| s != d && self.next_hops(t.hosts[s as usize], d).is_empty());
        };
        // One host under each ToR stands for all of them.
        let mut under = vec![u32::MAX; tt.tor_nodes.len()];
        for (h, &tor) in tt.host_tor.iter().enumerate() {
            if under[tor as usize] == u32::MAX {
                under[tor as usize] = h as u32;
            }
        }
        let tor_node = |i: usize| t.ports[t.nodes[t.hosts[under[i] as usize] as usize].ports[0] as usize].peer_node;
        for a in 0..tt.tor_nodes.len() {
            for b in 0..tt.tor_nodes.len() {
                if a != b && self.next_hops(tor_node(a), under[b]).is_empty() {
                    return Some((under[a], under[b]));
                }
            }
        }
        None
    }

    /// The routes around the links whose ports are `down` (`down[port]`; empty: none): a host
    /// another cannot reach any more has no next hop towards it.
    pub fn compute_avoiding(t: &Topology, down: &[bool]) -> Routes {
        match tors_of(t).and_then(|tors| tor_table(t, down, tors)) {
            Some(tt) => Routes { hosts: t.hosts.len(), tor: Some(tt), start: Vec::new(), ports: Vec::new() },
            None => per_host(t, down),
        }
    }

    /// Bytes the tables of `t` take while they are computed and kept (an estimate, for the
    /// memory check before a run): per ToR, two bytes a (node, ToR) and the search's distances;
    /// per host, a start and a few ports a (node, host) and a distance each.
    pub fn estimated_bytes(t: &Topology) -> u64 {
        let (nodes, hosts) = (t.nodes.len() as u64, t.hosts.len() as u64);
        match tors_of(t) {
            Some((tors, _)) => nodes * tors.len() as u64 * 2 + nodes * 4 + hosts * 16,
            None => nodes * hosts * 12,
        }
    }

    /// Equal-cost next-hop ports from `node` towards host `dst`.
    #[inline]
    pub fn next_hops(&self, node: u32, dst: u32) -> &[u32] {
        match &self.tor {
            Some(tt) => {
                let h = dst as usize;
                let tor = tt.host_tor[h];
                if node == tt.host_node[h] {
                    return &[];
                }
                let u = tt.uniform[node as usize];
                let e = if u != MIXED {
                    if tt.tor_nodes[tor as usize] == node {
                        THE_TOR
                    } else {
                        u
                    }
                } else {
                    tt.entry[tt.row[node as usize] as usize * tt.tor_nodes.len() + tor as usize]
                };
                if e == THE_TOR {
                    // `node` is the ToR: the port down to the host, unless its link is down.
                    let p = &tt.down_port[h..h + 1];
                    return if p[0] == u32::MAX { &[] } else { p };
                }
                let (off, len) = tt.ranges[tt.node_sets[node as usize] as usize + e as usize];
                &tt.sets[off as usize..(off + len) as usize]
            }
            None => {
                let i = node as usize * self.hosts + dst as usize;
                &self.ports[self.start[i] as usize..self.start[i + 1] as usize]
            }
        }
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

/// Each host's ToR (the one switch it links to), and the ToRs in node order — or `None` when
/// some host has several links or links to a host.
fn tors_of(t: &Topology) -> Option<(Vec<u32>, Vec<u32>)> {
    let mut tor_nodes: Vec<u32> = Vec::new();
    let mut host_tor_node = Vec::with_capacity(t.hosts.len());
    for &h in &t.hosts {
        let ports = &t.nodes[h as usize].ports;
        if ports.len() != 1 || !t.is_switch(t.ports[ports[0] as usize].peer_node) {
            return None;
        }
        let tor = t.ports[ports[0] as usize].peer_node;
        host_tor_node.push(tor);
        tor_nodes.push(tor);
    }
    tor_nodes.sort_unstable();
    tor_nodes.dedup();
    Some((tor_nodes, host_tor_node))
}

fn tor_table(t: &Topology, down: &[bool], (tor_nodes, host_tor_node): (Vec<u32>, Vec<u32>)) -> Option<TorTable> {
    let up = |p: u32| !down.get(p as usize).copied().unwrap_or(false);
    let n = t.nodes.len();
    let tors = tor_nodes.len();
    let host_tor: Vec<u32> = host_tor_node.iter().map(|tn| tor_nodes.binary_search(tn).expect("listed") as u32).collect();
    // Each host's port at its ToR, from one pass over the ToRs' ports (a ToR may have hundreds
    // of thousands: a search per host would be quadratic).
    let mut host_of_node = vec![u32::MAX; n];
    for (i, &h) in t.hosts.iter().enumerate() {
        host_of_node[h as usize] = i as u32;
    }
    let mut down_port = vec![u32::MAX; t.hosts.len()];
    for &tor in &tor_nodes {
        for &p in &t.nodes[tor as usize].ports {
            let i = host_of_node[t.ports[p as usize].peer_node as usize];
            if i != u32::MAX && host_tor_node[i as usize] == tor && up(p) {
                down_port[i as usize] = p;
            }
        }
    }
    let mut entry = vec![0u16; n * tors];
    let mut sets: Vec<u32> = Vec::new();
    // Per node: its distinct sets so far (offset, length), in the order of their ids.
    let mut seen: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
    // Per node: the id it took last. ToRs come pod by pod, so a node's set towards the next ToR
    // is most often the one towards this one: checked first, it spares the scan over the node's
    // sets (94 on a k = 94 fat-tree's cores, 4,418 ToRs each: 134 s of validation before).
    let mut last = vec![0usize; n];
    let mut dist = vec![u32::MAX; n];
    let mut q = VecDeque::new();
    let mut set = Vec::new();
    for (ti, &tor) in tor_nodes.iter().enumerate() {
        if ti % 16 == 0 && nest_core::deadline::passed() {
            break; // `compute` reports it
        }
        distances(t, tor, &up, &mut dist, &mut q);
        for u in 0..n {
            let slot = &mut entry[u * tors + ti];
            if u as u32 == tor {
                *slot = THE_TOR;
                continue;
            }
            set.clear();
            let d = dist[u];
            if d != u32::MAX {
                for &p in &t.nodes[u].ports {
                    let v = t.ports[p as usize].peer_node;
                    if up(p) && t.is_switch(v) && dist[v as usize] != u32::MAX && dist[v as usize] + 1 == d {
                        set.push(p);
                    }
                }
            }
            let is = |&(off, len): &(u32, u32)| sets[off as usize..(off + len) as usize] == set[..];
            let known = seen[u].get(last[u]).filter(|e| is(e)).map(|_| last[u]).or_else(|| seen[u].iter().position(is));
            let id = match known {
                Some(id) => id,
                None => {
                    seen[u].push((sets.len() as u32, set.len() as u32));
                    sets.extend_from_slice(&set);
                    seen[u].len() - 1
                }
            };
            if id >= MIXED as usize {
                return None; // a node with 65,534 distinct next-hop sets: the per-host table
            }
            last[u] = id;
            *slot = id as u16;
        }
    }
    let mut node_sets = Vec::with_capacity(n);
    let mut ranges = Vec::new();
    for s in seen {
        node_sets.push(ranges.len() as u32);
        ranges.extend(s);
    }
    // Rows that name one set for every other ToR collapse to that set.
    let (mut uniform, mut row, mut kept) = (vec![MIXED; n], vec![u32::MAX; n], Vec::new());
    for u in 0..n {
        let r = &entry[u * tors..(u + 1) * tors];
        let mut others = r.iter().copied().filter(|&e| e != THE_TOR);
        match others.next() {
            Some(first) if others.all(|e| e == first) => uniform[u] = first,
            _ => {
                row[u] = (kept.len() / tors) as u32;
                kept.extend_from_slice(r);
            }
        }
    }
    Some(TorTable { host_node: t.hosts.clone(), host_tor, down_port, tor_nodes, uniform, row, entry: kept, node_sets, ranges, sets })
}

/// Hop counts to node `to` over the links `up` lets through, into `dist` (`u32::MAX`:
/// unreachable). Only `to` itself and switches relay: a host is only ever a path's last hop.
fn distances(t: &Topology, to: u32, up: &impl Fn(u32) -> bool, dist: &mut [u32], q: &mut VecDeque<u32>) {
    dist.iter_mut().for_each(|d| *d = u32::MAX);
    dist[to as usize] = 0;
    q.push_back(to);
    while let Some(u) = q.pop_front() {
        if u != to && !t.is_switch(u) {
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
}

/// The per-host table: a breadth-first search from every host.
fn per_host(t: &Topology, down: &[bool]) -> Routes {
    let up = |p: u32| !down.get(p as usize).copied().unwrap_or(false);
    let n = t.nodes.len();
    let h = t.hosts.len();
    let mut start = Vec::with_capacity(n * h + 1);
    let mut dists: Vec<Vec<u32>> = Vec::with_capacity(h);
    let mut q = VecDeque::new();
    for (i, &dst) in t.hosts.iter().enumerate() {
        if i % 16 == 0 && nest_core::deadline::passed() {
            // `compute` reports it; no host is reachable in what is returned.
            return Routes { hosts: h, tor: None, start: vec![0; n * h + 1], ports: Vec::new() };
        }
        let mut dist = vec![u32::MAX; n];
        distances(t, dst, &up, &mut dist, &mut q);
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
    Routes { hosts: h, tor: None, start, ports }
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

#[cfg(test)]
mod tests {
    use super::*;
    use nest_core::SimTime;

    /// The per-ToR table gives every (node, host) the per-host table's next hops, in order.
    fn same_as_per_host(t: &Topology, down: &[bool]) {
        let a = Routes::compute_avoiding(t, down);
        assert!(a.tor.is_some(), "the shape has single-homed hosts");
        let b = per_host(t, down);
        for u in 0..t.nodes.len() as u32 {
            for d in 0..t.hosts.len() as u32 {
                assert_eq!(a.next_hops(u, d), b.next_hops(u, d), "node {} → host {d}", t.nodes[u as usize].name);
            }
        }
    }

    #[test]
    fn the_per_tor_table_routes_as_the_per_host_one() {
        let us = SimTime::from_us(1);
        same_as_per_host(&Topology::dumbbell(3, 2, 10, us), &[]);
        let ft = Topology::fat_tree(4, 10, us).unwrap();
        same_as_per_host(&ft, &[]);
        same_as_per_host(&Topology::clos(2, 2, 2, 2, 2, 10, us).unwrap(), &[]);
        // With links down: an edge uplink, and a host's own link.
        let mut down = vec![false; ft.ports.len()];
        let e = ft.node_by_name("e0_0").unwrap();
        let up = ft.nodes[e as usize].ports.iter().copied().find(|&p| ft.is_switch(ft.ports[p as usize].peer_node)).unwrap();
        for p in [up, ft.ports[up as usize].peer] {
            down[p as usize] = true;
        }
        same_as_per_host(&ft, &down);
        let h = ft.hosts[5];
        let hp = ft.nodes[h as usize].ports[0];
        for p in [hp, ft.ports[hp as usize].peer] {
            down[p as usize] = true;
        }
        let a = Routes::compute_avoiding(&ft, &down);
        // Towards the cut-off host only its ToR differs: the per-host table has no route anywhere,
        // the per-ToR one leads to the ToR, which has none (the packet is dropped there).
        let tor = ft.ports[hp as usize].peer_node;
        assert!(a.next_hops(tor, 5).is_empty() && a.next_hops(h, 0).is_empty());
    }

    #[test]
    fn a_multi_homed_host_keeps_the_per_host_table() {
        let mut t = Topology::default();
        let (a, b) = (t.add_host("a"), t.add_host("b"));
        let (s1, s2) = (t.add_switch("s1"), t.add_switch("s2"));
        for s in [s1, s2] {
            t.connect(a, s, 10, SimTime::from_us(1));
            t.connect(b, s, 10, SimTime::from_us(1));
        }
        let r = Routes::compute(&t).unwrap();
        assert!(r.tor.is_none());
        assert_eq!(r.next_hops(a, 1).len(), 2, "a reaches b through either switch");
    }
}
