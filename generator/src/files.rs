//! The files kabe writes are its own. A shared table folder (a cluster's scratch space, a
//! container run as root) may hold what someone else put there: a link at the name of a
//! temporary file, a FIFO where the build lock goes, another game's folder linked under
//! this game's name. Every write goes through this module, which
//!
//! - creates temporary files new and exclusive (`O_CREAT | O_EXCL`, which never follows
//!   a link), after removing a stale one of an interrupted run only where that is a
//!   regular file, and renames them only over a regular file or nothing ([`NewFile`]);
//! - opens files that are kept and written again (the ledger, the lock, slice stores)
//!   without following links or blocking on a FIFO, and refuses anything but a regular
//!   file, by name ([`open_own`]);
//! - writes a file a user names (`--output`) whole through a temporary file, or through
//!   to a device, FIFO or link as a stream, never replacing one ([`write_output`]);
//! - reads a file a user names with a bound on its size ([`read_capped`]);
//! - refuses a variant's table folder that is the same directory as another variant's
//!   ([`check_variant_folder`]).
//!
//! Errors are `std::io::Error`s whose message names the path and what was found there.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use kabe_probe::Variant;

/// What a file system entry is, in words: "a directory", "a symbolic link", "a FIFO"...
pub fn kind_of(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_symlink() {
        return "a symbolic link";
    }
    if t.is_dir() {
        return "a directory";
    }
    if t.is_file() {
        return "a regular file";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_char_device() {
            return "a character device";
        }
    }
    "not a regular file"
}

/// An error naming `path` and saying `what`.
fn refused(path: &Path, what: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, format!("{}: {what}", path.display()))
}

/// `error` with `path` in its message (an OS error says only what went wrong, not where);
/// a link met where none is followed is named as such, not as "too many levels".
pub fn named(path: &Path, error: io::Error) -> io::Error {
    #[cfg(unix)]
    if error.raw_os_error() == Some(libc::ELOOP) {
        return refused(path, "a symbolic link (or a loop of them), which kabe does not write through");
    }
    io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

/// The entry at `path` without following a link; `None` where there is none.
fn entry_at(path: &Path) -> io::Result<Option<Metadata>> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) => Ok(Some(meta)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(named(path, e)),
    }
}

/// Refuses anything at `path` but a regular file: what kabe replaces by renaming over it
/// or opens to write again. Nothing there is fine.
pub fn ensure_replaceable(path: &Path) -> io::Result<()> {
    match entry_at(path)? {
        Some(meta) if !meta.file_type().is_file() => Err(refused(
            path,
            format_args!(
                "{} where kabe keeps a file of its own: kabe replaces only regular files (move it away)",
                kind_of(&meta)
            ),
        )),
        _ => Ok(()),
    }
}

/// Removes the file at `path` where it is a regular file (a temporary or scratch file
/// an interrupted run left); nothing there is fine; anything else is refused by name.
pub fn remove_own(path: &Path) -> io::Result<()> {
    ensure_replaceable(path)?;
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(named(path, e)),
        _ => Ok(()),
    }
}

/// Creates the folder at `path` (and those above it) where it is not there; a folder of
/// kabe's own making inside a table folder, so a link or anything but a folder at its
/// name is refused: files written in it would land elsewhere.
pub fn own_folder(path: &Path) -> io::Result<()> {
    std::fs::create_dir_all(path).map_err(|e| named(path, e))?;
    match entry_at(path)? {
        Some(meta) if meta.is_dir() => Ok(()),
        Some(meta) => {
            Err(refused(path, format_args!("{} where kabe keeps a folder of its own (move it away)", kind_of(&meta))))
        }
        None => Err(refused(path, "removed as it was made")),
    }
}

/// A file written under a temporary name and renamed into place when whole: readers see
/// the old file or the new one, never a part. The temporary file is created new and
/// exclusive; dropped before [`NewFile::commit`], it is removed.
#[derive(Debug)]
pub struct NewFile {
    file: Option<File>,
    tmp: PathBuf,
    path: PathBuf,
}

impl NewFile {
    /// A new file for `path`, written at `tmp` (in the same folder) until committed. A
    /// regular file at `tmp` (an interrupted run's) is removed first; a link, FIFO,
    /// device or folder there or at `path` is refused by name.
    pub fn create(path: impl Into<PathBuf>, tmp: impl Into<PathBuf>) -> io::Result<NewFile> {
        let (path, tmp) = (path.into(), tmp.into());
        ensure_replaceable(&path)?;
        remove_own(&tmp)?;
        // `create_new` is O_CREAT | O_EXCL: it fails on anything already there, a link to
        // nowhere included, so a link planted after the removal above is never followed.
        let file = OpenOptions::new().read(true).write(true).create_new(true).open(&tmp).map_err(|e| named(&tmp, e))?;
        Ok(NewFile { file: Some(file), tmp, path })
    }

    /// A new file for `path`, written at `path` with `suffix` appended (`.tmp`).
    pub fn beside(path: impl Into<PathBuf>, suffix: &str) -> io::Result<NewFile> {
        let path = path.into();
        let mut tmp = path.clone().into_os_string();
        tmp.push(suffix);
        NewFile::create(path, tmp)
    }

    /// The temporary file, to write (and read back, seek) before committing.
    pub fn file(&mut self) -> &mut File {
        self.file.as_mut().expect("a NewFile holds its file until committed")
    }

    /// The temporary file's path.
    pub fn tmp_path(&self) -> &Path {
        &self.tmp
    }

    /// Flushes the file to disk and renames it into place, over a regular file or
    /// nothing (a link or device put there meanwhile is refused, and the file removed).
    pub fn commit(mut self) -> io::Result<()> {
        let file = self.file.take().expect("committed once");
        file.sync_all().map_err(|e| named(&self.tmp, e))?;
        drop(file);
        ensure_replaceable(&self.path)?;
        std::fs::rename(&self.tmp, &self.path).map_err(|e| named(&self.path, e))?;
        self.tmp = PathBuf::new();
        Ok(())
    }
}

impl Write for NewFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file().write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file().write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file().flush()
    }
}

impl Drop for NewFile {
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            // Ours: created new above. A failure leaves a stale file the next run removes.
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `bytes` to `path` whole: through a temporary file beside it (`path` with
/// `.tmp` appended) renamed over it, so that a reader sees the old file or the new one.
pub fn write_whole(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = NewFile::beside(path, ".tmp")?;
    file.write_all(bytes).map_err(|e| named(file.tmp_path(), e))?;
    file.commit()
}

/// Opens a file kabe keeps and writes again (`options` say how: append, create, truncate),
/// never through a link and never blocking on a FIFO: anything at `path` but a regular
/// file is refused by name.
pub fn open_own(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    ensure_replaceable(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NOFOLLOW | O_NONBLOCK: a link put there since the check fails, a FIFO does
        // not wait for a reader; neither changes anything for a regular file.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| named(path, e))?;
    let meta = file.metadata().map_err(|e| named(path, e))?;
    if !meta.is_file() {
        return Err(refused(path, format_args!("{} where kabe keeps a file of its own", kind_of(&meta))));
    }
    Ok(file)
}

/// Writes `bytes` to `path`, a file a user named (`--output`): a regular file or nothing
/// there is written whole through a temporary file; a link, FIFO or character device
/// (`/dev/stdout`, a pipe, `/dev/null`) is written through as a stream and left in place;
/// a folder or block device is refused by name. Nothing there is ever replaced but a
/// regular file.
pub fn write_output(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let Some(meta) = entry_at(path)? else { return write_whole(path, bytes) };
    if meta.is_file() {
        return write_whole(path, bytes);
    }
    let target =
        if meta.file_type().is_symlink() { std::fs::metadata(path).map_err(|e| named(path, e))? } else { meta };
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if target.file_type().is_block_device() {
            return Err(refused(path, "a block device: kabe writes no output onto a disk (give a file's name)"));
        }
    }
    if target.is_dir() {
        return Err(refused(path, "a directory (give a file's name)"));
    }
    let mut stream =
        OpenOptions::new().write(true).truncate(target.is_file()).open(path).map_err(|e| named(path, e))?;
    stream.write_all(bytes).and_then(|()| stream.flush()).map_err(|e| named(path, e))
}

/// The bytes of `path`, a file a user named, at most `cap` of them: a longer file (or an
/// endless one, `/dev/zero`) is an error naming it, as is a folder.
pub fn read_capped(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open_to_read(path)?.take(cap + 1).read_to_end(&mut bytes).map_err(|e| named(path, e))?;
    if bytes.len() as u64 > cap {
        return Err(too_long(path, cap));
    }
    Ok(bytes)
}

/// Opens `path`, a file a user named, to read; a folder is refused by name.
pub fn open_to_read(path: &Path) -> io::Result<File> {
    let meta = std::fs::metadata(path).map_err(|e| named(path, e))?;
    if meta.is_dir() {
        return Err(refused(path, "a directory, not a file"));
    }
    File::open(path).map_err(|e| named(path, e))
}

/// The error for a file over its bound of `cap` bytes.
pub fn too_long(path: &Path, cap: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: longer than {}, more than such a file can hold: not read", path.display(), size_in_words(cap)),
    )
}

fn size_in_words(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// Where the lock of `variant`'s tables under `dir` is kept: `.<variant>.build.lock`
/// (taken by `BuildLock`).
pub fn lock_path(dir: &Path, variant: &Variant) -> PathBuf {
    dir.join(format!(".{}.build.lock", variant.name))
}

/// Whether a build or job holds the lock of `variant`'s tables under `dir` now (a
/// reader's question: the lock file is opened to read, never created).
pub fn build_running(dir: &Path, variant: &Variant) -> bool {
    let path = lock_path(dir, variant);
    if ensure_replaceable(&path).is_err() {
        return false;
    }
    // A whole build holds the lock exclusive, a job shared: asking for an exclusive one
    // (let go at once) is refused while either runs.
    let Ok(file) = File::open(&path) else { return false };
    match file.try_lock() {
        Ok(()) => {
            let _ = file.unlock();
            false
        }
        Err(std::fs::TryLockError::WouldBlock) => true,
        Err(std::fs::TryLockError::Error(_)) => false,
    }
}

/// Refuses a table folder of `variant` under `dir` that is the same directory as another
/// variant's folder there (a link or a bind mount): a build of one game would take the
/// other's tables for damaged ones. Checked before anything is written.
pub fn check_variant_folder(dir: &Path, variant: &Variant) -> io::Result<()> {
    let ours = dir.join(variant.name);
    let Some(id) = directory_id(&ours)? else { return Ok(()) };
    if directory_id(dir)? == Some(id) {
        return Err(refused(
            &ours,
            format_args!(
                "the same directory as {} itself: each game keeps its tables in a folder of its own",
                dir.display()
            ),
        ));
    }
    for other in Variant::ALL.iter().filter(|v| v.name != variant.name) {
        let theirs = dir.join(other.name);
        if directory_id(&theirs)? == Some(id) {
            return Err(refused(
                &ours,
                format_args!(
                    "the same directory as {} (a link or a mount): {} tables would be taken for damaged {} ones; give \
                     each game a folder of its own",
                    theirs.display(),
                    other.name,
                    variant.name
                ),
            ));
        }
    }
    Ok(())
}

/// The device and inode of the directory at `path` (through links), `None` where there is
/// no directory.
fn directory_id(path: &Path) -> io::Result<Option<(u64, u64)>> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Ok(Some(file_id(&meta))),
        Ok(_) => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(named(path, e)),
    }
}

#[cfg(unix)]
fn file_id(meta: &Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn file_id(meta: &Metadata) -> (u64, u64) {
    (meta.len(), 0)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn fifo(path: &Path) {
        let status = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
        assert!(status.success());
    }

    #[test]
    fn a_new_file_is_never_written_through_a_link_and_replaces_only_a_regular_file() {
        let dir = tempfile::tempdir().expect("a folder");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"theirs").expect("written");
        let path = dir.path().join("table");
        symlink(&victim, dir.path().join("table.tmp")).expect("a link");
        let e = NewFile::beside(&path, ".tmp").expect_err("a link at the temporary name");
        assert!(e.to_string().contains("table.tmp: a symbolic link"), "{e}");
        assert_eq!(std::fs::read(&victim).expect("read"), b"theirs");
        std::fs::remove_file(dir.path().join("table.tmp")).expect("removed");

        // A stale regular temporary file is an interrupted run's: replaced.
        std::fs::write(dir.path().join("table.tmp"), b"half").expect("written");
        write_whole(&path, b"ours").expect("written whole");
        assert_eq!(std::fs::read(&path).expect("read"), b"ours");
        assert!(!dir.path().join("table.tmp").exists());

        // A link at the final name is not replaced.
        let linked = dir.path().join("linked");
        symlink(&victim, &linked).expect("a link");
        let e = write_whole(&linked, b"ours").expect_err("a link at the name");
        assert!(e.to_string().contains("linked: a symbolic link where kabe keeps a file"), "{e}");
        assert!(std::fs::symlink_metadata(&linked).expect("there").file_type().is_symlink());
        assert!(!dir.path().join("linked.tmp").exists(), "nothing left behind");

        // A file dropped before its commit leaves nothing.
        let mut half = NewFile::beside(dir.path().join("half"), ".tmp").expect("created");
        half.write_all(b"part").expect("written");
        drop(half);
        assert!(!dir.path().join("half.tmp").exists() && !dir.path().join("half").exists());
    }

    #[test]
    fn an_own_file_is_opened_only_where_it_is_a_regular_file() {
        let dir = tempfile::tempdir().expect("a folder");
        let pipe = dir.path().join("lock");
        fifo(&pipe);
        let e = open_own(&pipe, OpenOptions::new().write(true).create(true)).expect_err("a FIFO");
        assert!(e.to_string().contains("lock: a FIFO"), "{e}");
        std::fs::create_dir(dir.path().join("folder")).expect("a folder");
        let e =
            open_own(&dir.path().join("folder"), OpenOptions::new().append(true).create(true)).expect_err("a folder");
        assert!(e.to_string().contains("folder: a directory"), "{e}");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"theirs").expect("written");
        symlink(&victim, dir.path().join("ledger")).expect("a link");
        let e = open_own(&dir.path().join("ledger"), OpenOptions::new().append(true).create(true)).expect_err("a link");
        assert!(e.to_string().contains("ledger: a symbolic link"), "{e}");
        let mut own = open_own(&dir.path().join("new"), OpenOptions::new().append(true).create(true)).expect("created");
        own.write_all(b"x").expect("written");
        assert_eq!(std::fs::read(&victim).expect("read"), b"theirs");
    }

    #[test]
    fn an_output_onto_a_device_fifo_or_link_is_written_through_never_replaced() {
        let dir = tempfile::tempdir().expect("a folder");
        write_output(Path::new("/dev/null"), b"manifest").expect("through to /dev/null");
        assert!(!std::fs::symlink_metadata("/dev/null").expect("there").is_file());
        let target = dir.path().join("target");
        std::fs::write(&target, b"old").expect("written");
        let link = dir.path().join("link");
        symlink(&target, &link).expect("a link");
        write_output(&link, b"new").expect("through the link");
        assert!(std::fs::symlink_metadata(&link).expect("there").file_type().is_symlink());
        assert_eq!(std::fs::read(&target).expect("read"), b"new");
        let pipe = dir.path().join("pipe");
        fifo(&pipe);
        let reader = std::thread::spawn({
            let pipe = pipe.clone();
            move || std::fs::read(pipe).expect("read from the pipe")
        });
        write_output(&pipe, b"streamed").expect("through the FIFO");
        assert_eq!(reader.join().expect("the reader"), b"streamed");
        assert!(!std::fs::symlink_metadata(&pipe).expect("there").is_file());
        let e = write_output(dir.path(), b"x").expect_err("a folder");
        assert!(e.to_string().contains("a directory"), "{e}");
        write_output(&dir.path().join("plain"), b"whole").expect("a new file");
        assert_eq!(std::fs::read(dir.path().join("plain")).expect("read"), b"whole");
    }

    #[test]
    fn a_read_stops_at_its_cap() {
        let e = read_capped(Path::new("/dev/zero"), 1 << 20).expect_err("endless");
        assert!(e.to_string().contains("/dev/zero: longer than 1 MiB"), "{e}");
        let dir = tempfile::tempdir().expect("a folder");
        let e = read_capped(dir.path(), 10).expect_err("a folder");
        assert!(e.to_string().contains("a directory"), "{e}");
    }

    #[test]
    fn a_variant_folder_that_is_another_variants_is_refused() {
        let dir = tempfile::tempdir().expect("a folder");
        std::fs::create_dir(dir.path().join("international")).expect("a folder");
        check_variant_folder(dir.path(), &Variant::RUSSIAN).expect("no Russian folder yet");
        symlink(dir.path().join("international"), dir.path().join("russian")).expect("a link");
        let e = check_variant_folder(dir.path(), &Variant::RUSSIAN).expect_err("the same folder");
        assert!(
            e.to_string().contains("russian: the same directory as") && e.to_string().contains("international"),
            "{e}"
        );
        let e = check_variant_folder(dir.path(), &Variant::INTERNATIONAL).expect_err("seen from either side");
        assert!(e.to_string().contains("the same directory"), "{e}");
        std::fs::remove_file(dir.path().join("russian")).expect("removed");
        symlink(".", dir.path().join("russian")).expect("a link to the root");
        assert!(check_variant_folder(dir.path(), &Variant::RUSSIAN).is_err());
    }
}
