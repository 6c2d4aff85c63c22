//! Congestion signals a sender meets, in the vocabulary every layer shares: the transport
//! reports them for the flows someone watches, and QoS coordinators act on them.

/// What a watched flow's sender went through.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Congestion {
    /// A CNP reached the sender's reaction point, which cut its rate to `rate_bps`.
    RateCut { rate_bps: f64 },
    /// The reaction point raised its rate (rate-increase timer or byte counter) to `rate_bps`.
    RateRaised { rate_bps: f64 },
    /// The sending host's NIC received a PFC PAUSE for the flow's priority.
    Paused,
}
