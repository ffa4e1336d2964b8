//! Option resolution: the levels, threads and codec settings the command
//! line and the environment ask for, checked once before any input.

use std::sync::Arc;

use lzkit::format::Codec;
use lzkit::lz4::Level;
use lzkit::lz4::frame::{BlockMode, FrameOptions, LEGACY_BLOCK_SIZE, effective_threads};

use super::super::args::Options;
use super::super::report::{Failure, Reporter};
use super::super::values::MAX_THREADS;

/// Environment variable with the default compression level.
const LEVEL_ENV: &str = "LZ4_CLEVEL";

/// Environment variable with the default number of worker threads.
const THREADS_ENV: &str = "LZ4_NBWORKERS";

/// Worker threads when neither `-T` nor the environment says: one per
/// core, as in lz4 1.10.
const DEFAULT_THREADS: usize = 0;

/// Options of the other format are refused rather than ignored: LZ4's
/// block options with `--zstd`, zstd's `--ultra` and `--long` without it.
pub(super) fn check_format_options(opts: &Options) -> Result<(), Failure> {
    match opts.format {
        Codec::Zstd
            if opts.block_arg.is_some()
                || opts.block_mode == BlockMode::Linked
                || opts.block_checksum =>
        {
            Err(Failure::new(
                "-B",
                "LZ4's block options (-B#, -BD, -BX) do not apply to zstd output",
            ))
        }
        Codec::Lz4 if opts.ultra || opts.long.is_some() => Err(Failure::new(
            if opts.ultra { "--ultra" } else { "--long" },
            "is a zstd option: add --zstd (or recompress --to zstd) to write zstd",
        )),
        _ => Ok(()),
    }
}

/// The smallest LZ4 block size of at least `size` bytes, but not above
/// `requested` (what `lz4` writes for an input of known size).
pub(super) fn fitted_block_size(
    requested: lzkit::lz4::frame::BlockSize,
    size: u64,
) -> lzkit::lz4::frame::BlockSize {
    use lzkit::lz4::frame::BlockSize;
    [
        BlockSize::Max64KB,
        BlockSize::Max256KB,
        BlockSize::Max1MB,
        BlockSize::Max4MB,
    ]
    .into_iter()
    .find(|bs| bs.bytes() as u64 >= size || *bs == requested)
    .unwrap_or(requested)
}

/// The LZ4 frame settings of `opts`, with the level and threads resolved
/// and the `-D` dictionary's last 64 KiB. The rest from the defaults, so
/// that options the library adds later keep their default values here.
pub(super) fn lz4_options(
    opts: &Options,
    level: Level,
    threads: usize,
    dictionary: Option<Arc<[u8]>>,
) -> FrameOptions {
    FrameOptions::new()
        .level(level)
        .block_size(opts.block_size)
        // The legacy format has only independent blocks and no block
        // checksums: with -l, lz4 ignores -BD and -BX.
        .block_mode(if opts.legacy {
            BlockMode::Independent
        } else {
            opts.block_mode
        })
        .block_checksum(opts.block_checksum && !opts.legacy)
        .content_checksum(opts.content_checksum)
        .dictionary_opt(dictionary)
        .legacy(opts.legacy)
        .favor_dec_speed(opts.favor_dec_speed)
        .threads(threads)
}

/// libzstd worker threads for `threads` (0: one per core), at least 1:
/// libzstd's multithreaded mode, whose bytes are the same for any count
/// (as `zstd -T#`), so the output does not depend on the machine.
pub(super) fn zstd_workers(threads: usize) -> u32 {
    effective_threads(threads).min(MAX_THREADS) as u32
}

/// The zstd settings of `opts`: level (zstd's default 3; above 19 only
/// with `--ultra`, else 19 with a warning, as `zstd` does), checksum,
/// `--long`, workers. `-l` is refused; LZ4's block options do not apply.
pub(super) fn zstd_options(
    opts: &Options,
    threads: usize,
    rep: &Reporter,
) -> Result<lzkit::zstd::FrameOptions, Failure> {
    use lzkit::zstd::{FrameOptions, MAX_LEVEL, ULTRA_MAX_LEVEL};
    if opts.legacy {
        return Err(Failure::new(
            "-l",
            "the legacy format is LZ4's; it cannot be used with --format=zstd",
        ));
    }
    let mut level = opts.zstd_level.unwrap_or(3);
    let max = if opts.ultra {
        ULTRA_MAX_LEVEL
    } else {
        MAX_LEVEL
    };
    if level > max {
        rep.warn(format!(
            "zstd level {level} is above {max}{}; using {max}",
            if opts.ultra {
                ""
            } else {
                " (20 to 22 need --ultra)"
            }
        ));
        level = max;
    }
    if level == 0 {
        level = 3;
    }
    Ok(FrameOptions::new()
        .level(level)
        .checksum(opts.content_checksum)
        .long(opts.long)
        .workers(zstd_workers(threads)))
}

/// The `-vv` description of zstd settings.
pub(super) fn describe_zstd(opts: &Options, workers: u32) -> String {
    format!(
        "{workers} worker(s), content checksum {}, long mode {}{}",
        if opts.content_checksum { "on" } else { "off" },
        opts.long
            .map_or_else(|| "off".to_string(), |l| format!("window 2^{l}")),
        if opts.dictionary.is_some() {
            ", with dictionary"
        } else {
            ""
        },
    )
}

/// The `-vv` line describing the frame settings.
pub(super) fn describe_frame(name: &str, f: &FrameOptions) -> String {
    let threads = effective_threads(f.threads);
    if f.legacy {
        return format!(
            "{name}: level {}, legacy format ({} MiB blocks), {threads} thread(s)",
            f.level,
            LEGACY_BLOCK_SIZE >> 20
        );
    }
    format!(
        "{name}: level {}, {threads} thread(s), {} KiB {} blocks, content checksum {}, block checksum {}, content size {}{}",
        f.level,
        f.block_size.bytes() >> 10,
        if f.block_mode == BlockMode::Linked {
            "linked"
        } else {
            "independent"
        },
        if f.content_checksum { "on" } else { "off" },
        if f.block_checksum { "on" } else { "off" },
        f.content_size
            .map_or_else(|| "not stored".to_string(), |s| s.to_string()),
        if f.dictionary.is_some() {
            ", with dictionary"
        } else {
            ""
        },
    )
}

/// The default level: `LZ4_CLEVEL` if it holds a valid level, else 1.
pub(super) fn level_from_env(rep: &Reporter) -> Level {
    let Some(value) = std::env::var_os(LEVEL_ENV) else {
        return Level::DEFAULT;
    };
    match value.to_str().and_then(|v| v.trim().parse::<u32>().ok()) {
        Some(n) => Level::saturating(u64::from(n)),
        None => {
            rep.warn(format!(
                "ignoring {LEVEL_ENV}={}: not a valid level",
                value.to_string_lossy()
            ));
            Level::DEFAULT
        }
    }
}

/// The default thread count: `LZ4_NBWORKERS` if it holds a valid number
/// (clamped to the maximum, as lz4 does), else one per core.
pub(super) fn threads_from_env(rep: &Reporter) -> usize {
    let Some(value) = std::env::var_os(THREADS_ENV) else {
        return DEFAULT_THREADS;
    };
    match value.to_str().and_then(|v| v.trim().parse::<u64>().ok()) {
        Some(n) => super::super::values::thread_count(n),
        None => {
            rep.warn(format!(
                "ignoring {THREADS_ENV}={}: not a valid number of threads",
                value.to_string_lossy()
            ));
            DEFAULT_THREADS
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lzkit::lz4::frame::BlockSize;

    fn opts(format: Codec) -> Options {
        Options {
            format,
            ..Options::default()
        }
    }

    #[test]
    fn options_of_the_other_codec_are_refused() {
        assert!(check_format_options(&opts(Codec::Lz4)).is_ok());
        assert!(check_format_options(&opts(Codec::Zstd)).is_ok());
        let zstd_with_blocks = Options {
            block_checksum: true,
            ..opts(Codec::Zstd)
        };
        assert_eq!(
            check_format_options(&zstd_with_blocks).unwrap_err().subject,
            "-B"
        );
        let lz4_long = Options {
            long: Some(27),
            ..opts(Codec::Lz4)
        };
        assert_eq!(
            check_format_options(&lz4_long).unwrap_err().subject,
            "--long"
        );
        let lz4_ultra = Options {
            ultra: true,
            ..opts(Codec::Lz4)
        };
        assert_eq!(
            check_format_options(&lz4_ultra).unwrap_err().subject,
            "--ultra"
        );
    }

    #[test]
    fn lz4_settings() {
        let o = Options {
            block_mode: BlockMode::Linked,
            block_checksum: true,
            ..opts(Codec::Lz4)
        };
        let f = lz4_options(&o, Level::new(9), 3, None);
        assert_eq!((f.level, f.threads), (9, 3));
        assert!(f.block_checksum && f.block_mode == BlockMode::Linked);
        // -l: independent blocks, no block checksums (as lz4 ignores them).
        let legacy = lz4_options(&Options { legacy: true, ..o }, Level::DEFAULT, 1, None);
        assert!(legacy.legacy && !legacy.block_checksum);
        assert_eq!(legacy.block_mode, BlockMode::Independent);
    }

    #[test]
    fn block_size_fits_the_input() {
        assert_eq!(fitted_block_size(BlockSize::Max4MB, 10), BlockSize::Max64KB);
        assert_eq!(
            fitted_block_size(BlockSize::Max4MB, 65_537),
            BlockSize::Max256KB
        );
        assert_eq!(
            fitted_block_size(BlockSize::Max4MB, 1 << 30),
            BlockSize::Max4MB
        );
        // -B is a maximum.
        assert_eq!(
            fitted_block_size(BlockSize::Max256KB, 1 << 30),
            BlockSize::Max256KB
        );
    }

    #[test]
    fn zstd_levels() {
        let rep = Reporter { level: 0 };
        let level = |zstd_level, ultra| {
            let o = Options {
                zstd_level,
                ultra,
                ..opts(Codec::Zstd)
            };
            zstd_options(&o, 1, &rep).unwrap().get_level()
        };
        assert_eq!(level(None, false), 3);
        assert_eq!(level(Some(0), false), 3);
        assert_eq!(level(Some(-5), false), -5);
        assert_eq!(level(Some(22), false), 19);
        assert_eq!(level(Some(22), true), 22);
        assert_eq!(level(Some(99), true), 22);
        let legacy = Options {
            legacy: true,
            ..opts(Codec::Zstd)
        };
        assert!(zstd_options(&legacy, 1, &rep).is_err());
        assert!(zstd_workers(0) >= 1 && zstd_workers(4) == 4);
        assert_eq!(zstd_workers(100_000), MAX_THREADS as u32);
    }

    #[test]
    fn descriptions() {
        let f = FrameOptions::new().threads(1).content_size(Some(10));
        let line = describe_frame("in", &f);
        assert!(
            line.starts_with("in: level 1, 1 thread(s), 4096 KiB independent blocks"),
            "{line}"
        );
        assert!(
            line.contains("content size 10") && !line.contains("dictionary"),
            "{line}"
        );
        let legacy = describe_frame("in", &FrameOptions::new().threads(1).legacy(true));
        assert!(legacy.contains("legacy format (8 MiB blocks)"), "{legacy}");
        let z = describe_zstd(&opts(Codec::Zstd), 2);
        assert_eq!(z, "2 worker(s), content checksum on, long mode off");
    }
}
