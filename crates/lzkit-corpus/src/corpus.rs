//! The built-in corpus: column files generated in memory, so that
//! `lzkit bench` runs on a fresh machine with no data at hand.
//!
//! The files imitate what a column store such as ClickHouse keeps on disk,
//! which is what the adaptive decoder is for: little-endian integers of
//! widths 1 to 8 (runs, small ranges, sorted sequences, sparse flags),
//! timestamps, floats, low-cardinality strings in ClickHouse's `String`
//! encoding (a VarUInt length, then the bytes), text and random bytes. Their
//! LZ4 ratios span the range that matters: from 1 (random, sorted IDs)
//! through 2 to 4 (strings, small ranges) to above 100 (sorted months), where
//! long matches at offsets 1 to 8 make decoding a pattern fill.
//!
//! Every file is generated from its own fixed seed, independent of the
//! benchmark's `--seed`: the corpus is the same on every run and machine.

use crate::rng::{Rng, derive_seed};

/// Seed of the corpus family; each file derives its own from it.
const CORPUS_SEED: u64 = 0x00C0_4B05;
/// One mebibyte.
const MIB: usize = 1 << 20;
/// Smallest file `--corpus-scale` can shrink a file to: below this a file
/// is less than one 64 KiB block's worth of values and says little.
pub const MIN_FILE_BYTES: usize = 4 << 10;

/// One generated file: its name and full-scale size.
struct Spec {
    name: &'static str,
    bytes: usize,
    generate: fn(&mut Rng, usize) -> Vec<u8>,
}

/// The corpus. Names end in the ClickHouse type the bytes encode. At full
/// scale it is 45 MiB, which the default settings bench in well under a
/// minute on one core.
const FILES: &[Spec] = &[
    Spec {
        name: "flag_runs.UInt8",
        bytes: MIB,
        generate: uint8_runs,
    },
    Spec {
        name: "sparse_flags.UInt8",
        bytes: MIB,
        generate: uint8_sparse,
    },
    Spec {
        name: "small_range.UInt16",
        bytes: 2 * MIB,
        generate: uint16_small_range,
    },
    Spec {
        name: "sorted_days.UInt16",
        bytes: 2 * MIB,
        generate: uint16_sorted_days,
    },
    Spec {
        name: "sorted_month.UInt32",
        bytes: 3 * MIB,
        generate: uint32_sorted_month,
    },
    Spec {
        name: "sorted_ids.UInt32",
        bytes: 3 * MIB,
        generate: uint32_sorted_ids,
    },
    Spec {
        name: "codes.UInt32",
        bytes: 3 * MIB,
        generate: uint32_codes,
    },
    Spec {
        name: "delays.Int64",
        bytes: 4 * MIB,
        generate: int64_delays,
    },
    Spec {
        name: "day_runs.Int64",
        bytes: 4 * MIB,
        generate: int64_day_runs,
    },
    Spec {
        name: "events.DateTime",
        bytes: 3 * MIB,
        generate: datetime_events,
    },
    Spec {
        name: "hours.DateTime64",
        bytes: 4 * MIB,
        generate: datetime64_hours,
    },
    Spec {
        name: "prices.Float64",
        bytes: 3 * MIB,
        generate: float64_prices,
    },
    Spec {
        name: "random_walk.Float64",
        bytes: 3 * MIB,
        generate: float64_walk,
    },
    Spec {
        name: "carrier.String",
        bytes: 2 * MIB,
        generate: string_low_cardinality,
    },
    Spec {
        name: "url.String",
        bytes: 3 * MIB,
        generate: string_urls,
    },
    Spec {
        name: "text.txt",
        bytes: 2 * MIB,
        generate: text,
    },
    Spec {
        name: "random.bin",
        bytes: MIB,
        generate: random_bytes,
    },
    // Last, so that the files before it keep their seeds and bytes.
    Spec {
        name: "wandering_counts.Int16",
        bytes: 2 * WANDERING_COUNTS,
        generate: int16_wandering_counts,
    },
];

/// Number of files in the corpus.
pub fn len() -> usize {
    FILES.len()
}

/// Name of the `index`th file.
pub fn name(index: usize) -> &'static str {
    FILES[index].name
}

/// Generate the `index`th file at `scale` times its full size (but at least
/// [`MIN_FILE_BYTES`]). The same arguments always give the same bytes.
pub fn generate(index: usize, scale: f64) -> Vec<u8> {
    let spec = &FILES[index];
    let bytes = ((spec.bytes as f64 * scale) as usize).max(MIN_FILE_BYTES);
    let mut rng = Rng::new(derive_seed(CORPUS_SEED, index as u64));
    let mut data = (spec.generate)(&mut rng, bytes);
    data.truncate(bytes);
    data
}

/// `bytes` bytes of column-like data unlike any input: 64 KiB pieces of
/// each corpus file's kind in turn, drawn with another seed than the
/// corpus's (what `--cold` decodes between samples).
pub fn other_data(bytes: usize) -> Vec<u8> {
    const PIECE: usize = 64 << 10;
    let mut out = Vec::with_capacity(bytes);
    for (i, spec) in FILES.iter().cycle().enumerate() {
        if out.len() >= bytes {
            break;
        }
        let mut rng = Rng::new(derive_seed(!CORPUS_SEED, i as u64));
        let piece = (spec.generate)(&mut rng, PIECE.min(bytes - out.len()));
        out.extend_from_slice(&piece[..piece.len().min(bytes - out.len())]);
    }
    out
}

/// `bytes` bytes (rounded down to whole values) of `width`-byte
/// little-endian values drawn from `next`.
fn fixed_width(bytes: usize, width: usize, mut next: impl FnMut() -> u64) -> Vec<u8> {
    let count = bytes / width;
    let mut out = Vec::with_capacity(count * width);
    for _ in 0..count {
        out.extend_from_slice(&next().to_le_bytes()[..width]);
    }
    out
}

/// Values of a sorted column: the `i`th of `count` rows gets
/// `first + i * distinct / count`, so each of the `distinct` values fills
/// one run of `count / distinct` rows.
fn sorted_runs(bytes: usize, width: usize, first: u64, distinct: u64) -> Vec<u8> {
    let count = (bytes / width).max(1) as u64;
    let mut i = 0;
    fixed_width(bytes, width, || {
        let v = first + i * distinct / count;
        i += 1;
        v
    })
}

/// UInt8 in 0..16 that keeps its value with probability 7/8: runs of eight
/// on average (a status column written in batches).
fn uint8_runs(rng: &mut Rng, bytes: usize) -> Vec<u8> {
    let mut v = 0;
    fixed_width(bytes, 1, || {
        if rng.chance(1.0 / 8.0) {
            v = rng.below(16);
        }
        v
    })
}

/// UInt8 flags, 2% set: long zero runs broken by single ones.
fn uint8_sparse(rng: &mut Rng, bytes: usize) -> Vec<u8> {
    fixed_width(bytes, 1, || u64::from(rng.chance(0.02)))
}

/// UInt16 uniform in 0..40 (a small enumeration with no order): 4-byte
/// matches are value pairs seen before, short and at scattered offsets.
fn uint16_small_range(rng: &mut Rng, bytes: usize) -> Vec<u8> {
    fixed_width(bytes, 2, || rng.below(40))
}

/// UInt16 days since 1970 over one year, sorted (a `Date` column of a table
/// ordered by date): 365 long runs at offset 2.
fn uint16_sorted_days(_: &mut Rng, bytes: usize) -> Vec<u8> {
    const JAN_1_2013: u64 = 15_706;
    sorted_runs(bytes, 2, JAN_1_2013, 365)
}

/// UInt32 month numbers 1..=12 of a table sorted by date: the highest-ratio
/// case (12 runs at offset 4).
fn uint32_sorted_month(_: &mut Rng, bytes: usize) -> Vec<u8> {
    sorted_runs(bytes, 4, 1, 12)
}

/// UInt32 sorted identifiers with gaps of 1 to 3: every value is new, so
/// LZ4 finds almost nothing (the ClickHouse article's puzzle).
fn uint32_sorted_ids(rng: &mut Rng, bytes: usize) -> Vec<u8> {
    let mut id = 1_000_000;
    fixed_width(bytes, 4, || {
        id += 1 + rng.below(3);
        id
    })
}

/// UInt32 codes from a set of 300 with a skewed frequency (airport or
/// region identifiers): 4-byte matches at scattered offsets.
fn uint32_codes(rng: &mut Rng, bytes: usize) -> Vec<u8> {
    fixed_width(bytes, 4, || 10_000 + 37 * rng.skewed(300) as u64)
}

/// Values in `wandering_counts.Int16`: the size of the synthetic
/// stand-in for a real column of daily counts.
const WANDERING_COUNTS: usize = 372_864;

/// Int16 counts of a slowly wandering log-normal series (births per day,
/// amounts in cents, sensor readings): `x[i] = 0.9 x[i-1] + e[i]` with
/// normal `e` of standard deviation `0.8 sqrt(1 - 0.81)` (so `x` has 0.8),
/// the value `exp(ln 129 + x)` cut to 1..=1800 and truncated. Neighbours
/// differ in their low byte, so LZ4 (level 1) finds a short match every few
/// dozen bytes between long literal runs: ratio 1.09, the literal-heavy
/// class that decodes from a hot cache at memory-bound speeds no longer.
fn int16_wandering_counts(rng: &mut Rng, bytes: usize) -> Vec<u8> {
    let sigma = 0.8 * (1.0f64 - 0.81).sqrt();
    let mut x = 0.0;
    fixed_width(bytes, 2, || {
        x = 0.9 * x + sigma * normal(rng);
        (129.0f64.ln() + x).exp().clamp(1.0, 1800.0) as u64
    })
}

/// A standard normal draw (Box-Muller, the cosine half).
fn normal(rng: &mut Rng) -> f64 {
    // 1 - unit() is in (0, 1]: the logarithm stays finite.
    let r = (-2.0 * (1.0 - rng.unit()).ln()).sqrt();
    r * (std::f64::consts::TAU * rng.unit()).cos()
}

/// Int64 delays in minutes, mostly small, some negative, a long tail:
/// seven nearly constant high bytes per value, short matches.
fn int64_delays(rng: &mut Rng, bytes: usize) -> Vec<u8> {
    fixed_width(bytes, 8, || {
        let u = rng.unit();
        let minutes = (u * u * u * 400.0) as i64 - 15;
        minutes as u64
    })
}

/// Int64 day of month for a table sorted by date: 365 runs at offset 8.
fn int64_day_runs(_: &mut Rng, bytes: usize) -> Vec<u8> {
    let count = (bytes / 8).max(1) as u64;
    let mut i = 0;
    fixed_width(bytes, 8, || {
        let day_of_year = i * 365 / count;
        i += 1;
        day_of_year % 30 + 1
    })
}

/// DateTime (UInt32 Unix seconds) of a log sorted by time: several events
/// a second on average, then a step of up to 4 seconds.
fn datetime_events(rng: &mut Rng, bytes: usize) -> Vec<u8> {
    const JAN_1_2013: u64 = 1_356_998_400;
    let mut t = JAN_1_2013;
    fixed_width(bytes, 4, || {
        if rng.chance(0.3) {
            t += 1 + rng.below(4);
        }
        t
    })
}

/// DateTime64(3) (Int64 milliseconds) rounded to the hour over a year,
/// sorted (a `time_hour` column): 8760 runs at offset 8.
fn datetime64_hours(_: &mut Rng, bytes: usize) -> Vec<u8> {
    const JAN_1_2013_MS: u64 = 1_356_998_400_000;
    const HOURS_PER_YEAR: u64 = 8760;
    const MS_PER_HOUR: u64 = 3_600_000;
    let count = (bytes / 8).max(1) as u64;
    let mut i = 0;
    fixed_width(bytes, 8, || {
        let hour = i * HOURS_PER_YEAR / count;
        i += 1;
        JAN_1_2013_MS + hour * MS_PER_HOUR
    })
}

/// Float64 prices from a list of 64 with a skewed frequency.
fn float64_prices(rng: &mut Rng, bytes: usize) -> Vec<u8> {
    fixed_width(bytes, 8, || (4.99 + 2.5 * rng.skewed(64) as f64).to_bits())
}

/// Float64 random walk rounded to cents (a sensor or a quote): the
/// mantissas barely repeat.
fn float64_walk(rng: &mut Rng, bytes: usize) -> Vec<u8> {
    let mut x = 100.0;
    fixed_width(bytes, 8, || {
        x += rng.unit() - 0.5;
        ((x * 100.0_f64).round() / 100.0).to_bits()
    })
}

/// Append `s` in ClickHouse's `String` encoding: its length as a VarUInt
/// (LEB128: 7 bits a byte, low first, high bit set on all but the last),
/// then the bytes.
fn push_string(out: &mut Vec<u8>, s: &[u8]) {
    let mut n = s.len() as u64;
    while n >= 0x80 {
        out.push((n as u8 & 0x7F) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
    out.extend_from_slice(s);
}

/// Strings from `next` in `String` encoding until `bytes` are written.
fn strings(bytes: usize, mut next: impl FnMut(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 256);
    let mut s = Vec::new();
    while out.len() < bytes {
        s.clear();
        next(&mut s);
        push_string(&mut out, &s);
    }
    out
}

/// Airline carrier codes (16 values, skewed): short strings, many repeats.
fn string_low_cardinality(rng: &mut Rng, bytes: usize) -> Vec<u8> {
    const CARRIERS: &[&str] = &[
        "UA", "B6", "EV", "DL", "AA", "MQ", "US", "9E", "WN", "VX", "FL", "AS", "F9", "YV", "HA",
        "OO",
    ];
    strings(bytes, |s| {
        s.extend_from_slice(CARRIERS[rng.skewed(CARRIERS.len())].as_bytes())
    })
}

/// Words for generated URLs and text, most frequent first (one string,
/// split when used, to keep the list compact).
const WORDS: &str = "the of and to in a is that for it as was with be by on not he this are \
    or his from at which but have an had they you were their one all we can her has there been \
    if more when will would who so no data block column compression query table server memory \
    speed decoder stream value offset match literal";

/// URLs: a scheme, one of 12 hosts, two path words and a numeric query
/// parameter (a web-analytics `URL` column, mid ratio).
fn string_urls(rng: &mut Rng, bytes: usize) -> Vec<u8> {
    let words: Vec<&str> = WORDS.split_whitespace().collect();
    const HOSTS: &[&str] = &[
        "example.com",
        "shop.example.com",
        "news.example.org",
        "mail.example.net",
        "maps.example.com",
        "video.example.tv",
        "docs.example.io",
        "api.example.com",
        "blog.example.org",
        "static.example.net",
        "m.example.com",
        "search.example.com",
    ];
    strings(bytes, |s| {
        let host = HOSTS[rng.skewed(HOSTS.len())];
        let first = words[rng.skewed(words.len())];
        let second = words[rng.below(words.len() as u64) as usize];
        let id = rng.below(100_000);
        let url = format!("https://{host}/{first}/{second}?id={id}");
        s.extend_from_slice(url.as_bytes());
    })
}

/// Prose-like text: skewed words, sentences of 4 to 15 words, a line break
/// every few sentences.
fn text(rng: &mut Rng, bytes: usize) -> Vec<u8> {
    let words: Vec<&str> = WORDS.split_whitespace().collect();
    let mut out = Vec::with_capacity(bytes + 256);
    while out.len() < bytes {
        let length = 4 + rng.below(12);
        for w in 0..length {
            let word = words[rng.skewed(words.len())].as_bytes();
            if w == 0 {
                out.push(word[0].to_ascii_uppercase());
                out.extend_from_slice(&word[1..]);
            } else {
                out.push(b' ');
                out.extend_from_slice(word);
            }
        }
        out.extend_from_slice(if rng.chance(0.2) { b".\n" } else { b". " });
    }
    out
}

/// Uniform random bytes: incompressible, LZ4 stores one long literal run.
fn random_bytes(rng: &mut Rng, bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 8);
    while out.len() < bytes {
        out.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_sized_and_distinct() {
        let mut seen = std::collections::HashSet::new();
        for (i, spec) in FILES.iter().enumerate() {
            let a = generate(i, 0.01);
            assert_eq!(a, generate(i, 0.01), "{}", name(i));
            let want = ((spec.bytes as f64 * 0.01) as usize).max(MIN_FILE_BYTES);
            // Fixed-width files round down to whole values.
            assert!(
                a.len() <= want && a.len() + 8 > want,
                "{}: {}",
                name(i),
                a.len()
            );
            assert!(seen.insert(a), "{} repeats another file", name(i));
        }
    }

    #[test]
    fn other_data_is_sized_deterministic_and_not_the_corpus() {
        let a = other_data(300_000);
        assert_eq!(a.len(), 300_000);
        assert_eq!(a, other_data(300_000));
        // Pieces of each kind in turn, with another seed than the corpus.
        let first = generate(0, 1.0);
        assert_ne!(a[..4096], first[..4096]);
    }

    /// The corpus decides benchmark results compared across changes: its
    /// bytes must not change by accident (a new PRNG draw, a reordered
    /// generator). Update the pin only on purpose.
    #[test]
    fn bytes_are_pinned() {
        let mut all = Vec::new();
        for i in 0..len() {
            all.extend(generate(i, 0.05));
        }
        all.extend(other_data(300_000));
        let hash = xxhash_rust::xxh32::xxh32(&all, 0);
        assert_eq!(
            (all.len(), hash),
            (2_644_114, 2_685_378_582),
            "corpus bytes changed"
        );
    }

    #[test]
    fn wandering_counts_have_the_stand_ins_statistics() {
        let i = (0..len()).find(|&i| name(i) == "wandering_counts.Int16");
        let data = generate(i.expect("in the corpus"), 1.0);
        assert_eq!(data.len(), 2 * WANDERING_COUNTS);
        let v: Vec<i16> = data
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        assert!(v.iter().all(|&x| (1..=1800).contains(&x)));
        // The logarithm: mean ln 129, standard deviation 0.8, lag-1
        // correlation 0.9 (truncation and clipping move them a little).
        let logs: Vec<f64> = v.iter().map(|&x| f64::from(x).ln()).collect();
        let n = logs.len() as f64;
        let mean = logs.iter().sum::<f64>() / n;
        let var = logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / n;
        let cov = logs
            .windows(2)
            .map(|w| (w[0] - mean) * (w[1] - mean))
            .sum::<f64>()
            / (n - 1.0);
        assert!((mean - 129f64.ln()).abs() < 0.05, "mean {mean}");
        assert!((var.sqrt() - 0.8).abs() < 0.05, "sd {}", var.sqrt());
        assert!((cov / var - 0.9).abs() < 0.02, "correlation {}", cov / var);
    }

    #[test]
    fn varuint_strings() {
        let mut out = Vec::new();
        push_string(&mut out, b"ab");
        push_string(&mut out, &[b'x'; 300]);
        assert_eq!(&out[..3], b"\x02ab");
        // 300 = 0b10_0101100: low 7 bits with the continuation bit, then 2.
        assert_eq!(&out[3..5], &[0xAC, 0x02]);
        assert_eq!(out.len(), 3 + 2 + 300);
    }

    #[test]
    fn sorted_runs_cover_every_value_in_order() {
        let d = sorted_runs(4 * 1200, 4, 1, 12);
        let v: Vec<u32> = d
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!((v[0], v[v.len() - 1]), (1, 12));
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
    }
}
