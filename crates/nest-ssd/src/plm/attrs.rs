//! The DTWin attributes of an NVM set (thesis Table 3.1, NVMe 1.4 Predictable Latency Mode) and
//! the parameters NeSt adds where the sources leave a number open (docs/plm.md).

use nest_core::SimTime;

/// Reads are counted in 4 KiB random-read units: a read of S bytes spends ⌈S / 4 KiB⌉.
pub const READ_UNIT: u64 = 4096;

/// DT counts a read of `bytes` spends (C_RD's unit; PLMC allocates the same counts).
#[inline]
pub fn read_counts(bytes: u64) -> u64 {
    bytes.max(1).div_ceil(READ_UNIT)
}

#[derive(Clone, Debug, PartialEq)]
pub struct PlmAttrs {
    /// C_RD, "DTWin Reads Typical": 4 KiB random reads a DTWin may serve.
    pub c_rd: u64,
    /// C_WR, "DTWin Writes Typical": writes, in optimal-write-size units, a DTWin may take.
    pub c_wr: u64,
    /// T_DW, "DTWin Time Maximum".
    pub t_dw: SimTime,
    /// T_NDWH, "NDWin Time Minimum High": the NDWin needed to prepare for a whole DTWin.
    pub t_ndwh: SimTime,
    /// T_NDWL, "NDWin Time Minimum Low": the NDWin needed whatever the last DTWin did.
    pub t_ndwl: SimTime,
    /// Longest an NDWin may last before the set returns to DTWin (the sources' "maximum NDWin
    /// period"); deferred work not done by then continues in the next NDWin.
    pub t_nd_max: SimTime,
    /// The optimal write size (the unit of C_WR and E_WR), bytes.
    pub optimal_write_bytes: u64,
    /// The non-volatile write buffer that holds DTWin writes until NDWin, bytes.
    pub nv_buffer_bytes: u64,
    /// Mean of the extra exponential delay the sources add to I/O served in NDWin to emulate
    /// unpredictable management work (PLMC §IV-A); zero for none. No source gives a value.
    pub nd_delay_mean: SimTime,
}

impl PlmAttrs {
    /// Each problem as (attribute, what is wrong).
    pub fn validate(&self) -> Vec<(&'static str, String)> {
        let mut bad = Vec::new();
        if self.c_rd == 0 {
            bad.push(("c_rd", "must be at least 1 (4 KiB reads per DTWin)".to_string()));
        }
        if self.c_wr == 0 {
            bad.push(("c_wr", "must be at least 1 (optimal-size writes per DTWin)".to_string()));
        }
        // A window shorter than a microsecond is shorter than any flash operation it is meant
        // to schedule; at picoseconds the run would do nothing but switch windows.
        if self.t_dw < SimTime::from_us(1) {
            bad.push(("t_dw", format!("{} is under 1 µs: a DTWin must outlast the flash operations it schedules", self.t_dw)));
        }
        if self.t_ndwl > self.t_ndwh {
            bad.push(("t_ndwl", format!("{} exceeds t_ndwh {}: the low NDWin minimum cannot be above the high one", self.t_ndwl, self.t_ndwh)));
        }
        if self.t_nd_max < self.t_ndwh {
            bad.push(("t_nd_max", format!("{} is below t_ndwh {}: an NDWin could never last its minimum", self.t_nd_max, self.t_ndwh)));
        }
        if self.optimal_write_bytes == 0 {
            bad.push(("optimal_write_bytes", "must be positive".to_string()));
        }
        if self.nv_buffer_bytes < self.optimal_write_bytes {
            bad.push((
                "nv_buffer_bytes",
                format!("{} B is below the optimal write size {} B: the buffer must hold one write", self.nv_buffer_bytes, self.optimal_write_bytes),
            ));
        }
        bad
    }

    /// Read counts a read of `bytes` spends.
    #[inline]
    pub fn read_counts(&self, bytes: u64) -> u64 {
        read_counts(bytes)
    }

    /// Write counts a write of `bytes` spends (optimal-write-size units).
    #[inline]
    pub fn write_counts(&self, bytes: u64) -> u64 {
        bytes.max(1).div_ceil(self.optimal_write_bytes)
    }
}
