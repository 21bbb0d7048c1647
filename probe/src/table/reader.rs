//! Reading table files: by positional reads (or, opted in, memory-mapped), header and
//! block index parsed once at open, every inconsistency an error naming the file.
//!
//! Positional reads are the default because a mapped file that shrinks under a running
//! process (truncated or rewritten in place) kills it with SIGBUS at the next touch of a
//! lost page; a read past the new end is an error naming the file instead.
//! [`TableFile::open_mapped`] maps the file for the few who want it, under that contract:
//! table files are only ever replaced by rename, never changed in place.

use std::borrow::Cow;
use std::fs::File;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::format::{decode_entry, decode_rule_entry, Header, TableError, HEADER_LEN};
use super::metric::Metric;
use crate::index::{MaterialIndex, Signature};
use crate::{RuleScore, Score, Variant};

/// One open table file.
#[derive(Debug)]
pub struct TableFile {
    path: PathBuf,
    header: Header,
    offsets: Vec<u64>,
    bytes: Box<dyn TableSource>,
}

/// Where a table's bytes come from: the seam every read of a table goes through. kabe
/// gives three ([`PositionalFile`], [`MappedFile`], and `Vec<u8>` in memory); an engine
/// with its own storage (a packed archive, a network block store) gives its own and opens
/// it with [`TableFile::from_source`].
pub trait TableSource: std::fmt::Debug + Send + Sync {
    /// The length in bytes.
    fn len(&self) -> u64;

    /// Whether there are no bytes at all.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `len` bytes at `offset`, borrowed where the source holds them in memory.
    ///
    /// # Errors
    /// `UnexpectedEof` when the range runs past the end (a file that shrank since it was
    /// opened); any error of the storage below.
    fn read_at(&self, offset: u64, len: usize) -> std::io::Result<Cow<'_, [u8]>>;
}

/// A file read where needed (`pread`): a file changed under the reader is an error naming
/// it, never a signal.
#[derive(Debug)]
pub struct PositionalFile {
    file: File,
    len: u64,
}

impl PositionalFile {
    /// Opens `path` if it is a regular file (a directory, FIFO or device named like a
    /// table is refused without being opened).
    ///
    /// # Errors
    /// [`TableError::Missing`] when there is no file; [`TableError::Io`] when it cannot be
    /// read or is not a regular file.
    pub fn open(path: &Path) -> Result<PositionalFile, TableError> {
        let (file, len) = open_regular(path)?;
        Ok(PositionalFile { file, len })
    }
}

impl TableSource for PositionalFile {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, len: usize) -> std::io::Result<Cow<'_, [u8]>> {
        let mut buf = vec![0; len];
        read_exact_at(&self.file, &mut buf, offset).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => ends_early(),
            _ => e,
        })?;
        Ok(Cow::Owned(buf))
    }
}

/// A file mapped into memory ([`MappedFile::open`] states the contract).
#[derive(Debug)]
pub struct MappedFile(Mmap);

impl MappedFile {
    /// Maps the regular file at `path`.
    ///
    /// # Errors
    /// Those of [`PositionalFile::open`]; [`TableError::Io`] also when it cannot be mapped.
    ///
    /// # Safety
    /// The file must not be written in place, truncated or shrunk while the value (or
    /// anything read from it) lives: a page that disappears under a mapping ends the
    /// process with SIGBUS. kabe's builds replace a table by renaming, never in place.
    pub unsafe fn open(path: &Path) -> Result<MappedFile, TableError> {
        let (file, _) = open_regular(path)?;
        // SAFETY: the caller promises (this function's contract) that the file is not
        // changed in place while mapped, which is what `Mmap::map` requires.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| TableError::Io { path: path.to_path_buf(), error: e })?;
        Ok(MappedFile(map))
    }
}

impl TableSource for MappedFile {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn read_at(&self, offset: u64, len: usize) -> std::io::Result<Cow<'_, [u8]>> {
        slice(&self.0, offset, len).map(Cow::Borrowed).ok_or_else(ends_early)
    }
}

/// A table held in memory.
impl TableSource for Vec<u8> {
    fn len(&self) -> u64 {
        self.as_slice().len() as u64
    }

    fn read_at(&self, offset: u64, len: usize) -> std::io::Result<Cow<'_, [u8]>> {
        slice(self, offset, len).map(Cow::Borrowed).ok_or_else(ends_early)
    }
}

fn ends_early() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the file ends early (changed since it was opened?)")
}

fn slice(bytes: &[u8], offset: u64, len: usize) -> Option<&[u8]> {
    let start = usize::try_from(offset).ok()?;
    bytes.get(start..start.checked_add(len)?)
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

/// Opens `path` for reading if it is a regular file: a directory, a FIFO (whose open
/// would wait for a writer) or a device named like a table is an error saying so.
pub(crate) fn open_regular(path: &Path) -> Result<(File, u64), TableError> {
    let io = |e: std::io::Error| TableError::Io { path: path.to_path_buf(), error: e };
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => TableError::Missing { path: path.to_path_buf(), rules: None },
        _ => io(e),
    })?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a directory"
        } else {
            #[cfg(unix)]
            {
                use std::os::unix::fs::FileTypeExt;
                let t = meta.file_type();
                if t.is_fifo() {
                    "a FIFO"
                } else if t.is_socket() {
                    "a socket"
                } else if t.is_block_device() || t.is_char_device() {
                    "a device"
                } else {
                    "not a regular file"
                }
            }
            #[cfg(not(unix))]
            {
                "not a regular file"
            }
        };
        return Err(TableError::Io {
            path: path.to_path_buf(),
            error: std::io::Error::other(format!("{what}, not a table file")),
        });
    }
    let file = File::open(path).map_err(io)?;
    Ok((file, meta.len()))
}

impl TableFile {
    /// Opens `path`, which must hold the `metric` table of `signature` in `variant`, for
    /// positional reads.
    ///
    /// # Errors
    /// [`TableError::Missing`] when there is no file at `path`; [`TableError::Io`] when it
    /// cannot be read or is not a regular file; [`TableError::NotATable`],
    /// [`TableError::Version`] or [`TableError::Corrupt`] for a bad header, block index
    /// or position count; [`TableError::OtherGame`] when it is a table of another game,
    /// [`TableError::Foreign`] when of another material or metric of this one.
    pub fn open(path: &Path, variant: &Variant, signature: Signature, metric: Metric) -> Result<TableFile, TableError> {
        TableFile::checked(path, variant, signature, metric, Box::new(PositionalFile::open(path)?))
    }

    /// As [`TableFile::open`], memory-mapped.
    ///
    /// # Errors
    /// Those of [`TableFile::open`]; [`TableError::Io`] also when the file cannot be
    /// mapped.
    ///
    /// # Safety
    ///
    /// The file must not be written in place, truncated or shrunk while the returned
    /// value (or anything read from it) lives: the map's bytes are read as immutable
    /// memory, and a page that disappears under the mapping ends the process with SIGBUS
    /// where a positional read would return an error naming the file. kabe's own builds
    /// never do either (a table is written under a temporary name and renamed into place,
    /// which leaves a mapping of the old file intact).
    pub unsafe fn open_mapped(
        path: &Path,
        variant: &Variant,
        signature: Signature,
        metric: Metric,
    ) -> Result<TableFile, TableError> {
        // SAFETY: this function's contract is `MappedFile::open`'s.
        let map = unsafe { MappedFile::open(path) }?;
        TableFile::checked(path, variant, signature, metric, Box::new(map))
    }

    fn checked(
        path: &Path,
        variant: &Variant,
        signature: Signature,
        metric: Metric,
        bytes: Box<dyn TableSource>,
    ) -> Result<TableFile, TableError> {
        let table = TableFile::from_parts(path.to_path_buf(), bytes)?;
        table.expect(variant.name, signature, metric)?;
        let positions = MaterialIndex::new(*variant, signature).map_or(0, |i| i.len());
        if table.header.positions != positions {
            return Err(TableError::Corrupt {
                path: path.to_path_buf(),
                detail: format!("{} positions, the signature has {positions}", table.header.positions),
            });
        }
        Ok(table)
    }

    /// Reads a table from bytes in memory (`name` is used in errors). Checks the header
    /// and block index, not the checksum (see [`TableFile::verify_checksum`]).
    ///
    /// # Errors
    /// [`TableError::NotATable`], [`TableError::Version`] or [`TableError::Corrupt`]
    /// (naming `name`) for a bad header, a block index cut short or out of order, or a
    /// length the index does not give.
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Result<TableFile, TableError> {
        TableFile::from_parts(PathBuf::from(name), Box::new(bytes))
    }

    fn io(&self, e: std::io::Error) -> TableError {
        TableError::Io { path: self.path.clone(), error: e }
    }

    /// Reads the `metric` table of `signature` in `variant` from `source`, any
    /// [`TableSource`] (`name` is used in errors). Checks the header, block index and
    /// position count, not the checksum (see [`TableFile::verify_checksum`]).
    ///
    /// # Errors
    /// As [`TableFile::open`], naming `name`, for the source's bytes.
    pub fn from_source(
        name: impl Into<PathBuf>,
        source: impl TableSource + 'static,
        variant: &Variant,
        signature: Signature,
        metric: Metric,
    ) -> Result<TableFile, TableError> {
        TableFile::checked(&name.into(), variant, signature, metric, Box::new(source))
    }

    fn from_parts(path: PathBuf, bytes: Box<dyn TableSource>) -> Result<TableFile, TableError> {
        let io = |e: std::io::Error| TableError::Io { path: path.clone(), error: e };
        let len = bytes.len();
        let head = bytes.read_at(0, HEADER_LEN.min(len as usize)).map_err(io)?;
        let header = Header::parse(&head, &path)?;
        let corrupt = |detail: String| TableError::Corrupt { path: path.clone(), detail };
        let index_len = (header.blocks as usize + 1) * 8;
        if len < (HEADER_LEN + index_len) as u64 {
            return Err(corrupt(format!("truncated: {len} bytes, block index needs {}", HEADER_LEN + index_len)));
        }
        let index = bytes.read_at(HEADER_LEN as u64, index_len).map_err(io)?;
        let offsets: Vec<u64> =
            index.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
        let body_start = (HEADER_LEN + index_len) as u64;
        if offsets[0] != body_start || offsets.windows(2).any(|w| w[0] > w[1]) {
            return Err(corrupt("block offsets out of order".into()));
        }
        let end = *offsets.last().expect("at least one offset");
        if end != len {
            return Err(corrupt(format!("length {len} bytes, block index says {end}")));
        }
        Ok(TableFile { path, header, offsets, bytes })
    }

    fn expect(&self, variant: &str, signature: Signature, metric: Metric) -> Result<(), TableError> {
        let h = &self.header;
        if h.variant != variant || h.signature != signature || h.metric != metric {
            return Err(TableError::not_the_table(
                &self.path,
                &h.variant,
                format!("{} {} {}", h.variant, h.signature, h.metric.name()),
                variant,
                format!("{variant} {signature} {}", metric.name()),
            ));
        }
        Ok(())
    }

    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Checks the checksum over the header and the whole body.
    ///
    /// # Errors
    /// [`TableError::Corrupt`] when the checksum differs from the header's;
    /// [`TableError::Io`] when the file cannot be read.
    pub fn verify_checksum(&self) -> Result<(), TableError> {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(&self.bytes.read_at(0, 56).map_err(|e| self.io(e))?);
        // The body a piece at a time: bounded memory for any file size.
        const PIECE: u64 = 4 << 20;
        let mut at = HEADER_LEN as u64;
        while at < self.bytes.len() {
            let n = PIECE.min(self.bytes.len() - at);
            hasher.update(&self.bytes.read_at(at, n as usize).map_err(|e| self.io(e))?);
            at += n;
        }
        let found = hasher.digest();
        if found != self.header.checksum {
            return Err(TableError::Corrupt {
                path: self.path.clone(),
                detail: format!("checksum {found:016x}, header says {:016x}", self.header.checksum),
            });
        }
        Ok(())
    }

    /// The decompressed bytes of block `b`.
    ///
    /// # Errors
    /// As [`TableFile::block_with`]; [`TableError::Io`] also when no decompression
    /// context can be made.
    pub fn block(&self, b: u32) -> Result<Vec<u8>, TableError> {
        let mut context =
            zstd::bulk::Decompressor::new().map_err(|e| TableError::Io { path: self.path.clone(), error: e })?;
        self.block_with(b, &mut context)
    }

    /// As [`TableFile::block`], reusing a decompression context (creating one costs more
    /// than decompressing a small block).
    ///
    /// # Errors
    /// [`TableError::Corrupt`] when `b` is not a block of the file, or the block has no
    /// checksum, fails it, or does not decompress to its size; [`TableError::Io`] when it
    /// cannot be read.
    pub fn block_with(&self, b: u32, context: &mut zstd::bulk::Decompressor<'_>) -> Result<Vec<u8>, TableError> {
        let corrupt = |detail: String| TableError::Corrupt { path: self.path.clone(), detail };
        if b >= self.header.blocks {
            return Err(corrupt(format!("block {b} of {}", self.header.blocks)));
        }
        let (start, end) = (self.offsets[b as usize], self.offsets[b as usize + 1]);
        let frame = self.bytes.read_at(start, (end - start) as usize).map_err(|e| self.io(e))?;
        let frame: &[u8] = &frame;
        // Byte 4 of a zstd frame is its descriptor; bit 2 says a content checksum follows,
        // which the decoder then checks.
        if frame.get(4).is_none_or(|d| d & 0b100 == 0) {
            return Err(corrupt(format!("block {b} has no checksum")));
        }
        let expected = self.header.block_bytes(b);
        if self.header.metric == Metric::Wld {
            // Runs: at most one byte per position before zstd.
            let positions = self.header.positions_in_block(b);
            let code = context.decompress(frame, positions.max(16)).map_err(|e| corrupt(format!("block {b}: {e}")))?;
            return super::runs::decode_packed(&code, positions).map_err(|e| corrupt(format!("block {b}: {e}")));
        }
        let data = context.decompress(frame, expected).map_err(|e| corrupt(format!("block {b}: {e}")))?;
        if data.len() != expected {
            return Err(corrupt(format!("block {b} holds {} bytes, expected {expected}", data.len())));
        }
        Ok(data)
    }

    /// The scores of block `b`.
    ///
    /// # Errors
    /// As [`TableFile::block_with`]; [`TableError::Corrupt`] also for an entry that is
    /// no score.
    pub fn block_scores(&self, b: u32) -> Result<Vec<Score>, TableError> {
        let data = self.block(b)?;
        (0..self.header.positions_in_block(b))
            .map(|i| {
                decode_entry(&self.header, &data, i).ok_or_else(|| TableError::Corrupt {
                    path: self.path.clone(),
                    detail: format!("undefined value in block {b}"),
                })
            })
            .collect()
    }

    /// The score of position `index` (decompresses its block; no cache yet).
    ///
    /// # Errors
    /// [`TableError::Corrupt`] when `index` is beyond the table or its entry is no
    /// score; otherwise as [`TableFile::block_with`].
    pub fn score(&self, index: u64) -> Result<Score, TableError> {
        if index >= self.header.positions {
            return Err(TableError::Corrupt {
                path: self.path.clone(),
                detail: format!("index {index} beyond {} positions", self.header.positions),
            });
        }
        let per = self.header.block_positions as u64;
        let b = (index / per) as u32;
        let data = self.block(b)?;
        decode_entry(&self.header, &data, (index % per) as usize).ok_or_else(|| TableError::Corrupt {
            path: self.path.clone(),
            detail: format!("undefined value at index {index}"),
        })
    }

    /// Every score, in index order.
    ///
    /// # Errors
    /// The first error of [`TableFile::block_scores`].
    pub fn all_scores(&self) -> Result<Vec<Score>, TableError> {
        let mut out = Vec::new();
        for b in 0..self.header.blocks {
            out.extend(self.block_scores(b)?);
        }
        Ok(out)
    }

    /// The rule value at `index` of a rule table.
    ///
    /// # Errors
    /// [`TableError::Corrupt`] when the file is not a rule table, `index` is beyond it
    /// or its block is short of the entry; otherwise as [`TableFile::block_with`].
    pub fn rule_score(&self, index: u64) -> Result<RuleScore, TableError> {
        if !matches!(self.header.metric, Metric::Rules(_)) || index >= self.header.positions {
            return Err(TableError::Corrupt {
                path: self.path.clone(),
                detail: format!("no rule value at index {index} of a {} table", self.header.metric.name()),
            });
        }
        let per = self.header.block_positions as u64;
        let data = self.block((index / per) as u32)?;
        decode_rule_entry(&data, (index % per) as usize).ok_or_else(|| self.short_block(index))
    }

    fn short_block(&self, index: u64) -> TableError {
        TableError::Corrupt { path: self.path.clone(), detail: format!("no entry for index {index}") }
    }

    /// Every rule value of a rule table, in index order.
    ///
    /// # Errors
    /// [`TableError::Corrupt`] when the file is not a rule table or a block is short of
    /// its entries; otherwise the first error of [`TableFile::block_with`].
    pub fn all_rule_scores(&self) -> Result<Vec<RuleScore>, TableError> {
        if !matches!(self.header.metric, Metric::Rules(_)) {
            return Err(TableError::Corrupt {
                path: self.path.clone(),
                detail: format!("no rule values in a {} table", self.header.metric.name()),
            });
        }
        let mut out = Vec::new();
        for b in 0..self.header.blocks {
            let data = self.block(b)?;
            let start = b as u64 * self.header.block_positions as u64;
            for i in 0..self.header.positions_in_block(b) {
                out.push(decode_rule_entry(&data, i).ok_or_else(|| self.short_block(start + i as u64))?);
            }
        }
        Ok(out)
    }
}
