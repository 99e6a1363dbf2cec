//! The wire: constants of the format (`docs/binary-format.md`), LEB128 varints and a
//! bounds-checked reader. Every integer on the wire is a LEB128 varint or a
//! fixed-width little-endian field, so the format does not depend on the host.

use crate::{Error, ErrorKind};

/// The first 8 bytes of every packed file: a byte that is not ASCII (so no text
/// tool takes it for text and no XML document starts with it), the label
/// `VTXB`, then CR LF, SUB and LF, which show a file damaged by a line-end
/// conversion.
pub const MAGIC: [u8; 8] = [0x89, b'V', b'T', b'X', b'B', b'\r', b'\n', 0x1A];
/// The version this crate writes and reads.
pub const VERSION: u8 = 1;
/// Header flag: stream mode (tables kept from one document to the next).
pub const FLAG_STREAM: u8 = 1;

/// Frame tags.
pub(crate) const FRAME_DOC: u8 = b'D';
pub(crate) const FRAME_RESET: u8 = b'R';
pub(crate) const FRAME_END: u8 = b'Z';

/// How the input bytes are made from the UTF-8 text (document header byte 0).
pub(crate) const TR_UTF8: u8 = 0;
pub(crate) const TR_UTF8_BOM: u8 = 1;
pub(crate) const TR_UTF16LE: u8 = 2;
pub(crate) const TR_UTF16LE_BOM: u8 = 3;
pub(crate) const TR_UTF16BE: u8 = 4;
pub(crate) const TR_UTF16BE_BOM: u8 = 5;
pub(crate) const TR_LATIN1: u8 = 6;
pub(crate) const TR_VERBATIM: u8 = 7;

/// Token opcodes.
pub(crate) const OP_START: u8 = 0x00;
pub(crate) const OP_ATTR: u8 = 0x40;
pub(crate) const OP_TEXT: u8 = 0x80;
/// Inline argument range of the three ranged opcodes; `INLINE_MAX` means a
/// varint follows and the argument is `INLINE_MAX + varint`.
pub(crate) const INLINE_MAX: u8 = 0x3F;
pub(crate) const OP_END: u8 = 0xC0;
pub(crate) const OP_EMPTY: u8 = 0xC1;
pub(crate) const OP_ATTR_Q: u8 = 0xC2;
pub(crate) const OP_ATTR_X: u8 = 0xC3;
pub(crate) const OP_TAG_WS: u8 = 0xC4;
pub(crate) const OP_END_X: u8 = 0xC5;
pub(crate) const OP_TEXT_REF: u8 = 0xC6;
pub(crate) const OP_COMMENT: u8 = 0xC7;
pub(crate) const OP_PI: u8 = 0xC8;
pub(crate) const OP_CDATA: u8 = 0xC9;
pub(crate) const OP_XMLDECL: u8 = 0xCA;
pub(crate) const OP_DOCTYPE: u8 = 0xCB;
pub(crate) const OP_EOD: u8 = 0xCC;
pub(crate) const OP_TEXT_NEW: u8 = 0xCD;
/// A leaf element `<name>text</name>`: `OP_LEAF + h` for symbol handles below
/// `LEAF_INLINE`, then `OP_LEAF_X` with a varint (handle `LEAF_INLINE + h`);
/// the text follows as a value.
pub(crate) const OP_LEAF: u8 = 0xE0;
pub(crate) const LEAF_INLINE: u8 = 0x1F;
pub(crate) const OP_LEAF_X: u8 = 0xFF;

/// Longest string entered in the value table.
pub(crate) const VALUE_MAX_LEN: usize = 64;
/// Most entries the value table takes (then it stops growing until a reset).
pub(crate) const VALUE_MAX_ENTRIES: usize = 1 << 16;

/// Appends `v` as a LEB128 varint.
#[inline(always)]
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends a string: its length as a varint, then its bytes.
#[inline(always)]
pub(crate) fn put_str(out: &mut Vec<u8>, s: &[u8]) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s);
}

/// A ranged opcode with its argument.
#[inline(always)]
pub(crate) fn put_ranged(out: &mut Vec<u8>, op: u8, arg: usize) {
    if arg < INLINE_MAX as usize {
        out.push(op | arg as u8);
    } else {
        out.push(op | INLINE_MAX);
        put_varint(out, (arg - INLINE_MAX as usize) as u64);
    }
}

/// A bounds-checked reader over a byte slice; `base` is the slice's offset in the
/// packed input (for error positions).
pub(crate) struct Reader<'a> {
    pub data: &'a [u8],
    pub pos: usize,
    pub base: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], base: usize) -> Self {
        Reader { data, pos: 0, base }
    }

    #[cold]
    pub fn error(&self, kind: ErrorKind) -> Error {
        Error { kind, offset: (self.base + self.pos) as u64 }
    }

    #[cold]
    pub fn truncated(&self, what: &'static str) -> Error {
        self.error(ErrorKind::Truncated { expected: what })
    }

    #[cold]
    pub fn malformed(&self, detail: impl Into<String>) -> Error {
        self.error(ErrorKind::Malformed { detail: detail.into() })
    }

    #[inline(always)]
    pub fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }

    #[inline(always)]
    pub fn byte(&mut self, what: &'static str) -> Result<u8, Error> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.truncated(what)),
        }
    }

    #[inline(always)]
    pub fn varint(&mut self, what: &'static str) -> Result<u64, Error> {
        let mut v = 0u64;
        let mut shift = 0u32;
        loop {
            let b = self.byte(what)?;
            if shift == 63 && b > 1 {
                return Err(self.malformed(format!("{what}: varint overflows 64 bits")));
            }
            v |= u64::from(b & 0x7F) << shift;
            if b < 0x80 {
                return Ok(v);
            }
            shift += 7;
            if shift > 63 {
                return Err(self.malformed(format!("{what}: varint longer than 10 bytes")));
            }
        }
    }

    /// A varint that must fit a `usize` no larger than `max`.
    #[inline(always)]
    pub fn count(&mut self, what: &'static str, max: usize) -> Result<usize, Error> {
        let v = self.varint(what)?;
        if v > max as u64 {
            return Err(self.malformed(format!("{what}: {v} is more than the {max} allowed here")));
        }
        Ok(v as usize)
    }

    #[inline(always)]
    pub fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], Error> {
        match self.data.get(self.pos..self.pos.saturating_add(n)) {
            Some(s) if self.pos.checked_add(n).is_some() => {
                self.pos += n;
                Ok(s)
            }
            _ => Err(self.truncated(what)),
        }
    }

    /// A length-prefixed string.
    #[inline(always)]
    pub fn str(&mut self, what: &'static str) -> Result<&'a [u8], Error> {
        let n = self.count(what, self.data.len() - self.pos.min(self.data.len()))?;
        self.bytes(n, what)
    }

    /// The argument of a ranged opcode whose low six bits are `low`.
    #[inline(always)]
    pub fn ranged(&mut self, low: u8, what: &'static str) -> Result<usize, Error> {
        if low < INLINE_MAX {
            Ok(low as usize)
        } else {
            let v = self.varint(what)?;
            usize::try_from(v)
                .ok()
                .and_then(|v| v.checked_add(INLINE_MAX as usize))
                .ok_or_else(|| self.malformed(format!("{what}: too large")))
        }
    }
}

/// The checksum of a frame: XXH3-64 of its bytes (tag, length and payload), seeded
/// with the header's version and flags (`version << 8 | flags`), so that a damaged
/// header fails every frame's check.
#[inline]
pub(crate) fn checksum(bytes: &[u8], flags: u8) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(bytes, (u64::from(VERSION) << 8) | u64::from(flags))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_overflow_is_refused() {
        for v in [0u64, 1, 127, 128, 300, 16383, 16384, u32::MAX as u64, u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            let mut r = Reader::new(&out, 0);
            assert_eq!(r.varint("v").unwrap(), v);
            assert!(r.at_end());
        }
        let mut r = Reader::new(&[0xFF; 11], 0);
        assert!(r.varint("v").is_err());
        let mut r = Reader::new(&[0x80, 0x80], 0);
        assert!(matches!(r.varint("v").unwrap_err().kind(), ErrorKind::Truncated { .. }));
        // 2^64 does not fit
        let mut r = Reader::new(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02], 0);
        assert!(r.varint("v").is_err());
    }

    #[test]
    fn ranged_arguments() {
        for v in [0usize, 1, 62, 63, 64, 1000] {
            let mut out = Vec::new();
            put_ranged(&mut out, OP_TEXT, v);
            let mut r = Reader::new(&out, 0);
            let b = r.byte("op").unwrap();
            assert_eq!(b & 0xC0, OP_TEXT);
            assert_eq!(r.ranged(b & 0x3F, "arg").unwrap(), v);
        }
    }
}
