//! Output files as the command writes them: under a random hidden name
//! created exclusively beside the destination, renamed over it when
//! complete, never over the input itself.

/// A new, empty temporary file in the directory of `dst` (so that the
/// final rename stays on one file system), as the command makes them: a
/// random hidden name (`.lzkit-XXXXXX.tmp`), created exclusively
/// (`O_CREAT | O_EXCL`: never through a link planted at its name), mode
/// 0666 less the umask; deleted when dropped unless [`persist`]ed.
pub(crate) fn temporary_for(dst: &std::path::Path) -> Result<tempfile::NamedTempFile, String> {
    let dir = match dst.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".lzkit-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir).map_err(|e| {
        format!(
            "{}: cannot create a file in {}: {e}",
            dst.display(),
            dir.display()
        )
    })
}

/// Rename the complete temporary file `tmp` to `dst`, replacing what is
/// there (a link at `dst` is replaced, never followed); on failure `tmp`
/// is deleted.
pub(crate) fn persist(tmp: tempfile::NamedTempFile, dst: &std::path::Path) -> Result<(), String> {
    tmp.persist(dst)
        .map(drop)
        .map_err(|e| format!("{}: {}", dst.display(), e.error))
}

/// Refuse to write `dst` if it is the file `src` (opened as `input`):
/// the same device and inode, also through a symbolic or hard link (the
/// command refuses this too). A `dst` that does not exist is fine.
pub(crate) fn refuse_same_file(
    src: &std::path::Path,
    input: &std::fs::File,
    dst: &std::path::Path,
) -> Result<(), String> {
    let same = match (input.metadata(), std::fs::metadata(dst)) {
        (Ok(a), Ok(b)) => same_inode(&a, &b),
        _ => false,
    };
    if same {
        return Err(format!(
            "{}: the output is the same file as the input {}: choose another output name",
            dst.display(),
            src.display()
        ));
    }
    Ok(())
}

#[cfg(unix)]
fn same_inode(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_inode(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

/// A path's I/O error as Python raises it: `FileNotFoundError`,
/// `PermissionError`, ... (the `OSError` subclass of its kind), naming the
/// path.
pub(crate) fn os_error(path: &std::path::Path, e: std::io::Error) -> pyo3::PyErr {
    use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyPermissionError};
    let msg = format!("{}: {e}", path.display());
    match e.kind() {
        std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(msg),
        std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(msg),
        _ => PyOSError::new_err(msg),
    }
}
