//! The comma-separated trace formats: SNIA SYSTOR'17, MSR Cambridge, Tencent CBS, Alibaba block
//! traces and libCacheSim's CloudPhysics CSV (column meanings and units: traces/README.md §3).

use super::fields::{bad, csv, decimal_ps, hex, sectors, uint};
use super::{LineParser, Parsed, RawRecord, Skip};
use crate::request::Op;
use nest_core::time::PS_PER_S;

fn header_if_first(line: &str, first: bool) -> Option<Parsed> {
    // A header is a first line that does not start with a digit.
    (first && !line.starts_with(|c: char| c.is_ascii_digit())).then_some(Parsed::Skip(Skip::Header))
}

fn record(time_ps: i128, op: Op, offset: u64, size: u64, device: u64) -> Parsed {
    if size == 0 {
        Parsed::Skip(Skip::ZeroSize)
    } else {
        Parsed::Record(RawRecord { time_ps, op, offset, size, device })
    }
}

/// `Timestamp,Response,IOType,LUN,Offset,Size` — epoch seconds, R/W/blank, bytes.
pub struct Systor17;

impl LineParser for Systor17 {
    fn parse(&mut self, line: &str, first: bool) -> Result<Parsed, String> {
        if let Some(h) = header_if_first(line, first) {
            return Ok(h);
        }
        let f = csv::<6>(line, "Timestamp,Response,IOType,LUN,Offset,Size")?;
        let t = decimal_ps(f[0], PS_PER_S, "Timestamp")?;
        let op = match f[2].trim() {
            "R" | "r" => Op::Read,
            "W" | "w" => Op::Write,
            "" => return Ok(Parsed::Skip(Skip::OtherOp)), // blank IOType: unknown, counted
            other => return Err(bad("IOType", other, "R, W or blank")),
        };
        Ok(record(t, op, uint(f[4], "Offset")?, uint(f[5], "Size")?, uint(f[3], "LUN")?))
    }
}

/// `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` — FILETIME 100-ns ticks.
pub struct Msr;

impl LineParser for Msr {
    fn parse(&mut self, line: &str, first: bool) -> Result<Parsed, String> {
        if let Some(h) = header_if_first(line, first) {
            return Ok(h);
        }
        let f = csv::<7>(line, "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime")?;
        let ticks = uint(f[0], "Timestamp")?;
        let kind = f[3].trim();
        let op = if kind.eq_ignore_ascii_case("read") {
            Op::Read
        } else if kind.eq_ignore_ascii_case("write") {
            Op::Write
        } else {
            return Err(bad("Type", f[3], "Read or Write"));
        };
        Ok(record(ticks as i128 * 100_000, op, uint(f[4], "Offset")?, uint(f[5], "Size")?, uint(f[2], "DiskNumber")?))
    }
}

/// `Timestamp,Offset,Size,IOType,VolumeID` — epoch seconds, sectors, 0 = read / 1 = write.
pub struct Tencent;

impl LineParser for Tencent {
    fn parse(&mut self, line: &str, first: bool) -> Result<Parsed, String> {
        if let Some(h) = header_if_first(line, first) {
            return Ok(h);
        }
        let f = csv::<5>(line, "Timestamp,Offset,Size,IOType,VolumeID")?;
        let t = decimal_ps(f[0], PS_PER_S, "Timestamp")?;
        let op = match f[3].trim() {
            "0" => Op::Read,
            "1" => Op::Write,
            other => return Err(bad("IOType", other, "0 (read) or 1 (write)")),
        };
        let offset = sectors(uint(f[1], "Offset")?, "Offset")?;
        let size = sectors(uint(f[2], "Size")?, "Size")?;
        Ok(record(t, op, offset, size, uint(f[4], "VolumeID")?))
    }
}

/// `device_id,opcode,offset,length,timestamp` — R/W, bytes, µs since the epoch.
pub struct Alibaba {
    pub unit_ps: u64,
}

impl LineParser for Alibaba {
    fn parse(&mut self, line: &str, first: bool) -> Result<Parsed, String> {
        if let Some(h) = header_if_first(line, first) {
            return Ok(h);
        }
        let f = csv::<5>(line, "device_id,opcode,offset,length,timestamp")?;
        let op = match f[1].trim() {
            "R" | "r" => Op::Read,
            "W" | "w" => Op::Write,
            other => return Err(bad("opcode", other, "R or W")),
        };
        let t = decimal_ps(f[4], self.unit_ps, "timestamp")?;
        Ok(record(t, op, uint(f[2], "offset")?, uint(f[3], "length")?, uint(f[0], "device_id")?))
    }
}

/// libCacheSim's `version,time,op,size,lbn` — SCSI opcode in hex, bytes, 512-B sectors.
pub struct CloudPhysics {
    pub unit_ps: u64,
}

impl LineParser for CloudPhysics {
    fn parse(&mut self, line: &str, first: bool) -> Result<Parsed, String> {
        if let Some(h) = header_if_first(line, first) {
            return Ok(h);
        }
        let f = csv::<5>(line, "version,time,op,size,lbn")?;
        let t = decimal_ps(f[1], self.unit_ps, "time")?;
        let op = match hex(f[2], "op")? {
            0x08 | 0x28 | 0xa8 | 0x88 => Op::Read,  // READ(6/10/12/16)
            0x0a | 0x2a | 0xaa | 0x8a => Op::Write, // WRITE(6/10/12/16)
            _ => return Ok(Parsed::Skip(Skip::OtherOp)),
        };
        let offset = sectors(uint(f[4], "lbn")?, "lbn")?;
        Ok(record(t, op, offset, uint(f[3], "size")?, 0))
    }
}
