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
    /// Device indices, in stripe / replica order (a device appears more than once only with
    /// different NVM sets).
    pub devices: Vec<usize>,
    /// Per member: the NVM set it is (0 on a drive of one set) and the byte where the set's
    /// address range starts on its device.
    pub sets: Vec<u32>,
    pub bases: Vec<u64>,
    /// Usable bytes: the smallest member times the stripe width (stripe), or the smallest
    /// member (single, replicate); a member is a device or one NVM set of it.
    pub capacity: u64,
    /// `read = "dt-active"`: the pool's DTWin schedule.
    pub pool: Option<PoolPlan>,
}

impl VolumePlan {
    /// A volume of whole devices (set 0, from byte 0).
    pub fn of_devices(name: &str, layout: Layout, devices: Vec<usize>, capacity: u64) -> VolumePlan {
        let n = devices.len();
        VolumePlan { name: name.into(), layout, devices, sets: vec![0; n], bases: vec![0; n], capacity, pool: None }
    }

    /// The member that is device `d`'s NVM set `set`.
    pub fn member(&self, d: usize, set: u32) -> Option<usize> {
        self.devices.iter().zip(&self.sets).position(|(&x, &s)| x == d && s == set)
    }
}

/// An NVM-set pool: replicas that are each a PLM NVM set (a drive of one set, or one set of a
/// drive's several) with the same attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolPlan {
    /// T_DW of the replicas' sets: each DTWin lasts at most this long.
    pub t_dw: SimTime,
    /// C_RD of the replicas' sets (`u64::MAX`: no read budget).
    pub c_rd: u64,
}
