//! Flash resources per address domain. MQSim gives each flow the channels, chips, dies and
//! planes its workload names (`Channel_IDs`, `Chip_IDs`, `Die_IDs`, `Plane_IDs`) and stripes the
//! flow's pages, and its translation pages, over those alone, counting from the flow's first
//! address (`src/ssd/Address_Mapping_Unit_Page_Level.cpp:987-1030, 1198-1201`). Flows on
//! disjoint resources are isolated on the flash; flows sharing a plane share its blocks and GC.

use crate::divisor::Div64;

/// A domain as a scenario gives it: its first byte and its channel, chip, die and plane ids.
#[derive(Clone, Debug, PartialEq)]
pub struct DomainResources {
    pub start: u64,
    pub ids: [Vec<u32>; 4],
}

/// One domain: its first logical page and the resources it stripes over.
#[derive(Clone, Debug)]
pub struct Domain {
    pub first_lpa: u64,
    /// Its logical pages: each of its planes' share of the drive's, a plane shared by `k`
    /// domains giving each `1/k` (MQSim's `Allocate_logical_address_for_flows`,
    /// `src/utils/Logical_Address_Partitioning_Unit.cpp:129-145`), and at most up to the next
    /// domain's first page.
    pub pages: u64,
    /// Channel, chip (way), die and plane ids, in that order.
    pub ids: [Vec<u32>; 4],
    /// The id lists' lengths as divisors, in the allocation order.
    bases: [Div64; 4],
}

/// The domains of a drive, by first logical page, and its geometry.
#[derive(Clone, Debug)]
pub struct Domains {
    list: Vec<Domain>,
    order: [u8; 4],
    dims: [u32; 4],
}

impl Domains {
    /// `starts[i]` is domain `i`'s first logical page (rising, the first 0) and `ids[i]` its
    /// resources; `order` the static allocation's digit order (first varying fastest) and
    /// `dims` the drive's channels, chips per channel, dies per chip and planes per die. The
    /// caller checked that every id list is non-empty and within `dims`.
    /// `logical_pages` is the drive's.
    pub fn new(starts: &[u64], ids: &[[Vec<u32>; 4]], order: [u8; 4], dims: [u32; 4], logical_pages: u64) -> Self {
        let planes = dims.iter().product::<u32>();
        let plane_of = |c: u32, w: u32, d: u32, p: u32| (((c * dims[1] + w) * dims[2] + d) * dims[3] + p) as usize;
        let each = |ids: &[Vec<u32>; 4], f: &mut dyn FnMut(usize)| {
            for &c in &ids[0] {
                for &w in &ids[1] {
                    for &d in &ids[2] {
                        for &p in &ids[3] {
                            f(plane_of(c, w, d, p));
                        }
                    }
                }
            }
        };
        let mut sharers = vec![0u32; planes as usize];
        ids.iter().for_each(|i| each(i, &mut |p| sharers[p] += 1));
        let per_plane = logical_pages as f64 / planes as f64;
        let list = starts
            .iter()
            .zip(ids)
            .enumerate()
            .map(|(i, (&first_lpa, ids))| {
                let mut share = 0.0;
                each(ids, &mut |p| share += per_plane / sharers[p] as f64);
                let end = starts.get(i + 1).copied().unwrap_or(logical_pages).min(logical_pages);
                let pages = (share as u64).min(end.saturating_sub(first_lpa));
                Domain { first_lpa, pages, ids: ids.clone(), bases: order.map(|k| Div64::new(ids[k as usize].len() as u64)) }
            })
            .collect();
        Domains { list, order, dims }
    }

    /// The domains, by first logical page.
    pub fn list(&self) -> &[Domain] {
        &self.list
    }

    /// The domain logical page `lpa` belongs to: the last one starting at or below it.
    #[inline]
    pub fn of(&self, lpa: u64) -> &Domain {
        let i = self.list.partition_point(|d| d.first_lpa <= lpa);
        &self.list[i.saturating_sub(1)]
    }

    /// The plane user page `lpa` maps to: its offset in its domain striped over the domain's ids.
    #[inline]
    pub fn data_plane(&self, lpa: u64) -> u32 {
        let d = self.of(lpa);
        self.plane_in(d, lpa - d.first_lpa)
    }

    /// The plane translation page `tp` (of `entries` mapping entries) lives on: numbered from
    /// its domain's first translation page, as MQSim numbers each domain's own.
    #[inline]
    pub fn map_plane(&self, tp: u64, entries: u64) -> u32 {
        let d = self.of(tp * entries);
        self.plane_in(d, tp - d.first_lpa / entries)
    }

    /// The static scheme over domain `d`'s resources: `x`'s digits in the allocation order,
    /// each picking an id from its list.
    #[inline]
    fn plane_in(&self, d: &Domain, x: u64) -> u32 {
        let (mut ids, mut rest) = ([0u32; 4], x);
        for (&k, base) in self.order.iter().zip(&d.bases) {
            ids[k as usize] = d.ids[k as usize][base.remainder(rest) as usize];
            rest = base.quotient(rest);
        }
        let [c, w, die, p] = ids;
        ((c * self.dims[1] + w) * self.dims[2] + die) * self.dims[3] + p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A drive of 8 channels × 4 chips × 2 dies × 2 planes; CWDP.
    fn two_flows() -> Domains {
        let half = |lo: u32| [(lo..lo + 4).collect(), (0..4).collect(), vec![0, 1], vec![0, 1]];
        Domains::new(&[0, 1000], &[half(0), half(4)], [0, 1, 2, 3], [8, 4, 2, 2], 2000)
    }

    #[test]
    fn each_domain_stripes_its_pages_from_its_own_first_page_over_its_own_channels() {
        let d = two_flows();
        let channel = |plane: u32| plane / 16;
        // CWDP: consecutive pages go round the domain's four channels.
        assert_eq!((0..8).map(|x| channel(d.data_plane(x))).collect::<Vec<_>>(), vec![0, 1, 2, 3, 0, 1, 2, 3]);
        assert_eq!((1000..1008).map(|x| channel(d.data_plane(x))).collect::<Vec<_>>(), vec![4, 5, 6, 7, 4, 5, 6, 7]);
        // Page 1000 is the second domain's page 0: channel 4, chip 0, die 0, plane 0.
        assert_eq!(d.data_plane(1000), 4 * 16);
        assert!((0..1000).all(|x| channel(d.data_plane(x)) < 4) && (1000..5000).all(|x| channel(d.data_plane(x)) >= 4));
        // Every plane of the first half is used, none of the second.
        let mut used = [false; 128];
        (0..1000).for_each(|x| used[d.data_plane(x) as usize] = true);
        assert!(used[..64].iter().all(|&u| u) && used[64..].iter().all(|&u| !u));
    }

    #[test]
    fn a_domain_holds_its_planes_share_of_the_logical_pages() {
        assert_eq!(two_flows().list().iter().map(|d| d.pages).collect::<Vec<_>>(), vec![1000, 1000]);
        // One flow on a quarter of the channels: a quarter of the drive.
        let quarter = [vec![0, 1], (0..4).collect(), vec![0, 1], vec![0, 1]];
        let one = Domains::new(&[0], std::slice::from_ref(&quarter), [0, 1, 2, 3], [8, 4, 2, 2], 4096);
        assert_eq!(one.list()[0].pages, 1024);
        // Two flows on the same half share its planes: half of that half each.
        let both = Domains::new(&[0, 512], &[quarter.clone(), quarter], [0, 1, 2, 3], [8, 4, 2, 2], 4096);
        assert_eq!(both.list().iter().map(|d| d.pages).collect::<Vec<_>>(), vec![512, 512]);
    }

    #[test]
    fn a_domains_translation_pages_count_from_its_first() {
        let d = two_flows();
        // 100 entries per translation page: the second domain's first is page 10, its page 0.
        assert_eq!(d.map_plane(10, 100), d.data_plane(1000));
        assert_eq!(d.map_plane(11, 100), d.data_plane(1001));
        assert_eq!(d.map_plane(3, 100), d.data_plane(3));
    }
}
