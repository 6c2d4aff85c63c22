//! Each flow's path, remembered. A packet's next hop at a node depends only on the node, its
//! destination and its flow (ECMP hashes the flow), so a flow's packets in one direction take
//! the same ports at every hop until the routes change. Looking that up in the routing tables
//! costs a chain of dependent loads per hop (the destination's ToR, the node's row, its set of
//! ports: `Routes::next_hops` was ~9 % of a k = 16 or a 10,000-drive run, issue 24); a flow's
//! path fits in one cache line that all its packets share, and stays warm while it is busy.
//!
//! A direct-mapped table of lines, one per (flow, direction), grown with the flows seen up to
//! `MAX_LINES` (beyond that, flows share lines and a mismatch falls back to the tables). Each
//! line holds the (node, out port) pairs met so far, in path order; a path longer than `HOPS`
//! nodes looks its further hops up every time. The answer is exactly what the tables and
//! `ecmp_pick` give, so runs are unchanged; `clear` forgets every path when the routes change.

use crate::routes::{ecmp_pick, Routes};

/// Nodes remembered per path: a host and the five switches of a fat-tree's longest path.
const HOPS: usize = 6;
/// At most 2¹⁶ lines (4 MB).
const MAX_LINES: usize = 1 << 16;

#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line {
    flow: u32,
    dst: u32,
    len: u32,
    nodes: [u32; HOPS],
    outs: [u32; HOPS],
}

const EMPTY: Line = Line { flow: u32::MAX, dst: u32::MAX, len: 0, nodes: [0; HOPS], outs: [0; HOPS] };

#[derive(Default)]
pub(crate) struct PathCache {
    lines: Vec<Line>,
    /// Counts `clear`s: a hop remembered in a packet (`after`) holds only in the generation it
    /// was read in.
    gen: u32,
}

impl PathCache {
    /// The port a packet of `flow` from host `src` to host `dst` leaves `node` by, or `None`
    /// where the routes give no next hop (a failed link left no path).
    #[inline]
    pub(crate) fn next_port(&mut self, routes: &Routes, node: u32, flow: u32, src: u32, dst: u32) -> Option<u32> {
        let i = flow as usize * 2 + (src < dst) as usize;
        if i >= self.lines.len() && i < MAX_LINES {
            self.lines.resize((i + 1).next_power_of_two().max(64), EMPTY);
        }
        let mask = self.lines.len().wrapping_sub(1);
        let Some(line) = self.lines.get_mut(i & mask) else {
            return Self::look_up(routes, node, flow, dst); // no line yet (flows beyond MAX_LINES)
        };
        if line.flow == flow && line.dst == dst {
            let n = line.len as usize;
            if let Some(k) = line.nodes[..n].iter().position(|&x| x == node) {
                return Some(line.outs[k]);
            }
        } else {
            *line = Line { flow, dst, ..EMPTY };
        }
        let out = Self::look_up(routes, node, flow, dst)?;
        let n = line.len as usize;
        if n < HOPS {
            line.nodes[n] = node;
            line.outs[n] = out;
            line.len += 1;
        }
        Some(out)
    }

    /// The hop after `node` on the path remembered for `flow` from `src` to `dst`: (the next
    /// node, the port it leaves by), when the line holds both. A packet carries it to that
    /// node, which then need not read the line before it knows its out port: a dependent load
    /// fewer on each hop's critical path (the line is still read here, off that path).
    #[inline]
    pub(crate) fn after(&self, node: u32, flow: u32, src: u32, dst: u32) -> Option<(u32, u32)> {
        let i = flow as usize * 2 + (src < dst) as usize;
        let line = self.lines.get(i & self.lines.len().wrapping_sub(1))?;
        if line.flow != flow || line.dst != dst {
            return None;
        }
        let n = line.len as usize;
        let k = line.nodes[..n].iter().position(|&x| x == node)?;
        (k + 1 < n).then(|| (line.nodes[k + 1], line.outs[k + 1]))
    }

    #[inline]
    pub(crate) fn gen(&self) -> u32 {
        self.gen
    }

    #[inline]
    fn look_up(routes: &Routes, node: u32, flow: u32, dst: u32) -> Option<u32> {
        let hops = routes.next_hops(node, dst);
        (!hops.is_empty()).then(|| ecmp_pick(hops, flow, node))
    }

    /// Forgets every path (the routes changed).
    pub(crate) fn clear(&mut self) {
        self.lines.fill(EMPTY);
        self.gen = self.gen.wrapping_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;

    #[test]
    fn remembered_paths_are_the_tables_own_in_both_directions_and_after_a_clear() {
        let topo = Topology::fat_tree(4, 10_000_000_000, nest_core::SimTime::from_us(1)).unwrap();
        let routes = Routes::compute(&topo).unwrap();
        let mut c = PathCache::default();
        let hosts = topo.hosts.len() as u32;
        // Every flow twice (cold, then remembered), several flows per host pair, both ways.
        for round in 0..2 {
            for flow in 0..40u32 {
                let (src, dst) = (flow % hosts, (flow * 7 + 3) % hosts);
                if src == dst {
                    continue;
                }
                for (a, b) in [(src, dst), (dst, src)] {
                    let mut node = topo.hosts[a as usize];
                    let mut hops = 0;
                    while node != topo.hosts[b as usize] {
                        let want = ecmp_pick(routes.next_hops(node, b), flow, node);
                        assert_eq!(c.next_port(&routes, node, flow, a, b), Some(want), "round {round} flow {flow} at node {node}");
                        node = topo.ports[want as usize].peer_node;
                        hops += 1;
                    }
                    assert!(hops <= HOPS, "a k = 4 fat-tree path fits a line");
                }
            }
            c.clear();
        }
        assert!(c.lines.len() >= 80 && c.lines.len() <= 128, "lines grow with the flows seen: {}", c.lines.len());
    }

    #[test]
    fn the_hop_after_a_node_is_the_next_one_on_the_path_and_a_clear_ends_its_generation() {
        let topo = Topology::fat_tree(4, 10_000_000_000, nest_core::SimTime::from_us(1)).unwrap();
        let routes = Routes::compute(&topo).unwrap();
        let mut c = PathCache::default();
        let (flow, src, dst) = (3u32, 0u32, 15u32);
        // The path, hop by hop, as the tables give it (and the cache fills in).
        let mut path = Vec::new();
        let mut node = topo.hosts[src as usize];
        while node != topo.hosts[dst as usize] {
            assert_eq!(c.after(node, flow, src, dst), None, "nothing is known past the hops seen");
            let out = c.next_port(&routes, node, flow, src, dst).unwrap();
            path.push((node, out));
            node = topo.ports[out as usize].peer_node;
        }
        assert_eq!(path.len(), 6, "host, edge, aggregation, core, aggregation, edge");
        for w in path.windows(2) {
            assert_eq!(c.after(w[0].0, flow, src, dst), Some(w[1]));
        }
        assert_eq!(c.after(path[5].0, flow, src, dst), None, "the last switch has no hop after it");
        assert_eq!(c.after(path[0].0, flow + 1, src, dst), None, "another flow's line");
        let gen = c.gen();
        c.clear();
        assert_ne!(c.gen(), gen, "hops remembered before a clear are refused after it");
        assert_eq!(c.after(path[0].0, flow, src, dst), None);
    }

    #[test]
    fn flows_sharing_a_line_each_get_their_own_path() {
        let topo = Topology::fat_tree(4, 10_000_000_000, nest_core::SimTime::from_us(1)).unwrap();
        let routes = Routes::compute(&topo).unwrap();
        let mut c = PathCache::default();
        let edge = topo.ports[topo.nodes[topo.hosts[0] as usize].ports[0] as usize].peer_node;
        // A flow near the top grows the table to full size; then flows 2¹⁵ apart share a line.
        c.next_port(&routes, edge, (MAX_LINES as u32) / 2 - 1, 0, 15);
        let (f1, f2) = (1u32, 1 + (MAX_LINES as u32) / 2);
        for _ in 0..3 {
            for f in [f1, f2] {
                let want = ecmp_pick(routes.next_hops(edge, 15), f, edge);
                assert_eq!(c.next_port(&routes, edge, f, 0, 15), Some(want));
            }
        }
        assert_eq!(c.lines.len(), MAX_LINES);
    }
}
