//! The `lzkit` command: an `lz4`-compatible compressor (see `lzkit -H`).

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
