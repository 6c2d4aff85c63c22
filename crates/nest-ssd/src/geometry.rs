//! Addresses: plane, die, chip and channel ids, physical page addresses (PPA), and the static
//! allocation of logical pages to planes.
//!
//! Ids are dense: plane = ((channel·W + chip)·D + die)·P + plane-in-die, die = plane / P,
//! chip = die / D, channel = chip / W. A block id is plane·B + block-in-plane; a PPA is
//! block·pages_per_block + page. Dense ids let every per-component table be a `Vec`.

use crate::divisor::{Div32, Div64};
use crate::domains::{DomainResources, Domains};
use crate::params::{Allocation, Geometry};

pub const NONE: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct Layout {
    /// Channels, chips per channel (ways), dies per chip, planes per die.
    pub dims: [u32; 4],
    pub planes: u32,
    pub dies: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_size: u32,
    order: [u8; 4],
    /// The static scheme's digit bases in `order` (channels per set, ways, dies, planes) as
    /// divisors: with powers of two (the usual geometry) `x`'s digits are bit fields, taken
    /// with shifts and masks instead of four 64-bit divisions per allocation (`plane_in_set`).
    digit_bases: [Div64; 4],
    /// Planes per die, dies per chip, dies per channel, pages per block, blocks per plane and
    /// the page size as divisors: the id conversions below run on every address.
    per_die: Div32,
    per_chip: Div32,
    per_channel: Div32,
    per_block: Div32,
    per_plane: Div32,
    pub page: Div64,
    /// NVM sets and the logical pages of each (`with_sets`): an equal LBA range per set.
    pub sets: u32,
    pub set_lpas: u64,
    /// Channel groups the sets live on: `sets` when each set owns its own channels, 1 when
    /// the sets share every die (address ranges of one drive, as PLMC's MQSim set-up).
    pub groups: u32,
    /// Address domains on resources of their own (`with_domains`): they place user and
    /// translation pages instead of the sets.
    pub domains: Option<Box<Domains>>,
}

impl Layout {
    pub fn new(g: &Geometry, alloc: &Allocation) -> Self {
        let order = match alloc {
            Allocation::Static(o) => *o,
            Allocation::Dynamic => [0, 1, 2, 3],
        };
        Layout {
            dims: [g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die],
            planes: g.planes(),
            dies: g.dies(),
            blocks_per_plane: g.blocks_per_plane,
            pages_per_block: g.pages_per_block,
            page_size: g.page_size,
            order,
            digit_bases: [Div64::new(1); 4],
            per_die: Div32::new(g.planes_per_die),
            per_chip: Div32::new(g.dies_per_chip),
            per_channel: Div32::new(g.dies_per_chip * g.chips_per_channel),
            per_block: Div32::new(g.pages_per_block),
            per_plane: Div32::new(g.blocks_per_plane),
            page: Div64::new(g.page_size as u64),
            sets: 1,
            set_lpas: u64::MAX,
            groups: 1,
            domains: None,
        }
        .with_digit_bases()
    }

    /// Sets `digit_bases` for the current number of channel groups.
    fn with_digit_bases(mut self) -> Self {
        let cps = self.dims[0] / self.groups;
        self.digit_bases = self.order.map(|k| Div64::new(if k == 0 { cps } else { self.dims[k as usize] } as u64));
        self
    }

    /// The drive split into `sets` NVM sets of `logical_pages / sets` logical pages each. With
    /// `share_dies` false set `s` owns channels `s·C/sets ..` (the caller checked that `sets`
    /// divides C); with it true every set's pages are striped over the whole drive, so the sets
    /// share dies, channels and GC.
    pub fn with_sets(mut self, sets: u32, logical_pages: u64, share_dies: bool) -> Self {
        self.sets = sets.max(1);
        self.set_lpas = if self.sets == 1 { u64::MAX } else { (logical_pages / self.sets as u64).max(1) };
        self.groups = if share_dies { 1 } else { self.sets };
        self.with_digit_bases()
    }

    /// Address domains, each striping its pages over its own channel, chip, die and plane ids
    /// (`ModelSwitches::domains`).
    pub fn with_domains(mut self, domains: &[DomainResources], logical_pages: u64) -> Self {
        if !domains.is_empty() {
            let starts: Vec<u64> = domains.iter().map(|d| d.start / self.page_size as u64).collect();
            let ids: Vec<[Vec<u32>; 4]> = domains.iter().map(|d| d.ids.clone()).collect();
            self.domains = Some(Box::new(Domains::new(&starts, &ids, self.order, self.dims, logical_pages)));
        }
        self
    }

    /// The plane a logical unit `x` (an LPA or a translation page) maps to under the static
    /// scheme, over the whole drive: its digits in the configured order, first letter varying
    /// fastest.
    #[inline]
    pub fn static_plane(&self, x: u64) -> u32 {
        self.plane_in_set(0, x)
    }

    /// The static scheme inside channel group `set`: `x`'s digits over the group's channels.
    #[inline]
    pub fn plane_in_set(&self, set: u32, x: u64) -> u32 {
        let cps = self.dims[0] / self.groups;
        let (mut digits, mut rest) = ([0u32; 4], x);
        for (&k, &n) in self.order.iter().zip(&self.digit_bases) {
            digits[k as usize] = n.remainder(rest) as u32;
            rest = n.quotient(rest);
        }
        let [c, w, d, p] = digits;
        (((c + set * cps) * self.dims[1] + w) * self.dims[2] + d) * self.dims[3] + p
    }

    /// The NVM set logical page `lpa` belongs to.
    #[inline]
    pub fn set_of_lpa(&self, lpa: u64) -> u32 {
        if self.sets == 1 {
            return 0; // without a 64-bit division by u64::MAX on every mapping page's plane
        }
        (lpa / self.set_lpas).min(self.sets as u64 - 1) as u32
    }

    /// The channel group logical page `lpa` lives on (its set's, or 0 when sets share dies).
    #[inline]
    pub fn group_of_lpa(&self, lpa: u64) -> u32 {
        if self.groups == 1 {
            return 0;
        }
        self.set_of_lpa(lpa)
    }

    /// The home plane of a user page under static allocation: striped over its set's channels
    /// (over the whole drive when the sets share dies).
    #[inline]
    pub fn data_plane(&self, lpa: u64) -> u32 {
        if let Some(d) = &self.domains {
            return d.data_plane(lpa);
        }
        if self.groups == 1 {
            return self.plane_in_set(0, lpa);
        }
        let s = self.set_of_lpa(lpa);
        self.plane_in_set(s, lpa - s as u64 * self.set_lpas)
    }

    /// Dies of each channel group (consecutive ids: a group is a run of whole channels).
    #[inline]
    pub fn dies_per_group(&self) -> u32 {
        self.dies / self.groups
    }

    /// The channel group of die `die`.
    #[inline]
    pub fn group_of_die(&self, die: u32) -> u32 {
        die / self.dies_per_group()
    }

    /// The dies NVM set `s` uses: its group's, or every die when the sets share them.
    #[inline]
    pub fn dies_of_set(&self, s: u32) -> std::ops::Range<u32> {
        let (g, n) = (if self.groups == 1 { 0 } else { s }, self.dies_per_group());
        g * n..(g + 1) * n
    }

    /// The NVM sets using die `die`: its group's set, or every set when they share dies.
    #[inline]
    pub fn sets_of_die(&self, die: u32) -> std::ops::Range<u32> {
        if self.groups == 1 {
            return 0..self.sets;
        }
        let g = self.group_of_die(die);
        g..g + 1
    }

    #[inline]
    pub fn die_of_plane(&self, plane: u32) -> u32 {
        self.per_die.quotient(plane)
    }
    /// The plane's index inside its die (its bit in a multi-plane batch).
    #[inline]
    pub fn plane_in_die(&self, plane: u32) -> u32 {
        self.per_die.remainder(plane)
    }
    #[inline]
    pub fn chip_of_die(&self, die: u32) -> u32 {
        self.per_chip.quotient(die)
    }
    #[inline]
    pub fn channel_of_die(&self, die: u32) -> u32 {
        self.per_channel.quotient(die)
    }
    #[inline]
    pub fn block_of_ppa(&self, ppa: u32) -> u32 {
        self.per_block.quotient(ppa)
    }
    #[inline]
    pub fn plane_of_block(&self, block: u32) -> u32 {
        self.per_plane.quotient(block)
    }
    #[inline]
    pub fn plane_of_ppa(&self, ppa: u32) -> u32 {
        self.plane_of_block(self.block_of_ppa(ppa))
    }
    /// Page index inside its block (decides LSB/CSB/MSB timing).
    #[inline]
    pub fn page_in_block(&self, ppa: u32) -> u32 {
        self.per_block.remainder(ppa)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(order: &str) -> Layout {
        let g = Geometry { channels: 4, chips_per_channel: 2, dies_per_chip: 2, planes_per_die: 2, blocks_per_plane: 16, pages_per_block: 8, page_size: 4096 };
        Layout::new(&g, &Allocation::parse(order).unwrap())
    }

    #[test]
    fn cwdp_stripes_channels_first() {
        let l = layout("CWDP");
        let chans: Vec<u32> = (0..4).map(|x| l.channel_of_die(l.die_of_plane(l.static_plane(x)))).collect();
        assert_eq!(chans, vec![0, 1, 2, 3]);
        // The fifth page comes back to channel 0 on the next way (chip).
        let p4 = l.static_plane(4);
        assert_eq!(l.channel_of_die(l.die_of_plane(p4)), 0);
        assert_eq!(l.chip_of_die(l.die_of_plane(p4)), 1);
    }

    #[test]
    fn every_static_order_is_a_bijection_over_one_stripe() {
        for order in ["CWDP", "PDWC", "WCDP", "DPCW"] {
            let l = layout(order);
            let mut seen = vec![false; l.planes as usize];
            for x in 0..l.planes as u64 {
                let p = l.static_plane(x) as usize;
                assert!(!seen[p], "{order}: plane {p} twice");
                seen[p] = true;
            }
        }
        let l = layout("PDWC");
        // Plane-first: consecutive pages share a die.
        assert_eq!(l.die_of_plane(l.static_plane(0)), l.die_of_plane(l.static_plane(1)));
    }

    /// The static scheme by hardware division, as `plane_in_set` computed it before its divisors.
    fn by_division(l: &Layout, set: u32, x: u64) -> u32 {
        let cps = l.dims[0] / l.groups;
        let (mut digits, mut rest) = ([0u32; 4], x);
        for &k in &l.order {
            let n = if k == 0 { cps } else { l.dims[k as usize] } as u64;
            digits[k as usize] = (rest % n) as u32;
            rest /= n;
        }
        let [c, w, d, p] = digits;
        (((c + set * cps) * l.dims[1] + w) * l.dims[2] + d) * l.dims[3] + p
    }

    #[test]
    fn the_bit_field_digits_are_the_divisions_digits() {
        let pow2 =
            Geometry { channels: 8, chips_per_channel: 4, dies_per_chip: 2, planes_per_die: 2, blocks_per_plane: 16, pages_per_block: 8, page_size: 4096 };
        let odd = Geometry { channels: 6, chips_per_channel: 3, dies_per_chip: 1, planes_per_die: 2, ..pow2.clone() };
        for (g, sets, fast) in [(&pow2, 1, true), (&pow2, 2, true), (&pow2, 8, true), (&odd, 1, false), (&odd, 3, false)] {
            for order in ["CWDP", "PDWC", "WCDP", "DPCW"] {
                let l = Layout::new(g, &Allocation::parse(order).unwrap()).with_sets(sets, 1 << 20, false);
                assert_eq!(l.digit_bases.iter().all(|n| n.is_shift()), fast, "{order}, {sets} sets");
                for x in (0..5_000u64).chain([u32::MAX as u64, (1 << 40) + 12_345, u64::MAX]) {
                    for set in 0..sets {
                        assert_eq!(l.plane_in_set(set, x), by_division(&l, set, x), "{order}, {sets} sets, x {x}");
                    }
                }
            }
        }
    }

    #[test]
    fn nvm_sets_stripe_their_own_lba_range_over_their_own_channels() {
        let l = layout("CWDP").with_sets(2, 1000, false);
        assert_eq!((l.set_lpas, l.dies_per_group()), (500, 8));
        // Set 0 (LPAs 0..500) lives on channels 0–1, set 1 on channels 2–3, each striped.
        for lpa in [0u64, 1, 2, 499] {
            let ch = l.channel_of_die(l.die_of_plane(l.data_plane(lpa)));
            assert!(ch < 2, "lpa {lpa} on channel {ch}");
            assert_eq!(l.group_of_die(l.die_of_plane(l.data_plane(lpa))), 0);
        }
        let chans: Vec<u32> = (500..504).map(|x| l.channel_of_die(l.die_of_plane(l.data_plane(x)))).collect();
        assert_eq!(chans, vec![2, 3, 2, 3]);
        // Each set's planes are covered once per stripe of the set.
        let mut seen = vec![false; l.planes as usize];
        for x in (0..16).chain(500..516) {
            let p = l.data_plane(x) as usize;
            assert!(!seen[p], "plane {p} twice");
            seen[p] = true;
        }
        // One set is the drive as before.
        let one = layout("CWDP").with_sets(1, 1000, false);
        assert!((0..64).all(|x| one.data_plane(x) == layout("CWDP").static_plane(x)));
    }

    #[test]
    fn nvm_sets_sharing_dies_are_address_ranges_striped_over_the_whole_drive() {
        let l = layout("CWDP").with_sets(2, 1000, true);
        assert_eq!((l.set_lpas, l.groups, l.dies_per_group()), (500, 1, 16));
        assert_eq!((l.set_of_lpa(499), l.set_of_lpa(500)), (0, 1));
        // Both halves stripe over all four channels, as one drive without sets would.
        let chans: Vec<u32> = (500..504).map(|x| l.channel_of_die(l.die_of_plane(l.data_plane(x)))).collect();
        assert_eq!(chans, vec![0, 1, 2, 3]);
        assert!((0..64).all(|x| l.data_plane(x) == layout("CWDP").static_plane(x)));
        assert_eq!((l.dies_of_set(0), l.dies_of_set(1), l.sets_of_die(9)), (0..16, 0..16, 0..2));
        let own = layout("CWDP").with_sets(2, 1000, false);
        assert_eq!((own.dies_of_set(1), own.sets_of_die(9)), (8..16, 1..2));
    }
}
