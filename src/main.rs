//! The `lzkit` command.
fn main() {}
