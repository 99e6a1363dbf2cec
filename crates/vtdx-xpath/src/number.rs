//! Numbers as XPath 1.0 reads and writes them (§4.2 `string()`, §4.4 `number()`).

use std::fmt::Write;

/// The XPath string-value of a number (§4.2):
///
/// * NaN is `NaN`, the infinities are `Infinity` and `-Infinity`;
/// * both zeros are `0`;
/// * an integer is written without a decimal point, a negative number with `-`;
/// * otherwise the number is written in decimal without an exponent, with as
///   many fraction digits as are needed to tell it from every other IEEE 754
///   double (the shortest round-trip digits) and no leading zeros before the
///   point except the one required.
///
/// ```
/// use vtdx_xpath::number::to_string;
/// assert_eq!(to_string(1.0), "1");
/// assert_eq!(to_string(-0.0), "0");
/// assert_eq!(to_string(0.1 + 0.2), "0.30000000000000004");
/// assert_eq!(to_string(1e21), "1000000000000000000000");
/// assert_eq!(to_string(1e-7), "0.0000001");
/// assert_eq!(to_string(f64::NEG_INFINITY), "-Infinity");
/// ```
pub fn to_string(v: f64) -> String {
    let mut s = String::new();
    write_number(&mut s, v);
    s
}

/// Appends the XPath string-value of `v` to `out` (see [`to_string`]).
pub fn write_number(out: &mut String, v: f64) {
    if v.is_nan() {
        out.push_str("NaN");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "Infinity" } else { "-Infinity" });
    } else if v == 0.0 {
        out.push('0');
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        // Exact integers print through i64 (fast, and the same digits).
        let _ = write!(out, "{}", v as i64);
    } else {
        // Rust's `Display` for f64 writes the shortest digits that round-trip,
        // in positional notation (never an exponent), without a trailing `.0`.
        let _ = write!(out, "{v}");
    }
}

/// The number a string denotes (§4.4 `number()`): optional whitespace, an
/// optional minus sign, a `Number` (`Digits ('.' Digits?)? | '.' Digits`),
/// optional whitespace; anything else (an exponent, a plus sign, `Infinity`,
/// the empty string) is NaN.
///
/// ```
/// use vtdx_xpath::number::parse;
/// assert_eq!(parse(" -12.5 "), -12.5);
/// assert_eq!(parse(".5"), 0.5);
/// assert_eq!(parse("5."), 5.0);
/// assert!(parse("1e3").is_nan());
/// assert!(parse("+1").is_nan());
/// assert!(parse("").is_nan());
/// ```
pub fn parse(s: &str) -> f64 {
    parse_bytes(s.as_bytes())
}

/// [`parse`] on bytes (the number grammar is ASCII; anything else is NaN).
pub fn parse_bytes(b: &[u8]) -> f64 {
    if let Some(v) = parse_bare(b) {
        return v;
    }
    let ws = |c: u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let mut i = 0;
    while i < b.len() && ws(b[i]) {
        i += 1;
    }
    let mut e = b.len();
    while e > i && ws(b[e - 1]) {
        e -= 1;
    }
    let t = &b[i..e];
    let (neg, body) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        _ => (false, t),
    };
    // One pass: validate `Digits ('.' Digits?)? | '.' Digits` and gather the
    // digits as an integer mantissa (exact while at most 18 digits).
    let mut m: u64 = 0;
    let mut digits = 0usize;
    let mut dot: Option<usize> = None;
    for (k, &c) in body.iter().enumerate() {
        let d = c.wrapping_sub(b'0');
        if d < 10 {
            if digits < 18 {
                m = m * 10 + u64::from(d);
            }
            digits += 1;
        } else if c == b'.' && dot.is_none() {
            dot = Some(k);
        } else {
            return f64::NAN;
        }
    }
    // every byte after the point is a digit
    let frac = dot.map(|k| body.len() - k - 1);
    if digits == 0 {
        return f64::NAN;
    }
    let v = match frac {
        // Integers (quantities, counts): exact below 2^53 digits-wise.
        None | Some(0) if digits <= 15 => m as f64,
        // Short decimals (prices): a mantissa below 2^53 divided by a power of
        // ten up to 1e15 is one correctly rounded IEEE division of exact
        // operands, so it equals the correctly rounded decimal value.
        Some(f) if digits <= 15 => {
            const POW10: [f64; 16] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
            m as f64 / POW10[f]
        }
        // Long numbers: Rust's correctly rounded parser (the grammar is a
        // subset of what it accepts; the bytes are ASCII).
        _ => return std::str::from_utf8(t).ok().and_then(|x| x.parse::<f64>().ok()).unwrap_or(f64::NAN),
    };
    if neg {
        -v
    } else {
        v
    }
}

/// [`parse_bytes`] of the usual lexical forms — `-`? digits, with at most one
/// `.`, 15 digits or fewer, no white space — by the same arithmetic as the
/// general way, in one tight loop; `None` for anything else.
///
/// PERF: predicates such as `item[USPrice<100]` parse one short number per
/// node; this takes about half the instructions of the general loop, which
/// trims white space and counts digits beyond 18 first.
#[inline]
pub(crate) fn parse_bare(b: &[u8]) -> Option<f64> {
    let (neg, body) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    if body.len() > 16 {
        return None;
    }
    let mut m: u64 = 0;
    let mut dot = usize::MAX;
    for (k, &c) in body.iter().enumerate() {
        let d = c.wrapping_sub(b'0');
        if d < 10 {
            m = m * 10 + u64::from(d);
        } else if c == b'.' && dot == usize::MAX {
            dot = k;
        } else {
            return None;
        }
    }
    let (digits, frac) = if dot == usize::MAX { (body.len(), 0) } else { (body.len() - 1, body.len() - dot - 1) };
    if digits == 0 || digits > 15 {
        return None;
    }
    const POW10: [f64; 16] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
    let v = m as f64 / POW10[frac];
    Some(if neg { -v } else { v })
}

/// XPath `round()` (§4.4): the closest integer, ties towards positive infinity;
/// NaN, the infinities and both zeros are returned unchanged; a negative
/// number rounding to zero gives negative zero (`round(-0.5)` is `-0`).
pub fn round(v: f64) -> f64 {
    if !v.is_finite() || v == 0.0 {
        return v;
    }
    let f = v.floor();
    let r = if v - f >= 0.5 { f + 1.0 } else { f };
    if r == 0.0 && v < 0.0 {
        -0.0
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatting() {
        for (v, s) in [
            (0.5, "0.5"),
            (-0.5, "-0.5"),
            (123456789.0, "123456789"),
            (-2.0, "-2"),
            (1.0 / 3.0, "0.3333333333333333"),
            (12345678901234567890.0, "12345678901234567000"),
            (1e-10, "0.0000000001"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
        ] {
            assert_eq!(to_string(v), s, "{v:?}");
        }
        assert_eq!(to_string(5e-324), format!("0.{}5", "0".repeat(323)));
    }

    #[test]
    fn parsing() {
        assert_eq!(parse("12"), 12.0);
        assert_eq!(parse("-0"), 0.0);
        assert!(parse("-0").is_sign_negative());
        assert_eq!(parse("\n 3.25\t"), 3.25);
        assert_eq!(parse("123456789012345678901234567890"), 1.2345678901234568e29);
        // The short-decimal fast path agrees with the correctly rounded parser.
        for t in [
            "0.1",
            "202.89",
            "67.83",
            "-3.5",
            ".5",
            "5.",
            "0.30000000000000004",
            "123456.789012345",
            "9007199254740.993",
            "1.7976931348623157",
        ] {
            assert_eq!(parse(t), t.parse::<f64>().unwrap(), "{t}");
        }
        for bad in ["", " ", "-", ".", "1.2.3", "--1", "1 2", "0x10", "inf", "NaN", "Infinity", "1,5", "٣"] {
            assert!(parse(bad).is_nan(), "{bad:?}");
        }
    }

    /// Generated lexical forms (`-`? digits with at most one `.`, 1-20
    /// characters, leading and trailing zeros and points included) give what
    /// Rust's correctly rounded parser gives, bit for bit, on both the bare
    /// and the general way.
    #[test]
    fn parsing_agrees_with_the_correctly_rounded_parser() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200_000 {
            let r = next();
            let len = 1 + (r % 20) as usize;
            let mut t = String::new();
            if r & (1 << 40) != 0 {
                t.push('-');
            }
            let dot = if r & (1 << 41) != 0 { Some((r >> 8) as usize % (len + 1)) } else { None };
            for k in 0..len {
                if dot == Some(k) {
                    t.push('.');
                }
                let d = next() % 10;
                // many zeros, to reach trailing-zero and leading-zero forms
                t.push(char::from(b'0' + if next() % 3 == 0 { 0 } else { d as u8 }));
            }
            if dot == Some(len) {
                t.push('.');
            }
            let want = t.parse::<f64>().unwrap();
            let got = parse(&t);
            assert_eq!(got.to_bits(), want.to_bits(), "{t}");
            let padded = format!(" {t}\n");
            assert_eq!(parse(&padded).to_bits(), want.to_bits(), "{padded:?}");
        }
    }

    #[test]
    fn rounding() {
        assert_eq!(round(2.5), 3.0);
        assert_eq!(round(-2.5), -2.0);
        assert!(round(-0.5).is_sign_negative() && round(-0.5) == 0.0);
        assert!(round(-0.2).is_sign_negative());
        assert_eq!(round(0.49999999999999994), 0.0);
        assert!(round(f64::NAN).is_nan());
        assert_eq!(round(1e300), 1e300);
    }
}
