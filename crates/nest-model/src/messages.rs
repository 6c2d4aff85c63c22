//! Every kind of message the World sends over the fabric's channels, numbered in one place: the
//! transports carry a message's kind as a number and the World dispatches on it
//! (`Simulation::step`), so two owners sharing a number would swap each other's messages.
//! [`message_kinds!`] numbers them in order; a new kind is one line here.

use nest_transport::MsgKind;

/// Numbers the kinds `0, 1, 2, …` in the order they are listed and builds [`ALL`].
macro_rules! message_kinds {
    ($($(#[doc = $doc:literal])* $name:ident,)*) => {
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[repr(u8)]
        enum Numbered { $($name,)* }
        $($(#[doc = $doc])* pub const $name: MsgKind = MsgKind(Numbered::$name as u8);)*
        /// Every kind with its name, in number order.
        pub const ALL: &[(&str, MsgKind)] = &[$((stringify!($name), $name),)*];
    };
}

message_kinds! {
    /// NVMe-oF: a command capsule (with any write data behind it), host → target.
    COMMAND,
    /// NVMe-oF: a completion capsule (with any read data in front of it), target → host.
    RESPONSE,
    /// A QoS coordinator's control message (`qos.rs`).
    CONTROL,
    /// Haechi: a verb's request, client → data node.
    HAECHI_REQUEST,
    /// Haechi: a verb's answer or a monitor's message, data node → client.
    HAECHI_ANSWER,
    /// NVMe-oF over RDMA: the target's RDMA READ request for a write's data, target → host, on
    /// the target's queue pair behind the read data it is sending.
    DATA_PULL,
    /// NVMe-oF over RDMA: a write's data, the RDMA READ's response, host → target.
    WRITE_DATA,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_numbered_apart_in_order() {
        for (i, (name, k)) in ALL.iter().enumerate() {
            assert_eq!(k.0 as usize, i, "{name}");
        }
        // The numbers trajectories were recorded with (fingerprints carry the kind).
        assert_eq!([COMMAND.0, RESPONSE.0, CONTROL.0, HAECHI_REQUEST.0, HAECHI_ANSWER.0, DATA_PULL.0, WRITE_DATA.0], [0, 1, 2, 3, 4, 5, 6]);
    }
}
