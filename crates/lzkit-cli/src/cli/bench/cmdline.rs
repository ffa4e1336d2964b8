//! The command lines of `lzkit bench` and `lzkit probe`, read the same
//! way: the arguments one by one ([`Walk`]: inputs, options, help) and
//! what a parse gives ([`Parsed`]). Each subcommand's `options` module
//! reads its own options.

use std::ffi::OsString;
use std::path::PathBuf;

/// Parse result of `lzkit bench` and `lzkit probe`: run with the options
/// `T`, or show help.
#[derive(Debug)]
pub enum Parsed<T> {
    /// Run the benchmark (or the probe).
    Run(T),
    /// `-h` / `--help`.
    Help,
}

/// One argument of `lzkit bench` or `lzkit probe`, as [`Walk`] reads it.
pub enum Arg {
    /// An input path.
    Input(PathBuf),
    /// An option as written (`--name=v`, `-Bv`): the parser reads any value
    /// it takes that is not attached from [`Walk::rest`].
    Option(String),
    /// `-h` or `--help`.
    Help,
}

/// The arguments after the subcommand, one by one: an argument after
/// `--`, or one that does not start with `-`, is an input (and `-` itself
/// where the subcommand reads standard input); `--` is consumed.
pub struct Walk {
    /// The arguments not read yet: where options take their values.
    pub rest: std::vec::IntoIter<OsString>,
    only_inputs: bool,
    dash_is_input: bool,
}

impl Walk {
    /// Walk `args`; `dash_is_input`: `-` names standard input.
    pub fn new(args: Vec<OsString>, dash_is_input: bool) -> Walk {
        Walk {
            rest: args.into_iter(),
            only_inputs: false,
            dash_is_input,
        }
    }

    /// The next argument, `None` after the last; an option that is not
    /// valid UTF-8 is an error.
    pub fn next_arg(&mut self) -> Result<Option<Arg>, String> {
        for arg in self.rest.by_ref() {
            let dash = self.dash_is_input && arg == "-";
            if self.only_inputs || !arg.as_encoded_bytes().starts_with(b"-") || dash {
                return Ok(Some(Arg::Input(PathBuf::from(arg))));
            }
            let text = arg
                .to_str()
                .ok_or_else(|| format!("invalid option: {}", arg.to_string_lossy()))?;
            match text {
                "--" => self.only_inputs = true,
                "-h" | "--help" => return Ok(Some(Arg::Help)),
                _ => return Ok(Some(Arg::Option(text.to_string()))),
            }
        }
        Ok(None)
    }
}

/// The option parsers' tests: a parser run on a command line of `&str`.
#[cfg(test)]
pub mod testing {
    use std::ffi::OsString;
    use std::fmt::Debug;

    use super::Parsed;

    /// A parser of the arguments after the subcommand.
    pub type Parser<T> = fn(Vec<OsString>) -> Result<Parsed<T>, String>;

    /// The options `parse` reads from `args`; panics if it fails or asks
    /// for help.
    pub fn run<T: Debug>(parse: Parser<T>, args: &[&str]) -> T {
        match parse(args.iter().map(OsString::from).collect()) {
            Ok(Parsed::Run(o)) => o,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    /// The message with which `parse` refuses `args`.
    pub fn fails<T: Debug>(parse: Parser<T>, args: &[&str]) -> String {
        parse(args.iter().map(OsString::from).collect()).unwrap_err()
    }
}
