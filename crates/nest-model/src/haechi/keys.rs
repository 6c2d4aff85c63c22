//! Which data node a request goes to, with several data nodes (Haechi's future work, §V): a
//! client reads a record drawn from the key distribution (uniform, or YCSB's Zipfian), and the
//! record lives on the node its partitioning says. Each client has its own stream of draws.
//!
//! Each node runs Haechi on its own (its monitor, pool and capacity estimate), so a client's
//! reservation and limit are split over the nodes by its expected share of requests at each —
//! the exact share of the key distribution, summed over every record at the start. That is
//! what a client that knows its access pattern would reserve; a skewed placement then shows up
//! as one node's reservations exceeding what it can do (admission control's global bound).

use super::spec::{KeyDist, KeysSpec, Partition};
use nest_core::rng::RngStream;
use nest_workload::zipf::Zipf;

/// Scrambles a record number (splitmix64's finaliser), as a hashed key space does.
fn scramble(k: u64) -> u64 {
    let mut z = k.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub struct Placement {
    nodes: u64,
    records: u64,
    partition: Partition,
    zipf: Option<Zipf>,
    /// Per client, its stream of draws.
    rngs: Vec<RngStream>,
    /// The expected share of requests at each node.
    pub shares: Vec<f64>,
}

impl Placement {
    pub fn new(keys: &KeysSpec, nodes: u32, clients: usize, seed: u64) -> Result<Placement, String> {
        let zipf = match keys.dist {
            KeyDist::Uniform => None,
            KeyDist::Zipf => Some(Zipf::new(keys.records, keys.theta).map_err(|e| format!("keys: {e}"))?),
        };
        let rngs = (0..clients).map(|c| RngStream::derive(seed, "haechi-client", c as u64, "keys")).collect();
        let mut p = Placement { nodes: nodes as u64, records: keys.records, partition: keys.partition, zipf, rngs, shares: Vec::new() };
        p.shares = p.expected_shares(keys);
        Ok(p)
    }

    /// The node holding record `k` (0 the hottest under Zipf).
    pub fn node_of(&self, k: u64) -> usize {
        (match self.partition {
            Partition::Hash => scramble(k) % self.nodes,
            Partition::Range => (k as u128 * self.nodes as u128 / self.records as u128) as u64,
        }) as usize
    }

    fn expected_shares(&self, keys: &KeysSpec) -> Vec<f64> {
        let mut w = vec![0.0; self.nodes as usize];
        if self.nodes == 1 {
            return vec![1.0];
        }
        for k in 0..self.records {
            w[self.node_of(k)] += match keys.dist {
                KeyDist::Uniform => 1.0,
                KeyDist::Zipf => ((k + 1) as f64).powf(-keys.theta),
            };
        }
        let sum: f64 = w.iter().sum();
        w.iter().map(|x| x / sum).collect()
    }

    /// The node client `c`'s next request goes to. With one node nothing is drawn.
    pub fn draw(&mut self, c: usize) -> usize {
        if self.nodes == 1 {
            return 0;
        }
        let rng = &mut self.rngs[c];
        let k = match &self.zipf {
            None => rng.below(self.records),
            Some(z) => z.sample(rng) - 1,
        };
        self.node_of(k)
    }

    /// `total` (a reservation or limit per period) split over the nodes by the shares, in whole
    /// I/Os that add up to `total` (the remainder goes to the largest shares first).
    pub fn split(&self, total: u64) -> Vec<u64> {
        let mut parts: Vec<u64> = self.shares.iter().map(|s| (total as f64 * s).floor() as u64).collect();
        let left = total - parts.iter().sum::<u64>().min(total);
        let mut order: Vec<usize> = (0..parts.len()).collect();
        order.sort_by(|&a, &b| self.shares[b].total_cmp(&self.shares[a]).then(a.cmp(&b)));
        for &i in order.iter().cycle().take(left as usize) {
            parts[i] += 1;
        }
        parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(dist: KeyDist, partition: Partition, records: u64) -> KeysSpec {
        KeysSpec { records, dist, theta: 0.99, partition }
    }

    #[test]
    fn draws_follow_the_expected_shares() {
        for (dist, part) in [(KeyDist::Uniform, Partition::Hash), (KeyDist::Zipf, Partition::Hash), (KeyDist::Zipf, Partition::Range)] {
            let mut p = Placement::new(&keys(dist, part, 100_000), 4, 1, 7).unwrap();
            let n = 200_000;
            let mut seen = [0u64; 4];
            for _ in 0..n {
                seen[p.draw(0)] += 1;
            }
            for (j, s) in p.shares.iter().enumerate() {
                let f = seen[j] as f64 / n as f64;
                assert!((f - s).abs() < 0.01, "{dist:?} {part:?} node {j}: drawn {f:.4}, expected {s:.4}");
            }
        }
    }

    #[test]
    fn a_range_partition_puts_the_hot_records_on_the_first_node() {
        let p = Placement::new(&keys(KeyDist::Zipf, Partition::Range, 1_000_000), 2, 1, 1).unwrap();
        // H(500 K, 0.99) / H(1 M, 0.99): about 0.95 of the requests.
        assert!(p.shares[0] > 0.9 && p.shares[0] < 0.97, "{:?}", p.shares);
        let h = Placement::new(&keys(KeyDist::Zipf, Partition::Hash, 1_000_000), 2, 1, 1).unwrap();
        assert!((h.shares[0] - 0.5).abs() < 0.1, "hashed, the hot records spread: {:?}", h.shares);
        let u = Placement::new(&keys(KeyDist::Uniform, Partition::Range, 1_000_000), 4, 1, 1).unwrap();
        assert!(u.shares.iter().all(|s| (s - 0.25).abs() < 1e-9), "{:?}", u.shares);
    }

    #[test]
    fn a_split_adds_up_and_follows_the_shares() {
        let p = Placement::new(&keys(KeyDist::Zipf, Partition::Range, 1_000), 3, 1, 1).unwrap();
        for total in [0, 1, 2, 7, 236_000, 1_413_000] {
            let parts = p.split(total);
            assert_eq!(parts.iter().sum::<u64>(), total);
            assert!(parts[0] >= parts[1] && parts[1] >= parts[2], "{parts:?}");
        }
        let one = Placement::new(&KeysSpec::default(), 1, 2, 1).unwrap();
        assert_eq!(one.split(141_300), vec![141_300]);
    }
}
