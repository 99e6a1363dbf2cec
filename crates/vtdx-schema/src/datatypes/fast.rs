//! Accept-only short paths for the common simple-type checks, on the text as
//! written.
//!
//! A [`Fast`] plan is worked out once per simple type (on first use). It reads the
//! bytes of a value exactly as they stand in the document (the caller guarantees
//! they are the value: no reference, no CR, no attribute-value normalization
//! pending) and says `true` only when the value is certainly valid — when
//! [`SimpleType::check`] would return `Ok`. Anything else (an invalid value, an
//! unusual one, a facet the plan does not cover) gives `false`, and the caller runs
//! the general check, which gives the verdict and the error message. So a short path
//! can make validation faster but never change what it says.
//!
//! Covered: the string family without facets or with length and simple patterns
//! (sequences of ASCII character classes with counts, matched greedily), NMTOKEN,
//! Name and NCName without facets (ASCII names), the integer types with integer
//! range facets, decimal, boolean and date without facets, and unions of those.

use super::simple::SimpleType;
use super::simple::Variety;
use super::{Builtin, Value, WhiteSpace};

/// How a type's values are checked on the short path. (An explicit tag: with the
/// layout's niches the dispatch in [`Fast::accepts`] decoded the kind from a bound's
/// bits on every call.)
#[derive(Debug)]
#[repr(u8)]
pub(crate) enum Fast {
    /// No short path: the general check decides.
    None,
    /// Every value is valid (the string family without facets).
    Any,
    /// The string family with length facets and patterns only: the value must be its
    /// own normalized form, within `len` characters, and match a pattern of every
    /// group.
    Str { ws: WhiteSpace, len: (u64, u64), patterns: Vec<Vec<Pattern>> },
    /// NMTOKEN, Name or NCName without facets, ASCII only.
    Name(NameKind),
    /// The integer types: ASCII digits within inclusive bounds.
    Int { lo: Option<i128>, hi: Option<i128> },
    /// decimal without facets.
    Decimal,
    /// boolean without facets.
    Boolean,
    /// date without facets, written `YYYY-MM-DD` with an optional `Z`.
    Date,
    /// A union without facets of its own: valid when a member is.
    Union(Vec<Fast>),
}

/// The name types of [`Fast::Name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameKind {
    NmToken,
    Name,
    NcName,
}

/// The plan for `t`.
pub(crate) fn plan(t: &SimpleType) -> Fast {
    let i = &*t.0;
    let f = &i.facets;
    match i.variety {
        Variety::List => Fast::None,
        Variety::Union => {
            if !f.patterns.is_empty() || f.enumeration.is_some() {
                return Fast::None;
            }
            let ms: Vec<Fast> = i.members.iter().map(plan).collect();
            if ms.iter().all(|m| matches!(m, Fast::None)) {
                Fast::None
            } else {
                Fast::Union(ms)
            }
        }
        Variety::Atomic => {
            if f.enumeration.is_some() {
                return Fast::None;
            }
            let lengths = f.length.is_some() || f.min_length.is_some() || f.max_length.is_some();
            let ranges = f.min_inclusive.is_some() || f.min_exclusive.is_some() || f.max_inclusive.is_some() || f.max_exclusive.is_some();
            use Builtin as B;
            match i.lex {
                B::AnySimpleType | B::String | B::NormalizedString | B::Token => {
                    if ranges || f.total_digits.is_some() {
                        return Fast::None;
                    }
                    if !lengths && f.patterns.is_empty() {
                        return Fast::Any;
                    }
                    let mut groups = Vec::with_capacity(f.patterns.len());
                    for g in &f.patterns {
                        let ps: Vec<Pattern> = g.iter().filter_map(|re| Pattern::compile(re.as_str())).collect();
                        if ps.is_empty() {
                            return Fast::None;
                        }
                        groups.push(ps);
                    }
                    let len = match f.length {
                        Some(n) => (n, n),
                        None => (f.min_length.unwrap_or(0), f.max_length.unwrap_or(u64::MAX)),
                    };
                    Fast::Str { ws: i.whitespace, len, patterns: groups }
                }
                B::NmToken | B::Name | B::NCName if !lengths && !ranges && f.patterns.is_empty() => Fast::Name(match i.lex {
                    B::NmToken => NameKind::NmToken,
                    B::Name => NameKind::Name,
                    _ => NameKind::NcName,
                }),
                b if b.is_integer() => {
                    if lengths || !f.patterns.is_empty() || f.total_digits.is_some() {
                        return Fast::None;
                    }
                    let bound = |v: &Option<Value>, adjust: i128| -> Result<Option<i128>, ()> {
                        match v {
                            None => Ok(None),
                            Some(Value::Decimal(d)) => d.as_i128().and_then(|x| x.checked_add(adjust)).map(Some).ok_or(()),
                            Some(_) => Err(()),
                        }
                    };
                    let (Ok(lo_i), Ok(lo_e), Ok(hi_i), Ok(hi_e)) =
                        (bound(&f.min_inclusive, 0), bound(&f.min_exclusive, 1), bound(&f.max_inclusive, 0), bound(&f.max_exclusive, -1))
                    else {
                        return Fast::None;
                    };
                    let lo = match (lo_i, lo_e) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        (a, b) => a.or(b),
                    };
                    let hi = match (hi_i, hi_e) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                    Fast::Int { lo, hi }
                }
                B::Decimal if !lengths && !ranges && f.patterns.is_empty() && f.total_digits.is_none() && f.fraction_digits.is_none() => {
                    Fast::Decimal
                }
                B::Boolean if !lengths && !ranges && f.patterns.is_empty() => Fast::Boolean,
                B::Date if !lengths && !ranges && f.patterns.is_empty() => Fast::Date,
                _ => Fast::None,
            }
        }
    }
}

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

#[inline]
fn trim(mut b: &[u8]) -> &[u8] {
    while let [x, rest @ ..] = b {
        if !is_ws(*x) {
            break;
        }
        b = rest;
    }
    while let [rest @ .., x] = b {
        if !is_ws(*x) {
            break;
        }
        b = rest;
    }
    b
}

#[inline]
fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b':'
}

#[inline]
fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b'-' | b'.')
}

impl Fast {
    /// Is every text a value (so that it need not even be looked at)?
    #[inline]
    pub(crate) fn accepts_anything(&self) -> bool {
        matches!(self, Fast::Any)
    }

    /// May [`Fast::accepts`] be given text that still holds references and CRs? True
    /// for plans that accept no `&` (no name, digit or date character is one) and
    /// trim white space, so that a CR (white space once decoded too) changes nothing.
    #[inline]
    pub(crate) fn raw_safe(&self) -> bool {
        match self {
            Fast::Name(_) | Fast::Int { .. } | Fast::Decimal | Fast::Boolean | Fast::Date => true,
            Fast::Union(ms) => ms.iter().all(Fast::raw_safe),
            Fast::None | Fast::Any | Fast::Str { .. } => false,
        }
    }

    /// Is `raw` (a value as written, with no reference or CR in it) certainly valid?
    /// `false` means "not known": run the general check. (A small dispatch, each kind's
    /// check out of line: one big function saved and restored a dozen registers on every
    /// call, more than some of the checks themselves cost.)
    #[inline]
    pub(crate) fn accepts(&self, raw: &[u8]) -> bool {
        match self {
            Fast::None => false,
            Fast::Any => true,
            Fast::Str { ws, len, patterns } => accepts_str(*ws, *len, patterns, raw),
            Fast::Name(k) => accepts_name(*k, raw),
            Fast::Int { lo, hi } => accepts_int(*lo, *hi, raw),
            Fast::Decimal => accepts_decimal(raw),
            Fast::Boolean => matches!(trim(raw), b"true" | b"false" | b"1" | b"0"),
            Fast::Date => is_plain_date(trim(raw)),
            Fast::Union(ms) => accepts_union(ms, raw),
        }
    }
}

#[inline(never)]
fn accepts_union(ms: &[Fast], raw: &[u8]) -> bool {
    ms.iter().any(|m| m.accepts(raw))
}

/// The decimal lexical form `[+-]?(d+(\.d*)?|\.d+)` in one pass (what
/// [`super::decimal::split`] accepts).
#[inline(never)]
fn accepts_decimal(raw: &[u8]) -> bool {
    let s = trim(raw);
    let s = match s {
        [b'-' | b'+', rest @ ..] => rest,
        _ => s,
    };
    let (mut digits, mut dot) = (0usize, false);
    for &b in s {
        if b.is_ascii_digit() {
            digits += 1;
        } else if b == b'.' && !dot {
            dot = true;
        } else {
            return false;
        }
    }
    digits > 0
}

#[inline(never)]
fn accepts_str(ws: WhiteSpace, len: (u64, u64), patterns: &[Vec<Pattern>], raw: &[u8]) -> bool {
    // the value must be its own normalized form
    match ws {
        WhiteSpace::Preserve => {}
        WhiteSpace::Replace => {
            if raw.iter().any(|&b| matches!(b, b'\t' | b'\n' | b'\r')) {
                return false;
            }
        }
        WhiteSpace::Collapse => {
            if raw.first() == Some(&b' ')
                || raw.last() == Some(&b' ')
                || raw.iter().any(|&b| matches!(b, b'\t' | b'\n' | b'\r'))
                || raw.windows(2).any(|w| w == b"  ")
            {
                return false;
            }
        }
    }
    if len != (0, u64::MAX) {
        let n = raw.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64;
        if n < len.0 || n > len.1 {
            return false;
        }
    }
    patterns.iter().all(|g| g.iter().any(|p| p.matches(raw)))
}

#[inline(never)]
fn accepts_name(k: NameKind, raw: &[u8]) -> bool {
    let s = trim(raw);
    let Some((&first, rest)) = s.split_first() else { return false };
    match k {
        NameKind::NmToken => is_name_char(first) && rest.iter().all(|&b| is_name_char(b)),
        NameKind::Name => is_name_start(first) && rest.iter().all(|&b| is_name_char(b)),
        NameKind::NcName => is_name_start(first) && first != b':' && rest.iter().all(|&b| is_name_char(b) && b != b':'),
    }
}

#[inline(never)]
fn accepts_int(lo: Option<i128>, hi: Option<i128>, raw: &[u8]) -> bool {
    let s = trim(raw);
    let (neg, digits) = match s {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, s),
    };
    if digits.is_empty() || digits.len() > 36 {
        return false;
    }
    // eighteen digits fit a u64; longer ones are summed in an i128
    let v = if digits.len() <= 18 {
        let mut v: u64 = 0;
        for &b in digits {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                return false;
            }
            v = v * 10 + u64::from(d);
        }
        i128::from(v)
    } else {
        let mut v: i128 = 0;
        for &b in digits {
            if !b.is_ascii_digit() {
                return false;
            }
            v = v * 10 + i128::from(b - b'0');
        }
        v
    };
    let v = if neg { -v } else { v };
    lo.is_none_or(|l| v >= l) && hi.is_none_or(|h| v <= h)
}

/// `YYYY-MM-DD` or `YYYY-MM-DDZ`, year 0001 to 9999, a day that the month has.
fn is_plain_date(s: &[u8]) -> bool {
    let s = match s {
        [d @ .., b'Z'] => d,
        d => d,
    };
    let [y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1] = *s else { return false };
    let digits = [y0, y1, y2, y3, m0, m1, d0, d1];
    if !digits.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let n = |a: u8, b: u8| u32::from(a - b'0') * 10 + u32::from(b - b'0');
    let year = n(y0, y1) * 100 + n(y2, y3);
    let (month, day) = (n(m0, m1), n(d0, d1));
    if year == 0 || !(1..=12).contains(&month) || day == 0 {
        return false;
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    day <= days
}

/// A pattern facet in the simple form `atom{min,max} atom{min,max} ...`, each atom an
/// ASCII character class, matched greedily over the whole value. Greedy matching
/// without backtracking can miss a match (`\d*5`) but never finds one the regex
/// would not: a miss sends the value to the regex.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    /// (the bytes of the class as a table, min, max)
    atoms: Vec<(Box<[bool; 256]>, u32, u32)>,
    /// Every atom a fixed count (`\d{3}-[A-Z]{2}`): the one length a match has, and
    /// each byte's class, so that a value is checked byte by byte against its class.
    fixed: Option<Box<[u16]>>,
}

/// 128 bits: the ASCII bytes in the class.
#[derive(Debug, Clone, Copy)]
struct Class(u128);

impl Class {
    fn one(b: u8) -> Class {
        Class(1u128 << b)
    }
    fn range(a: u8, b: u8) -> Class {
        let mut c = 0u128;
        for x in a..=b {
            c |= 1u128 << x;
        }
        Class(c)
    }
    #[inline]
    fn has(self, b: u8) -> bool {
        b < 128 && self.0 & (1u128 << b) != 0
    }
}

/// Characters that stand for themselves outside and inside a class in the simple form.
fn plain_literal(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(b, b'_' | b':' | b'/' | b'@' | b'#' | b'=' | b',' | b';' | b' ' | b'\'' | b'"' | b'%' | b'!' | b'~')
}

/// A single-character escape or `\d` / `\s` (ASCII part of `\d`; `\s` is exactly
/// space, tab, LF, CR).
fn escape(b: u8) -> Option<Class> {
    match b {
        b'd' => Some(Class::range(b'0', b'9')),
        b's' => Some(Class(Class::one(b' ').0 | Class::one(b'\t').0 | Class::one(b'\n').0 | Class::one(b'\r').0)),
        b'n' => Some(Class::one(b'\n')),
        b'r' => Some(Class::one(b'\r')),
        b't' => Some(Class::one(b'\t')),
        b'\\' | b'|' | b'.' | b'-' | b'^' | b'?' | b'*' | b'+' | b'{' | b'}' | b'(' | b')' | b'[' | b']' => Some(Class::one(b)),
        _ => None,
    }
}

impl Pattern {
    /// The simple form of an XSD regex, when it has one.
    pub(crate) fn compile(src: &str) -> Option<Pattern> {
        let b = src.as_bytes();
        let mut i = 0;
        let mut atoms = Vec::new();
        while i < b.len() {
            let class = match b[i] {
                b'\\' => {
                    let c = escape(*b.get(i + 1)?)?;
                    i += 2;
                    c
                }
                b'.' => {
                    i += 1;
                    // any character but LF and CR; ASCII only here
                    let mut c = Class::range(0, 127);
                    c.0 &= !(Class::one(b'\n').0 | Class::one(b'\r').0);
                    c
                }
                b'[' => {
                    i += 1;
                    if b.get(i) == Some(&b'^') {
                        return None;
                    }
                    let mut c = 0u128;
                    let mut first = true;
                    loop {
                        let x = *b.get(i)?;
                        if x == b']' && !first {
                            i += 1;
                            break;
                        }
                        first = false;
                        let lo = match x {
                            b'\\' => {
                                let e = escape(*b.get(i + 1)?)?;
                                i += 2;
                                if e.0.count_ones() != 1 {
                                    c |= e.0;
                                    continue;
                                }
                                e.0.trailing_zeros() as u8
                            }
                            x if plain_literal(x) || x == b'.' => {
                                i += 1;
                                x
                            }
                            _ => return None,
                        };
                        if b.get(i) == Some(&b'-') && b.get(i + 1).is_some_and(|&y| y != b']' && y != b'[') {
                            let hi = *b.get(i + 1)?;
                            if !(plain_literal(hi) || hi == b'.') || hi < lo {
                                return None;
                            }
                            i += 2;
                            c |= Class::range(lo, hi).0;
                        } else {
                            c |= Class::one(lo).0;
                        }
                    }
                    Class(c)
                }
                x if plain_literal(x) || x == b'-' => {
                    i += 1;
                    Class::one(x)
                }
                _ => return None,
            };
            let (min, max) = match b.get(i) {
                Some(b'?') => {
                    i += 1;
                    (0, 1)
                }
                Some(b'*') => {
                    i += 1;
                    (0, u32::MAX)
                }
                Some(b'+') => {
                    i += 1;
                    (1, u32::MAX)
                }
                Some(b'{') => {
                    let close = i + b[i..].iter().position(|&x| x == b'}')?;
                    let body = std::str::from_utf8(&b[i + 1..close]).ok()?;
                    i = close + 1;
                    match body.split_once(',') {
                        None => {
                            let n = body.parse().ok()?;
                            (n, n)
                        }
                        Some((a, "")) => (a.parse().ok()?, u32::MAX),
                        Some((a, z)) => (a.parse().ok()?, z.parse().ok()?),
                    }
                }
                _ => (1, 1),
            };
            if min > max {
                return None;
            }
            let mut table = Box::new([false; 256]);
            for (b, x) in table.iter_mut().enumerate().take(128) {
                *x = class.has(b as u8);
            }
            atoms.push((table, min, max));
        }
        // each byte's atom when every count is fixed (and the whole is short)
        let fixed = atoms
            .iter()
            .all(|a| a.1 == a.2)
            .then(|| atoms.iter().enumerate().flat_map(|(i, a)| std::iter::repeat_n(i as u16, a.1 as usize)).collect::<Box<[u16]>>());
        let fixed = fixed.filter(|f| f.len() <= 64);
        Some(Pattern { atoms, fixed })
    }

    /// Does a greedy run of the atoms consume all of `s`?
    pub(crate) fn matches(&self, s: &[u8]) -> bool {
        if let Some(f) = &self.fixed {
            return s.len() == f.len() && s.iter().zip(f.iter()).all(|(&b, &i)| self.atoms[usize::from(i)].0[usize::from(b)]);
        }
        let mut p = 0;
        for (c, min, max) in &self.atoms {
            let (min, max) = (*min, *max);
            let mut n = 0u32;
            while n < max && p < s.len() && c[usize::from(s[p])] {
                p += 1;
                n += 1;
            }
            if n < min {
                return false;
            }
        }
        p == s.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datatypes::{restrict, FacetKind, FacetSpec, NoNamespaces};
    use crate::regex::XsdRegex;

    fn spec(kind: FacetKind, value: &str) -> FacetSpec {
        FacetSpec { kind, value: value.into(), fixed: false }
    }

    /// The short path never accepts what the general check refuses, on a set of
    /// values around each plan's edges.
    #[test]
    fn accepts_only_what_the_general_check_accepts() {
        let values = [
            "",
            " ",
            "0",
            "1",
            "-1",
            "+1",
            "99",
            "100",
            "0099",
            " 12 ",
            "1.5",
            ".5",
            "5.",
            "-.5",
            ".",
            "+",
            "1e3",
            "true",
            "false",
            "TRUE",
            "2002-09-27",
            "2002-02-29",
            "2000-02-29",
            "2002-13-01",
            "0000-01-01",
            "2002-09-27Z",
            "2002-09-27+01:00",
            "343-ZZ",
            "343-Z",
            "3434-ZZ",
            "343-zz",
            "34a-ZZ",
            "343_ZZ",
            "abc",
            "a b",
            "a  b",
            " a",
            "a:b",
            ":a",
            "-a",
            "1a",
            "é",
            "x\ty",
            "99999999999999999999999999999999999999999",
            "1.2.3",
            "..5",
            "-",
            "+.",
            "1-",
            "1 2",
            "-0",
            "-128",
            "-129",
            "127",
            "128",
            "999999999999999999",
            "9999999999999999999",
            "18446744073709551615",
            "18446744073709551616",
        ];
        let b = |x: Builtin| SimpleType::builtin(x);
        let mut types = vec![
            b(Builtin::String),
            b(Builtin::Token),
            b(Builtin::NmToken),
            b(Builtin::Name),
            b(Builtin::NCName),
            b(Builtin::Integer),
            b(Builtin::PositiveInteger),
            b(Builtin::Byte),
            b(Builtin::UnsignedLong),
            b(Builtin::Decimal),
            b(Builtin::Boolean),
            b(Builtin::Date),
        ];
        let r = |base: &SimpleType, f: &[FacetSpec]| restrict(base, f, &NoNamespaces).unwrap();
        types.push(r(&b(Builtin::PositiveInteger), &[spec(FacetKind::MaxExclusive, "100")]));
        types.push(r(&b(Builtin::Integer), &[spec(FacetKind::MinExclusive, "-2"), spec(FacetKind::MaxInclusive, "99")]));
        types.push(r(&b(Builtin::String), &[spec(FacetKind::Pattern, r"\d{3}-[A-Z]{2}")]));
        types.push(r(&b(Builtin::String), &[spec(FacetKind::Length, "0")]));
        types.push(r(&b(Builtin::Token), &[spec(FacetKind::MaxLength, "3")]));
        types.push(r(&b(Builtin::String), &[spec(FacetKind::Pattern, r"[a-c]+ ?\s*b?")]));
        let q = crate::datatypes::union(&[types[12].clone(), types[15].clone()]).unwrap();
        types.push(q);
        let mut accepted = 0;
        for t in &types {
            for v in values {
                let fast = t.fast().accepts(v.as_bytes());
                let general = t.check(v, &NoNamespaces).is_ok();
                assert!(!fast || general, "{}: short path accepts {v:?}, the general check refuses it", t.display_name());
                accepted += usize::from(fast);
            }
        }
        // the short paths do take most valid values
        assert!(accepted > 60, "only {accepted} values took a short path");
    }

    /// Plans that take undecoded text accept none whose decoded value is invalid.
    #[test]
    fn raw_safe_plans_accept_no_undecoded_text_wrongly() {
        let raw = ["1\r\n", "\r12\r", "&#49;", "1&#13;", "&amp;", "1\r2", "2002-09-27\r\n", "tru&#101;", "a\r\nb", " a\r"];
        // the text as XML 1.0 decodes it (§2.11 line ends, §4.1 references)
        let decode = |s: &str| {
            s.replace("\r\n", "\n")
                .replace('\r', "\n")
                .replace("&#49;", "1")
                .replace("&#13;", "\r")
                .replace("&#101;", "e")
                .replace("&amp;", "&")
        };
        let types = [Builtin::NmToken, Builtin::NCName, Builtin::Integer, Builtin::Decimal, Builtin::Boolean, Builtin::Date];
        for b in types {
            let t = SimpleType::builtin(b);
            assert!(t.fast().raw_safe());
            for v in raw {
                if t.fast().accepts(v.as_bytes()) {
                    assert!(t.check(&decode(v), &NoNamespaces).is_ok(), "{}: {v:?}", t.display_name());
                }
            }
        }
        assert!(!SimpleType::builtin(Builtin::String).fast().raw_safe());
    }

    #[test]
    fn plans_cover_the_common_types() {
        assert!(matches!(SimpleType::builtin(Builtin::String).fast(), Fast::Any));
        assert!(matches!(SimpleType::builtin(Builtin::PositiveInteger).fast(), Fast::Int { lo: Some(1), hi: None }));
        assert!(matches!(SimpleType::builtin(Builtin::Date).fast(), Fast::Date));
        assert!(matches!(SimpleType::builtin(Builtin::NmTokens).fast(), Fast::None));
    }

    #[test]
    fn simple_patterns() {
        let p = Pattern::compile(r"\d{3}-[A-Z]{2}").unwrap();
        assert!(p.matches(b"343-ZZ"));
        assert!(!p.matches(b"343-Z"));
        assert!(!p.matches(b"343-ZZZ"));
        assert!(!p.matches(b"34-ZZ"));
        // greedy without backtracking misses this match; the regex takes over
        assert!(!Pattern::compile(r"\d*5").unwrap().matches(b"125"));
        assert!(XsdRegex::new(r"\d*5").unwrap().is_match("125"));
        // forms outside the simple one
        for src in [r"(ab)+", r"a|b", r"[^a]", r"\p{L}", r"[a-z-[aeiou]]", r"\w"] {
            assert!(Pattern::compile(src).is_none(), "{src}");
        }
    }
}
