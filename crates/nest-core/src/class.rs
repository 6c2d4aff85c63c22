//! The QoS class levels every layer understands (SPEC §1), and how each layer maps them — defined
//! once here so the host queues, NVMe submission queues, the SSD's chip queues and the network
//! agree on what "urgent" or "low" means.

/// Class priority levels: Urgent first (strict), then High/Medium/Low (weighted 3:2:1 by
/// default), then best effort.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    Urgent = 0,
    High = 1,
    Medium = 2,
    Low = 3,
    BestEffort = 4,
}

impl Priority {
    pub const COUNT: usize = 5;
    pub const ALL: [Priority; 5] = [Priority::Urgent, Priority::High, Priority::Medium, Priority::Low, Priority::BestEffort];

    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "urgent" => Priority::Urgent,
            "high" => Priority::High,
            "medium" => Priority::Medium,
            "low" => Priority::Low,
            "best_effort" => Priority::BestEffort,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        ["urgent", "high", "medium", "low", "best_effort"][self as usize]
    }

    /// The index of the level (host queues, NVMe SQs per host are kept per level).
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The level at an index (`index` inverted).
    #[inline]
    pub fn from_index(i: usize) -> Priority {
        Priority::ALL[i]
    }

    /// The default class ratio (SPEC §1: High/Medium/Low 3:2:1).
    pub fn default_ratio(self) -> f64 {
        match self {
            Priority::High => 3.0,
            Priority::Medium => 2.0,
            _ => 1.0,
        }
    }

    /// The SSD's device-level queue class: 0 urgent, 1 high, 2 medium, 3 low (best effort
    /// shares low's queues — the device has four).
    #[inline]
    pub fn ssd_class(self) -> u8 {
        match self {
            Priority::Urgent => 0,
            Priority::High => 1,
            Priority::Medium => 2,
            Priority::Low | Priority::BestEffort => 3,
        }
    }

    /// Whether the network carries it in the urgent (strict) packet priority.
    #[inline]
    pub fn is_urgent(self) -> bool {
        self == Priority::Urgent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_indices_and_layer_mappings_agree() {
        for p in Priority::ALL {
            assert_eq!(Priority::from_name(p.name()), Some(p));
            assert_eq!(Priority::from_index(p.index()), p);
        }
        assert_eq!(Priority::ALL.map(|p| p.ssd_class()), [0, 1, 2, 3, 3]);
        assert_eq!(Priority::ALL.map(|p| p.default_ratio()), [1.0, 3.0, 2.0, 1.0, 1.0]);
        assert!(Priority::Urgent.is_urgent() && !Priority::High.is_urgent());
        assert!(Priority::Urgent < Priority::BestEffort, "ordered most urgent first");
        assert_eq!(Priority::from_name("gold"), None);
    }
}
