//! stub
use crate::error::Result;
pub(crate) fn decode_with_prefix(_src: &[u8], _buf: &mut [u8], _start: usize) -> Result<usize> { todo!() }
