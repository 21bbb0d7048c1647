//! One build at a time in a table folder: `kabe generate` holds an exclusive lock while
//! it writes a variant's tables, the pair jobs of a cluster build share one (they write
//! different pairs), so that two whole builds, or a whole build and a job, never write
//! the same files at once.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;

use crate::files::lock_path;

use kabe_probe::Variant;

use crate::build::error::BuildError;

/// A lock on the tables of one variant under a directory, let go when dropped. The lock
/// file, `.<variant>.build.lock` in the directory, stays (it holds nothing).
#[derive(Debug)]
pub struct BuildLock {
    _file: File,
}

impl BuildLock {
    /// The lock for a build that writes the whole set: no other build or job at once.
    pub fn exclusive(dir: &Path, variant: &Variant) -> Result<BuildLock, BuildError> {
        BuildLock::take(dir, variant, true)
    }

    /// The lock for one pair's job: other jobs may run beside it, a whole build may not.
    pub fn shared(dir: &Path, variant: &Variant) -> Result<BuildLock, BuildError> {
        BuildLock::take(dir, variant, false)
    }

    fn take(dir: &Path, variant: &Variant, exclusive: bool) -> Result<BuildLock, BuildError> {
        let path = lock_path(dir, variant);
        let write = |source| BuildError::Write { path: path.clone(), source };
        std::fs::create_dir_all(dir).map_err(write)?;
        crate::files::check_variant_folder(dir, variant)
            .map_err(|source| BuildError::Write { path: dir.join(variant.name), source })?;
        // Never through a link, never waiting on a FIFO: anything but a file is named.
        let file = crate::files::open_own(&path, OpenOptions::new().create(true).truncate(false).write(true))
            .map_err(write)?;
        let taken = if exclusive { file.try_lock() } else { file.try_lock_shared() };
        match taken {
            Ok(()) => Ok(BuildLock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(BuildError::Locked { path }),
            // A file system without locks (some network ones): build without.
            Err(TryLockError::Error(e)) if e.kind() == std::io::ErrorKind::Unsupported => Ok(BuildLock { _file: file }),
            Err(TryLockError::Error(e)) => Err(write(e)),
        }
    }
}
