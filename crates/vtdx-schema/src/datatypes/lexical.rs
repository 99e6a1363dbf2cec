//! Lexical spaces of the built-in types: byte-level checks that build a light value
//! (borrowing the text where the value is the text) without allocating on the common
//! types.

use super::binary;
use super::datetime::year_overflows;
use super::{
    Builtin, DatatypeError, DatatypeErrorKind, DateTime, DateTimeKind, Decimal, Duration, NsResolver, Primitive, Value, XML_NAMESPACE,
};
use std::cmp::Ordering;
use std::sync::Arc;

/// A checked atomic value, borrowing from the text where it can.
#[derive(Debug)]
pub(crate) enum Atom<'a> {
    /// string family, anySimpleType, anyURI: the value is the (normalized) text
    Str(&'a str),
    Bool(bool),
    Dec(Decimal),
    Float(f32),
    Double(f64),
    Dur(Duration),
    Dt(DateTime),
    /// the text and its octet count
    Hex(&'a str, usize),
    B64(&'a str, usize),
    QName(Option<&'a str>, &'a str),
}

impl Atom<'_> {
    /// The length the length facets measure (§4.3.1: characters, or octets for binary
    /// types); `None` for types the length facets do not apply to.
    pub(crate) fn length(&self) -> Option<u64> {
        match self {
            Atom::Str(s) => Some(s.chars().count() as u64),
            Atom::Hex(_, n) | Atom::B64(_, n) => Some(*n as u64),
            Atom::QName(..) => None,
            _ => None,
        }
    }

    pub(crate) fn into_value(self, prim: Primitive) -> Value {
        match self {
            Atom::Str(s) => {
                if prim == Primitive::AnyUri {
                    Value::AnyUri(Arc::from(s))
                } else {
                    Value::String(Arc::from(s))
                }
            }
            Atom::Bool(b) => Value::Boolean(b),
            Atom::Dec(d) => Value::Decimal(d),
            Atom::Float(f) => Value::Float(f),
            Atom::Double(f) => Value::Double(f),
            Atom::Dur(d) => Value::Duration(d),
            Atom::Dt(d) => Value::DateTime(d),
            Atom::Hex(s, _) => Value::HexBinary(Arc::from(binary::hex_decode(s).unwrap_or_default())),
            Atom::B64(s, _) => Value::Base64Binary(Arc::from(binary::base64_decode(s).unwrap_or_default())),
            Atom::QName(ns, l) => {
                let ns = ns.map(Arc::from);
                if prim == Primitive::Notation {
                    Value::Notation(ns, Arc::from(l))
                } else {
                    Value::QName(ns, Arc::from(l))
                }
            }
        }
    }

    /// Value equality with `v` without building a value where possible.
    pub(crate) fn eq_value(&self, v: &Value) -> bool {
        match (self, v) {
            (Atom::Str(s), Value::String(t) | Value::AnyUri(t)) => *s == &**t,
            (Atom::Bool(a), Value::Boolean(b)) => a == b,
            (Atom::Dec(a), Value::Decimal(b)) => a == b,
            (Atom::Float(a), Value::Float(_)) => &Value::Float(*a) == v,
            (Atom::Double(a), Value::Double(_)) => &Value::Double(*a) == v,
            (Atom::Dur(a), Value::Duration(b)) => a == b,
            (Atom::Dt(a), Value::DateTime(b)) => a == b,
            (Atom::Hex(s, _), Value::HexBinary(b)) => binary::hex_decode(s).is_some_and(|d| *d == **b),
            (Atom::B64(s, _), Value::Base64Binary(b)) => binary::base64_decode(s).is_some_and(|d| *d == **b),
            (Atom::QName(n, l), Value::QName(n2, l2) | Value::Notation(n2, l2)) => *n == n2.as_deref() && *l == &**l2,
            _ => false,
        }
    }

    /// The XSD order against a bound value.
    pub(crate) fn cmp_value(&self, v: &Value) -> Option<Ordering> {
        match (self, v) {
            (Atom::Dec(a), Value::Decimal(b)) => Some(a.cmp(b)),
            (Atom::Float(a), Value::Float(_)) => Value::Float(*a).partial_cmp_xsd(v),
            (Atom::Double(a), Value::Double(_)) => Value::Double(*a).partial_cmp_xsd(v),
            (Atom::Dur(a), Value::Duration(b)) => a.partial_cmp_xsd(b),
            (Atom::Dt(a), Value::DateTime(b)) => a.partial_cmp_xsd(b),
            _ => None,
        }
    }
}

fn lexical_error(s: &str, b: Builtin) -> DatatypeError {
    DatatypeError::new(DatatypeErrorKind::Lexical, format!("{s:?} is not a valid value of type {}", b.local_name()))
}

/// Checks `s` (already white-space normalized) against the lexical space of the
/// built-in atomic type `b`, including the lexical restrictions of the derived built-ins
/// (the patterns of `language`, `Name`, `NCName`, `NMTOKEN`, `integer`). Value ranges of
/// the integer types are facets of their definitions and are checked by the caller.
pub(crate) fn parse<'a>(b: Builtin, s: &'a str, resolver: &'a dyn NsResolver) -> Result<Atom<'a>, DatatypeError> {
    use Builtin as B;
    let bad = || lexical_error(s, b);
    let ok = match b {
        B::AnySimpleType | B::String | B::NormalizedString | B::Token => Atom::Str(s),
        B::Language => {
            if !is_language(s) {
                return Err(bad());
            }
            Atom::Str(s)
        }
        B::NmToken => {
            if s.is_empty() || !s.chars().all(vtdx_core::is_name_char) {
                return Err(bad());
            }
            Atom::Str(s)
        }
        B::Name => {
            if !vtdx_core::is_name(s.as_bytes()) {
                return Err(bad());
            }
            Atom::Str(s)
        }
        B::NCName | B::Id | B::IdRef | B::Entity => {
            if !is_ncname(s) {
                return Err(bad());
            }
            Atom::Str(s)
        }
        B::AnyUri => {
            if !is_any_uri(s) {
                return Err(bad());
            }
            Atom::Str(s)
        }
        B::Boolean => match s {
            "true" | "1" => Atom::Bool(true),
            "false" | "0" => Atom::Bool(false),
            _ => return Err(bad()),
        },
        B::Decimal => Atom::Dec(Decimal::parse(s).ok_or_else(bad)?),
        B::Integer
        | B::NonPositiveInteger
        | B::NegativeInteger
        | B::Long
        | B::Int
        | B::Short
        | B::Byte
        | B::NonNegativeInteger
        | B::UnsignedLong
        | B::UnsignedInt
        | B::UnsignedShort
        | B::UnsignedByte
        | B::PositiveInteger => {
            // integer's pattern [\-+]?[0-9]+ (§3.3.13): no decimal point
            let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
            if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
                return Err(bad());
            }
            Atom::Dec(Decimal::parse(s).ok_or_else(bad)?)
        }
        B::Float => Atom::Float(parse_f32(s).ok_or_else(bad)?),
        B::Double => Atom::Double(parse_float(s).ok_or_else(bad)?),
        B::Duration => Atom::Dur(Duration::parse(s).ok_or_else(bad)?),
        B::DateTime | B::Time | B::Date | B::GYearMonth | B::GYear | B::GMonthDay | B::GDay | B::GMonth => {
            let kind = match b {
                B::DateTime => DateTimeKind::DateTime,
                B::Time => DateTimeKind::Time,
                B::Date => DateTimeKind::Date,
                B::GYearMonth => DateTimeKind::GYearMonth,
                B::GYear => DateTimeKind::GYear,
                B::GMonthDay => DateTimeKind::GMonthDay,
                B::GDay => DateTimeKind::GDay,
                _ => DateTimeKind::GMonth,
            };
            match DateTime::parse(kind, s) {
                Some(v) => Atom::Dt(v),
                None if year_overflows(s) => {
                    return Err(DatatypeError::new(
                        DatatypeErrorKind::Limit,
                        format!("year of {s:?} is beyond the supported range (64-bit years)"),
                    ))
                }
                None => return Err(bad()),
            }
        }
        B::HexBinary => Atom::Hex(s, binary::hex_len(s).ok_or_else(bad)?),
        B::Base64Binary => Atom::B64(s, binary::base64_len(s).ok_or_else(bad)?),
        B::QName | B::Notation => {
            let (prefix, local) = match s.split_once(':') {
                Some((p, l)) => (p, l),
                None => ("", s),
            };
            if !is_ncname(local) || (!prefix.is_empty() && !is_ncname(prefix)) || (s.contains(':') && prefix.is_empty()) {
                return Err(bad());
            }
            let ns = if prefix == "xml" {
                Some(XML_NAMESPACE)
            } else {
                match resolver.resolve(prefix) {
                    Some("") => None,
                    Some(u) => Some(u),
                    None if prefix.is_empty() => None,
                    None => {
                        return Err(DatatypeError::new(
                            DatatypeErrorKind::UndeclaredPrefix,
                            format!("{s:?} is not a valid value of type {}: prefix {prefix:?} is not declared", b.local_name()),
                        ))
                    }
                }
            };
            Atom::QName(ns, local)
        }
        B::NmTokens | B::IdRefs | B::Entities => return Err(bad()),
    };
    Ok(ok)
}

/// `NCName`: a Name without colons.
pub(crate) fn is_ncname(s: &str) -> bool {
    !s.contains(':') && vtdx_core::is_name(s.as_bytes())
}

/// `language`: `[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*` (§3.3.3).
fn is_language(s: &str) -> bool {
    let mut first = true;
    for part in s.split('-') {
        let ok_len = (1..=8).contains(&part.len());
        let ok_chars = if first { part.bytes().all(|c| c.is_ascii_alphabetic()) } else { part.bytes().all(|c| c.is_ascii_alphanumeric()) };
        if !ok_len || !ok_chars {
            return false;
        }
        first = false;
    }
    true
}

/// `anyURI` (§3.2.17): XSD 1.0 accepts any string that, after the XLink escaping of
/// disallowed characters, is a URI reference (RFC 2396 as amended by RFC 2732). The
/// escaping makes most strings acceptable; what stays invalid is checked here: a `%` not
/// followed by two hex digits, more than one `#`, a scheme that is empty or not of the
/// scheme syntax, and a non-numeric port in an authority.
fn is_any_uri(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if i + 2 >= b.len() {
                return false;
            }
            if !(b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit()) {
                return false;
            }
            i += 3;
            continue;
        }
        i += 1;
    }
    if b.iter().filter(|&&c| c == b'#').count() > 1 {
        return false;
    }
    // a colon before any of / ? # ends a scheme
    let end = b.iter().position(|&c| matches!(c, b'/' | b'?' | b'#')).unwrap_or(b.len());
    if let Some(colon) = b[..end].iter().position(|&c| c == b':') {
        let scheme = &b[..colon];
        if scheme.is_empty()
            || !scheme[0].is_ascii_alphabetic()
            || !scheme.iter().all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
        {
            return false;
        }
        let rest = &b[colon + 1..];
        if let Some(auth) = rest.strip_prefix(b"//") {
            let aend = auth.iter().position(|&c| matches!(c, b'/' | b'?' | b'#')).unwrap_or(auth.len());
            let auth = &auth[..aend];
            let host = match auth.iter().rposition(|&c| c == b'@') {
                Some(p) => &auth[p + 1..],
                None => auth,
            };
            let after_v6 = match host.iter().rposition(|&c| c == b']') {
                Some(p) => &host[p + 1..],
                None => host,
            };
            if let Some(p) = after_v6.iter().rposition(|&c| c == b':') {
                if !after_v6[p + 1..].iter().all(u8::is_ascii_digit) {
                    return false;
                }
            }
        }
    }
    true
}

/// The lexical space of float and double (§3.2.4.1, §3.2.5.1): a decimal mantissa with an
/// optional exponent `[eE][+-]?[0-9]+`, or `INF`, `-INF`, `NaN` (XSD 1.0 has no `+INF`).
/// Out-of-range magnitudes round to infinity or zero.
pub(crate) fn parse_float(s: &str) -> Option<f64> {
    match s {
        "INF" => return Some(f64::INFINITY),
        "-INF" => return Some(f64::NEG_INFINITY),
        "NaN" => return Some(f64::NAN),
        _ => {}
    }
    let b = s.as_bytes();
    let (mant, exp) = match b.iter().position(|&c| c == b'e' || c == b'E') {
        Some(p) => (&b[..p], Some(&b[p + 1..])),
        None => (b, None),
    };
    super::decimal::split(mant)?;
    if let Some(e) = exp {
        let d = e.strip_prefix(b"+").or_else(|| e.strip_prefix(b"-")).unwrap_or(e);
        if d.is_empty() || !d.iter().all(u8::is_ascii_digit) {
            return None;
        }
    }
    // the grammar is checked; Rust's parser rounds correctly
    s.parse::<f64>().ok()
}

/// `parse_float` for `float`: parsed at single precision directly (no double rounding).
pub(crate) fn parse_f32(s: &str) -> Option<f32> {
    parse_float(s)?;
    match s {
        "INF" => Some(f32::INFINITY),
        "-INF" => Some(f32::NEG_INFINITY),
        "NaN" => Some(f32::NAN),
        _ => s.parse::<f32>().ok(),
    }
}
