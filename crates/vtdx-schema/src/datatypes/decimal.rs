//! Exact decimals of any length (XSD 1.0 Part 2 §3.2.3), without floating point.
//!
//! A value is stored normalized: an `i128` mantissa and a scale (count of fraction digits,
//! no trailing zero in the fraction) when it has at most 38 significant digits, otherwise
//! the digit string. Normalization makes the representation unique, so derived equality
//! and hashing are value equality (`1.0 == 1`, `-0 == 0`).

use std::cmp::Ordering;
use std::fmt;

/// An exact decimal number: the value space of `decimal` and the integer types.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Decimal(Repr);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    /// `mant × 10^-scale`; when `scale > 0`, `mant % 10 != 0`; zero has scale 0.
    Small { mant: i128, scale: u32 },
    /// Digits without leading zeros (and, in the fraction, without trailing zeros);
    /// the value is `digits × 10^-scale`. Used only when the value does not fit `Small`.
    Big { neg: bool, digits: Box<str>, scale: u32 },
}

/// Splits a decimal lexical form (`[+-]?(d+(\.d*)?|\.d+)`) into sign, integer digits and
/// fraction digits; `None` when the text is not one.
pub(crate) fn split(s: &[u8]) -> Option<(bool, &[u8], &[u8])> {
    let (neg, rest) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let dot = rest.iter().position(|&b| b == b'.');
    let (int, frac) = match dot {
        Some(p) => (&rest[..p], &rest[p + 1..]),
        None => (rest, &rest[rest.len()..]),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.iter().all(u8::is_ascii_digit) || !frac.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some((neg, int, frac))
}

impl Decimal {
    /// Zero.
    pub const ZERO: Decimal = Decimal(Repr::Small { mant: 0, scale: 0 });

    /// Parses the lexical form of `decimal` (§3.2.3.1: optional sign, digits with an
    /// optional decimal point, at least one digit; no exponent, no white space).
    pub fn parse(s: &str) -> Option<Decimal> {
        let (neg, int, frac) = split(s.as_bytes())?;
        Some(Self::from_parts(neg, int, frac))
    }

    /// Builds the value from sign, integer digits and fraction digits (all ASCII digits).
    pub(crate) fn from_parts(neg: bool, int: &[u8], frac: &[u8]) -> Decimal {
        let int_start = int.iter().position(|&b| b != b'0').unwrap_or(int.len());
        let int = &int[int_start..];
        let frac_end = frac.iter().rposition(|&b| b != b'0').map_or(0, |p| p + 1);
        let frac = &frac[..frac_end];
        let scale = u32::try_from(frac.len()).unwrap_or(u32::MAX);
        // significant digits: int + frac without the fraction's leading zeros when int is empty
        let lead = if int.is_empty() { frac.iter().take_while(|&&b| b == b'0').count() } else { 0 };
        let sig = int.len() + frac.len() - lead;
        if sig == 0 {
            return Decimal::ZERO;
        }
        if sig <= 38 {
            let mut mant: i128 = 0;
            for &b in int.iter().chain(frac.iter()) {
                mant = mant * 10 + i128::from(b - b'0');
            }
            return Decimal(Repr::Small { mant: if neg { -mant } else { mant }, scale });
        }
        let mut digits = String::with_capacity(sig);
        for &b in int.iter().chain(frac[lead..].iter()) {
            digits.push(b as char);
        }
        Decimal(Repr::Big { neg, digits: digits.into_boxed_str(), scale })
    }

    /// The integer `v`.
    pub fn from_i128(v: i128) -> Decimal {
        Decimal(Repr::Small { mant: v, scale: 0 })
    }

    /// Whether the value is below zero.
    pub fn is_negative(&self) -> bool {
        match &self.0 {
            Repr::Small { mant, .. } => *mant < 0,
            Repr::Big { neg, .. } => *neg,
        }
    }

    /// Whether the value is zero.
    pub fn is_zero(&self) -> bool {
        matches!(self.0, Repr::Small { mant: 0, .. })
    }

    /// The number of fraction digits of the normalized value (`1.50` has scale 1).
    pub fn scale(&self) -> u32 {
        match &self.0 {
            Repr::Small { scale, .. } | Repr::Big { scale, .. } => *scale,
        }
    }

    /// Whether the value is an integer.
    pub fn is_integer(&self) -> bool {
        self.scale() == 0
    }

    /// The value as an `i128` when it is an integer in that range.
    pub fn as_i128(&self) -> Option<i128> {
        match self.0 {
            Repr::Small { mant, scale: 0 } => Some(mant),
            _ => None,
        }
    }

    /// The sign and the significant digits of the unscaled value: the value is
    /// `±digits × 10^-scale()` (zero gives `(false, "0")`).
    pub fn digits(&self) -> (bool, String) {
        match &self.0 {
            Repr::Small { mant, .. } => (*mant < 0, mant.unsigned_abs().to_string()),
            Repr::Big { neg, digits, .. } => (*neg, digits.to_string()),
        }
    }

    /// The `totalDigits` the value needs (§4.3.11: the least `n` with `|i| < 10^n` and
    /// scale `<= n`, for the value written `i × 10^-scale`).
    pub fn total_digits(&self) -> u64 {
        let (len, scale) = match &self.0 {
            Repr::Small { mant, scale } => {
                let m = mant.unsigned_abs();
                let len = if m == 0 { 0 } else { m.ilog10() as u64 + 1 };
                (len, *scale)
            }
            Repr::Big { digits, scale, .. } => (digits.len() as u64, *scale),
        };
        len.max(u64::from(scale))
    }

    /// Digits as (magnitude digit string without leading zeros, exponent e) such that the
    /// magnitude is `0.d1d2... × 10^e`.
    fn sci(&self) -> (bool, std::borrow::Cow<'_, str>, i64) {
        match &self.0 {
            Repr::Small { mant, scale } => {
                let d = mant.unsigned_abs().to_string();
                let e = d.len() as i64 - i64::from(*scale);
                (*mant < 0, std::borrow::Cow::Owned(d), e)
            }
            Repr::Big { neg, digits, scale } => (*neg, std::borrow::Cow::Borrowed(&**digits), digits.len() as i64 - i64::from(*scale)),
        }
    }
}

fn cmp_small(a: i128, sa: u32, b: i128, sb: u32) -> Option<Ordering> {
    if sa == sb {
        return Some(a.cmp(&b));
    }
    if sa < sb {
        let f = 10i128.checked_pow(sb - sa)?;
        Some(a.checked_mul(f)?.cmp(&b))
    } else {
        let f = 10i128.checked_pow(sa - sb)?;
        Some(a.cmp(&b.checked_mul(f)?))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        if let (Repr::Small { mant: a, scale: sa }, Repr::Small { mant: b, scale: sb }) = (&self.0, &other.0) {
            if let Some(o) = cmp_small(*a, *sa, *b, *sb) {
                return o;
            }
        }
        let (na, za) = (self.is_negative(), self.is_zero());
        let (nb, zb) = (other.is_negative(), other.is_zero());
        let sign = |n: bool, z: bool| {
            if z {
                0
            } else if n {
                -1
            } else {
                1
            }
        };
        let (ga, gb) = (sign(na, za), sign(nb, zb));
        if ga != gb || ga == 0 {
            return ga.cmp(&gb);
        }
        let (_, da, ea) = self.sci();
        let (_, db, eb) = other.sci();
        let mag = ea.cmp(&eb).then_with(|| da.as_bytes().cmp(db.as_bytes()));
        if na {
            mag.reverse()
        } else {
            mag
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Decimal {
    /// The shortest form: no exponent, no trailing fraction zeros (`-0.5`, `100`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (neg, digits) = self.digits();
        let scale = self.scale() as usize;
        if neg {
            f.write_str("-")?;
        }
        if scale == 0 {
            return f.write_str(&digits);
        }
        if digits.len() > scale {
            let (i, fr) = digits.split_at(digits.len() - scale);
            write!(f, "{i}.{fr}")
        } else {
            f.write_str("0.")?;
            for _ in 0..scale - digits.len() {
                f.write_str("0")?;
            }
            f.write_str(&digits)
        }
    }
}

impl fmt::Debug for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Decimal({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).unwrap()
    }

    #[test]
    fn lexical() {
        for ok in ["0", "+1", "-1.5", ".5", "5.", "0000.0000", "-0", "123456789012345678901234567890123456789012.5"] {
            assert!(Decimal::parse(ok).is_some(), "{ok}");
        }
        for bad in ["", ".", "+", "-.", "1e5", "1.2.3", " 1", "1 ", "INF", "0x1", "1,5", "+-1"] {
            assert!(Decimal::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn value_equality() {
        assert_eq!(d("1.0"), d("1"));
        assert_eq!(d("-0.0"), d("+0"));
        assert_eq!(d("000123.4500"), d("123.45"));
        assert_eq!(d(".5"), d("0.50"));
        let big = "1234567890123456789012345678901234567890.000";
        assert_eq!(d(big), d("01234567890123456789012345678901234567890"));
        assert_ne!(d(big), d("1234567890123456789012345678901234567891"));
        assert_eq!(d("1.5").to_string(), "1.5");
        assert_eq!(d("-0.0050").to_string(), "-0.005");
        assert_eq!(d("100").to_string(), "100");
        assert_eq!(d(big).to_string(), "1234567890123456789012345678901234567890");
    }

    #[test]
    fn ordering() {
        let sorted = [
            "-123456789012345678901234567890123456789012",
            "-100",
            "-1.5",
            "-0.00000000000000000000000000000000000000000001",
            "0",
            "0.00000000000000000000000000000000000000000001",
            "0.1",
            "1",
            "1.0000000000000000000000000000000000000000001",
            "99999999999999999999999999999999999999",
            "100000000000000000000000000000000000000",
            "123456789012345678901234567890123456789012",
        ];
        for (i, a) in sorted.iter().enumerate() {
            for (j, b) in sorted.iter().enumerate() {
                assert_eq!(d(a).cmp(&d(b)), i.cmp(&j), "{a} vs {b}");
            }
        }
        // scale alignment that overflows i128 falls back to digit comparison
        assert!(d("1.00000000000000000000000000000000000001") > d("1"));
        assert!(d("17000000000000000000000000000000000000") > d("0.0000000000000000000000000000000000001"));
    }

    #[test]
    fn digits_and_scale() {
        assert_eq!(d("0.001").total_digits(), 3);
        assert_eq!(d("1000").total_digits(), 4);
        assert_eq!(d("001.2300").total_digits(), 3);
        assert_eq!(d("001.2300").scale(), 2);
        assert_eq!(d("0").total_digits(), 0);
        assert_eq!(d("-12").as_i128(), Some(-12));
        assert_eq!(d("12.5").as_i128(), None);
    }
}
