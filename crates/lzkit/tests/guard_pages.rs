//! Guard-page differential harness for the block decoders (Unix only).
//!
//! Every compressed input is copied so that it sits flush against an
//! inaccessible (`PROT_NONE`) page, once ending at it (a read past the
//! input's end faults) and once starting right after one (a read before
//! its start faults); a dictionary sits the other way round. Every output
//! buffer is either surrounded by canary bytes that must be intact
//! afterwards, or ends flush against an inaccessible page, or starts right
//! after one. Each case (valid, truncated and mutated blocks, hand-built
//! edge cases, dictionary decodes with the right, a shorter, a wrong or no
//! dictionary, at exact and near-exact capacities) is decoded by every
//! variant this CPU runs (forced) and by the one-shot functions, and must
//! give exactly C's verdict (`LZ4_decompress_safe`, or
//! `LZ4_decompress_safe_usingDict` with a dictionary) and, when C accepts,
//! C's bytes; errors must be identical across decoders.
//!
//! One difference is expected: lzkit rejects match offset 0 by design (C
//! does not check it). Blocks that end as C's shortcut allows (the last
//! match within the last 5 bytes, e.g. the case
//! `shortcut-3-trailing-cap40`) are accepted exactly as C accepts them.

#![cfg(unix)]

use lzkit::lz4::block::{self, Decoder, Variant};
use lzkit::{Error, Fault, Lz4Fault};
use lzkit_testkit::{Rng, c_ref, data, push_last, push_seq};
use std::collections::BTreeSet;

/// The byte output buffers are prefilled with (stale contents).
const FILL: u8 = 0xA5;
/// Canary bytes on each side of a canary-guarded output buffer.
const CANARY_LEN: usize = 64;

/// Memory with an inaccessible page on each side.
mod guard {
    use std::ptr;

    /// `pages` accessible pages between two `PROT_NONE` pages, unmapped on
    /// drop.
    pub struct Guarded {
        map: *mut u8,
        map_len: usize,
        page: usize,
        usable: usize,
    }

    /// The system's page size.
    fn page_size() -> usize {
        // SAFETY: sysconf only reads a system constant.
        let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        usize::try_from(n).ok().filter(|&n| n > 0).unwrap_or(4096)
    }

    impl Guarded {
        /// Room for at least `n` bytes (at least one page) between two
        /// inaccessible pages.
        pub fn new(n: usize) -> Guarded {
            let page = page_size();
            let usable = n.div_ceil(page).max(1) * page;
            let map_len = usable + 2 * page;
            // SAFETY: a fresh private anonymous mapping (no address hint,
            // no file); the result is checked against MAP_FAILED.
            let map = unsafe {
                libc::mmap(
                    ptr::null_mut(),
                    map_len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANON,
                    -1,
                    0,
                )
            };
            assert!(map != libc::MAP_FAILED, "mmap of {map_len} bytes failed");
            let map = map.cast::<u8>();
            // SAFETY: both ranges are whole pages inside the mapping just
            // created, which nothing else refers to yet.
            let (a, b) = unsafe {
                (
                    libc::mprotect(map.cast(), page, libc::PROT_NONE),
                    libc::mprotect(map.add(page + usable).cast(), page, libc::PROT_NONE),
                )
            };
            assert!(a == 0 && b == 0, "mprotect failed");
            Guarded {
                map,
                map_len,
                page,
                usable,
            }
        }

        /// Bytes that can be placed.
        pub fn capacity(&self) -> usize {
            self.usable
        }

        /// `len` bytes ending flush against the trailing inaccessible page.
        pub fn at_end(&mut self, len: usize) -> &mut [u8] {
            assert!(len <= self.usable);
            // SAFETY: the `len` bytes before the trailing guard page are in
            // the accessible part of the mapping, which lives as long as
            // `self` and is only lent out through this `&mut self`.
            unsafe {
                std::slice::from_raw_parts_mut(self.map.add(self.page + self.usable - len), len)
            }
        }

        /// `len` bytes starting right after the leading inaccessible page.
        pub fn at_start(&mut self, len: usize) -> &mut [u8] {
            assert!(len <= self.usable);
            // SAFETY: as in `at_end`, for the first `len` accessible bytes.
            unsafe { std::slice::from_raw_parts_mut(self.map.add(self.page), len) }
        }
    }

    impl Drop for Guarded {
        fn drop(&mut self) {
            // SAFETY: the mapping created in `new`, unmapped once; no slice
            // of it outlives `self` (they borrow it).
            unsafe { libc::munmap(self.map.cast(), self.map_len) };
        }
    }
}

use guard::Guarded;

/// One decode to check: a block, a dictionary (empty: none), a capacity.
struct Case {
    name: String,
    src: Vec<u8>,
    dict: Vec<u8>,
    cap: usize,
}

/// A decoder under test.
enum Dec {
    /// `block::decompress_into` (no state; no dictionary).
    Plain,
    /// `block::decompress_with_dict_into` (no state).
    WithDict,
    /// `Decoder::with_variant`, forced.
    Variant(Variant, Box<Decoder>),
}

impl Dec {
    fn name(&self) -> String {
        match self {
            Dec::Plain => "decompress_into".into(),
            Dec::WithDict => "decompress_with_dict_into".into(),
            Dec::Variant(v, _) => format!("variant {v}"),
        }
    }

    fn decode(&mut self, src: &[u8], dict: &[u8], dst: &mut [u8]) -> lzkit::Result<usize> {
        match self {
            Dec::Plain => block::decompress_into(src, dst),
            Dec::WithDict => block::decompress_with_dict_into(src, dst, dict),
            Dec::Variant(_, d) => d.decompress_with_dict_into(src, dict, dst),
        }
    }
}

fn decoders() -> Vec<Dec> {
    let mut v = vec![Dec::Plain, Dec::WithDict];
    v.extend(Variant::available().iter().map(|&var| {
        Dec::Variant(
            var,
            Box::new(Decoder::with_variant(var).expect("available")),
        )
    }));
    v
}

/// Where an output buffer sits.
#[derive(Clone, Copy, Debug)]
enum Out {
    /// Between two runs of canary bytes.
    Canaries,
    /// Ending flush against an inaccessible page.
    GuardAfter,
    /// Starting right after an inaccessible page.
    GuardBefore,
}

/// Reusable guarded buffers (mapping per decode would dominate the run).
struct Buffers {
    input: Guarded,
    dict: Guarded,
    out: Guarded,
    canary: Vec<u8>,
}

impl Buffers {
    fn new() -> Self {
        Buffers {
            input: Guarded::new(1),
            dict: Guarded::new(1),
            out: Guarded::new(1),
            canary: Vec::new(),
        }
    }

    /// Make sure each region holds `n` bytes.
    fn fit(g: &mut Guarded, n: usize) {
        if g.capacity() < n {
            *g = Guarded::new(n);
        }
    }
}

/// The canary pattern (not a fill byte, not zero, varies with position).
fn canary(i: usize) -> u8 {
    (i as u8).wrapping_mul(31) ^ 0xC3
}

/// What one decode gave: the decoded bytes, or the error's text.
type Outcome = Result<Vec<u8>, String>;

/// How the checks went.
#[derive(Default)]
struct Report {
    decodes: usize,
    failures: Vec<String>,
}

/// Whether lzkit's error is a match offset of 0.
fn is_offset_zero(e: &Error) -> bool {
    matches!(
        e,
        Error::CorruptBlock {
            fault: Fault::Lz4(Lz4Fault::OffsetZero),
            ..
        }
    )
}

/// Decode `case` with every decoder in every placement and compare with C.
fn check(case: &Case, decs: &mut [Dec], bufs: &mut Buffers, report: &mut Report) {
    let Case {
        name,
        src,
        dict,
        cap,
    } = case;
    let cap = *cap;
    let reference = c_ref::decompress(src, cap, dict, FILL);
    Buffers::fit(&mut bufs.input, src.len());
    Buffers::fit(&mut bufs.dict, dict.len());
    Buffers::fit(&mut bufs.out, cap);
    let mut first: Option<(String, Outcome)> = None;
    for input_at_end in [true, false] {
        // The input against one guard page, the dictionary against the
        // other side's.
        let input = if input_at_end {
            bufs.input.at_end(src.len())
        } else {
            bufs.input.at_start(src.len())
        };
        input.copy_from_slice(src);
        let dict_slice = if input_at_end {
            bufs.dict.at_start(dict.len())
        } else {
            bufs.dict.at_end(dict.len())
        };
        dict_slice.copy_from_slice(dict);
        let input: &[u8] = if input_at_end {
            bufs.input.at_end(src.len())
        } else {
            bufs.input.at_start(src.len())
        };
        let dict_slice: &[u8] = if input_at_end {
            bufs.dict.at_start(dict.len())
        } else {
            bufs.dict.at_end(dict.len())
        };
        for dec in decs.iter_mut() {
            if !dict.is_empty() && matches!(dec, Dec::Plain) {
                continue;
            }
            let dec_name = dec.name();
            for out in [Out::Canaries, Out::GuardAfter, Out::GuardBefore] {
                report.decodes += 1;
                let what = || {
                    format!(
                        "{name}: {dec_name} (input {} a guard page, output {out:?}, capacity {cap})",
                        if input_at_end {
                            "ending at"
                        } else {
                            "starting after"
                        }
                    )
                };
                let (r, bytes) = match out {
                    Out::Canaries => {
                        let buf = &mut bufs.canary;
                        buf.clear();
                        buf.extend((0..CANARY_LEN).map(canary));
                        buf.resize(CANARY_LEN + cap, FILL);
                        buf.extend((0..CANARY_LEN).map(|i| canary(i + 7)));
                        let r =
                            dec.decode(input, dict_slice, &mut buf[CANARY_LEN..CANARY_LEN + cap]);
                        let front = buf[..CANARY_LEN]
                            .iter()
                            .enumerate()
                            .all(|(i, &b)| b == canary(i));
                        let back = buf[CANARY_LEN + cap..]
                            .iter()
                            .enumerate()
                            .all(|(i, &b)| b == canary(i + 7));
                        if !front || !back {
                            report.failures.push(format!(
                                "{}: canary overwritten ({})",
                                what(),
                                if front { "after" } else { "before" }
                            ));
                        }
                        (r, &buf[CANARY_LEN..CANARY_LEN + cap])
                    }
                    Out::GuardAfter | Out::GuardBefore => {
                        let dst = if matches!(out, Out::GuardAfter) {
                            bufs.out.at_end(cap)
                        } else {
                            bufs.out.at_start(cap)
                        };
                        dst.fill(FILL);
                        let r = dec.decode(input, dict_slice, dst);
                        (r, &*dst)
                    }
                };
                let outcome: Outcome = match &r {
                    Ok(n) => Ok(bytes[..*n].to_vec()),
                    Err(e) => Err(e.to_string()),
                };
                match (&reference, &r) {
                    (None, Ok(n)) => report
                        .failures
                        .push(format!("{}: C rejects, lzkit accepts ({n} bytes)", what())),
                    (Some(c), Ok(_)) => {
                        if outcome.as_deref() != Ok(&c[..]) {
                            report.failures.push(format!(
                                "{}: bytes differ from C's ({} and {} bytes)",
                                what(),
                                outcome.as_ref().map_or(0, Vec::len),
                                c.len()
                            ));
                        }
                    }
                    (Some(c), Err(e)) => {
                        if is_offset_zero(e) {
                            // lzkit rejects offset 0 by design; C does not
                            // check it.
                        } else {
                            report.failures.push(format!(
                                "{}: C accepts ({} bytes), lzkit rejects: {e}",
                                what(),
                                c.len()
                            ));
                        }
                    }
                    (None, Err(e)) => {
                        if !matches!(e, Error::CorruptBlock { at, .. } if *at <= src.len()) {
                            report
                                .failures
                                .push(format!("{}: unexpected error {e:?}", what()));
                        }
                    }
                }
                match &first {
                    None => first = Some((what(), outcome)),
                    Some((w, o)) => {
                        if *o != outcome {
                            report.failures.push(format!(
                                "{} and {w} disagree: {:?} / {:?}",
                                what(),
                                outcome.as_ref().map(Vec::len),
                                o.as_ref().map(Vec::len)
                            ));
                        }
                    }
                }
            }
        }
    }
}

/// Valid blocks: (name, data, block).
fn valid_blocks() -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let mut sets: Vec<(String, Vec<u8>)> = Vec::new();
    let shapes = data::decoder_shapes();
    for (i, d) in shapes.iter().enumerate() {
        // Every periodic shape would be slow: a spread of periods, the
        // columns cut short, all the small sizes.
        if d.len() <= 200 || i % 9 == 0 {
            sets.push((format!("shape{i}"), d.clone()));
        } else if d.len() >= 40_000 && i % 2 == 0 {
            sets.push((format!("shape{i}-cut"), d[..12_000].to_vec()));
        }
    }
    sets.push(("text".into(), data::text(6000, 3)));
    sets.push(("mixed".into(), data::mixed(20_000, 4)));
    sets.push(("random".into(), data::random(700, 5)));
    sets.push(("run".into(), data::run(3000, 7)));
    for n in [13usize, 20, 64, 100, 300, 1000] {
        sets.push((
            format!("tail{n}"),
            data::generate(data::Shape::Tail, n, n as u64),
        ));
    }
    let mut out = Vec::new();
    for (k, (name, d)) in sets.into_iter().enumerate() {
        let lz = [1, 9, 12, -5][k % 4];
        out.push((
            format!("{name}-lzkit{lz}"),
            d.clone(),
            block::compress(&d, lz),
        ));
        let c = [1, 9][k % 2];
        let cb = c_ref::compress(&d, c).expect("C compresses");
        out.push((format!("{name}-c{c}"), d, cb));
    }
    out
}

/// Hand-built blocks at the format's edges: (name, block, capacity).
fn edge_blocks() -> Vec<(String, Vec<u8>, usize)> {
    let mut v = Vec::new();
    let lits: Vec<u8> = (b'A'..=b'Z').collect();
    // C's shortcut: a short literal run and a match leaving under 5 bytes.
    v.push((
        "shortcut-3-trailing".to_string(),
        vec![
            0xdf, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d,
            0x01, 0x00, 0x00, 0x30, 0x78, 0x79, 0x7a,
        ],
        40,
    ));
    for (offset, ml, last) in [
        (0u16, 4usize, 5usize),
        (1, 4, 5),
        (8, 20, 5),
        (8, 20, 4),
        (8, 20, 0),
        (9, 4, 5),
        (16, 200, 12),
        (13, 18, 5),
    ] {
        let mut b = Vec::new();
        push_seq(&mut b, &lits[..8], offset, ml);
        push_last(&mut b, &lits[..last]);
        let n = 8 + ml + last;
        for cap in [n.saturating_sub(1), n, n + 1, n + 5, n + 12, n + 13, n + 40] {
            v.push((format!("seq-off{offset}-ml{ml}-last{last}"), b.clone(), cap));
        }
    }
    // Literal runs around the 15/255 length encodings, the empty block.
    for n in [0usize, 1, 14, 15, 16, 269, 270, 271] {
        let mut b = Vec::new();
        push_last(&mut b, &data::random(n, n as u64));
        for cap in [n, n + 1, n + 64] {
            v.push((format!("literals{n}"), b.clone(), cap));
        }
    }
    v.push(("empty-input".into(), Vec::new(), 16));
    v.push(("lone-zero-cap0".into(), vec![0], 0));
    v
}

/// Every case: valid blocks at several capacities, their truncations and
/// mutations, the edge blocks, and the dictionary decodes.
fn cases() -> Vec<Case> {
    let mut rng = Rng::new(0x6A4D);
    let mut cases = Vec::new();
    let case = |name: String, src: &[u8], dict: &[u8], cap: usize| Case {
        name,
        src: src.to_vec(),
        dict: dict.to_vec(),
        cap,
    };
    for (k, (name, d, b)) in valid_blocks().into_iter().enumerate() {
        let n = d.len();
        let caps: &[usize] = if n <= 300 {
            &[0, 1, 5, 12, 13, 33, 64]
        } else {
            &[0, 1, 13]
        };
        for &extra in caps {
            cases.push(case(format!("{name}-cap+{extra}"), &b, &[], n + extra));
        }
        if n > 0 {
            cases.push(case(format!("{name}-cap-1"), &b, &[], n - 1));
        }
        // Truncations: every prefix of a small block, a spread of a larger.
        if k % 3 == 0 && !b.is_empty() {
            let step = (b.len() / 40).max(1);
            for cut in (0..b.len()).step_by(step) {
                cases.push(case(format!("{name}-cut{cut}"), &b[..cut], &[], n + 16));
            }
        }
        // Mutations: a byte replaced or flipped.
        if k % 2 == 1 && !b.is_empty() {
            for m in 0..64 {
                let mut bad = b.clone();
                let at = rng.index(bad.len());
                if m % 2 == 0 {
                    bad[at] ^= 1 << rng.index(8);
                } else {
                    bad[at] = rng.byte();
                }
                cases.push(case(format!("{name}-mut{m}@{at}"), &bad, &[], n + 32));
            }
        }
    }
    for (name, b, cap) in edge_blocks() {
        cases.push(case(format!("{name}-cap{cap}"), &b, &[], cap));
    }
    // Dictionary decodes: data borrowing from both ends of a dictionary
    // longer than the window, compressed by lzkit and by C.
    let dict = data::text(70_000, 11);
    let borrowing = [
        &dict[8_000..9_500],
        &data::text(2_500, 12)[..],
        &dict[66_000..68_500],
        &dict[69_990..],
    ]
    .concat();
    let mut other = dict.clone();
    other.reverse();
    let blocks = [
        (
            "dict-lzkit1",
            block::compress_with_dict(&borrowing, &dict, 1),
        ),
        (
            "dict-lzkit9",
            block::compress_with_dict(&borrowing, &dict, 9),
        ),
        (
            "dict-c",
            c_ref::compress_with_dict(&borrowing, &dict, 1).expect("C compresses"),
        ),
    ];
    let n = borrowing.len();
    for (name, b) in &blocks {
        let dicts: [(&str, &[u8]); 6] = [
            ("whole", &dict),
            ("window", &dict[dict.len() - 65_536..]),
            ("last1000", &dict[dict.len() - 1000..]),
            ("last1", &dict[dict.len() - 1..]),
            ("wrong", &other),
            ("none", &[]),
        ];
        for (dname, d) in dicts {
            for extra in [0usize, 1, 13] {
                cases.push(case(format!("{name}-{dname}-cap+{extra}"), b, d, n + extra));
            }
        }
        for m in 0..48 {
            let mut bad = b.clone();
            let at = rng.index(bad.len());
            bad[at] = rng.byte();
            cases.push(case(format!("{name}-mut{m}@{at}"), &bad, &dict, n + 8));
        }
        let step = (b.len() / 24).max(1);
        for cut in (0..b.len()).step_by(step) {
            cases.push(case(format!("{name}-cut{cut}"), &b[..cut], &dict, n));
        }
    }
    cases
}

#[test]
fn every_variant_matches_c_with_inputs_and_outputs_against_guard_pages() {
    let cases = cases();
    let mut decs = decoders();
    let mut bufs = Buffers::new();
    let mut report = Report::default();
    for case in &cases {
        check(case, &mut decs, &mut bufs, &mut report);
    }
    let shown: Vec<&String> = report.failures.iter().take(40).collect();
    let failing: BTreeSet<&str> = report
        .failures
        .iter()
        .filter_map(|f| f.split(':').next())
        .collect();
    assert!(
        report.failures.is_empty(),
        "{} of {} decodes ({} cases, {} decoders) differ from C or broke a guard, in cases {failing:?}:\n{}",
        report.failures.len(),
        report.decodes,
        cases.len(),
        decs.len(),
        shown.iter().map(|s| format!("  {s}\n")).collect::<String>()
    );
    assert!(report.decodes > 10_000, "only {} decodes", report.decodes);
}
