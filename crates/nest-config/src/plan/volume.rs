//! A volume's plan: its layout, devices and capacity, and an NVM-set pool's DTWin schedule.

use nest_core::SimTime;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Single,
    /// Bytes per device before the next.
    Stripe {
        unit: u64,
    },
    Replicate,
}

#[derive(Debug, Clone)]
pub struct VolumePlan {
    pub name: String,
    pub layout: Layout,
    /// Device indices, in stripe / replica order.
    pub devices: Vec<usize>,
    /// Usable bytes: the smallest device times the stripe width (stripe), or the smallest
    /// device (single, replicate).
    pub capacity: u64,
    /// `read = "dt-active"`: the pool's DTWin schedule.
    pub pool: Option<PoolPlan>,
}

/// An NVM-set pool: replicas that are each a PLM drive with one NVM set and the same attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolPlan {
    /// T_DW of the replicas' sets: each DTWin lasts at most this long.
    pub t_dw: SimTime,
    /// C_RD of the replicas' sets (`u64::MAX`: no read budget).
    pub c_rd: u64,
}
