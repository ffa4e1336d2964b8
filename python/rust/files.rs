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

/// Refuse an existing `dst` unless `overwrite`: checked before any work
/// is done, so that a refusal costs nothing. Anything at the name counts,
/// a symbolic link too (even one to nothing): it is never followed.
/// [`persist`] checks again, atomically, when the output is complete.
pub(crate) fn refuse_existing(dst: &std::path::Path, overwrite: bool) -> pyo3::PyResult<()> {
    if !overwrite && dst.symlink_metadata().is_ok() {
        return Err(exists_error(dst));
    }
    Ok(())
}

/// Rename the complete temporary file `tmp` to `dst`. With `overwrite`,
/// what is there is replaced (a link at `dst` is replaced, never
/// followed); without it the rename fails if anything is at `dst`, even
/// something put there while the output was written (one atomic step:
/// `renameat2(RENAME_NOREPLACE)`, or a hard link, which never replaces).
/// On failure `tmp` is deleted.
pub(crate) fn persist(
    tmp: tempfile::NamedTempFile,
    dst: &std::path::Path,
    overwrite: bool,
) -> pyo3::PyResult<()> {
    let done = if overwrite {
        tmp.persist(dst)
    } else {
        tmp.persist_noclobber(dst)
    };
    done.map(drop).map_err(|e| match e.error.kind() {
        std::io::ErrorKind::AlreadyExists if !overwrite => exists_error(dst),
        _ => pyo3::exceptions::PyRuntimeError::new_err(format!("{}: {}", dst.display(), e.error)),
    })
}

/// Python's `FileExistsError` for an output that is not replaced.
fn exists_error(dst: &std::path::Path) -> pyo3::PyErr {
    pyo3::exceptions::PyFileExistsError::new_err(format!(
        "{}: already exists; not overwritten (overwrite=True replaces it)",
        dst.display()
    ))
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
