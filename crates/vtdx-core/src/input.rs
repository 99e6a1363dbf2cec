//! Input decoding: encoding detection (XML 1.0 §4.3.3 and Appendix F), transcoding
//! to UTF-8, and the check that every character matches the `Char` production \[2\].
//!
//! UTF-8 input is never copied: [`Decoded::text`] borrows it. Other encodings are
//! transcoded once into an owned buffer. Either way the text goes through
//! [`validate_utf8_chars`], which runs over every byte before parsing and is built to
//! run at memory speed: SIMD UTF-8 validation, then an auto-vectorized scan for
//! disallowed control characters and U+FFFE / U+FFFF, block by block while in cache.
//!
//! Error offsets: for UTF-8 input they count the byte-order mark (offsets into the
//! input); for transcoded input they are offsets into the transcoded text, except
//! bytes that cannot be decoded, which are reported at their offset in the input.
//! Line and column are always those of the decoded text.

use std::borrow::Cow;

use crate::error::{line_column, Error, ErrorKind};

/// The encoding an input was read in (what the document's bytes were, before transcoding).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceEncoding {
    /// UTF-8: no encoding declaration, or one that says `UTF-8` (or a label that
    /// names UTF-8). The text is the input itself, after any byte-order mark.
    Utf8 {
        /// The input starts with the UTF-8 byte-order mark `EF BB BF`.
        bom: bool,
    },
    /// UTF-16, little-endian: from the byte-order mark `FF FE`, or from `<?` in
    /// little-endian 16-bit units with a declaration saying UTF-16.
    Utf16Le {
        /// The input starts with a byte-order mark (else it has an encoding declaration).
        bom: bool,
    },
    /// UTF-16, big-endian: from the byte-order mark `FE FF`, or from `<?` in
    /// big-endian 16-bit units with a declaration saying UTF-16.
    Utf16Be {
        /// The input starts with a byte-order mark (else it has an encoding declaration).
        bom: bool,
    },
    /// Any other encoding, by its canonical label as written in the declaration (e.g. "ISO-8859-1",
    /// "windows-1252", "US-ASCII", "Shift_JIS").
    Other {
        /// The encoding name as written in the declaration's `encoding="..."`.
        label: String,
    },
}

/// A document's bytes as UTF-8, ready to be scanned.
pub struct Decoded<'a> {
    /// UTF-8 text with the byte-order mark removed. Borrowed from the input when the input was
    /// UTF-8 (then `text` is `&input[bom_len..]`), owned when transcoded.
    pub text: Cow<'a, [u8]>,
    /// Number of BOM bytes skipped at the start of the original input (0, 2 or 3).
    pub bom_len: usize,
    /// The encoding the input was read in, as detected and declared.
    pub encoding: SourceEncoding,
}

/// What the first bytes say (Appendix F), before the declaration is read.
enum Family {
    /// No byte-order mark, ASCII-compatible bytes.
    Ascii,
    Utf8Bom,
    /// UTF-16, from a byte-order mark or from `<?` in 16-bit units.
    Utf16 {
        le: bool,
        bom: bool,
    },
}

/// Labels of real ISO-8859-1 (IANA aliases), decoded here: `encoding_rs` maps them
/// to windows-1252.
const LATIN1: &[&str] =
    &["ISO-8859-1", "ISO_8859-1", "ISO_8859-1:1987", "ISO-8859-1:1987", "latin1", "l1", "iso-ir-100", "csISOLatin1", "IBM819", "CP819"];
const ASCII: &[&str] =
    &["US-ASCII", "ASCII", "ANSI_X3.4-1968", "ANSI_X3.4-1986", "iso-ir-6", "ISO646-US", "us", "IBM367", "cp367", "csASCII"];
const UTF16: &[&str] = &["UTF-16", "UTF-16LE", "UTF-16BE", "ISO-10646-UCS-2"];

/// How text is written back in a document's encoding (the [`crate::Editor`]'s output).
#[derive(Debug, Clone, Copy)]
pub(crate) enum OutEncoding {
    Utf8,
    Utf16 {
        le: bool,
    },
    /// Real ISO-8859-1: one byte per code point below U+0100.
    Latin1,
    /// US-ASCII: code points below U+0080.
    Ascii,
    /// Any other encoding `encoding_rs` knows.
    Other(&'static encoding_rs::Encoding),
}

impl SourceEncoding {
    /// How to write text back in this encoding.
    pub(crate) fn out_encoding(&self) -> OutEncoding {
        match self {
            SourceEncoding::Utf8 { .. } => OutEncoding::Utf8,
            SourceEncoding::Utf16Le { .. } => OutEncoding::Utf16 { le: true },
            SourceEncoding::Utf16Be { .. } => OutEncoding::Utf16 { le: false },
            SourceEncoding::Other { label } if is_any(label, LATIN1) => OutEncoding::Latin1,
            SourceEncoding::Other { label } if is_any(label, ASCII) => OutEncoding::Ascii,
            SourceEncoding::Other { label } => match encoding_rs::Encoding::for_label(label.as_bytes()) {
                Some(e) if e == encoding_rs::UTF_8 => OutEncoding::Utf8,
                Some(e) if e != encoding_rs::REPLACEMENT && e != encoding_rs::UTF_16LE && e != encoding_rs::UTF_16BE => {
                    OutEncoding::Other(e)
                }
                // the parser refused any other label
                _ => OutEncoding::Utf8,
            },
        }
    }
}

fn is_any(label: &str, names: &[&str]) -> bool {
    names.iter().any(|n| label.eq_ignore_ascii_case(n))
}

/// An `Encoding` error at `offset` in `text`.
fn encoding_error(detail: impl Into<String>, text: &[u8], offset: usize) -> Error {
    Error::at(ErrorKind::Encoding { detail: detail.into() }, text, offset)
}

/// An error reported at `offset`, with the line and column of `line_offset` in `text`.
fn error_in(kind: ErrorKind, offset: usize, text: &[u8], line_offset: usize) -> Error {
    let (line, column) = line_column(text, line_offset);
    Error::with_position(kind, offset as u64, line, column)
}

fn detect(input: &[u8]) -> Result<Family, Error> {
    let unsupported = |what| Err(encoding_error(format!("unsupported encoding: {what}"), &[], 0));
    match input.get(..4) {
        Some([0, 0, 0xFE, 0xFF] | [0xFF, 0xFE, 0, 0] | [0, 0, 0xFF, 0xFE] | [0xFE, 0xFF, 0, 0])
        | Some([0, 0, 0, b'<'] | [b'<', 0, 0, 0] | [0, 0, b'<', 0] | [0, b'<', 0, 0]) => return unsupported("UCS-4 (UTF-32)"),
        Some([0x4C, 0x6F, 0xA7, 0x94]) => return unsupported("EBCDIC"),
        Some([b'<', 0, b'?', 0]) => return Ok(Family::Utf16 { le: true, bom: false }),
        Some([0, b'<', 0, b'?']) => return Ok(Family::Utf16 { le: false, bom: false }),
        _ => {}
    }
    Ok(match input {
        [0xEF, 0xBB, 0xBF, ..] => Family::Utf8Bom,
        [0xFF, 0xFE, ..] => Family::Utf16 { le: true, bom: true },
        [0xFE, 0xFF, ..] => Family::Utf16 { le: false, bom: true },
        _ => Family::Ascii,
    })
}

/// The `encoding` pseudo-attribute of an XML declaration at the start of the text,
/// with the index of its first unit. `at(i)` is the i-th unit (byte or UTF-16 code
/// unit) as ASCII (0xFF if not ASCII), `None` past the end. `None` when there is no
/// declaration or encoding, or either is malformed (left for the parser to report),
/// including a label that is not an \[81\] EncName. [`declared_label_range`] gives
/// where the label is instead, without making a string of it.
fn declared_label(at: impl Fn(usize) -> Option<u8>) -> Option<(String, usize)> {
    let (start, end) = declared_label_range(&at)?;
    Some(((start..end).filter_map(&at).map(char::from).collect(), start))
}

/// The units `start..end` of the label [`declared_label`] reads.
fn declared_label_range(at: impl Fn(usize) -> Option<u8>) -> Option<(usize, usize)> {
    let literal = |i: usize, s: &[u8]| s.iter().enumerate().all(|(k, &c)| at(i + k) == Some(c));
    let skip_ws = |mut i: usize| {
        while matches!(at(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            i += 1;
        }
        i
    };
    // Eq [25] and an opening quote: the quote and the index after it
    let eq_quote = |i: usize| {
        let i = skip_ws(i);
        let i = if at(i)? == b'=' { skip_ws(i + 1) } else { return None };
        matches!(at(i)?, b'"' | b'\'').then(|| (at(i).unwrap_or(0), i + 1))
    };
    let i = skip_ws(5);
    if !literal(0, b"<?xml") || i == 5 || !literal(i, b"version") {
        return None;
    }
    let (q, start) = eq_quote(i + 7)?;
    let end = (start..start + 64).find(|&j| at(j) == Some(q))? + 1;
    let i = skip_ws(end);
    if i == end || !literal(i, b"encoding") {
        return None;
    }
    let (q, start) = eq_quote(i + 8)?;
    let mut end = start;
    while let Some(c) = at(end).filter(|&c| c != q) {
        let ok = c.is_ascii_alphabetic() || (end > start && (c.is_ascii_digit() || matches!(c, b'.' | b'_' | b'-')));
        if !ok || end - start >= 128 {
            return None;
        }
        end += 1;
    }
    (at(end) == Some(q) && end > start).then_some((start, end))
}

/// Detects the encoding (BOM, then the XML declaration's `encoding` pseudo-attribute, per XML 1.0
/// §4.3.3 and Appendix F), transcodes to UTF-8 if needed, then validates that the UTF-8 text is
/// valid UTF-8 and that every character matches the XML 1.0 `Char` production \[2\]
/// (#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]).
pub fn decode(input: &[u8]) -> Result<Decoded<'_>, Error> {
    decode_deferring(input, false).map(|(d, _)| d)
}

/// [`decode`], except that with `defer` a text borrowed from UTF-8 input is returned
/// unchecked, with `true`: the caller must then run [`check_deferred`] over it and
/// use nothing it read from the text if that fails (the parser does both at once, on
/// two threads). Transcoded text is always checked here.
pub(crate) fn decode_deferring(input: &[u8], defer: bool) -> Result<(Decoded<'_>, bool), Error> {
    let utf8 = |text, bom_len, encoding| utf8(text, bom_len, encoding, defer);
    match detect(input)? {
        Family::Utf8Bom => {
            let text = &input[3..];
            match declared_label_range(|i| text.get(i).copied()) {
                Some((pos, end)) if !text[pos..end].eq_ignore_ascii_case(b"UTF-8") => {
                    let label = String::from_utf8_lossy(&text[pos..end]);
                    let detail = format!("encoding declaration `{label}` contradicts the UTF-8 byte-order mark");
                    Err(error_in(ErrorKind::Encoding { detail }, 3 + pos, text, pos))
                }
                _ => utf8(text, 3, SourceEncoding::Utf8 { bom: true }),
            }
        }
        Family::Utf16 { le, bom } => Ok((decode_utf16(input, le, bom)?, false)),
        Family::Ascii if common_utf8_declaration(input) => utf8(input, 0, SourceEncoding::Utf8 { bom: false }),
        Family::Ascii => match declared_label_range(|i| input.get(i).copied()) {
            None => utf8(input, 0, SourceEncoding::Utf8 { bom: false }),
            // the common declaration: no label to keep
            Some((pos, end)) if input[pos..end].eq_ignore_ascii_case(b"UTF-8") => utf8(input, 0, SourceEncoding::Utf8 { bom: false }),
            Some((pos, end)) => decode_ascii_compatible(input, String::from_utf8_lossy(&input[pos..end]).into_owned(), pos, defer),
        },
    }
}

/// The input starts with the usual declaration, `<?xml version="1.0"
/// encoding="UTF-8"` (either quote, the label in any case): what
/// [`declared_label_range`] reads as the label `UTF-8`, in a few compares.
pub(crate) fn common_utf8_declaration(input: &[u8]) -> bool {
    let Some(h) = input.get(..36) else { return false };
    let q = h[14];
    h.starts_with(b"<?xml version=")
        && (q == b'"' || q == b'\'')
        && &h[15..18] == b"1.0"
        && h[18] == q
        && &h[19..29] == b" encoding="
        && h[29] == q
        && h[30..35].eq_ignore_ascii_case(b"UTF-8")
        && h[35] == q
}

/// UTF-8 text (`bom_len` bytes into the input): validated in place (unless `defer`)
/// and borrowed. The flag says whether the check was deferred.
fn utf8(text: &[u8], bom_len: usize, encoding: SourceEncoding, defer: bool) -> Result<(Decoded<'_>, bool), Error> {
    if !defer {
        check_deferred(text, bom_len)?;
    }
    Ok((Decoded { text: Cow::Borrowed(text), bom_len, encoding }, defer))
}

/// [`check_deferred`] over `text[from..to]` (both at ASCII bytes, so that no
/// character is cut), with error offsets, lines and columns counted in the whole text.
pub(crate) fn check_deferred_range(text: &[u8], bom_len: usize, from: usize, to: usize) -> Result<(), Error> {
    check(&text[from..to]).map_err(|(kind, off)| error_in(kind, bom_len + from + off, text, from + off))
}

/// The check [`decode_deferring`] left out: UTF-8 and the `Char` production over
/// `text`, found `bom_len` bytes into the input (error offsets count from the input).
pub(crate) fn check_deferred(text: &[u8], bom_len: usize) -> Result<(), Error> {
    check_deferred_range(text, bom_len, 0, text.len())
}

/// Transcoded text: validated, owned.
fn owned(text: Vec<u8>, bom_len: usize, enc: SourceEncoding) -> Result<Decoded<'static>, Error> {
    validate_utf8_chars(&text)?;
    Ok(Decoded { text: Cow::Owned(text), bom_len, encoding: enc })
}

fn decode_utf16(input: &[u8], le: bool, bom: bool) -> Result<Decoded<'static>, Error> {
    let base = if bom { 2 } else { 0 };
    let body = &input[base..];
    let from_bytes = if le { u16::from_le_bytes } else { u16::from_be_bytes };
    let units: Vec<u16> = body.chunks_exact(2).map(|b| from_bytes([b[0], b[1]])).collect();
    let ascii = |i: usize| units.get(i).map(|&u| if u < 0x80 { u as u8 } else { 0xFF });
    let order = if le { "UTF-16LE" } else { "UTF-16BE" };
    let detail = match declared_label(ascii) {
        Some((label, _)) if is_any(&label, &["UTF-16", "ISO-10646-UCS-2", order]) => None,
        None if bom && body.starts_with(b"<?xml") => Some(("the UTF-16 byte-order mark is followed by single-byte text".into(), 0)),
        None if bom => None,
        Some((label, pos)) if bom => Some((format!("encoding declaration `{label}` contradicts the UTF-16 byte-order mark"), pos)),
        Some((label, pos)) => Some((format!("document is {order} without a byte-order mark but declares `{label}`"), pos)),
        None => Some((format!("document is {order} without a byte-order mark and declares no encoding"), 0)),
    };
    if let Some((detail, pos)) = detail {
        // everything before the label is ASCII: its units are its UTF-8 bytes
        return Err(encoding_error(detail, &(0..pos).filter_map(ascii).collect::<Vec<u8>>(), pos));
    }
    let mut out = Vec::with_capacity(units.len() + units.len() / 2);
    let mut i = 0;
    while i < units.len() {
        let (u, next) = (units[i], units.get(i + 1).copied().unwrap_or(0));
        let (c, len) = match u {
            0..=0x7F => {
                out.push(u as u8);
                i += 1;
                continue;
            }
            0xD800..=0xDBFF if (0xDC00..=0xDFFF).contains(&next) => {
                (0x10000 + ((u32::from(u) - 0xD800) << 10) + u32::from(next - 0xDC00), 2)
            }
            _ => (u32::from(u), 1),
        };
        let Some(ch) = char::from_u32(c) else {
            let detail = format!("unpaired surrogate 0x{u:04X} in UTF-16 text");
            return Err(error_in(ErrorKind::Encoding { detail }, base + 2 * i, &out, out.len()));
        };
        out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
        i += len;
    }
    if body.len() % 2 == 1 {
        let detail = "UTF-16 text ends with an odd byte".into();
        return Err(error_in(ErrorKind::Encoding { detail }, input.len() - 1, &out, out.len()));
    }
    let enc = if le { SourceEncoding::Utf16Le { bom } } else { SourceEncoding::Utf16Be { bom } };
    owned(out, base, enc)
}

fn decode_ascii_compatible(input: &[u8], label: String, pos: usize, defer: bool) -> Result<(Decoded<'_>, bool), Error> {
    let utf8 = |text, bom_len, encoding| utf8(text, bom_len, encoding, defer);
    let not_utf16 = "document declares UTF-16 but has no byte-order mark and is not UTF-16";
    let enc = if is_any(&label, UTF16) {
        return Err(encoding_error(not_utf16, input, pos));
    } else if label.eq_ignore_ascii_case("UTF-8") {
        encoding_rs::UTF_8
    } else if is_any(&label, LATIN1) {
        if input.is_ascii() {
            return utf8(input, 0, SourceEncoding::Other { label });
        }
        return owned(latin1_to_utf8(input), 0, SourceEncoding::Other { label }).map(|d| (d, false));
    } else if is_any(&label, ASCII) {
        if let Some(p) = input.iter().position(|&b| b >= 0x80) {
            let detail = format!("byte 0x{:02X} is not valid in encoding `{label}`", input[p]);
            return Err(encoding_error(detail, input, p));
        }
        return utf8(input, 0, SourceEncoding::Other { label });
    } else {
        match encoding_rs::Encoding::for_label(label.as_bytes()) {
            Some(enc) if enc != encoding_rs::REPLACEMENT => enc,
            _ => return Err(encoding_error(format!("unsupported encoding `{label}`"), input, pos)),
        }
    };
    if enc == encoding_rs::UTF_8 {
        return utf8(input, 0, SourceEncoding::Utf8 { bom: false });
    } else if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
        return Err(encoding_error(not_utf16, input, pos));
    } else if enc.is_ascii_compatible() && input.is_ascii() {
        return utf8(input, 0, SourceEncoding::Other { label });
    }
    let mut decoder = enc.new_decoder_without_bom_handling();
    let cap = decoder.max_utf8_buffer_length_without_replacement(input.len());
    let mut out = vec![0u8; cap.unwrap_or(input.len().saturating_mul(3))];
    let (mut read, mut written) = (0, 0);
    loop {
        let (result, r, w) = decoder.decode_to_utf8_without_replacement(&input[read..], &mut out[written..], true);
        (read, written) = (read + r, written + w);
        match result {
            encoding_rs::DecoderResult::InputEmpty => break,
            encoding_rs::DecoderResult::OutputFull => out.resize(out.len() * 2 + 16, 0),
            encoding_rs::DecoderResult::Malformed(bad, after) => {
                let p = read.saturating_sub(usize::from(bad) + usize::from(after));
                let p = p.min(input.len().saturating_sub(1));
                let detail = format!("byte 0x{:02X} is not valid in encoding `{label}`", input.get(p).copied().unwrap_or(0));
                return Err(error_in(ErrorKind::Encoding { detail }, p, &out, written));
            }
        }
    }
    out.truncate(written);
    owned(out, 0, SourceEncoding::Other { label }).map(|d| (d, false))
}

/// ISO-8859-1 as UTF-8: every byte is the code point of its value, so ASCII stays
/// as it is and a byte from 0x80 up becomes two. A Latin-1 document is mostly
/// ASCII: its runs are found eight bytes at a time and copied whole, and the output
/// is sized exactly in one counting pass (which the compiler vectorizes).
fn latin1_to_utf8(input: &[u8]) -> Vec<u8> {
    let high: usize = input.chunks(256).map(|c| c.iter().map(|&b| u32::from(b >> 7)).sum::<u32>() as usize).sum();
    let mut out = Vec::with_capacity(input.len() + high);
    let mut rest = input;
    while !rest.is_empty() {
        let run = ascii_run(rest);
        out.extend_from_slice(&rest[..run]);
        rest = &rest[run..];
        while let Some((&b, tail)) = rest.split_first().filter(|(&b, _)| b >= 0x80) {
            out.extend_from_slice(&[0xC0 | (b >> 6), 0x80 | (b & 0x3F)]);
            rest = tail;
        }
    }
    out
}

/// The length of the ASCII run at the start of `s`.
#[inline]
fn ascii_run(s: &[u8]) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = s.chunks_exact(8);
    let mut n = 0;
    for w in &mut words {
        let x = u64::from_le_bytes(w.try_into().unwrap_or([0xFF; 8])) & HIGH;
        if x != 0 {
            return n + x.trailing_zeros() as usize / 8;
        }
        n += 8;
    }
    n + words.remainder().iter().take_while(|&&b| b < 0x80).count()
}

/// Validates UTF-8 + Char production over `text` (already BOM-free UTF-8). Used by `decode` for
/// UTF-8 inputs and by callers for entity text. Errors: ErrorKind::InvalidUtf8 at the offset of the
/// first bad byte, ErrorKind::InvalidChar{code_point} at the offset of the first disallowed
/// character.
pub fn validate_utf8_chars(text: &[u8]) -> Result<(), Error> {
    check(text).map_err(|(kind, off)| Error::at(kind, text, off))
}

/// Bytes validated by one `simdutf8` call and then scanned for disallowed
/// characters while still in cache.
const BLOCK: usize = 64 * 1024;
/// Bytes OR-reduced into one flag by the vectorized scan.
const CHUNK: usize = 64;

/// The first problem in `text`: invalid UTF-8 or a character outside `Char`. On
/// x86-64 CPUs with AVX2 (detected once at run time) [`check_generic`] runs compiled
/// for AVX2.
fn check(text: &[u8]) -> Result<(), (ErrorKind, usize)> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            return crate::chars::check_avx2(text);
        }
    }
    check_generic(text)
}

/// [`check`] for whichever target features the caller is compiled with. First one
/// pass over the ASCII text every document starts with, flagging per chunk a byte
/// above 0x7F or a disallowed control ([`ascii_prefix`]): an ASCII document is done
/// there (one pass instead of the UTF-8 validation and the `Char` scan). From the
/// first flagged chunk on (a character boundary: only ASCII precedes it), blocks go
/// through UTF-8 validation and [`find_disallowed_generic`].
#[inline(always)]
pub(crate) fn check_generic(text: &[u8]) -> Result<(), (ErrorKind, usize)> {
    let n = text.len();
    let continuation = |p: usize| p < n && text[p] & 0xC0 == 0x80;
    let mut start = ascii_prefix(text);
    while start < n {
        // end the block on a character boundary (at most 3 bytes back in valid UTF-8)
        let mut end = (start + BLOCK).min(n);
        for _ in 0..3 {
            end -= continuation(end) as usize;
        }
        let block_ok = simdutf8::basic::from_utf8(&text[start..end]).is_ok() && !continuation(end);
        let valid_end = if block_ok {
            end
        } else {
            let rest = simdutf8::compat::from_utf8(&text[start..]);
            rest.map_or_else(|e| start + e.valid_up_to(), |_| n)
        };
        if let Some((p, code_point)) = find_disallowed_generic(&text[start..valid_end]) {
            return Err((ErrorKind::InvalidChar { code_point }, start + p));
        }
        if !block_ok {
            return if valid_end < n { Err((ErrorKind::InvalidUtf8, valid_end)) } else { Ok(()) };
        }
        start = end;
    }
    Ok(())
}

/// The offset of the first chunk of [`CHUNK`] bytes (the tail padded with spaces)
/// that holds a byte above 0x7F or a control other than tab, LF and CR, or the
/// length of `text` when there is none: `text[..offset]` is ASCII made of `Char`s.
/// One OR-reduced flag per chunk, which LLVM vectorizes.
#[inline(always)]
fn ascii_prefix(s: &[u8]) -> usize {
    let flag = |w: &[u8; CHUNK]| {
        let mut m = 0u8;
        for &a in w {
            m |= (a & 0x80) | control(a) as u8;
        }
        m != 0
    };
    let n = s.len();
    let mut i = 0;
    while i + CHUNK <= n {
        let Ok(w) = <&[u8; CHUNK]>::try_from(&s[i..i + CHUNK]) else { break };
        if flag(w) {
            return i;
        }
        i += CHUNK;
    }
    if i < n {
        // the tail: the last whole chunk again when there is one (its first bytes
        // passed already), else the tail padded with spaces
        let flagged = match s.get(n.wrapping_sub(CHUNK)..).and_then(|w| <&[u8; CHUNK]>::try_from(w).ok()) {
            Some(w) => flag(w),
            None => {
                let mut pad = [b' '; CHUNK];
                pad[..n - i].copy_from_slice(&s[i..]);
                flag(&pad)
            }
        };
        if flagged {
            return i;
        }
    }
    n
}

/// `a` (followed by `b`, `c`) starts a disallowed character: a C0 control other
/// than tab, LF, CR, or U+FFFE / U+FFFF (EF BF BE / EF BF BF). Branch-free.
#[inline(always)]
fn disallowed(a: u8, b: u8, c: u8) -> bool {
    control(a) | ((a == 0xEF) & (b == 0xBF) & (c >= 0xBE))
}

/// A C0 control other than tab (9), LF (10), CR (13); `a | 4 == 13` is 9 or 13.
#[inline(always)]
fn control(a: u8) -> bool {
    (a < 0x20) & ((a | 4) != 13) & (a != b'\n')
}

/// The first disallowed character in `s` (complete, valid UTF-8): offset, code point.
///
/// Per chunk of [`CHUNK`] bytes, a cheap OR-reduced flag (a control byte or 0xEF)
/// that LLVM vectorizes; the exact test only for flagged chunks (0xEF also starts
/// U+F000..U+FFFD, e.g. the fullwidth forms of CJK text). The tail is flagged as a
/// chunk padded with spaces. On x86-64 with AVX2 (detected once at run time) the
/// same code runs compiled for 32-byte vectors, as part of [`check`]: about half
/// the instructions.
#[inline(always)]
pub(crate) fn find_disallowed_generic(s: &[u8]) -> Option<(usize, u32)> {
    let n = s.len();
    let mut i = 0;
    while i + CHUNK <= n {
        let Ok(w) = <&[u8; CHUNK]>::try_from(&s[i..i + CHUNK]) else { break };
        if flagged(w) {
            if let Some(hit) = exact(s, i, i + CHUNK) {
                return Some(hit);
            }
        }
        i += CHUNK;
    }
    if i < n {
        let mut pad = [b' '; CHUNK];
        pad[..n - i].copy_from_slice(&s[i..]);
        if flagged(&pad) {
            return exact(s, i, n);
        }
    }
    None
}

/// The chunk may hold a disallowed character: a C0 control other than tab, LF, CR, or 0xEF.
#[inline(always)]
fn flagged(w: &[u8; CHUNK]) -> bool {
    let mut maybe = 0u8;
    for &a in w {
        maybe |= (control(a) | (a == 0xEF)) as u8;
    }
    maybe != 0
}

/// The first disallowed character starting in `s[from..to]` (a look at the two bytes after `to`
/// for U+FFFE / U+FFFF): offset, code point.
#[cold]
fn exact(s: &[u8], from: usize, to: usize) -> Option<(usize, u32)> {
    let at = |p: usize| s.get(p).copied().unwrap_or(0);
    let p = (from..to).find(|&p| disallowed(s[p], at(p + 1), at(p + 2)))?;
    Some((p, if s[p] == 0xEF { 0xFFFE + u32::from(at(p + 2) - 0xBE) } else { u32::from(s[p]) }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(s: &str, le: bool, bom: bool) -> Vec<u8> {
        let units = bom.then_some(0xFEFF).into_iter().chain(s.encode_utf16());
        units.flat_map(|u| if le { u.to_le_bytes() } else { u.to_be_bytes() }).collect()
    }

    /// Decodes, returning the text and encoding.
    fn ok(input: &[u8]) -> (Vec<u8>, SourceEncoding) {
        let d = decode(input).unwrap_or_else(|e| panic!("{e}"));
        (d.text.into_owned(), d.encoding)
    }

    /// Decodes expecting an encoding error; returns its detail and offset.
    fn enc_err(input: &[u8]) -> (String, u64) {
        let e = decode(input).err().expect("expected an error");
        match e.kind() {
            ErrorKind::Encoding { detail } => (detail.clone(), e.offset()),
            other => panic!("expected an encoding error, got {other:?}"),
        }
    }

    fn err_at(text: &[u8]) -> (ErrorKind, u64) {
        let e = validate_utf8_chars(text).unwrap_err();
        (e.kind().clone(), e.offset())
    }

    #[test]
    fn common_declaration_reads_as_the_general_reader_does() {
        for d in [
            &b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><a/>"[..],
            b"<?xml version='1.0' encoding='utf-8'?><a/>",
            b"<?xml version='1.0' encoding=\"utf-8\"?><a/>",
            b"<?xml version=\"1.0' encoding=\"utf-8\"?><a/>",
            b"<?xml version=\"1.0\" encoding=\"UTF-8'?><a/>",
            b"<?xml version=\"1.0\" encoding=\"UTF-88\"?><a/>",
            b"<?xml version=\"1.1\" encoding=\"UTF-8\"?><a/>",
            b"<?xml version=\"1.0\"  encoding=\"UTF-8\"?><a/>",
            b"<?xml version=\"1.0\" encoding=\"UTF-8\"",
            b"<?xml version=\"1.0\" encoding=\"UTF-8",
        ] {
            let general = declared_label_range(|i| d.get(i).copied()).is_some_and(|(s, e)| d[s..e].eq_ignore_ascii_case(b"UTF-8"));
            let fast = common_utf8_declaration(d);
            assert!(!fast || general, "{}", String::from_utf8_lossy(d));
            // a declaration it does not take goes to the general reader
            assert!(fast || !d.starts_with(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
            assert!(fast || !d.starts_with(b"<?xml version='1.0' encoding='utf-8'?>"));
        }
    }

    #[test]
    fn utf8_documents() {
        let input = "<?xml version=\"1.0\"?><a>h\u{e9}\u{65e5}\u{1F600}</a>".as_bytes();
        let d = decode(input).unwrap();
        assert!(matches!(d.text, Cow::Borrowed(t) if t == input));
        assert_eq!((d.bom_len, d.encoding), (0, SourceEncoding::Utf8 { bom: false }));
        let utf8 = SourceEncoding::Utf8 { bom: false };
        assert_eq!(ok(b"<?xml version='1.0' encoding='utf-8'?>").1, utf8);
        let d = decode(b"\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"Utf-8\"?><a/>").unwrap();
        assert_eq!(&d.text[..], &b"<?xml version=\"1.0\" encoding=\"Utf-8\"?><a/>"[..]);
        assert_eq!((d.bom_len, d.encoding), (3, SourceEncoding::Utf8 { bom: true }));
        // offsets count the BOM, columns do not
        let e = decode(b"\xEF\xBB\xBF<a>\x01</a>").err().unwrap();
        assert_eq!(e.kind(), &ErrorKind::InvalidChar { code_point: 1 });
        assert_eq!((e.offset(), e.line(), e.column()), (6, 1, 4));
        for label in ["UTF-16", "iso-8859-1", "utf8"] {
            let input = format!("\u{FEFF}<?xml version='1.0' encoding='{label}'?><a/>");
            let (detail, offset) = enc_err(input.as_bytes());
            assert!(detail.contains("contradicts the UTF-8 byte-order mark"), "{detail}");
            assert_eq!(offset, 3 + 30);
        }
    }

    #[test]
    fn utf16_documents() {
        let doc = "<?xml version=\"1.0\"?>\n<a>\u{e9}\u{65e5}\u{1F600}</a>";
        let le_bom = SourceEncoding::Utf16Le { bom: true };
        assert_eq!(ok(&utf16(doc, true, true)), (doc.as_bytes().to_vec(), le_bom));
        let be_bom = SourceEncoding::Utf16Be { bom: true };
        assert_eq!(ok(&utf16(doc, false, true)), (doc.as_bytes().to_vec(), be_bom));
        assert_eq!(decode(&utf16(doc, false, true)).unwrap().bom_len, 2);
        for (label, le, bom) in [("utf-16", true, true), ("UTF-16BE", false, true), ("UTF-16LE", true, false), ("UTF-16", false, false)] {
            let doc = format!("<?xml version='1.0' encoding='{label}'?><a>\u{e9}</a>");
            assert_eq!(ok(&utf16(&doc, le, bom)).0, doc.as_bytes());
        }
        let doc = "<?xml version='1.0' encoding='UTF-16LE'?><a/>";
        assert_eq!(ok(&utf16(doc, true, false)).1, SourceEncoding::Utf16Le { bom: false });
        // mismatches with the byte-order mark
        let mismatches = [("UTF-8", true), ("UTF-8", false), ("UTF-16BE", true), ("latin1", false)];
        for (label, le) in mismatches {
            let doc = format!("<?xml version='1.0' encoding='{label}'?><a/>");
            let (detail, offset) = enc_err(&utf16(&doc, le, true));
            assert!(detail.contains("contradicts the UTF-16 byte-order mark"), "{detail}");
            assert_eq!(offset, 30);
        }
        assert!(enc_err(b"\xFE\xFF<?xml encoding='utf-8'?><x/>").0.contains("byte-order mark"));
        // without a BOM: no declaration, a non-UTF-16 one, or the wrong byte order
        for (doc, le) in [
            ("<?xml version='1.0'?><a/>", true),
            ("<?xml version='1.0' encoding='UTF-8'?><a/>", false),
            ("<?xml version='1.0' encoding='UTF-16BE'?><a/>", true),
        ] {
            enc_err(&utf16(doc, le, false));
        }
    }

    #[test]
    fn utf16_surrogates_and_odd_length() {
        let mut input = utf16("<a>", true, true);
        input.extend_from_slice(&[0x3D, 0xD8, 0x00, 0xDE]); // U+1F600
        input.extend_from_slice(&utf16("</a>", true, false));
        assert_eq!(ok(&input).0, "<a>\u{1F600}</a>".as_bytes());
        let with = |tail: &[u8]| [&utf16("<a>", false, true)[..], tail].concat();
        let (detail, offset) = enc_err(&with(&[0xD8, 0x3D, 0x00, 0x41])); // high surrogate, 'A'
        assert!(detail.contains("surrogate"), "{detail}");
        assert_eq!(offset, 8);
        assert_eq!(enc_err(&with(&[0xDC, 0x00])).1, 8); // lone low surrogate
        assert_eq!(enc_err(&with(&[0xD8, 0x00])).1, 8); // high surrogate at the end
        assert_eq!(enc_err(&with(&[0x00])).1, 8); // odd byte
    }

    #[test]
    fn unsupported_byte_patterns() {
        for input in [&b"\0\0\0<\0\0\0?"[..], b"<\0\0\0?\0\0\0", b"\x4C\x6F\xA7\x94\x89"] {
            assert!(enc_err(input).0.starts_with("unsupported encoding"));
        }
    }

    #[test]
    fn single_byte_encodings() {
        // real ISO-8859-1: 0x80-0x9F are U+0080-U+009F
        let decl = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>";
        let input = [decl.as_bytes(), b"<a>\x80\x9F\xA0\xE9\xFF</a>"].concat();
        let want = format!("{decl}<a>\u{80}\u{9F}\u{A0}\u{E9}\u{FF}</a>");
        let other = |label: &str| SourceEncoding::Other { label: label.into() };
        assert_eq!(ok(&input), (want.into_bytes(), other("ISO-8859-1")));
        let text = "<?xml version='1.0' encoding='latin1'?><a>\u{e9}</a>";
        assert_eq!(ok(b"<?xml version='1.0' encoding='latin1'?><a>\xE9</a>").0, text.as_bytes());
        // errors after transcoding are at offsets into the UTF-8 text
        let e = decode(&[decl.as_bytes(), b"<a>\xE9\x01</a>"].concat()).err().unwrap();
        assert_eq!(e.kind(), &ErrorKind::InvalidChar { code_point: 1 });
        assert_eq!(e.offset() as usize, decl.len() + 5);
        // windows-1252: 0x80 is the euro sign, 0x93 a left double quotation mark
        let (text, enc) = ok(b"<?xml version='1.0' encoding='windows-1252'?><a>\x80\x93\xE9</a>");
        let want = "<?xml version='1.0' encoding='windows-1252'?><a>\u{20AC}\u{201C}\u{e9}</a>";
        assert_eq!((text, enc), (want.into(), other("windows-1252")));
        // US-ASCII
        let input = b"<?xml version='1.0' encoding='US-ASCII'?><a>ok</a>";
        assert_eq!(ok(input), (input.to_vec(), other("US-ASCII")));
        let (detail, offset) = enc_err(b"<?xml version='1.0' encoding='ASCII'?>\n<a>\xE9</a>");
        assert!(detail.contains("0xE9"), "{detail}");
        assert_eq!(offset, 42);
    }

    #[test]
    fn shift_jis() {
        // 日本 (U+65E5 U+672C) is 93 FA 96 7B in Shift_JIS
        let decl = "<?xml version='1.0' encoding='Shift_JIS'?>";
        let (text, _) = ok(&[decl.as_bytes(), b"<a>\x93\xFA\x96\x7B</a>"].concat());
        assert_eq!(text, format!("{decl}<a>\u{65E5}\u{672C}</a>").as_bytes());
        // a lead byte followed by a byte that cannot trail it
        assert_eq!(enc_err(&[decl.as_bytes(), b"<a>\x93\xFA\x81\x20</a>"].concat()).1, 47);
    }

    #[test]
    fn labels() {
        let (detail, offset) = enc_err(b"<?xml version='1.0' encoding='x-no-such-thing'?><a/>");
        assert_eq!((detail.as_str(), offset), ("unsupported encoding `x-no-such-thing`", 30));
        let (detail, _) = enc_err(b"<?xml version='1.0' encoding='UTF-16'?><a/>");
        assert_eq!(detail, "document declares UTF-16 but has no byte-order mark and is not UTF-16");
        // malformed labels and declarations are left to the parser
        for input in [
            &b"<?xml version='1.0' encoding=' UTF-8'?>"[..],
            b"<?xml version='1.0' encoding='utf:8'?>",
            b"<?xml version='1.0' encoding='-x'?>",
            b"<?xml encoding='latin1'?>",
            b"<?xml version='1.0'encoding='ascii'?>",
        ] {
            assert_eq!(ok(input).1, SourceEncoding::Utf8 { bom: false });
        }
    }

    #[test]
    fn disallowed_characters() {
        use ErrorKind::InvalidChar;
        let e = validate_utf8_chars(b"<a>\n b\x01</a>").unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::InvalidChar { code_point: 1 });
        assert_eq!((e.offset(), e.line(), e.column()), (6, 2, 3));
        for b in (0u8..0x20).filter(|b| ![9, 10, 13].contains(b)) {
            assert_eq!(err_at(&[b'a', b, b'b']), (InvalidChar { code_point: b.into() }, 1));
        }
        assert_eq!(err_at(b"<a>\xEF\xBF\xBE</a>"), (InvalidChar { code_point: 0xFFFE }, 3));
        let e = validate_utf8_chars("\u{e9}\u{FFFF}".as_bytes()).unwrap_err();
        assert_eq!((e.kind(), e.offset(), e.column()), (&InvalidChar { code_point: 0xFFFF }, 2, 2));
        // tab, LF, CR, DEL, C1 controls and the other specials are Chars
        let fine = "\t\r\n\u{7F}\u{80}\u{9F}\u{FFFD}\u{FFEF}\u{FEFF}\u{E000}\u{10FFFF}";
        assert!(validate_utf8_chars(fine.as_bytes()).is_ok());
        assert!(validate_utf8_chars(b"").is_ok());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 4000, ..Default::default() })]
        /// The Char scan, and both compilations of the whole check (generic and, on
        /// this machine's CPU, the dispatched one, with its ASCII prefix), find what a
        /// character-by-character reading finds, at any length and position (whole
        /// chunks and the padded tail).
        #[test]
        fn char_scan_agrees_with_a_plain_reading(chars in proptest::collection::vec(proptest::sample::select(vec![
            'a', 'a', 'a', 'a', 'a', 'a', ' ', '\n', '\t', '\r', '<', '\u{0}', '\u{1}', '\u{B}', '\u{1F}', '\u{7F}', '\u{E9}', '\u{FF01}',
            '\u{FFFD}', '\u{FFFE}', '\u{FFFF}', '\u{EFFF}', '\u{1F600}',
        ]), 0..100), plain in proptest::prop_oneof![0usize..200, proptest::sample::select(vec![63usize, 64, 65, 127, 128, 129, 191, 192])]) {
            // mostly plain text, so whole chunks pass and the problem is anywhere
            let mut text = "x".repeat(plain);
            text.extend(chars.iter());
            let want = text.char_indices().find(|&(_, c)| !crate::chars::is_xml_char(c as u32)).map(|(i, c)| (i, c as u32));
            proptest::prop_assert_eq!(find_disallowed_generic(text.as_bytes()), want);
            let want = want.map(|(i, code_point)| (ErrorKind::InvalidChar { code_point }, i));
            proptest::prop_assert_eq!(check_generic(text.as_bytes()).err(), want.clone());
            proptest::prop_assert_eq!(check(text.as_bytes()).err(), want);
        }

        /// Latin-1 to UTF-8 is the byte's value as a code point (ISO-8859-1 is the
        /// first 256 code points of Unicode), whatever the mix of ASCII runs and high
        /// bytes, at every alignment.
        #[test]
        fn latin1_is_the_first_256_code_points(bytes in proptest::collection::vec(proptest::prop_oneof![
            6 => 0x20u8..0x80, 1 => 0x80u8..=0xFF, 1 => proptest::sample::select(vec![0x80u8, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF, 0x7F, b'\n'])
        ], 0..200)) {
            let want: String = bytes.iter().map(|&b| char::from(b)).collect();
            proptest::prop_assert_eq!(latin1_to_utf8(&bytes), want.into_bytes());
        }
    }

    #[test]
    fn invalid_utf8() {
        for (input, at) in [
            (&b"<a>ab\xC3(</a>"[..], 5),
            (b"ab\xC0\x80", 2),
            (b"\xED\xA0\x80", 0),
            (b"x\xF4\x90\x80\x80", 1),
            (b"xy\xE6\x97", 2),
            (b"\x80", 0),
        ] {
            assert_eq!(err_at(input), (ErrorKind::InvalidUtf8, at), "{input:?}");
        }
        // the first problem wins, whichever kind it is
        assert_eq!(err_at(b"a\x02b\xFF"), (ErrorKind::InvalidChar { code_point: 2 }, 1));
        assert_eq!(err_at(b"a\xFFb\x02"), (ErrorKind::InvalidUtf8, 1));
    }

    #[test]
    fn positions_across_chunks_and_blocks() {
        for len in [200, BLOCK * 2 + 100] {
            for base in [60, BLOCK - 70].into_iter().filter(|&b| b + 80 < len) {
                for pos in base..base + 10 {
                    for bad in [&b"\x0B"[..], b"\xEF\xBF\xBF", b"\xFE"] {
                        let mut v = vec![b'a'; len];
                        v[pos..pos + bad.len()].copy_from_slice(bad);
                        assert_eq!(err_at(&v).1 as usize, pos);
                    }
                }
            }
        }
        // multi-byte characters straddling chunk and block boundaries are fine
        for ch in ["\u{e9}", "\u{65e5}", "\u{1F600}", "\u{FFFD}"] {
            assert!(validate_utf8_chars(ch.repeat(BLOCK).as_bytes()).is_ok());
        }
    }
}
