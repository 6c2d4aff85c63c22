//! The I/O descriptor that flows from a workload to its host.

/// Read or write. (Trim/flush are not modelled; trace readers count and skip them.)
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    Read = 0,
    Write = 1,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
        }
    }
    pub fn index(self) -> usize {
        self as usize
    }
}

/// One I/O as a workload describes it: operation, byte offset on its volume, size in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IoDesc {
    pub op: Op,
    pub offset: u64,
    pub size: u32,
}
