//! `hexBinary` (§3.2.15) and `base64Binary` (§3.2.16).

fn hex_val(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// The octet count of a `hexBinary` lexical form, if it is one (pairs of hex digits).
pub(crate) fn hex_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.len() % 2 != 0 || !b.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    Some(b.len() / 2)
}

/// Decodes a `hexBinary` lexical form.
pub(crate) fn hex_decode(s: &str) -> Option<Vec<u8>> {
    hex_len(s)?;
    s.as_bytes().chunks(2).map(|p| Some(hex_val(p[0])? << 4 | hex_val(p[1])?)).collect()
}

fn b64_val(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Checks the §3.2.16 grammar on collapsed text and returns the octet count.
///
/// `Base64Binary ::= ((B64S B64S B64S B64S)* ((B64S B64S B64S B64) | (B64S B64S B16S '=')
/// | (B64S B04S '=' #x20? '=')))?`: a single space may follow any character but the last;
/// one `=` only after a character of B16 (`[AEIMQUYcgkosw048]`), two only after one of
/// B04 (`[AQgw]`).
pub(crate) fn base64_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut n = 0usize; // significant characters
    let mut pads = 0usize;
    let mut last_data = 0u8;
    let mut prev_space = true; // forbids a leading space
    for &c in b {
        if c == b' ' {
            if prev_space {
                return None;
            }
            prev_space = true;
            continue;
        }
        prev_space = false;
        if c == b'=' {
            pads += 1;
            if pads > 2 {
                return None;
            }
        } else {
            if pads > 0 {
                return None;
            }
            b64_val(c)?;
            last_data = c;
        }
        n += 1;
    }
    if prev_space && !b.is_empty() {
        return None; // trailing space
    }
    if n % 4 != 0 {
        return None;
    }
    match pads {
        1 if !b"AEIMQUYcgkosw048".contains(&last_data) => return None,
        2 if !b"AQgw".contains(&last_data) => return None,
        _ => {}
    }
    Some(n / 4 * 3 - pads)
}

/// Decodes a `base64Binary` lexical form (checked with [`base64_len`]).
pub(crate) fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let len = base64_len(s)?;
    let mut out = Vec::with_capacity(len + 2);
    let mut acc: u32 = 0;
    let mut k = 0;
    for &c in s.as_bytes() {
        if c == b' ' || c == b'=' {
            continue;
        }
        acc = acc << 6 | u32::from(b64_val(c)?);
        k += 1;
        if k == 4 {
            out.extend_from_slice(&[(acc >> 16) as u8, (acc >> 8) as u8, acc as u8]);
            acc = 0;
            k = 0;
        }
    }
    match k {
        2 => out.push((acc >> 4) as u8),
        3 => out.extend_from_slice(&[(acc >> 10) as u8, (acc >> 2) as u8]),
        _ => {}
    }
    out.truncate(len);
    Some(out)
}

/// The canonical base64 form (no spaces) of `bytes`.
pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for ch in bytes.chunks(3) {
        let v = u32::from(ch[0]) << 16 | u32::from(*ch.get(1).unwrap_or(&0)) << 8 | u32::from(*ch.get(2).unwrap_or(&0));
        out.push(T[(v >> 18) as usize & 63] as char);
        out.push(T[(v >> 12) as usize & 63] as char);
        out.push(if ch.len() > 1 { T[(v >> 6) as usize & 63] as char } else { '=' });
        out.push(if ch.len() > 2 { T[v as usize & 63] as char } else { '=' });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex() {
        assert_eq!(hex_decode("0FB7").unwrap(), vec![0x0F, 0xB7]);
        assert_eq!(hex_decode("").unwrap(), Vec::<u8>::new());
        for bad in ["0", "0G", "0x0F", " 0F"] {
            assert!(hex_decode(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn base64_grammar() {
        assert_eq!(base64_decode("").unwrap(), b"");
        assert_eq!(base64_decode("Zm9v").unwrap(), b"foo");
        assert_eq!(base64_decode("Zm8=").unwrap(), b"fo");
        assert_eq!(base64_decode("Zg==").unwrap(), b"f");
        assert_eq!(base64_decode("Zg= =").unwrap(), b"f");
        assert_eq!(base64_decode("Z m 9 v").unwrap(), b"foo");
        assert_eq!(base64_len("Zm9vYmFy"), Some(6));
        for bad in ["Zm9", "Zm9v=", "Zh==", "Zm9=", "Z===", "Zg=", " Zm9v", "Zm9v ", "Zm  9v", "Zm9v====", "Zg==Zm9v", "Zm9*"] {
            assert!(base64_len(bad).is_none(), "{bad}");
        }
        assert_eq!(base64_encode(b"fo"), "Zm8=");
        assert_eq!(base64_encode(b"foob"), "Zm9vYg==");
    }
}
