//! Typed ids for the things a run is made of, so a host index cannot be passed where a device
//! index is meant. Each is a dense index into its arena (`usize` via [`HostId::ix`] etc.).

macro_rules! id {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl $name {
            /// The arena index.
            #[inline]
            pub fn ix(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(
    /// A host (an initiator: workloads, host queues, caches).
    HostId
);
id!(
    /// A storage device (ideal, SSD, PM).
    DeviceId
);
id!(
    /// A transport flow or message channel.
    FlowId
);
id!(
    /// A QoS coordinator of the run.
    CoordId
);
