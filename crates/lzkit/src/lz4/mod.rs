//! The LZ4 formats: [`block`] (raw compressed blocks) and [`frame`] (the
//! self-describing container with checksums that the `lz4` CLI reads and
//! writes), and the compression [`Level`] both take.

pub mod block;
pub mod frame;
mod level;

pub use level::{Level, MAX_LEVEL};
