//! Comparing large buffers with readable failure messages.

/// assertion messages on large buffers.
pub fn first_diff(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter()
        .zip(b.iter())
        .position(|(x, y)| x != y)
        .or(if a.len() != b.len() {
            Some(a.len().min(b.len()))
        } else {
            None
        })
}

/// Assert equality of large buffers without dumping megabytes.
#[track_caller]
pub fn assert_same(actual: &[u8], expected: &[u8], what: &str) {
    if let Some(i) = first_diff(actual, expected) {
        panic!(
            "{what}: output differs at byte {i} (actual len {}, expected len {}); actual[{i}..] = {:?}, expected[{i}..] = {:?}",
            actual.len(),
            expected.len(),
            &actual[i..actual.len().min(i + 16)],
            &expected[i..expected.len().min(i + 16)],
        );
    }
}
