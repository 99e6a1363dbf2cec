//! Character classes of XML 1.0 (Fifth Edition): names, whitespace, `Char`.
//!
//! ASCII bytes are classified with a 256-entry table; non-ASCII code points
//! with the range lists of productions [4] and [4a]. The input has already been
//! validated as UTF-8 and checked against `Char` (see `input.rs`), so decoding
//! here never fails on validated input.

/// Byte class bits.
pub(crate) const NAME_START: u8 = 1;
pub(crate) const NAME_CHAR: u8 = 2;
pub(crate) const WS: u8 = 4;
/// Bytes that end a run of plain attribute-value bytes: `<`, `&`, quotes, whitespace, and non-ASCII is fine.
pub(crate) const ATTR_SPECIAL: u8 = 8;

const fn build_table() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        let mut v = 0;
        if b.is_ascii_alphabetic() || b == b'_' || b == b':' {
            v |= NAME_START | NAME_CHAR;
        }
        if b.is_ascii_digit() || b == b'-' || b == b'.' {
            v |= NAME_CHAR;
        }
        if b >= 0x80 {
            // non-ASCII: decided by decoding; mark as "maybe" via NAME_CHAR|NAME_START
            // bits being absent, handled by the slow path.
        }
        if b == b' ' || b == b'\t' || b == b'\n' || b == b'\r' {
            v |= WS;
        }
        if b == b'<' || b == b'&' || b == b'"' || b == b'\'' || b == b'\t' || b == b'\n' || b == b'\r' {
            v |= ATTR_SPECIAL;
        }
        t[i] = v;
        i += 1;
    }
    t
}

/// The byte class table.
pub(crate) static CLASS: [u8; 256] = build_table();

/// The high bit of every byte of `x` (eight bytes, little-endian) that is below
/// `n` (at most 0x80), and perhaps of bytes from 0x80 up: a quick test that a word
/// needs a closer look, never missing a byte below `n`.
#[inline(always)]
pub(crate) const fn bytes_below(x: u64, n: u8) -> u64 {
    const LOW: u64 = 0x0101_0101_0101_0101;
    x.wrapping_sub(LOW * n as u64) & !x & (LOW * 0x80)
}

#[inline(always)]
pub(crate) fn is_ws(b: u8) -> bool {
    CLASS[b as usize] & WS != 0
}

/// Production \[4\] NameStartChar.
pub fn is_name_start_char(c: char) -> bool {
    let c = c as u32;
    if c < 0x80 {
        return CLASS[c as usize] & NAME_START != 0;
    }
    matches!(c,
        0xC0..=0xD6 | 0xD8..=0xF6 | 0xF8..=0x2FF | 0x370..=0x37D | 0x37F..=0x1FFF
        | 0x200C..=0x200D | 0x2070..=0x218F | 0x2C00..=0x2FEF | 0x3001..=0xD7FF
        | 0xF900..=0xFDCF | 0xFDF0..=0xFFFD | 0x10000..=0xEFFFF)
}

/// Production \[4a\] NameChar.
pub fn is_name_char(c: char) -> bool {
    let u = c as u32;
    if u < 0x80 {
        return CLASS[u as usize] & NAME_CHAR != 0;
    }
    is_name_start_char(c) || u == 0xB7 || (0x300..=0x36F).contains(&u) || (0x203F..=0x2040).contains(&u)
}

/// Production \[2\] Char.
pub fn is_xml_char(c: u32) -> bool {
    matches!(c, 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF)
}

/// Decodes the UTF-8 scalar at `pos` of already-validated text. Returns the char
/// and its length in bytes. `pos` must be at a character boundary and in range.
#[inline]
pub(crate) fn decode_at(text: &[u8], pos: usize) -> (char, usize) {
    let b0 = text[pos];
    if b0 < 0x80 {
        return (b0 as char, 1);
    }
    let n = crate::error::utf8_len(b0);
    let end = (pos + n).min(text.len());
    match std::str::from_utf8(&text[pos..end]).ok().and_then(|s| s.chars().next()) {
        Some(c) => (c, n),
        None => ('\u{FFFD}', 1),
    }
}

/// Scans a `Name` starting at `pos`. Returns the end offset, or `None` when the
/// character at `pos` cannot start a name. Stops at the first non-name character.
#[inline]
pub(crate) fn scan_name(text: &[u8], pos: usize) -> Option<usize> {
    let b = *text.get(pos)?;
    if b < 0x80 && CLASS[b as usize] & NAME_START == 0 {
        return None;
    }
    // ASCII fast path: the table has no NAME_CHAR bit for bytes >= 0x80, so this
    // loop stops at the first ASCII non-name byte or at the first non-ASCII byte.
    let mut i = pos + if b < 0x80 { 1 } else { 0 };
    while let Some(&c) = text.get(i) {
        if CLASS[c as usize] & NAME_CHAR == 0 {
            break;
        }
        i += 1;
    }
    if text.get(i).is_none_or(|&c| c < 0x80) {
        return Some(i);
    }
    scan_name_slow(text, pos, i)
}

/// The general path of [`scan_name`], from `i` (a non-ASCII byte inside or at the
/// start of a name that begins at `pos`).
#[cold]
fn scan_name_slow(text: &[u8], pos: usize, mut i: usize) -> Option<usize> {
    if i == pos {
        let (c, n) = decode_at(text, i);
        if !is_name_start_char(c) {
            return None;
        }
        i += n;
    }
    loop {
        match text.get(i) {
            Some(&b) if b < 0x80 => {
                if CLASS[b as usize] & NAME_CHAR == 0 {
                    return Some(i);
                }
                i += 1;
            }
            Some(_) => {
                let (c, n) = decode_at(text, i);
                if !is_name_char(c) {
                    return Some(i);
                }
                i += n;
            }
            None => return Some(i),
        }
    }
}

/// Scans an `Nmtoken` (one or more NameChar) starting at `pos`.
pub(crate) fn scan_nmtoken(text: &[u8], pos: usize) -> Option<usize> {
    let mut i = pos;
    while i < text.len() {
        let (c, n) = decode_at(text, i);
        if !is_name_char(c) {
            break;
        }
        i += n;
    }
    if i == pos {
        None
    } else {
        Some(i)
    }
}

/// True when all of `s` matches the Name production.
pub fn is_name(s: &[u8]) -> bool {
    !s.is_empty() && scan_name(s, 0) == Some(s.len())
}

/// Skips XML whitespace (S) from `pos`; returns the first non-whitespace offset.
/// Up to four bytes are the usual case and are taken here; a longer run (the
/// indentation before an attribute on a line of its own) goes 16 bytes at a time.
#[inline(always)]
pub(crate) fn skip_ws(text: &[u8], mut pos: usize) -> usize {
    for _ in 0..4 {
        match text.get(pos) {
            Some(&b) if is_ws(b) => pos += 1,
            _ => return pos,
        }
    }
    skip_ws_run(text, pos)
}

#[inline(never)]
fn skip_ws_run(text: &[u8], mut pos: usize) -> usize {
    while let Some(w) = text.get(pos..pos + 16).and_then(|w| <&[u8; 16]>::try_from(w).ok()) {
        let m = ws_mask16(w);
        if m != 0xFFFF {
            return pos + (!m).trailing_zeros() as usize;
        }
        pos += 16;
    }
    while pos < text.len() && is_ws(text[pos]) {
        pos += 1;
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn skip_ws_on_runs_of_every_length() {
        for n in 0..70 {
            for stop in [b'a', b'<', 0x0b, 0x0c, 0x85, 0] {
                for ws in [&b" "[..], b"\t", b"\n", b"\r", b" \r\n\t"] {
                    let mut t: Vec<u8> = b"x".to_vec();
                    t.extend(ws.iter().copied().cycle().take(n));
                    let end = t.len();
                    t.push(stop);
                    t.extend_from_slice(b"  ");
                    assert_eq!(skip_ws(&t, 1), end, "{n} of {ws:?} then {stop:#x}");
                    assert_eq!(skip_ws(&t[..end], 1), end, "{n} of {ws:?} at the end");
                }
            }
        }
    }

    proptest! {
        /// `find_seq` finds what the `memchr` crate's substring search finds, on
        /// haystacks dense in near misses (`-`, `]`, `?` without their partners).
        #[test]
        fn find_seq_is_a_substring_search(hay in proptest::collection::vec(prop::sample::select(&b"-]?>a"[..]), 0..200), from in 0usize..20) {
            let from = from.min(hay.len());
            for pat in [&b"--"[..], b"?>", b"]]>"] {
                let want = memchr::memmem::find(&hay[from..], pat).map(|i| from + i);
                prop_assert_eq!(find_seq(&hay, from, pat), want, "{:?} in {:?}", pat, String::from_utf8_lossy(&hay));
            }
        }

        /// `skip_ws` stops where production [3] S stops (space, tab, LF, CR), on
        /// runs of every length around the 16-byte blocks and near look-alikes
        /// (form feed, vertical tab, NEL, NUL).
        #[test]
        fn skip_ws_stops_where_s_stops(hay in proptest::collection::vec(prop::sample::select(&b"    \t\n\r\x0b\x0c\x85\x00a"[..]), 0..80), from in 0usize..40) {
            let from = from.min(hay.len());
            let want = hay[from..].iter().position(|&b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')).map_or(hay.len(), |i| from + i);
            prop_assert_eq!(skip_ws(&hay, from), want);
        }
    }

    #[test]
    fn names() {
        assert!(is_name(b"abc"));
        assert!(is_name(b"_a-b.c:d"));
        assert!(is_name("élan".as_bytes()));
        assert!(!is_name(b"1abc"));
        assert!(!is_name(b"-abc"));
        assert!(!is_name(b""));
        assert!(!is_name("a\u{D7}".as_bytes())); // × is not a name char
        assert!(is_name("a\u{B7}".as_bytes()));
        assert!(!is_name("\u{B7}a".as_bytes()));
        assert_eq!(scan_name(b"ab cd", 0), Some(2));
        assert_eq!(scan_nmtoken(b"12a b", 0), Some(3));
    }

    #[test]
    fn chars() {
        assert!(is_xml_char(0x9));
        assert!(!is_xml_char(0x0));
        assert!(!is_xml_char(0xFFFE));
        assert!(!is_xml_char(0xD800));
        assert!(is_xml_char(0x10FFFF));
    }
}

/// The offset of the first byte of `t[from..]` equal to `a`, `b` or `c`. The first
/// 64 bytes are looked at 16 at a time (most runs of text and attribute values end
/// there, and a `memchr3` call costs more than the looks); then `memchr3`.
#[inline(always)]
pub(crate) fn find3(t: &[u8], from: usize, a: u8, b: u8, c: u8) -> Option<usize> {
    let mut p = from;
    for _ in 0..4 {
        let Some(w) = t.get(p..p + 16).and_then(|w| <&[u8; 16]>::try_from(w).ok()) else { break };
        let m = mask16(w, a, b, c);
        if m != 0 {
            return Some(p + m.trailing_zeros() as usize);
        }
        p += 16;
    }
    memchr::memchr3(a, b, c, t.get(p..)?).map(|i| p + i)
}

/// The offset of the first occurrence of `pat` (a terminator such as `--`, `?>` or
/// `]]>`) in `t[from..]`. Looks for `pat[0]` with [`find3`] and checks the rest: on
/// the short bodies of comments, PIs and CDATA sections this costs a fraction of a
/// `memmem` search (which builds a searcher per call), and it stays linear however
/// many lone `pat[0]` bytes come first.
#[inline]
pub(crate) fn find_seq(t: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    let first = *pat.first()?;
    let mut p = from;
    loop {
        let i = find3(t, p, first, first, first)?;
        if t[i..].starts_with(pat) {
            return Some(i);
        }
        p = i + 1;
    }
}

/// A mask of the bytes of `s` equal to `a`, `b` or `c` (bit i for byte i).
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn mask16(s: &[u8; 16], a: u8, b: u8, c: u8) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86_64 baseline, so the target feature the
        // function enables is always present; it reads only its arguments.
        unsafe { mask16_sse2(s, a, b, c) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = 0u32;
        for (i, &x) in s.iter().enumerate() {
            m |= u32::from(x == a || x == b || x == c) << i;
        }
        m
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn mask16_sse2(s: &[u8; 16], a: u8, b: u8, c: u8) -> u32 {
    use std::arch::x86_64::*;
    let lo = i64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]);
    let hi = i64::from_le_bytes([s[8], s[9], s[10], s[11], s[12], s[13], s[14], s[15]]);
    let v = _mm_set_epi64x(hi, lo);
    let m = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(a as i8)), _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8))),
        _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8)),
    );
    _mm_movemask_epi8(m) as u32
}

/// A mask of the white space bytes (S: space, tab, LF, CR) of `s` (bit i for byte i).
#[inline(always)]
#[allow(unsafe_code)]
fn ws_mask16(s: &[u8; 16]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86_64 baseline, so the target feature the
        // function enables is always present; it reads only its argument.
        unsafe { ws_mask16_sse2(s) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = 0u32;
        for (i, &x) in s.iter().enumerate() {
            m |= u32::from(is_ws(x)) << i;
        }
        m
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn ws_mask16_sse2(s: &[u8; 16]) -> u32 {
    use std::arch::x86_64::*;
    let lo = i64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]);
    let hi = i64::from_le_bytes([s[8], s[9], s[10], s[11], s[12], s[13], s[14], s[15]]);
    let v = _mm_set_epi64x(hi, lo);
    let eq = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
    let m = _mm_or_si128(_mm_or_si128(eq(b' '), eq(b'\n')), _mm_or_si128(eq(b'\t'), eq(b'\r')));
    _mm_movemask_epi8(m) as u32
}

/// `input::check_generic` (the UTF-8 and `Char` check) compiled for AVX2 (32-byte
/// vectors).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(crate) fn check_avx2(s: &[u8]) -> Result<(), (crate::error::ErrorKind, usize)> {
    #[target_feature(enable = "avx2")]
    fn inner(s: &[u8]) -> Result<(), (crate::error::ErrorKind, usize)> {
        crate::input::check_generic(s)
    }
    debug_assert!(std::arch::is_x86_feature_detected!("avx2"));
    // SAFETY: the only caller (`input::check`) has checked at run time that the CPU
    // supports AVX2, the one requirement of a `target_feature` function; the function
    // itself is safe code.
    unsafe { inner(s) }
}
