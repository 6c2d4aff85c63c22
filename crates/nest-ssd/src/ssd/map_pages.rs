//! Where translation pages lie (`ModelSwitches::map_page_offsets`), so that a mapping read
//! takes the sense time of its page's type. MQSim writes every translation page when the drive
//! is built, in order, each on the plane a data page of the same number would take and at the
//! next page of that plane's translation frontier (`src/ssd/Address_Mapping_Unit_Page_Level.cpp:
//! 423-442, 1198-1223`), and gives a translation page the frontier's next page at each
//! write-back. Only the page's offset in its block is kept: it decides the type (LSB, CSB, MSB).

/// Per translation page its offset in its block; per plane the translation pages placed there.
pub(super) struct MapPages {
    offset: Vec<u32>,
    placed: Vec<u32>,
    pages_per_block: u32,
}

impl MapPages {
    /// `pages` translation pages laid out in order over `planes` planes, `plane_of` each.
    pub(super) fn new(pages: u32, planes: u32, pages_per_block: u32, plane_of: impl Fn(u32) -> u32) -> Self {
        let mut m = MapPages { offset: vec![0; pages as usize], placed: vec![0; planes as usize], pages_per_block };
        for tp in 0..pages {
            m.place(tp, plane_of(tp));
        }
        m
    }

    /// Translation page `tp`'s offset in its block.
    #[inline]
    pub(super) fn offset(&self, tp: u32) -> u32 {
        self.offset[tp as usize]
    }

    /// `tp` (re)written on `plane`: at its translation frontier's next page.
    pub(super) fn place(&mut self, tp: u32, plane: u32) {
        let n = &mut self.placed[plane as usize];
        self.offset[tp as usize] = *n % self.pages_per_block;
        *n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::NONE;
    use crate::params::Cell;
    use crate::ssd::txn::{Kind, Txn};
    use crate::ssd::Ssd;
    use crate::switches::PageTypes;
    use nest_core::SimTime;

    /// On TLC a mapping read takes the sense time of the page its translation page lies on
    /// with `map_page_offsets` — LSB, CSB or MSB — and a block's first page's (LSB) without.
    #[test]
    fn a_mapping_read_senses_its_translation_pages_type() {
        let sense = |offsets: bool| {
            let mut p = crate::tests::small();
            p.timing.cell = Cell::Tlc;
            p.timing.read = [SimTime::from_us(50), SimTime::from_us(75), SimTime::from_us(100), SimTime::from_us(100)];
            p.ftl.cmt_bytes = Some(4096);
            p.model.map_entry_bytes = 512; // eight entries a page: a thousand translation pages
            p.model.page_types = PageTypes::Mqsim;
            p.model.map_page_offsets = offsets;
            let ssd = Ssd::new(p, 1, 0).unwrap();
            let read =
                |tp: u32| Txn { kind: Kind::MapRead, class: 0, lpa: NONE, ppa: NONE, plane: ssd.map_plane(tp), owner: tp, bytes: 512, next: NONE, seq: 0 };
            (0..1000).map(|tp| ssd.sense_time(&read(tp)).as_us_f64()).collect::<Vec<_>>()
        };
        assert!(sense(false).iter().all(|&t| t == 50.0));
        let with = sense(true);
        for t in [50.0, 75.0, 100.0] {
            assert!(with.iter().filter(|&&x| x == t).count() > 200, "{t} µs pages: {with:?}");
        }
    }

    #[test]
    fn translation_pages_fill_each_plane_in_order_and_move_on_rewrite() {
        // Six translation pages striped over two planes, four pages per block.
        let mut m = MapPages::new(6, 2, 4, |tp| tp % 2);
        assert_eq!((0..6).map(|tp| m.offset(tp)).collect::<Vec<_>>(), vec![0, 0, 1, 1, 2, 2]);
        m.place(0, 0);
        m.place(2, 0);
        assert_eq!((m.offset(0), m.offset(2)), (3, 0), "the frontier's next pages, into the next block");
    }
}
