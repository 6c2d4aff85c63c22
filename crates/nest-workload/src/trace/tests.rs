//! Format tests on small fixtures written for NeSt (the real samples are tested from pytest,
//! which can report them skipped when `shared/` is absent).

use super::*;

fn read_all(text: &str, format: TraceFormat, opts: TraceOptions) -> Result<(Vec<TraceRecord>, TraceStats), TraceError> {
    let mut src = from_bytes("fixture", text.as_bytes().to_vec(), format, opts)?;
    let mut v = Vec::new();
    while let Some(r) = src.next_record()? {
        v.push(r);
    }
    Ok((v, src.stats()))
}

#[test]
fn systor17_header_blank_iotype_and_unsorted_rows() {
    let text = "Timestamp,Response,IOType,LUN,Offset,Size\n\
        1456095145.133076000,0.000806000,R,0,899056122368,131072\n\
        1456095145.126285000,0.008044000,W,0,4096,8192\n\
        1456095145.200000000,0.0001,,0,0,512\n\
        1456095145.300000000,0.0001,R,0,512,0\n";
    let (v, st) = read_all(text, TraceFormat::Systor17, TraceOptions::default()).unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!((v[0].op, v[0].time, v[0].size), (Op::Write, SimTime::ZERO, 8192));
    assert_eq!(v[1].time, SimTime::from_ns(6_791_000), "sorted and relative to the earliest record");
    assert_eq!((st.headers, st.other_ops, st.zero_size), (1, 1, 1));
}

#[test]
fn msr_tencent_alibaba_cloudphysics_units() {
    let (v, _) =
        read_all("128166385295514663,hm,0,Write,9056014336,2048,2833\n128166385295515663,hm,0,Read,0,4096,10\n", TraceFormat::Msr, TraceOptions::default())
            .unwrap();
    assert_eq!(v[1].time, SimTime::from_us(100), "1000 ticks of 100 ns");
    assert_eq!(v[1].op, Op::Read);
    let (v, _) = read_all("1538323200,4247200,128,1,1058\n1538323199,13896880,128,0,1063\n", TraceFormat::Tencent, TraceOptions::default()).unwrap();
    assert_eq!((v[0].op, v[0].offset, v[0].size, v[0].device), (Op::Read, 13896880 * 512, 65536, 1063));
    assert_eq!(v[1].time, SimTime::from_ms(1000));
    let (v, _) = read_all("0,R,126703644672,4096,1577808000000626\n0,W,0,512,1577808000000726\n", TraceFormat::Alibaba, TraceOptions::default()).unwrap();
    assert_eq!(v[1].time, SimTime::from_us(100));
    let (v, st) = read_all(
        "version,time,op,size,lbn\n1,5633898,2a,512,42932745\n1,5633899,28,4096,8\n1,5633899,35,0,0\n",
        TraceFormat::Cloudphysics,
        TraceOptions::default(),
    )
    .unwrap();
    assert_eq!((v.len(), st.other_ops), (2, 1));
    assert_eq!((v[1].op, v[1].offset, v[1].time), (Op::Read, 4096, SimTime::from_ms(1000)));
}

#[test]
fn disksim_mqsim_flashnet() {
    let (v, _) = read_all("0.5 0 8 16 1\n1.5 0 16 8 0\n", TraceFormat::Disksim, TraceOptions::default()).unwrap();
    assert_eq!((v[0].op, v[0].size, v[0].offset), (Op::Read, 8192, 4096));
    assert_eq!(v[1].time, SimTime::from_ms(1));
    let (v, _) = read_all("938513000 4 264719034 16 0\n938828000 3 197570570 16 1", TraceFormat::Mqsim, TraceOptions::default()).unwrap();
    assert_eq!((v[1].time, v[1].op, v[0].op), (SimTime::from_ns(315_000), Op::Read, Op::Write));
    let (v, _) = read_all("0.000 0 200626176 4096 0\n223.412 0 3159347200 36864 1\n", TraceFormat::Flashnet, TraceOptions::default()).unwrap();
    assert_eq!((v[1].time, v[1].op, v[0].op), (SimTime::from_us(223_412), Op::Read, Op::Write));
}

#[test]
fn blkparse_chooses_one_action_skips_trailer_and_rebases_a_stray_clock() {
    let text = "  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]\n\
          8,0    3        2     0.000001000   697  G   W 223490 + 8 [kjournald]\n\
          8,0    3        3     0.000002000   697  D   W 223490 + 8 [kjournald]\n\
          8,0    3        4     0.000100000   697  C   W 223490 + 8 [0]\n\
          8,0    1        1 1266874889.670077392 19144  Q  RS 284144 + 1 [x]\n\
          8,0    1        2 1266874889.670080648 19144  Q  R 20512 + 2 [x]\n\
          8,0    3        5     0.000200000   697  Q   D 100 + 8 [x]\n\
        CPU0 (8,0):\n Reads Queued:           0,        0KiB\n";
    let (v, st) = read_all(text, TraceFormat::Blkparse, TraceOptions::default()).unwrap();
    assert_eq!(v.len(), 3, "{v:?}");
    assert_eq!(st.rebased_clocks, 1);
    assert_eq!(st.other_ops, 1);
    let last = v.iter().map(|r| r.time).max().unwrap();
    assert!(last < SimTime::from_ms(1), "the stray CPU was shifted onto the trace's clock: {last}");
    assert_eq!(v[0].size, 4096);
}

#[test]
fn errors_name_the_line_and_field() {
    let e = read_all("1,2,3\n", TraceFormat::Tencent, TraceOptions::default()).unwrap_err();
    assert_eq!(e.line, 1);
    assert!(e.to_string().contains("fixture:1: expected 5 comma-separated fields"), "{e}");
    let e = read_all("1538323200,1,8,0,1\n1538323200,1,8,7,1\n", TraceFormat::Tencent, TraceOptions::default()).unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("IOType"), "{e}");
    let opts = TraceOptions { skip_invalid: true, ..Default::default() };
    let (v, st) = read_all("1538323200,1,8,0,1\ngarbage\n", TraceFormat::Tencent, opts).unwrap();
    assert_eq!((v.len(), st.invalid), (1, 1));
    assert!(TraceFormat::from_name("nope").unwrap_err().contains("systor17"));
}

#[test]
fn scaling_remapping_device_filter_and_limits() {
    let text = "0 0 0 8 1\n10 1 100 8 1\n20 0 200 8 0\n";
    let opts = TraceOptions { time_scale: 0.5, range: Some(64 * 1024), align: 4096, device: Some(0), ..Default::default() };
    let (v, st) = read_all(text, TraceFormat::Disksim, opts).unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!(st.filtered_device, 1);
    assert_eq!(v[1].time, SimTime::from_ms(10));
    assert!(v.iter().all(|r| r.offset % 4096 == 0 && r.offset + r.size as u64 <= 64 * 1024));
    let opts = TraceOptions { max_records: Some(1), ..Default::default() };
    assert_eq!(read_all(text, TraceFormat::Disksim, opts).unwrap().0.len(), 1);
}

#[test]
fn start_shifts_every_record_and_stop_ends_the_replay() {
    let text = "5 0 0 8 1\n15 0 100 8 1\n25 0 200 8 0\n35 0 300 8 1\n";
    let opts = TraceOptions { start: SimTime::from_ms(200), stop: Some(SimTime::from_ms(225)), ..Default::default() };
    let (v, _) = read_all(text, TraceFormat::Disksim, opts).unwrap();
    // Relative to the first record (at 5 ms), then shifted: 200, 210, 220 ms; 230 ≥ stop ends it.
    assert_eq!(v.iter().map(|r| r.time).collect::<Vec<_>>(), [SimTime::from_ms(200), SimTime::from_ms(210), SimTime::from_ms(220)]);
}

#[test]
fn random_and_truncated_bytes_give_clean_errors_for_every_format() {
    let mut rng = nest_core::rng::RngStream::from_seed(77);
    let seeds = [
        "Timestamp,Response,IOType,LUN,Offset,Size\n1456095145.133076000,0.000806000,R,0,899056122368,131072\n",
        "128166385295514663,hm,0,Write,9056014336,2048,2833\n",
        "1538323199,13896880,128,0,1063\n",
        "  1,0   15        1     0.000000000 19146  C  WS 299456 + 1 [0]\n",
        "938513000 4 264719034 16 0\n",
        "version,time,op,size,lbn\n1,5633898,2a,512,42932745\n",
    ];
    for _ in 0..3000 {
        let base = seeds[rng.below(seeds.len() as u64) as usize].as_bytes();
        let mut bytes: Vec<u8> = base[..rng.below(base.len() as u64 + 1) as usize].to_vec();
        for _ in 0..rng.below(6) {
            if bytes.is_empty() {
                break;
            }
            let i = rng.below(bytes.len() as u64) as usize;
            bytes[i] = rng.below(256) as u8;
        }
        if rng.bernoulli(0.2) {
            bytes = (0..rng.below(200)).map(|_| rng.below(256) as u8).collect();
        }
        for f in TraceFormat::ALL {
            if let Ok(mut src) = from_bytes("fuzz", bytes.clone(), f, TraceOptions::default()) {
                for _ in 0..100 {
                    match src.next_record() {
                        Ok(Some(_)) => {}
                        Ok(None) => break,
                        Err(e) => {
                            assert!(e.to_string().starts_with("fuzz"), "{e}");
                            break;
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn repeat_begins_each_round_where_the_last_one_ended_as_mqsim_relay_count_does() {
    // MQSim's clock counts from zero: round k is every time shifted by k × the last record's time
    // (100 ns here), then made relative to the first record (10 ns).
    let text = "10 0 0 8 1\n40 0 8 8 0\n100 0 16 8 1\n";
    let opts = TraceOptions { repeat: 3, ..TraceOptions::default() };
    let (v, st) = read_all(text, TraceFormat::Mqsim, opts.clone()).unwrap();
    let ns: Vec<u64> = v.iter().map(|r| r.time.0 / 1000).collect();
    assert_eq!(ns, vec![0, 30, 90, 100, 130, 190, 200, 230, 290]);
    assert_eq!((st.records, st.lines), (9, 9));
    // max_records counts over the rounds.
    let (v, _) = read_all(text, TraceFormat::Mqsim, TraceOptions { max_records: Some(4), ..opts.clone() }).unwrap();
    assert_eq!(v.len(), 4);
    // A wall clock's zero means nothing: the rounds follow one another by the trace's span.
    let msr = "128166385295514663,hm,0,Write,0,4096,1\n128166385295515663,hm,0,Read,4096,4096,1\n";
    let (v, _) = read_all(msr, TraceFormat::Msr, TraceOptions { repeat: 2, ..TraceOptions::default() }).unwrap();
    let us: Vec<u64> = v.iter().map(|r| r.time.0 / 1_000_000).collect();
    assert_eq!(us, vec![0, 100, 100, 200]);
    // A trace with no record ends instead of rewinding forever; repeat 0 is an error.
    let (v, _) = read_all("\n", TraceFormat::Mqsim, opts).unwrap();
    assert!(v.is_empty());
    assert!(read_all(text, TraceFormat::Mqsim, TraceOptions { repeat: 0, ..TraceOptions::default() }).is_err());
}

#[test]
fn a_trace_kept_to_a_slice_wraps_its_offsets_into_the_slice() {
    // Sectors 0, 8 and 4096 (byte 2 MiB) of a trace kept to 1 MiB from byte 10 MiB.
    let text = "10 0 0 8 1\n40 0 8 8 0\n100 0 4096 8 1\n";
    let opts = TraceOptions { range: Some(1 << 20), base: 10 << 20, align: 4096, ..TraceOptions::default() };
    let (v, _) = read_all(text, TraceFormat::Mqsim, opts).unwrap();
    let offsets: Vec<u64> = v.iter().map(|r| r.offset).collect();
    // 2 MiB wraps by the slice's 255 whole 4 KiB slots that leave room for a request.
    assert_eq!(offsets, vec![10 << 20, (10 << 20) + 4096, (10 << 20) + (512 % 255) * 4096]);
    assert!(v.iter().all(|r| r.offset >= 10 << 20 && r.offset + r.size as u64 <= 11 << 20));
}

#[test]
fn wrap_at_takes_an_offset_past_it_modulo_it_whatever_the_request_size() {
    // MQSim's trace flow over M = 1,000 sectors: sector 1,000 stays (it keeps addresses up to
    // `end − start`), 1,001 becomes 1 and 2,500 becomes 500 — for 8-sector and 64-sector
    // requests alike, where `range` wrapping alone takes its modulus from the room each request
    // needs. A request the modulo leaves running past the slice is wrapped by `range` as before.
    let text = "10 0 1000 8 1\n20 0 1001 8 1\n30 0 2500 64 1\n40 0 2500 8 1\n";
    let opts = TraceOptions { wrap_at: Some(1000 * 512), range: Some(1200 * 512), ..TraceOptions::default() };
    let (v, _) = read_all(text, TraceFormat::Mqsim, opts.clone()).unwrap();
    let sectors: Vec<u64> = v.iter().map(|r| r.offset / 512).collect();
    assert_eq!(sectors, vec![1000, 1, 500, 500]);
    let (v, _) = read_all(text, TraceFormat::Mqsim, TraceOptions { wrap_at: None, ..opts }).unwrap();
    let sectors: Vec<u64> = v.iter().map(|r| r.offset / 512).collect();
    assert_eq!(sectors, vec![1000, 1001, 2500 % (1200 - 64), 2500 % (1200 - 8)]);
}
