//! The escaping rules of Canonical XML (C14N 1.0 §2.3): exactly these
//! replacements, nothing else.

/// Text nodes (and CDATA content): `&` `<` `>` and CR.
#[inline]
pub(crate) fn text_into(out: &mut Vec<u8>, s: &[u8]) {
    escape_into(out, s, 8);
}

/// Attribute values (and namespace URIs): `&` `<` `"` TAB LF CR.
#[inline]
pub(crate) fn attr_into(out: &mut Vec<u8>, s: &[u8]) {
    escape_into(out, s, 16);
}

/// Copies `s` to `out`, each byte of class `escaped` (8: text, 16: attribute
/// value) replaced by its reference; a byte has the same reference in both.
#[inline(always)]
fn escape_into(out: &mut Vec<u8>, s: &[u8], escaped: u8) {
    let mut last = 0;
    for (i, &b) in s.iter().enumerate() {
        if CLASS[b as usize] & escaped == 0 {
            continue;
        }
        let rep: &[u8] = match b {
            b'&' => b"&amp;",
            b'<' => b"&lt;",
            b'>' => b"&gt;",
            b'"' => b"&quot;",
            b'\t' => b"&#x9;",
            b'\n' => b"&#xA;",
            b'\r' => b"&#xD;",
            _ => continue,
        };
        out.extend_from_slice(&s[last..i]);
        out.extend_from_slice(rep);
        last = i + 1;
    }
    out.extend_from_slice(&s[last..]);
}

/// Byte classes: bit 1 = changes in text (`&` `>` CR); bit 2 = changes when
/// an attribute value is read (`&` TAB LF CR); bit 4 = escaped in a canonical
/// attribute value though unchanged by reading (`"`, and `<`, which cannot
/// occur raw); bit 8 = escaped in text (`&` `<` `>` CR); bit 16 = escaped in
/// an attribute value (`&` `<` `"` TAB LF CR).
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'&' as usize] = 1 | 2 | 8 | 16;
    t[b'>' as usize] = 1 | 8;
    t[b'\r' as usize] = 1 | 2 | 8 | 16;
    t[b'\t' as usize] = 2 | 16;
    t[b'\n' as usize] = 2 | 16;
    t[b'"' as usize] = 4 | 16;
    t[b'<' as usize] = 4 | 8 | 16;
    t
};

/// Nonzero when some byte of `v` equals `b` (the classic SWAR zero-byte test).
#[inline(always)]
fn has_byte(v: u64, b: u8) -> u64 {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let x = v ^ (LO * b as u64);
    x.wrapping_sub(LO) & !x & HI
}

/// True when raw character data is its canonical form: no reference, no `>`,
/// no CR (`<` cannot occur raw). Short runs (most text between tags) are
/// checked eight bytes at a time; long ones with a vectorized search.
#[inline]
pub(crate) fn text_raw_is_canonical(raw: &[u8]) -> bool {
    #[inline(always)]
    fn clean(v: u64) -> bool {
        has_byte(v, b'&') | has_byte(v, b'>') | has_byte(v, b'\r') == 0
    }
    let n = raw.len();
    if n > 64 {
        return memchr::memchr3(b'&', b'>', b'\r', raw).is_none();
    }
    #[inline(always)]
    fn word(raw: &[u8], i: usize) -> u64 {
        u64::from_le_bytes(raw[i..i + 8].try_into().unwrap_or([0; 8]))
    }
    if n >= 8 {
        // whole words, then one last word overlapping the one before
        let mut i = 0;
        while i + 8 <= n {
            if !clean(word(raw, i)) {
                return false;
            }
            i += 8;
        }
        return i == n || clean(word(raw, n - 8));
    }
    if n >= 4 {
        // two overlapping halves
        let half = |i: usize| u64::from(u32::from_le_bytes(raw[i..i + 4].try_into().unwrap_or([0; 4])));
        return clean(half(0) | half(n - 4) << 32);
    }
    let mut acc = 0u8;
    for &b in raw {
        acc |= CLASS[b as usize];
    }
    acc & 1 == 0
}

/// Finds the closing `quote` of an attribute value starting at `t[vs]`; returns
/// its offset, whether the value reads as written (no reference, no white
/// space to normalize), and whether it is canonical as written. Eight bytes at
/// a time while eight remain.
#[inline]
pub(crate) fn scan_attr_value(t: &[u8], vs: usize, quote: u8) -> (usize, bool, bool) {
    let mut i = vs;
    // bytes that change when the value is read (`&` TAB LF CR), and bytes escaped in
    // canonical form though unchanged by reading (`"`, `<`)
    let (mut read, mut esc) = (0u64, 0u64);
    while i + 8 <= t.len() {
        let v = u64::from_le_bytes(t[i..i + 8].try_into().unwrap_or([0; 8]));
        let a = has_byte(v, b'&') | has_byte(v, b'\t') | has_byte(v, b'\n') | has_byte(v, b'\r');
        let c = has_byte(v, b'"') | has_byte(v, b'<');
        let q = has_byte(v, quote);
        if q != 0 {
            // the first quote byte is exact (the zero-byte test can only report false
            // matches above a true one), and so is any match below it
            let k = q.trailing_zeros() as usize / 8;
            let below = (1u64 << (k * 8)).wrapping_sub(1);
            read |= a & below;
            esc |= c & below;
            return (i + k, read == 0, read | esc == 0 && quote == b'"');
        }
        read |= a;
        esc |= c;
        i += 8;
    }
    let mut acc = 0u8;
    while i < t.len() {
        let b = t[i];
        if b == quote {
            return (i, acc & 2 == 0 && read == 0, acc & 6 == 0 && read | esc == 0 && quote == b'"');
        }
        acc |= CLASS[b as usize];
        i += 1;
    }
    (t.len(), false, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_checks() {
        assert!(text_raw_is_canonical(b"plain text \t\n with \" and '"));
        for bad in [&b"a&b"[..], b"a>b", b"a\rb"] {
            assert!(!text_raw_is_canonical(bad));
            let long: Vec<u8> = std::iter::repeat_n(b'x', 40).chain(bad.iter().copied()).collect();
            assert!(!text_raw_is_canonical(&long));
        }
        let t = b"\"a>b'c\" 'x\"y' \"a&b\" \"t\tu\"";
        assert_eq!(scan_attr_value(t, 1, b'"'), (6, true, true));
        assert_eq!(scan_attr_value(t, 9, b'\''), (12, true, false));
        assert_eq!(scan_attr_value(t, 15, b'"'), (18, false, false));
        assert_eq!(scan_attr_value(t, 21, b'"'), (24, false, false));
    }

    /// The definition, a byte at a time: the closing quote, whether no byte before it
    /// changes when read (`&` TAB LF CR), whether none is escaped in canonical form.
    fn scan_bytewise(t: &[u8], vs: usize, quote: u8) -> (usize, bool, bool) {
        match t[vs..].iter().position(|&b| b == quote) {
            None => (t.len(), false, false),
            Some(k) => {
                let v = &t[vs..vs + k];
                let read = v.iter().any(|b| b"&\t\n\r".contains(b));
                let esc = v.iter().any(|b| b"\"<".contains(b));
                (vs + k, !read, !read && !esc && quote == b'"')
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// The word-at-a-time scan gives the bytewise answer for values of any length and
        /// content (the special bytes and high bytes close together, quotes anywhere).
        #[test]
        fn scan_attr_value_is_bytewise(
            t in proptest::collection::vec(proptest::sample::select(b"ab&\t\n\r\"'<>\x00\x80\xff".to_vec()), 0..40),
            vs in 0usize..40,
            dq in proptest::bool::ANY,
        ) {
            let vs = vs.min(t.len());
            let quote = if dq { b'"' } else { b'\'' };
            proptest::prop_assert_eq!(scan_attr_value(&t, vs, quote), scan_bytewise(&t, vs, quote));
        }
    }

    #[test]
    fn exact_replacements() {
        let mut v = Vec::new();
        text_into(&mut v, b"a&b<c>d\re\"f'g\th\ni");
        assert_eq!(v, b"a&amp;b&lt;c&gt;d&#xD;e\"f'g\th\ni");
        v.clear();
        attr_into(&mut v, b"a&b<c>d\re\"f'g\th\ni");
        assert_eq!(v, b"a&amp;b&lt;c>d&#xD;e&quot;f'g&#x9;h&#xA;i");
    }
}
