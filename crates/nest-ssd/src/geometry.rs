//! Addresses: plane, die, chip and channel ids, physical page addresses (PPA), and the static
//! allocation of logical pages to planes.
//!
//! Ids are dense: plane = ((channel·W + chip)·D + die)·P + plane-in-die, die = plane / P,
//! chip = die / D, channel = chip / W. A block id is plane·B + block-in-plane; a PPA is
//! block·pages_per_block + page. Dense ids let every per-component table be a `Vec`.

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
        }
    }

    /// The plane a logical unit `x` (an LPA or a translation page) maps to under the static
    /// scheme: its digits in the configured order, first letter varying fastest.
    #[inline]
    pub fn static_plane(&self, x: u64) -> u32 {
        let mut digits = [0u32; 4];
        let mut rest = x;
        for &k in &self.order {
            let n = self.dims[k as usize] as u64;
            digits[k as usize] = (rest % n) as u32;
            rest /= n;
        }
        let [c, w, d, p] = digits;
        ((c * self.dims[1] + w) * self.dims[2] + d) * self.dims[3] + p
    }

    #[inline]
    pub fn die_of_plane(&self, plane: u32) -> u32 {
        plane / self.dims[3]
    }
    #[inline]
    pub fn chip_of_die(&self, die: u32) -> u32 {
        die / self.dims[2]
    }
    #[inline]
    pub fn channel_of_die(&self, die: u32) -> u32 {
        die / (self.dims[2] * self.dims[1])
    }
    #[inline]
    pub fn block_of_ppa(&self, ppa: u32) -> u32 {
        ppa / self.pages_per_block
    }
    #[inline]
    pub fn plane_of_block(&self, block: u32) -> u32 {
        block / self.blocks_per_plane
    }
    #[inline]
    pub fn plane_of_ppa(&self, ppa: u32) -> u32 {
        self.plane_of_block(self.block_of_ppa(ppa))
    }
    /// Page index inside its block (decides LSB/CSB/MSB timing).
    #[inline]
    pub fn page_in_block(&self, ppa: u32) -> u32 {
        ppa % self.pages_per_block
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
}
