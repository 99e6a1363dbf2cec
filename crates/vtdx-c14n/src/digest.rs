//! A `Write` that feeds a hash instead of storing bytes.

use std::io::{self, Write};

/// Something that absorbs bytes: a hash function's incremental interface.
///
/// Implement it for the hasher of your crypto library (a newtype around
/// `sha2::Sha256` calling `update`), or pass a closure: every
/// `FnMut(&[u8])` is a `Digest`.
pub trait Digest {
    /// Absorbs `data`.
    fn update(&mut self, data: &[u8]);
}

impl<F: FnMut(&[u8])> Digest for F {
    fn update(&mut self, data: &[u8]) {
        self(data)
    }
}

/// A [`Write`] adaptor that passes everything written to a [`Digest`] and
/// counts the bytes, so a signature's digest is computed while the canonical
/// form streams by, without ever holding it.
///
/// ```
/// use vtdx_c14n::{Algorithm, Canonicalizer, DigestWriter};
///
/// let doc = vtdx_core::Document::parse(b"<a b='1'/>")?;
/// let mut seen = Vec::new();
/// let mut w = DigestWriter::new(|d: &[u8]| seen.extend_from_slice(d));
/// Canonicalizer::new(Algorithm::C14n10).canonicalize_document(&doc, &mut w)?;
/// assert_eq!(w.bytes(), 13);
/// drop(w);
/// assert_eq!(seen, br#"<a b="1"></a>"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct DigestWriter<D> {
    digest: D,
    bytes: u64,
}

impl<D: Digest> DigestWriter<D> {
    /// Wraps `digest`.
    pub fn new(digest: D) -> Self {
        DigestWriter { digest, bytes: 0 }
    }

    /// Bytes written so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The digest, by reference.
    pub fn digest(&self) -> &D {
        &self.digest
    }

    /// Gives back the digest (to finalize it).
    pub fn into_inner(self) -> D {
        self.digest
    }
}

impl<D: Digest> Write for DigestWriter<D> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.digest.update(buf);
        self.bytes += buf.len() as u64;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.digest.update(buf);
        self.bytes += buf.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
