//! The whitespace-separated formats: DiskSim ASCII (also MQSim's trace input) and the
//! FlashNet/LinnOS/Heimdall replayer format.

use super::fields::{bad, decimal_ps, hex, sectors, uint};
use super::{LineParser, Parsed, RawRecord, Skip};
use crate::request::Op;

fn fields5<'a>(line: &'a str, columns: &str) -> Result<[&'a str; 5], String> {
    let mut it = line.split_ascii_whitespace();
    let mut out = [""; 5];
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = it.next().ok_or_else(|| format!("expected 5 whitespace-separated fields ({columns}), found {i}"))?;
    }
    if it.next().is_some() {
        return Err(format!("expected 5 whitespace-separated fields ({columns}), found more"));
    }
    Ok(out)
}

/// `time device lba size type`; LBA and size in 512-B sectors. DiskSim: `type` is a hex flag
/// field with bit 0 = read; MQSim: `0` = write, `1` = read (the same bit).
pub struct DiskSim {
    pub unit_ps: u64,
    pub mqsim_types: bool,
}

impl LineParser for DiskSim {
    fn parse(&mut self, line: &str, _first: bool) -> Result<Parsed, String> {
        if line.starts_with('#') {
            return Ok(Parsed::Skip(Skip::NotIo));
        }
        let f = fields5(line, "time device lba size type")?;
        let t = decimal_ps(f[0], self.unit_ps, "time")?;
        let flags = if self.mqsim_types {
            match f[4] {
                "0" => 0,
                "1" => 1,
                other => return Err(bad("type", other, "0 (write) or 1 (read)")),
            }
        } else {
            hex(f[4], "flags")?
        };
        let op = if flags & 1 == 1 { Op::Read } else { Op::Write };
        let size = sectors(uint(f[3], "size")?, "size")?;
        if size == 0 {
            return Ok(Parsed::Skip(Skip::ZeroSize));
        }
        Ok(Parsed::Record(RawRecord { time_ps: t, op, offset: sectors(uint(f[2], "lba")?, "lba")?, size, device: uint(f[1], "device")? }))
    }
}

/// `ts_ms devno offset_bytes size_bytes rw` with rw 1 = read, 0 = write.
pub struct FlashNet {
    pub unit_ps: u64,
}

impl LineParser for FlashNet {
    fn parse(&mut self, line: &str, _first: bool) -> Result<Parsed, String> {
        let f = fields5(line, "ts_ms devno offset size rw")?;
        let t = decimal_ps(f[0], self.unit_ps, "ts_ms")?;
        let op = match f[4] {
            "1" => Op::Read,
            "0" => Op::Write,
            other => return Err(bad("rw", other, "1 (read) or 0 (write)")),
        };
        let size = uint(f[3], "size")?;
        if size == 0 {
            return Ok(Parsed::Skip(Skip::ZeroSize));
        }
        Ok(Parsed::Record(RawRecord { time_ps: t, op, offset: uint(f[2], "offset")?, size, device: uint(f[1], "devno")? }))
    }
}
