//! The date/time family and duration (XSD 1.0 Part 2 §3.2.6 - §3.2.14, Appendix D and E).

use std::cmp::Ordering;

/// Which of the eight date/time primitives a [`DateTime`] belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DateTimeKind {
    /// `dateTime`.
    DateTime,
    /// `time`.
    Time,
    /// `date`.
    Date,
    /// `gYearMonth`.
    GYearMonth,
    /// `gYear`.
    GYear,
    /// `gMonthDay`.
    GMonthDay,
    /// `gDay`.
    GDay,
    /// `gMonth`.
    GMonth,
}

/// A value of one of the date/time types, with the components as written (after
/// `24:00:00` is read as `00:00:00` of the next day, §3.2.7).
///
/// Components a type does not have read as the reference values of §3.2.7.4 (year
/// 1972, month 12, day 31, time 00:00:00).
#[derive(Debug, Clone)]
pub struct DateTime {
    pub(crate) kind: DateTimeKind,
    pub(crate) year: i64,
    pub(crate) month: u8,
    pub(crate) day: u8,
    pub(crate) hour: u8,
    pub(crate) minute: u8,
    pub(crate) second: u8,
    /// Fraction of the second as digits without trailing zeros (empty: none).
    pub(crate) frac: Box<str>,
    /// Time zone offset in minutes (`None`: no time zone).
    pub(crate) tz: Option<i16>,
}

/// A `duration` value: a signed number of months and a signed exact number of seconds
/// (§3.2.6; `P1D` and `PT24H` are the same value, `P1M` and `P30D` are not comparable).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Duration {
    pub(crate) months: i128,
    pub(crate) seconds: super::Decimal,
}

fn digits(b: &[u8], i: &mut usize, n: usize) -> Option<u32> {
    if *i + n > b.len() {
        return None;
    }
    let mut v = 0u32;
    for &c in &b[*i..*i + n] {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u32::from(c - b'0');
    }
    *i += n;
    Some(v)
}

fn expect(b: &[u8], i: &mut usize, c: u8) -> Option<()> {
    if b.get(*i) == Some(&c) {
        *i += 1;
        Some(())
    } else {
        None
    }
}

fn is_leap(y: i64) -> bool {
    y.rem_euclid(400) == 0 || (y.rem_euclid(100) != 0 && y.rem_euclid(4) == 0)
}

/// Appendix E maximumDayInMonthFor.
pub(crate) fn max_day(y: i64, m: u8) -> u8 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 => {
            if is_leap(y) {
                29
            } else {
                28
            }
        }
        _ => 31,
    }
}

/// Days since 1970-01-01 of the proleptic Gregorian date (XSD year `y`: no year 0, so
/// `-0001` is astronomical year 0).
fn days_from_civil(y: i64, m: u8, d: u8) -> i128 {
    let y = i128::from(if y < 0 { y + 1 } else { y });
    let (m, d) = (i128::from(m), i128::from(d));
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Parses `-?yyyy+` (at least four digits, no leading zero beyond four, not 0000).
fn year(b: &[u8], i: &mut usize) -> Option<i64> {
    let neg = b.get(*i) == Some(&b'-');
    if neg {
        *i += 1;
    }
    let start = *i;
    while *i < b.len() && b[*i].is_ascii_digit() {
        *i += 1;
    }
    let ds = &b[start..*i];
    if ds.len() < 4 || (ds.len() > 4 && ds[0] == b'0') {
        return None;
    }
    let mut v: i64 = 0;
    for &c in ds {
        v = v.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
    }
    if v == 0 {
        return None;
    }
    Some(if neg { -v } else { v })
}

/// Whether the year digits are syntactically right but beyond the 64-bit range.
pub(crate) fn year_overflows(s: &str) -> bool {
    let b = s.as_bytes();
    let b = b.strip_prefix(b"-").unwrap_or(b);
    let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
    n > 18 && b[0] != b'0'
}

fn timezone(b: &[u8], i: &mut usize) -> Option<Option<i16>> {
    match b.get(*i) {
        None => Some(None),
        Some(b'Z') => {
            *i += 1;
            Some(Some(0))
        }
        Some(&s @ (b'+' | b'-')) => {
            *i += 1;
            let h = digits(b, i, 2)?;
            expect(b, i, b':')?;
            let m = digits(b, i, 2)?;
            if h > 14 || m > 59 || (h == 14 && m != 0) {
                return None;
            }
            let v = (h * 60 + m) as i16;
            Some(Some(if s == b'-' { -v } else { v }))
        }
        _ => None,
    }
}

impl DateTime {
    /// Parses the lexical form of a date/time type of this `kind` (no white space).
    pub fn parse(kind: DateTimeKind, s: &str) -> Option<DateTime> {
        use DateTimeKind as K;
        let b = s.as_bytes();
        let mut i = 0;
        let mut v = DateTime { kind, year: 1972, month: 12, day: 31, hour: 0, minute: 0, second: 0, frac: Box::from(""), tz: None };
        let has_year = matches!(kind, K::DateTime | K::Date | K::GYearMonth | K::GYear);
        if has_year {
            v.year = year(b, &mut i)?;
        }
        match kind {
            K::DateTime | K::Date | K::GYearMonth => {
                expect(b, &mut i, b'-')?;
                v.month = digits(b, &mut i, 2)? as u8;
                if kind != K::GYearMonth {
                    expect(b, &mut i, b'-')?;
                    v.day = digits(b, &mut i, 2)? as u8;
                }
            }
            K::GMonthDay | K::GMonth => {
                expect(b, &mut i, b'-')?;
                expect(b, &mut i, b'-')?;
                v.month = digits(b, &mut i, 2)? as u8;
                if kind == K::GMonthDay {
                    expect(b, &mut i, b'-')?;
                    v.day = digits(b, &mut i, 2)? as u8;
                }
            }
            K::GDay => {
                for _ in 0..3 {
                    expect(b, &mut i, b'-')?;
                }
                v.day = digits(b, &mut i, 2)? as u8;
            }
            K::Time | K::GYear => {}
        }
        if !(1..=12).contains(&v.month) {
            return None;
        }
        let dmax = match kind {
            K::DateTime | K::Date => max_day(v.year, v.month),
            K::GMonthDay => max_day(2000, v.month),
            _ => 31,
        };
        if v.day < 1 || v.day > dmax {
            return None;
        }
        let mut end_of_day = false;
        if matches!(kind, K::DateTime | K::Time) {
            if kind == K::DateTime {
                expect(b, &mut i, b'T')?;
            }
            let h = digits(b, &mut i, 2)?;
            expect(b, &mut i, b':')?;
            let mi = digits(b, &mut i, 2)?;
            expect(b, &mut i, b':')?;
            let se = digits(b, &mut i, 2)?;
            let mut frac_nonzero = false;
            if b.get(i) == Some(&b'.') {
                i += 1;
                let st = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                if i == st {
                    return None;
                }
                let f = &s[st..i];
                let f = f.trim_end_matches('0');
                frac_nonzero = !f.is_empty();
                v.frac = Box::from(f);
            }
            if mi > 59 || se > 59 || h > 24 || (h == 24 && (mi != 0 || se != 0 || frac_nonzero)) {
                return None;
            }
            end_of_day = h == 24;
            v.hour = if end_of_day { 0 } else { h as u8 };
            v.minute = mi as u8;
            v.second = se as u8;
        }
        v.tz = timezone(b, &mut i)?;
        if i != b.len() {
            return None;
        }
        if end_of_day && kind == K::DateTime {
            // 24:00:00 is the first instant of the next day
            if v.day < max_day(v.year, v.month) {
                v.day += 1;
            } else {
                v.day = 1;
                if v.month < 12 {
                    v.month += 1;
                } else {
                    v.month = 1;
                    v.year = if v.year == -1 { 1 } else { v.year.checked_add(1)? };
                }
            }
        }
        Some(v)
    }

    /// Which type the value belongs to.
    pub fn kind(&self) -> DateTimeKind {
        self.kind
    }
    /// The year (negative for BCE years; no year 0 in XSD 1.0); 1972 for types without one.
    pub fn year(&self) -> i64 {
        self.year
    }
    /// The month, 1-12.
    pub fn month(&self) -> u8 {
        self.month
    }
    /// The day of the month, 1-31.
    pub fn day(&self) -> u8 {
        self.day
    }
    /// The hour, 0-23.
    pub fn hour(&self) -> u8 {
        self.hour
    }
    /// The minute, 0-59.
    pub fn minute(&self) -> u8 {
        self.minute
    }
    /// The whole seconds, 0-59.
    pub fn second(&self) -> u8 {
        self.second
    }
    /// The fraction of the second as its digits (no trailing zeros; empty when none).
    pub fn fraction_digits(&self) -> &str {
        &self.frac
    }
    /// The time zone offset in minutes east of UTC, if the value has one.
    pub fn timezone_minutes(&self) -> Option<i16> {
        self.tz
    }

    /// Seconds since 1970-01-01T00:00:00 of the components, shifted by `offset` minutes
    /// (the time zone, or ∓14:00 for the comparisons of §3.2.7.4).
    fn instant(&self, offset: i16) -> i128 {
        days_from_civil(self.year, self.month, self.day) * 86_400
            + i128::from(self.hour) * 3600
            + i128::from(self.minute) * 60
            + i128::from(self.second)
            - i128::from(offset) * 60
    }

    /// (has time zone, seconds, fraction) — the key of equality and hashing.
    pub(crate) fn key(&self) -> (bool, i128, &str) {
        (self.tz.is_some(), self.instant(self.tz.unwrap_or(0)), &self.frac)
    }

    fn cmp_at(&self, a: i16, other: &DateTime, b: i16) -> Ordering {
        self.instant(a).cmp(&other.instant(b)).then_with(|| self.frac.as_bytes().cmp(other.frac.as_bytes()))
    }

    /// The order of §3.2.7.4: `None` when the values are incomparable (different kinds,
    /// or one with and one without time zone closer than 14 hours).
    pub fn partial_cmp_xsd(&self, other: &DateTime) -> Option<Ordering> {
        if self.kind != other.kind {
            return None;
        }
        match (self.tz, other.tz) {
            (Some(a), Some(b)) => Some(self.cmp_at(a, other, b)),
            (None, None) => Some(self.cmp_at(0, other, 0)),
            (Some(a), None) => {
                // P < Q if P < Q(+14:00); P > Q if P > Q(-14:00)
                if self.cmp_at(a, other, 14 * 60) == Ordering::Less {
                    Some(Ordering::Less)
                } else if self.cmp_at(a, other, -14 * 60) == Ordering::Greater {
                    Some(Ordering::Greater)
                } else {
                    None
                }
            }
            (None, Some(_)) => other.partial_cmp_xsd(self).map(Ordering::reverse),
        }
    }
}

impl PartialEq for DateTime {
    fn eq(&self, other: &DateTime) -> bool {
        self.kind == other.kind && self.key() == other.key()
    }
}

impl Eq for DateTime {}

impl std::hash::Hash for DateTime {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.kind.hash(state);
        self.key().hash(state);
    }
}

impl std::fmt::Display for DateTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use DateTimeKind as K;
        let y = |f: &mut std::fmt::Formatter<'_>| {
            if self.year < 0 {
                write!(f, "-{:04}", -self.year)
            } else {
                write!(f, "{:04}", self.year)
            }
        };
        let t = |f: &mut std::fmt::Formatter<'_>| {
            write!(f, "{:02}:{:02}:{:02}", self.hour, self.minute, self.second)?;
            if !self.frac.is_empty() {
                write!(f, ".{}", self.frac)?;
            }
            Ok(())
        };
        match self.kind {
            K::DateTime => {
                y(f)?;
                write!(f, "-{:02}-{:02}T", self.month, self.day)?;
                t(f)?;
            }
            K::Time => t(f)?,
            K::Date => {
                y(f)?;
                write!(f, "-{:02}-{:02}", self.month, self.day)?;
            }
            K::GYearMonth => {
                y(f)?;
                write!(f, "-{:02}", self.month)?;
            }
            K::GYear => y(f)?,
            K::GMonthDay => write!(f, "--{:02}-{:02}", self.month, self.day)?,
            K::GDay => write!(f, "---{:02}", self.day)?,
            K::GMonth => write!(f, "--{:02}", self.month)?,
        }
        match self.tz {
            None => Ok(()),
            Some(0) => f.write_str("Z"),
            Some(m) => write!(f, "{}{:02}:{:02}", if m < 0 { '-' } else { '+' }, m.abs() / 60, m.abs() % 60),
        }
    }
}

/// The four reference dateTimes of §3.2.6.2 (year, month).
const REFERENCES: [(i64, u8); 4] = [(1696, 9), (1697, 2), (1903, 3), (1903, 7)];

impl Duration {
    /// Parses the lexical form of `duration` (§3.2.6.1: `-?PnYnMnDTnHnMnS`, at least one
    /// component, `T` only before a time component, a fraction only on seconds).
    pub fn parse(s: &str) -> Option<Duration> {
        let b = s.as_bytes();
        let mut i = 0;
        let neg = b.first() == Some(&b'-');
        if neg {
            i += 1;
        }
        expect(b, &mut i, b'P')?;
        let mut months: i128 = 0;
        let mut secs: i128 = 0;
        let mut frac: &[u8] = b"";
        let mut any = false;
        let mut in_time = false;
        let mut order = 0u8; // components must come in order Y M D (T) H M S
        while i < b.len() {
            if b[i] == b'T' {
                if in_time {
                    return None;
                }
                in_time = true;
                i += 1;
                if i == b.len() {
                    return None; // `T` with no time component
                }
                continue;
            }
            let st = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let int = &b[st..i];
            let mut fr: &[u8] = b"";
            if b.get(i) == Some(&b'.') {
                i += 1;
                let fs = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                fr = &b[fs..i];
                if fr.is_empty() {
                    return None;
                }
            }
            if int.is_empty() {
                return None;
            }
            let mut n: i128 = 0;
            for &c in int {
                n = n.checked_mul(10)?.checked_add(i128::from(c - b'0'))?;
            }
            let des = *b.get(i)?;
            i += 1;
            let (rank, ok_frac) = match (in_time, des) {
                (false, b'Y') => (1, false),
                (false, b'M') => (2, false),
                (false, b'D') => (3, false),
                (true, b'H') => (4, false),
                (true, b'M') => (5, false),
                (true, b'S') => (6, true),
                _ => return None,
            };
            if rank <= order || (!fr.is_empty() && !ok_frac) {
                return None;
            }
            order = rank;
            any = true;
            match rank {
                1 => months = months.checked_add(n.checked_mul(12)?)?,
                2 => months = months.checked_add(n)?,
                3 => secs = secs.checked_add(n.checked_mul(86_400)?)?,
                4 => secs = secs.checked_add(n.checked_mul(3600)?)?,
                5 => secs = secs.checked_add(n.checked_mul(60)?)?,
                _ => {
                    secs = secs.checked_add(n)?;
                    frac = fr;
                }
            }
        }
        if !any {
            return None;
        }
        let whole = secs.to_string();
        let seconds = super::Decimal::from_parts(neg, whole.as_bytes(), frac);
        Some(Duration { months: if neg { -months } else { months }, seconds })
    }

    /// The signed total of the year and month components, in months.
    pub fn months(&self) -> i128 {
        self.months
    }
    /// The signed total of the day, hour, minute and second components, in seconds.
    pub fn seconds(&self) -> &super::Decimal {
        &self.seconds
    }

    /// The order of §3.2.6.2 (adding both to the four reference dateTimes); `None` when
    /// the durations are incomparable (e.g. `P1M` and `P30D`).
    pub fn partial_cmp_xsd(&self, other: &Duration) -> Option<Ordering> {
        if self.months == other.months {
            return Some(self.seconds.cmp(&other.seconds));
        }
        let mut result: Option<Ordering> = None;
        for (y, m) in REFERENCES {
            let o = cmp_after(y, m, self, other)?;
            match result {
                None => result = Some(o),
                Some(r) if r != o => return None,
                _ => {}
            }
        }
        result
    }
}

/// Compares `ref + a` with `ref + b` for the reference year/month (day 1, 00:00:00Z).
fn cmp_after(y: i64, m: u8, a: &Duration, b: &Duration) -> Option<Ordering> {
    let base = |months: i128| -> Option<i128> {
        let total = i128::from(y) * 12 + i128::from(m - 1) + months;
        let ny = i64::try_from(total.div_euclid(12)).ok()?;
        let nm = (total.rem_euclid(12) + 1) as u8;
        Some(days_from_civil(ny, nm, 1) * 86_400)
    };
    let (ba, bb) = (base(a.months)?, base(b.months)?);
    // compare ba + sa with bb + sb exactly, at the larger of the two scales
    let (ma, sa) = scaled(&a.seconds)?;
    let (mb, sb) = scaled(&b.seconds)?;
    let s = sa.max(sb);
    let fa = 10i128.checked_pow(s - sa)?;
    let fb = 10i128.checked_pow(s - sb)?;
    let p = 10i128.checked_pow(s)?;
    let x = ba.checked_mul(p)?.checked_add(ma.checked_mul(fa)?)?;
    let z = bb.checked_mul(p)?.checked_add(mb.checked_mul(fb)?)?;
    Some(x.cmp(&z))
}

fn scaled(d: &super::Decimal) -> Option<(i128, u32)> {
    let (neg, digits) = d.digits();
    let mut m: i128 = 0;
    for c in digits.bytes() {
        m = m.checked_mul(10)?.checked_add(i128::from(c - b'0'))?;
    }
    Some((if neg { -m } else { m }, d.scale()))
}

impl std::fmt::Display for Duration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let neg = self.months < 0 || self.seconds.is_negative();
        if neg {
            f.write_str("-")?;
        }
        f.write_str("P")?;
        let m = self.months.unsigned_abs();
        if m / 12 != 0 {
            write!(f, "{}Y", m / 12)?;
        }
        if m % 12 != 0 {
            write!(f, "{}M", m % 12)?;
        }
        if !self.seconds.is_zero() || m == 0 {
            let s = self.seconds.to_string();
            write!(f, "T{}S", s.trim_start_matches('-'))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DateTimeKind as K;

    fn dt(k: K, s: &str) -> DateTime {
        DateTime::parse(k, s).unwrap_or_else(|| panic!("{s}"))
    }

    #[test]
    fn lexical_forms() {
        for (k, s) in [
            (K::DateTime, "2002-10-10T12:00:00-05:00"),
            (K::DateTime, "2002-10-10T17:00:00Z"),
            (K::DateTime, "-0001-01-01T00:00:00.5"),
            (K::DateTime, "12000-02-29T24:00:00+14:00"),
            (K::Date, "2000-02-29"),
            (K::Time, "13:20:00.000"),
            (K::GYearMonth, "1999-05Z"),
            (K::GYear, "-1999"),
            (K::GMonthDay, "--02-29"),
            (K::GDay, "---31"),
            (K::GMonth, "--12-05:00"),
        ] {
            assert!(DateTime::parse(k, s).is_some(), "{s}");
        }
        for (k, s) in [
            (K::DateTime, "2002-10-10T12:00:00-15:00"),
            (K::DateTime, "2002-10-10T12:00:00+14:01"),
            (K::DateTime, "2002-10-10 12:00:00"),
            (K::DateTime, "2002-10-10T24:00:01"),
            (K::DateTime, "2002-10-10T24:00:00.1"),
            (K::DateTime, "2002-10-10T12:00"),
            (K::DateTime, "0000-01-01T00:00:00"),
            (K::DateTime, "02002-01-01T00:00:00"),
            (K::Date, "2001-02-29"),
            (K::Date, "1900-02-29"),
            (K::Date, "2000-13-01"),
            (K::Date, "2000-1-01"),
            (K::Date, "+2000-01-01"),
            (K::Time, "12:60:00"),
            (K::Time, "12:00:60"),
            (K::Time, "12:00:00."),
            (K::GMonthDay, "--02-30"),
            (K::GMonth, "--12--"),
            (K::GDay, "--31"),
            (K::GYear, "99"),
        ] {
            assert!(DateTime::parse(k, s).is_none(), "{s}");
        }
    }

    #[test]
    fn end_of_day_is_next_day() {
        assert_eq!(dt(K::DateTime, "1999-12-31T24:00:00"), dt(K::DateTime, "2000-01-01T00:00:00"));
        assert_eq!(dt(K::Time, "24:00:00"), dt(K::Time, "00:00:00"));
    }

    #[test]
    fn order_with_time_zones() {
        // §3.2.7.4 examples
        let a = dt(K::DateTime, "2000-01-15T00:00:00");
        let b = dt(K::DateTime, "2000-02-15T00:00:00");
        assert_eq!(a.partial_cmp_xsd(&b), Some(Ordering::Less));
        let a = dt(K::DateTime, "2000-01-01T12:00:00");
        let b = dt(K::DateTime, "1999-12-31T23:00:00Z");
        assert_eq!(a.partial_cmp_xsd(&b), None);
        let a = dt(K::DateTime, "2000-01-16T12:00:00");
        let b = dt(K::DateTime, "2000-01-16T12:00:00Z");
        assert_eq!(a.partial_cmp_xsd(&b), None);
        let a = dt(K::DateTime, "2000-01-16T00:00:00");
        let b = dt(K::DateTime, "2000-01-16T12:00:00Z");
        assert_eq!(a.partial_cmp_xsd(&b), None);
        let a = dt(K::DateTime, "2000-01-15T00:00:00");
        let b = dt(K::DateTime, "2000-01-16T12:00:00Z");
        assert_eq!(a.partial_cmp_xsd(&b), Some(Ordering::Less));
        // equal instants in different zones
        assert_eq!(dt(K::DateTime, "2002-10-10T12:00:00-05:00"), dt(K::DateTime, "2002-10-10T17:00:00Z"));
        assert_ne!(dt(K::DateTime, "2002-10-10T17:00:00"), dt(K::DateTime, "2002-10-10T17:00:00Z"));
        assert_eq!(dt(K::Time, "12:00:00.10"), dt(K::Time, "12:00:00.1"));
        assert!(dt(K::GYear, "-0001").partial_cmp_xsd(&dt(K::GYear, "0001")) == Some(Ordering::Less));
    }

    #[test]
    fn durations() {
        let d = |s: &str| Duration::parse(s).unwrap_or_else(|| panic!("{s}"));
        for bad in ["P", "PT", "P1Y2MT", "-P", "P1.5Y", "P1DT1.H", "PT1M1H", "P-1D", "1D", "P1D2Y", "P1S", "PT1D", "+P1D", "P 1D"] {
            assert!(Duration::parse(bad).is_none(), "{bad}");
        }
        assert_eq!(d("P1D"), d("PT24H"));
        assert_eq!(d("P1Y"), d("P12M"));
        assert_eq!(d("PT1.50S"), d("PT1.5S"));
        // §3.2.6.2 examples
        assert_eq!(d("P1Y").partial_cmp_xsd(&d("P364D")), Some(Ordering::Greater));
        assert_eq!(d("P1Y").partial_cmp_xsd(&d("P365D")), None);
        assert_eq!(d("P1Y").partial_cmp_xsd(&d("P366D")), None);
        assert_eq!(d("P1Y").partial_cmp_xsd(&d("P367D")), Some(Ordering::Less));
        assert_eq!(d("P1M").partial_cmp_xsd(&d("P27D")), Some(Ordering::Greater));
        assert_eq!(d("P1M").partial_cmp_xsd(&d("P28D")), None);
        assert_eq!(d("P1M").partial_cmp_xsd(&d("P31D")), None);
        assert_eq!(d("P1M").partial_cmp_xsd(&d("P32D")), Some(Ordering::Less));
        assert_eq!(d("P5M").partial_cmp_xsd(&d("P149D")), Some(Ordering::Greater));
        assert_eq!(d("P5M").partial_cmp_xsd(&d("P153D")), None);
        assert_eq!(d("P5M").partial_cmp_xsd(&d("P154D")), Some(Ordering::Less));
        assert_eq!(d("-P1D").partial_cmp_xsd(&d("PT0S")), Some(Ordering::Less));
    }
}
