//! What a probe found: one [`Candidate`] per setting, the Pareto fronts, and
//! the end-to-end model that turns speeds and ratios into read and write
//! throughput under an I/O rate.

use super::{BlockSize, Setting};

/// The results for one setting. Speeds are in MB/s of uncompressed data
/// (10^6 bytes per second).
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The setting.
    pub setting: Setting,
    /// Input bytes over compressed bytes of the whole sample (blocks
    /// weighted by [`Sample::weight`](super::Sample::weight)). For a setting
    /// that compressed only some blocks ([`Candidate::blocks`] below the
    /// sample's), an estimate: its compressed size on those blocks, times
    /// the whole sample's compressed size over those blocks' for another
    /// setting that did every block (the same codec's highest ratio, else
    /// LZ4 level 1). Blocks differ far more in compressibility than two
    /// settings differ on one block, so the estimate is close, and settings
    /// compare on the same data. `sample_bytes / compressed_bytes` is the
    /// ratio on the blocks actually compressed. With a calibration pass,
    /// the estimate of the whole input's ratio from it instead (see
    /// [How sure the ratios are](super#how-sure-the-ratios-are)).
    pub ratio: f64,
    /// The 95% interval of [`Candidate::ratio`] as an estimate of the
    /// whole input's ratio, from how the ratio varies between the sampled
    /// blocks (for an estimated ratio, also how this setting follows the
    /// auxiliary one over the blocks it did): `(low, high)`, both equal to
    /// the ratio when the sample is the whole input, `None` when too few
    /// blocks were compressed to tell (one).
    pub ratio_interval: Option<(f64, f64)>,
    /// Bytes of the sample compressed for the ratio and speeds: all of it
    /// unless the setting hit [`ProbeOptions::time_limit`](super::ProbeOptions::time_limit).
    pub sample_bytes: u64,
    /// Blocks compressed.
    pub blocks: usize,
    /// Their compressed size.
    pub compressed_bytes: u64,
    /// Compression speed on one thread.
    pub compress_mbps: f64,
    /// Compression speed on all the probe's threads.
    pub compress_mbps_threads: f64,
    /// Decompression speed of lzkit's decoder, one thread.
    pub decompress_mbps: f64,
    /// Decompression speed of the reference decoder, if one was given.
    pub reference_decompress_mbps: Option<f64>,
    /// Working memory of one compressing thread, in bytes (see the
    /// [module documentation](super)).
    pub compress_memory: usize,
    /// Working memory of one decoding thread, in bytes.
    pub decompress_memory: usize,
    /// On the Pareto front of ratio against decompression speed: no other
    /// setting has both a higher ratio and faster decoding (nor one of
    /// them higher and the other equal).
    pub pareto: bool,
    /// On the Pareto front of ratio against compression speed (one thread).
    pub pareto_compress: bool,
}

impl Candidate {
    /// End-to-end reading speed in MB/s of data: the compressed bytes moved
    /// at `io`, then decoded on one thread.
    /// `1 / (1 / (ratio * io) + 1 / decompress_mbps)`.
    ///
    /// ```
    /// # use lzkit::probe::{Candidate, IoRate, Setting};
    /// # let mut c = Candidate { setting: Setting::lz4(1), ratio: 1.0, ratio_interval: None,
    /// #     sample_bytes: 0, blocks: 0,
    /// #     compressed_bytes: 0, compress_mbps: 0.0, compress_mbps_threads: 0.0,
    /// #     decompress_mbps: 0.0, reference_decompress_mbps: None, compress_memory: 0,
    /// #     decompress_memory: 0, pareto: false, pareto_compress: false };
    /// c.ratio = 4.0;
    /// c.decompress_mbps = 400.0;
    /// // 100 MB/s moves 400 MB/s of data at ratio 4; decoding halves it.
    /// assert_eq!(c.read_mbps(IoRate::from_mbps(100.0)), 200.0);
    /// assert_eq!(c.read_mbps(IoRate::MEMORY), 400.0);
    /// ```
    pub fn read_mbps(&self, io: IoRate) -> f64 {
        1.0 / (io.seconds_per_mb(self.ratio) + 1.0 / self.decompress_mbps)
    }

    /// End-to-end writing speed in MB/s of data: compressed on all the
    /// probe's threads, then the compressed bytes moved at `io`.
    /// `1 / (1 / compress_mbps_threads + 1 / (ratio * io))`.
    pub fn write_mbps(&self, io: IoRate) -> f64 {
        1.0 / (1.0 / self.compress_mbps_threads + io.seconds_per_mb(self.ratio))
    }
}

/// The speed at which compressed bytes are read or written (a network file
/// system, a disk), or [`IoRate::MEMORY`]: no I/O cost.
///
/// ```
/// use lzkit::probe::IoRate;
/// assert_eq!(IoRate::from_mbps(100.0).mbps(), Some(100.0));
/// assert_eq!(IoRate::MEMORY.mbps(), None);
/// assert_eq!(IoRate::from_mbps(2000.0).to_string(), "2000 MB/s");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IoRate {
    /// MB/s; infinite for memory.
    mbps: f64,
}

impl IoRate {
    /// Data already in memory: moving compressed bytes costs nothing.
    pub const MEMORY: IoRate = IoRate {
        mbps: f64::INFINITY,
    };

    /// `mbps` MB/s (10^6 bytes per second); anything not positive, or not
    /// finite, is [`IoRate::MEMORY`].
    pub fn from_mbps(mbps: f64) -> IoRate {
        if mbps.is_finite() && mbps > 0.0 {
            IoRate { mbps }
        } else {
            IoRate::MEMORY
        }
    }

    /// The rate in MB/s, or `None` for [`IoRate::MEMORY`].
    pub fn mbps(self) -> Option<f64> {
        self.mbps.is_finite().then_some(self.mbps)
    }

    /// Seconds to move the compressed form of one MB of data at `ratio`.
    fn seconds_per_mb(self, ratio: f64) -> f64 {
        1.0 / (ratio * self.mbps)
    }
}

impl std::fmt::Display for IoRate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.mbps() {
            None => f.write_str("memory (no I/O)"),
            Some(r) if r >= 10.0 => write!(f, "{r:.0} MB/s"),
            Some(r) => write!(f, "{r} MB/s"),
        }
    }
}

/// The best candidates under one I/O rate, by index in
/// [`Report::candidates`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recommendation {
    /// Highest [`Candidate::read_mbps`].
    pub read: usize,
    /// Highest [`Candidate::write_mbps`].
    pub write: usize,
    /// Highest ratio (ties: faster reading).
    pub size: usize,
}

/// A probe's results.
#[derive(Debug, Clone)]
pub struct Report {
    /// Bytes of the whole input.
    pub input_bytes: u64,
    /// Inputs (files) with at least one byte.
    pub files: usize,
    /// Bytes sampled.
    pub sample_bytes: u64,
    /// Blocks sampled.
    pub blocks: usize,
    /// The block size.
    pub block_size: BlockSize,
    /// Whether the sample is the whole input.
    pub whole_input: bool,
    /// Threads of [`Candidate::compress_mbps_threads`].
    pub threads: usize,
    /// The calibration pass the ratios were estimated from, if any (see
    /// [`Calibration`](super::Calibration)).
    pub calibration: Option<super::Calibration>,
    /// One per setting, in the order given.
    pub candidates: Vec<Candidate>,
}

impl Report {
    /// The best candidates for reading, writing and size under `io`.
    ///
    /// # Panics
    /// If the report has no candidate (a report from [`super::probe`]
    /// always has one).
    pub fn recommend(&self, io: IoRate) -> Recommendation {
        let best = |key: &dyn Fn(&Candidate) -> (f64, f64)| {
            (0..self.candidates.len())
                .max_by(|&a, &b| {
                    let (ka, kb) = (key(&self.candidates[a]), key(&self.candidates[b]));
                    ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
                })
                .expect("a report has candidates")
        };
        Recommendation {
            read: best(&|c| (c.read_mbps(io), c.ratio)),
            write: best(&|c| (c.write_mbps(io), c.ratio)),
            size: best(&|c| (c.ratio, c.read_mbps(io))),
        }
    }

    /// The candidates that tie with the recommendation `rec` for `goal`
    /// under `io`: those whose interval of the goal's figure overlaps the
    /// recommended one's, the ratios' intervals carried through the
    /// end-to-end model (speeds count as measured). A candidate without
    /// an interval ties where its figure alone reaches into the
    /// recommended one's interval.
    pub fn ties(&self, io: IoRate, rec: &Recommendation, goal: Goal) -> Vec<usize> {
        let winner = match goal {
            Goal::Read => rec.read,
            Goal::Write => rec.write,
            Goal::Size => rec.size,
        };
        // The goal's figure for candidate `c` if its ratio were `ratio`.
        let figure = |c: &Candidate, ratio: f64| {
            let c = Candidate { ratio, ..c.clone() };
            match goal {
                Goal::Read => c.read_mbps(io),
                Goal::Write => c.write_mbps(io),
                Goal::Size => ratio,
            }
        };
        let range = |c: &Candidate| {
            let (low, high) = c.ratio_interval.unwrap_or((c.ratio, c.ratio));
            (figure(c, low), figure(c, high))
        };
        let (low, _) = range(&self.candidates[winner]);
        (0..self.candidates.len())
            .filter(|&i| i != winner && range(&self.candidates[i]).1 >= low)
            .collect()
    }
}

/// What a recommendation is for (see [`Report::ties`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// [`Recommendation::read`].
    Read,
    /// [`Recommendation::write`].
    Write,
    /// [`Recommendation::size`].
    Size,
}

/// For each point (both coordinates better when higher), whether it is on
/// the Pareto front: no other point is at least as good in both and better
/// in one. Equal points are all on it.
pub(super) fn pareto_front(points: &[(f64, f64)]) -> Vec<bool> {
    points
        .iter()
        .map(|&(x, y)| {
            !points
                .iter()
                .any(|&(a, b)| a >= x && b >= y && (a > x || b > y))
        })
        .collect()
}

/// Set [`Candidate::pareto`] and [`Candidate::pareto_compress`].
pub(super) fn mark_pareto(candidates: &mut [Candidate]) {
    let read: Vec<(f64, f64)> = candidates
        .iter()
        .map(|c| (c.ratio, c.decompress_mbps))
        .collect();
    let write: Vec<(f64, f64)> = candidates
        .iter()
        .map(|c| (c.ratio, c.compress_mbps))
        .collect();
    for ((c, r), w) in candidates
        .iter_mut()
        .zip(pareto_front(&read))
        .zip(pareto_front(&write))
    {
        c.pareto = r;
        c.pareto_compress = w;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(ratio: f64, compress: f64, decompress: f64) -> Candidate {
        Candidate {
            setting: Setting::lz4(1),
            ratio,
            ratio_interval: None,
            sample_bytes: 1,
            blocks: 1,
            compressed_bytes: 1,
            compress_mbps: compress,
            compress_mbps_threads: 2.0 * compress,
            decompress_mbps: decompress,
            reference_decompress_mbps: None,
            compress_memory: 0,
            decompress_memory: 0,
            pareto: false,
            pareto_compress: false,
        }
    }

    #[test]
    fn pareto_fronts_of_a_constructed_set() {
        let points = [
            (2.0, 3000.0), // front: the fastest
            (3.0, 1000.0), // front
            (2.5, 900.0),  // dominated by (3.0, 1000.0)
            (4.0, 500.0),  // front: the highest ratio
            (3.0, 1000.0), // equal to a front point: on it too
            (1.0, 3000.0), // dominated by (2.0, 3000.0): equal speed, lower ratio
            (3.5, 200.0),  // dominated by (4.0, 500.0)
        ];
        assert_eq!(
            pareto_front(&points),
            [true, true, false, true, true, false, false]
        );
        assert_eq!(pareto_front(&[]), Vec::<bool>::new());
        assert_eq!(pareto_front(&[(1.0, 1.0)]), [true]);

        let mut cs: Vec<Candidate> = points
            .iter()
            .map(|&(r, d)| candidate(r, 10_000.0 / d, d))
            .collect();
        mark_pareto(&mut cs);
        let read: Vec<bool> = cs.iter().map(|c| c.pareto).collect();
        assert_eq!(read, pareto_front(&points));
        // Compression speed 10000/d reverses the speed order: the slowest
        // decoder (3.5, 200) now compresses fastest, and only it and the
        // highest ratio are on the front.
        let write: Vec<bool> = cs.iter().map(|c| c.pareto_compress).collect();
        assert_eq!(write, [false, false, false, true, false, false, true]);
    }

    #[test]
    fn the_io_model() {
        // Ratio 2, decoding at 1000 MB/s, compressing at 100 (200 on all
        // threads).
        let c = candidate(2.0, 100.0, 1000.0);
        let io = IoRate::from_mbps(100.0);
        // Reading 1 MB: 0.5 MB moved in 5 ms, decoded in 1 ms: 6 ms.
        assert!((c.read_mbps(io) - 1.0 / 0.006).abs() < 1e-6);
        // Writing 1 MB: compressed in 5 ms, 0.5 MB moved in 5 ms.
        assert!((c.write_mbps(io) - 100.0).abs() < 1e-9);
        // From memory: the codec's own speeds.
        assert_eq!(c.read_mbps(IoRate::MEMORY), 1000.0);
        assert_eq!(c.write_mbps(IoRate::MEMORY), 200.0);
        assert_eq!(IoRate::from_mbps(0.0), IoRate::MEMORY);
        assert_eq!(IoRate::from_mbps(f64::NAN), IoRate::MEMORY);
    }

    #[test]
    fn overlapping_intervals_tie() {
        let mut report = Report {
            input_bytes: 1,
            files: 1,
            sample_bytes: 1,
            blocks: 1,
            block_size: BlockSize::Bytes(1),
            whole_input: false,
            threads: 2,
            calibration: None,
            candidates: vec![
                candidate(4.0, 20.0, 1000.0),
                candidate(3.9, 100.0, 2000.0),
                candidate(3.0, 500.0, 4000.0),
            ],
        };
        let intervals = [(3.9, 4.1), (3.8, 4.0), (2.9, 3.1)];
        for (c, i) in report.candidates.iter_mut().zip(intervals) {
            c.ratio_interval = Some(i);
        }
        let rec = report.recommend(IoRate::MEMORY);
        assert_eq!(rec.size, 0);
        assert_eq!(report.ties(IoRate::MEMORY, &rec, Goal::Size), [1]);
        // Narrower intervals: no tie.
        report.candidates[1].ratio_interval = Some((3.85, 3.89));
        assert!(report.ties(IoRate::MEMORY, &rec, Goal::Size).is_empty());
        // In memory reading depends on decoding alone: no tie with 4000.
        assert_eq!(rec.read, 2);
        assert!(report.ties(IoRate::MEMORY, &rec, Goal::Read).is_empty());
        // At 1 MB/s reading is moving bytes: the ratio decides, and ties.
        let slow = IoRate::from_mbps(1.0);
        let rec = report.recommend(slow);
        report.candidates[1].ratio_interval = Some((3.8, 4.0));
        assert_eq!(
            (rec.read, report.ties(slow, &rec, Goal::Read)),
            (0, vec![1])
        );
    }

    #[test]
    fn recommendations_follow_the_io_rate() {
        let report = Report {
            input_bytes: 1,
            files: 1,
            sample_bytes: 1,
            blocks: 1,
            block_size: BlockSize::Bytes(1),
            whole_input: true,
            threads: 2,
            calibration: None,
            candidates: vec![
                candidate(2.0, 500.0, 4000.0), // fast
                candidate(4.0, 20.0, 1000.0),  // small
                candidate(3.0, 100.0, 2000.0), // between
            ],
        };
        // From memory the fastest decoder and compressor win.
        let m = report.recommend(IoRate::MEMORY);
        assert_eq!((m.read, m.write, m.size), (0, 0, 1));
        // At 10 MB/s moving bytes dominates reading: the smallest output
        // reads at 1/(1/40 + 1/1000) = 38.5 MB/s, against 29.6 and 19.9.
        // Writing, its slow compressor (40 MB/s on all threads) costs as
        // much as the bytes it saves: the middle one writes at
        // 1/(1/200 + 1/30) = 26.1 MB/s, against 20 and 19.6.
        let slow = report.recommend(IoRate::from_mbps(10.0));
        assert_eq!(slow.read, 1);
        assert_eq!(slow.write, 2);
        assert_eq!(slow.size, 1);
        // At 1000 MB/s the fast codec reads best (1/(1/2000+1/4000)=1333).
        assert_eq!(report.recommend(IoRate::from_mbps(1000.0)).read, 0);
    }
}
