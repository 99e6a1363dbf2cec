//! # vtdx-binary
//!
//! A compact binary form of XML with name handles and an exact round trip,
//! decoded straight into the vtdx token index.
//!
//! Each element and attribute name is sent once and then referred to by a small
//! handle; short attribute values and whitespace runs likewise. Everything that
//! can be written more than one way (quotes, whitespace inside tags,
//! empty-element tags, the XML declaration, the DOCTYPE, character references,
//! the encoding and its byte-order mark) is recorded, so unpacking gives back the
//! input **byte for byte**: a signed document survives a pack and unpack.
//!
//! ```
//! use vtdx_core::Document;
//!
//! let xml = b"<?xml version='1.0'?>\n<po date=\"2026\"><item n='1'>Can &amp; lid</item><item n='2'/></po>";
//! let doc = Document::parse(xml)?;
//! let packed = vtdx_binary::pack(&doc)?;
//! let back = vtdx_binary::unpack(&packed)?;
//! assert_eq!(back.source(), &xml[..]);
//! assert_eq!(back.root_element().element_children().count(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Unpacking does not scan the text for markup: the tokens say where each piece
//! goes, and a [`vtdx_core::Assembler`] writes the text and the index from them,
//! checking what the stream supplies (a packed input is untrusted). A damaged file fails its checksum
//! ([`ErrorKind::Checksum`]); a hostile one is refused with a typed error.
//!
//! In **stream mode** ([`StreamWriter`], [`StreamReader`]) the tables carry over from
//! one document to the next, so a stream of messages of one kind sends each name
//! once. The format is specified in `docs/binary-format.md`.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod decode;
mod encode;
mod wire;

use std::fmt;

use vtdx_core::{Document, ParseOptions};

pub use wire::{FLAG_STREAM, MAGIC, VERSION};

/// What is wrong with a packed input.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input does not start with [`MAGIC`]: not a packed file.
    NotPacked,
    /// The header's version is one this crate does not read.
    UnsupportedVersion {
        /// The version found.
        found: u8,
    },
    /// The header has flags this crate does not know.
    UnknownFlags {
        /// The flags byte found.
        found: u8,
    },
    /// The input ends inside a construct.
    Truncated {
        /// What was still needed.
        expected: &'static str,
    },
    /// A frame's checksum does not match its bytes: the file is damaged.
    Checksum {
        /// The checksum stored in the frame.
        stored: u64,
        /// The checksum of the frame's bytes.
        computed: u64,
    },
    /// Bytes that are not a valid packed stream (an unknown token, a handle
    /// outside its table, a size that does not match, ...).
    Malformed {
        /// What is wrong.
        detail: String,
    },
    /// The unpacked document is not one the parser accepts (or a limit of the
    /// [`ParseOptions`] was reached): the error the check or the parser gave, at
    /// its position in the unpacked text. A limit checked against the frame
    /// before any text is made (the stated text size against
    /// `max_document_size` and `max_packed_amplification`, a name of the tables
    /// against `max_name_len`) has no such position: its line and column are 0.
    Document(vtdx_core::Error),
    /// A document's tokens make a text or a token index of another size than its
    /// payload states (`text-length`, `index-words`).
    SizeMismatch {
        /// The text length the payload states, in bytes.
        stated_text: u64,
        /// The index size the payload states, in 32-bit words.
        stated_index_words: u64,
        /// The bytes of text the tokens made (at least this many when not `complete`).
        text: u64,
        /// The index words the tokens made (at least this many when not `complete`).
        index_words: u64,
        /// True when every token was read; false when reading stopped as soon as
        /// the text grew past the stated length.
        complete: bool,
    },
    /// The packed input holds no document, or more than one where one was asked for.
    DocumentCount {
        /// Documents found.
        found: usize,
    },
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::NotPacked => write!(f, "not a packed vtdx file: expected the magic bytes 89 56 54 58 42 0D 0A 1A"),
            ErrorKind::UnsupportedVersion { found } => write!(f, "unsupported packed format version {found}: expected {VERSION}"),
            ErrorKind::UnknownFlags { found } => write!(f, "unknown header flags 0x{found:02X}: expected 0x00 or 0x01"),
            ErrorKind::Truncated { expected } => write!(f, "packed input is truncated: expected {expected}"),
            ErrorKind::Checksum { stored, computed } => {
                write!(f, "checksum mismatch: the frame says {stored:016x}, its bytes give {computed:016x} (the file is damaged)")
            }
            ErrorKind::Malformed { detail } => write!(f, "malformed packed input: {detail}"),
            ErrorKind::Document(e) if e.line() == 0 => write!(f, "packed document refused: {}", e.kind()),
            ErrorKind::Document(e) => write!(f, "packed document refused: {e}"),
            ErrorKind::SizeMismatch { stated_text, stated_index_words, text, index_words, complete: true } => write!(
                f,
                "the document's header says {stated_text} bytes of text and {stated_index_words} index words, its tokens make {text} and {index_words}"
            ),
            ErrorKind::SizeMismatch { stated_text, text, .. } => {
                write!(f, "the document's header says {stated_text} bytes of text, its tokens make more ({text} so far)")
            }
            ErrorKind::DocumentCount { found } => write!(f, "expected exactly one document, found {found}"),
        }
    }
}

/// An error reading or writing the binary form: what, and the byte offset in the
/// packed input where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    offset: u64,
}

impl Error {
    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
    /// Byte offset in the packed input.
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (packed byte {})", self.kind, self.offset)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Document(e) => Some(e),
            _ => None,
        }
    }
}

/// Does `bytes` start with the packed format's [`MAGIC`]? (No XML document does.)
pub fn is_packed(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Rewrites the checksum of every document frame of a packed file so that it
/// matches the frame's bytes; returns the number of frames resealed.
///
/// For tools and fuzzing: a packed file built or edited on purpose (a test
/// vector, a fuzz input, a hand-made frame) can then reach the checks behind the
/// checksum. It is **not** a repair: the checksum is what tells a damaged file,
/// and a resealed damaged file is read as if it had been written that way (the
/// reader's checks still refuse anything malformed or not well-formed, but no
/// longer know that it was damaged).
///
/// The header must be one this crate reads. Frames are walked by their stated
/// lengths up to the end mark; the bytes after it are left alone. A frame that
/// runs past the end of `packed`, or an unknown frame tag, is an error (the
/// frames before it are resealed).
///
/// ```
/// use vtdx_core::Document;
///
/// let mut packed = vtdx_binary::pack(&Document::parse(b"<a>text</a>")?)?;
/// let at = packed.windows(4).position(|w| w == b"text").unwrap();
/// packed[at] = b'n';
/// assert!(vtdx_binary::unpack(&packed).is_err()); // the checksum no longer matches
/// assert_eq!(vtdx_binary::reseal(&mut packed)?, 1);
/// assert_eq!(vtdx_binary::unpack(&packed)?.source(), b"<a>next</a>");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn reseal(packed: &mut [u8]) -> Result<usize, Error> {
    let (mut pos, stream) = read_header(packed)?;
    let mut count = 0;
    loop {
        let mut r = wire::Reader::new(packed, 0);
        r.pos = pos;
        let start = pos;
        match r.byte("a frame or the end mark")? {
            wire::FRAME_DOC => {
                let len = r.count("the frame length", packed.len())?;
                r.bytes(len, "the frame's payload")?;
                let end = r.pos;
                r.bytes(8, "the frame's checksum")?;
                let sum = wire::checksum(&packed[start..end], u8::from(stream));
                packed[end..end + 8].copy_from_slice(&sum.to_le_bytes());
                count += 1;
                pos = end + 8;
            }
            wire::FRAME_RESET => pos = r.pos,
            wire::FRAME_END => return Ok(count),
            b => {
                r.pos = start;
                return Err(r.malformed(format!("unknown frame tag 0x{b:02X}")));
            }
        }
    }
}

fn header(out: &mut Vec<u8>, flags: u8) {
    out.extend_from_slice(&MAGIC);
    out.push(VERSION);
    out.push(flags);
}

/// Packs one document: a header, one document frame and the end mark.
///
/// Fails only for a document whose index is not one the parser makes.
pub fn pack(doc: &Document<'_>) -> Result<Vec<u8>, Error> {
    // the header (the frame reserves the rest once it knows the tables' size)
    let mut out = Vec::with_capacity(64);
    header(&mut out, 0);
    // one encoder per thread, its tables emptied for each file (their allocations
    // kept, unless a large document made them large)
    thread_local! {
        static ENCODER: std::cell::RefCell<Option<encode::Encoder>> = const { std::cell::RefCell::new(None) };
    }
    ENCODER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            let enc = slot.get_or_insert_with(encode::Encoder::new);
            enc.reset();
            let res = enc.frame(doc, &mut out, 0);
            if res.is_err() || enc.is_large() {
                *slot = None;
            }
            res
        }
        Err(_) => encode::Encoder::new().frame(doc, &mut out, 0),
    })?;
    out.push(wire::FRAME_END);
    Ok(out)
}

/// Unpacks a file of exactly one document (as [`pack`] writes it) with default
/// options. To unpack many files, reuse an [`Unpacker`].
pub fn unpack(data: &[u8]) -> Result<Document<'static>, Error> {
    unpack_with(data, &ParseOptions::default())
}

/// [`unpack`] with `opts`: the limits and namespace setting the document is
/// checked against (as [`Document::parse_with`] would).
pub fn unpack_with(data: &[u8], opts: &ParseOptions) -> Result<Document<'static>, Error> {
    Unpacker::with_options(opts).unpack(data)
}

/// Unpacks one-document files one after another, keeping its allocations and
/// its name tables between them (as a reused [`vtdx_core::Parser`] does): the
/// names of documents of one kind are interned and checked once.
///
/// ```
/// use vtdx_core::Document;
///
/// let mut u = vtdx_binary::Unpacker::new();
/// for xml in [&b"<m><id>1</id></m>"[..], b"<m><id>2</id></m>"] {
///     let packed = vtdx_binary::pack(&Document::parse(xml)?)?;
///     let doc = u.unpack(&packed)?;
///     assert_eq!(doc.source(), xml);
///     u.recycle(doc);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Unpacker {
    dec: decode::Decoder,
}

impl Default for Unpacker {
    fn default() -> Self {
        Self::new()
    }
}

impl Unpacker {
    /// An unpacker with default options.
    pub fn new() -> Self {
        Self::with_options(&ParseOptions::default())
    }

    /// An unpacker whose documents are checked against `opts`.
    pub fn with_options(opts: &ParseOptions) -> Self {
        Unpacker { dec: decode::Decoder::new(opts) }
    }

    /// Unpacks a file of exactly one document.
    pub fn unpack(&mut self, data: &[u8]) -> Result<Document<'static>, Error> {
        let (mut pos, stream) = read_header(data)?;
        self.dec.reset();
        let doc = match next_doc(data, &mut pos, stream, &mut self.dec)? {
            Some(d) => d,
            None => return Err(Error { kind: ErrorKind::DocumentCount { found: 0 }, offset: pos as u64 }),
        };
        match next_doc(data, &mut pos, stream, &mut self.dec)? {
            None => Ok(doc),
            Some(_) => Err(Error { kind: ErrorKind::DocumentCount { found: 2 }, offset: pos as u64 }),
        }
    }

    /// Takes back a document's allocations for the next one (as
    /// [`vtdx_core::Parser::recycle`]).
    pub fn recycle(&mut self, doc: Document<'_>) {
        self.dec.asm.recycle(doc);
    }
}

/// Checks the header; returns the offset after it and whether the file is a stream.
fn read_header(data: &[u8]) -> Result<(usize, bool), Error> {
    if !is_packed(data) {
        return Err(Error { kind: ErrorKind::NotPacked, offset: 0 });
    }
    let mut r = wire::Reader::new(data, 0);
    r.pos = MAGIC.len();
    let version = r.byte("the version")?;
    if version != VERSION {
        return Err(r.error(ErrorKind::UnsupportedVersion { found: version }));
    }
    let flags = r.byte("the flags")?;
    if flags & !FLAG_STREAM != 0 {
        return Err(r.error(ErrorKind::UnknownFlags { found: flags }));
    }
    Ok((r.pos, flags & FLAG_STREAM != 0))
}

/// The next document from `*pos` on (`None` at the end mark), its frame's
/// checksum verified before anything in it is read.
fn next_doc(data: &[u8], pos: &mut usize, stream: bool, dec: &mut decode::Decoder) -> Result<Option<Document<'static>>, Error> {
    loop {
        let mut r = wire::Reader::new(data, 0);
        r.pos = *pos;
        let start = r.pos;
        match r.byte("a frame or the end mark")? {
            wire::FRAME_DOC => {
                let len = r.count("the frame length", data.len())?;
                let payload_start = r.pos;
                r.bytes(len, "the frame's payload")?;
                let sum = r.bytes(8, "the frame's checksum")?;
                let stored = u64::from_le_bytes([sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6], sum[7]]);
                let computed = wire::checksum(&data[start..payload_start + len], u8::from(stream));
                if stored != computed {
                    return Err(Error { kind: ErrorKind::Checksum { stored, computed }, offset: start as u64 });
                }
                *pos = r.pos;
                let mut pr = wire::Reader::new(&data[payload_start..payload_start + len], payload_start);
                let doc = dec.document(&mut pr)?;
                if !pr.at_end() {
                    return Err(pr.malformed("bytes after the document's end token"));
                }
                if !stream {
                    dec.reset();
                }
                return Ok(Some(doc));
            }
            wire::FRAME_RESET if stream => {
                dec.reset();
                *pos = r.pos;
            }
            wire::FRAME_END => {
                if !r.at_end() {
                    return Err(r.malformed("bytes after the end mark"));
                }
                *pos = r.pos;
                return Ok(None);
            }
            b => {
                r.pos = start;
                return Err(r.malformed(format!("unknown frame tag 0x{b:02X}")));
            }
        }
    }
}

/// Writes a stream of documents whose tables carry over from one document to the
/// next (stream mode), so each name, namespace and repeated value is sent once.
///
/// ```
/// use vtdx_core::Document;
///
/// let mut w = vtdx_binary::StreamWriter::new();
/// for msg in [&b"<m><id>1</id></m>"[..], b"<m><id>2</id></m>"] {
///     w.push(&Document::parse(msg)?)?;
/// }
/// let packed = w.finish();
/// let docs: Vec<_> = vtdx_binary::StreamReader::new(&packed)?.collect::<Result<_, _>>()?;
/// assert_eq!(docs[1].source(), b"<m><id>2</id></m>");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct StreamWriter {
    enc: encode::Encoder,
    out: Vec<u8>,
    count: usize,
}

impl Default for StreamWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl StreamWriter {
    /// An empty stream (its header written).
    pub fn new() -> Self {
        let mut out = Vec::new();
        header(&mut out, FLAG_STREAM);
        StreamWriter { enc: encode::Encoder::new(), out, count: 0 }
    }

    /// Appends a document.
    pub fn push(&mut self, doc: &Document<'_>) -> Result<(), Error> {
        self.enc.frame(doc, &mut self.out, FLAG_STREAM)?;
        self.count += 1;
        Ok(())
    }

    /// Appends a reset mark: the tables start empty again for the next document
    /// (for a writer that wants to bound them, or to start a new kind of document).
    pub fn reset(&mut self) {
        self.enc.reset();
        self.out.push(wire::FRAME_RESET);
    }

    /// Documents written so far.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when no document has been written.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The bytes written so far (without the end mark).
    pub fn bytes(&self) -> &[u8] {
        &self.out
    }

    /// Takes the bytes written so far (without the end mark) and keeps going
    /// with an empty buffer, the tables kept: for writing a stream to a socket
    /// or a file in pieces.
    pub fn take_bytes(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }

    /// Writes the end mark and returns the stream's (remaining) bytes.
    pub fn finish(mut self) -> Vec<u8> {
        self.out.push(wire::FRAME_END);
        self.out
    }
}

/// Reads the documents of a packed file (a single-document file or a stream), in
/// order. An iterator of `Result`s; after the first error it ends.
pub struct StreamReader<'a> {
    data: &'a [u8],
    pos: usize,
    stream: bool,
    dec: decode::Decoder,
    done: bool,
}

impl<'a> StreamReader<'a> {
    /// A reader with default options. Fails when the header is not one this crate reads.
    pub fn new(data: &'a [u8]) -> Result<Self, Error> {
        Self::with_options(data, &ParseOptions::default())
    }

    /// A reader whose documents are checked against `opts`.
    pub fn with_options(data: &'a [u8], opts: &ParseOptions) -> Result<Self, Error> {
        let (pos, stream) = read_header(data)?;
        Ok(StreamReader { data, pos, stream, dec: decode::Decoder::new(opts), done: false })
    }

    /// True for a stream-mode file (tables kept across documents).
    pub fn is_stream(&self) -> bool {
        self.stream
    }

    /// The byte offset reached in the packed input.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// Takes back a document's allocations for the next one (as
    /// [`vtdx_core::Parser::recycle`]): for a reader that is done with each
    /// document before it reads the next.
    pub fn recycle(&mut self, doc: Document<'_>) {
        self.dec.asm.recycle(doc);
    }

    fn next_doc(&mut self) -> Result<Option<Document<'static>>, Error> {
        next_doc(self.data, &mut self.pos, self.stream, &mut self.dec)
    }
}

impl Iterator for StreamReader<'_> {
    type Item = Result<Document<'static>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_doc() {
            Ok(Some(d)) => Some(Ok(d)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
