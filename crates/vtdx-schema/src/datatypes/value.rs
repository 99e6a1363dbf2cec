//! Typed values: the value spaces of XSD 1.0 Part 2, with value equality and order.

use super::{DateTime, Decimal, Duration, Primitive};
use std::cmp::Ordering;
use std::sync::Arc;

/// A value in the value space of a simple type.
///
/// `PartialEq`/`Eq`/`Hash` are XSD 1.0 value equality (identity constraints, enumeration,
/// `fixed`): values of different primitives are never equal; decimals compare by value
/// (`1.0 == 1`); float and double compare as XSD 1.0 Second Edition says (`NaN == NaN`,
/// `-0 == 0`);
/// date/time values equal only when both have a time zone and denote the same instant,
/// or neither has one and all components agree; lists compare item by item.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Value {
    /// `string` and the types derived from it, and `anySimpleType`.
    String(Arc<str>),
    /// `boolean`.
    Boolean(bool),
    /// `decimal` and the integer types.
    Decimal(Decimal),
    /// `float`.
    Float(f32),
    /// `double`.
    Double(f64),
    /// `duration`.
    Duration(Duration),
    /// The date/time family (the kind is in the value).
    DateTime(DateTime),
    /// `hexBinary`: the octets.
    HexBinary(Arc<[u8]>),
    /// `base64Binary`: the octets.
    Base64Binary(Arc<[u8]>),
    /// `anyURI`: the (white-space collapsed) text.
    AnyUri(Arc<str>),
    /// `QName`: namespace (None: no namespace) and local part.
    QName(Option<Arc<str>>, Arc<str>),
    /// `NOTATION`: namespace and local part of the notation's name.
    Notation(Option<Arc<str>>, Arc<str>),
    /// A list type's value: its items.
    List(Arc<[Value]>),
}

impl Value {
    /// The primitive type of the value (`None` for a list).
    pub fn primitive(&self) -> Option<Primitive> {
        use super::DateTimeKind as K;
        Some(match self {
            Value::String(_) => Primitive::String,
            Value::Boolean(_) => Primitive::Boolean,
            Value::Decimal(_) => Primitive::Decimal,
            Value::Float(_) => Primitive::Float,
            Value::Double(_) => Primitive::Double,
            Value::Duration(_) => Primitive::Duration,
            Value::DateTime(d) => match d.kind() {
                K::DateTime => Primitive::DateTime,
                K::Time => Primitive::Time,
                K::Date => Primitive::Date,
                K::GYearMonth => Primitive::GYearMonth,
                K::GYear => Primitive::GYear,
                K::GMonthDay => Primitive::GMonthDay,
                K::GDay => Primitive::GDay,
                K::GMonth => Primitive::GMonth,
            },
            Value::HexBinary(_) => Primitive::HexBinary,
            Value::Base64Binary(_) => Primitive::Base64Binary,
            Value::AnyUri(_) => Primitive::AnyUri,
            Value::QName(..) => Primitive::QName,
            Value::Notation(..) => Primitive::Notation,
            Value::List(_) => return None,
        })
    }
    /// The XSD order (§2.2.6 and each primitive's order relation); `None` when the values
    /// are incomparable (different primitives, or a partial order says so).
    pub fn partial_cmp_xsd(&self, other: &Value) -> Option<Ordering> {
        match (self, other) {
            (Value::Decimal(a), Value::Decimal(b)) => Some(a.cmp(b)),
            (Value::Float(a), Value::Float(b)) => float_cmp(f64::from(*a), f64::from(*b)),
            (Value::Double(a), Value::Double(b)) => float_cmp(*a, *b),
            (Value::DateTime(a), Value::DateTime(b)) => a.partial_cmp_xsd(b),
            (Value::Duration(a), Value::Duration(b)) => a.partial_cmp_xsd(b),
            _ if self == other => Some(Ordering::Equal),
            _ => None,
        }
    }
    /// The decimal, if the value is one.
    pub fn as_decimal(&self) -> Option<&Decimal> {
        match self {
            Value::Decimal(d) => Some(d),
            _ => None,
        }
    }
    /// The value as an `i128`, if it is an integer in that range.
    pub fn as_i128(&self) -> Option<i128> {
        self.as_decimal().and_then(Decimal::as_i128)
    }
    /// The text of a string-family or `anyURI` value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) | Value::AnyUri(s) => Some(s),
            _ => None,
        }
    }
    /// The boolean, if the value is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Boolean(b) => Some(*b),
            _ => None,
        }
    }
    /// The date/time value, if the value is one.
    pub fn as_date_time(&self) -> Option<&DateTime> {
        match self {
            Value::DateTime(d) => Some(d),
            _ => None,
        }
    }
    /// The octets of a `hexBinary` or `base64Binary` value.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::HexBinary(b) | Value::Base64Binary(b) => Some(b),
            _ => None,
        }
    }
    /// The items of a list value.
    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Value::List(v) => Some(v),
            _ => None,
        }
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::String(a), Value::String(b)) | (Value::AnyUri(a), Value::AnyUri(b)) => a == b,
            (Value::Boolean(a), Value::Boolean(b)) => a == b,
            (Value::Decimal(a), Value::Decimal(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => float_key(f64::from(*a)) == float_key(f64::from(*b)),
            (Value::Double(a), Value::Double(b)) => float_key(*a) == float_key(*b),
            (Value::Duration(a), Value::Duration(b)) => a == b,
            (Value::DateTime(a), Value::DateTime(b)) => a == b,
            (Value::HexBinary(a), Value::HexBinary(b)) | (Value::Base64Binary(a), Value::Base64Binary(b)) => a == b,
            (Value::QName(n1, l1), Value::QName(n2, l2)) | (Value::Notation(n1, l1), Value::Notation(n2, l2)) => n1 == n2 && l1 == l2,
            (Value::List(a), Value::List(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Value {}

impl std::hash::Hash for Value {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            Value::String(s) | Value::AnyUri(s) => s.hash(state),
            Value::Boolean(b) => b.hash(state),
            Value::Decimal(d) => d.hash(state),
            Value::Float(f) => float_key(f64::from(*f)).hash(state),
            Value::Double(f) => float_key(*f).hash(state),
            Value::Duration(d) => d.hash(state),
            Value::DateTime(d) => d.hash(state),
            Value::HexBinary(b) | Value::Base64Binary(b) => b.hash(state),
            Value::QName(n, l) | Value::Notation(n, l) => {
                n.hash(state);
                l.hash(state);
            }
            Value::List(v) => v.hash(state),
        }
    }
}

impl std::fmt::Display for Value {
    /// A canonical-like form used in messages.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::String(s) | Value::AnyUri(s) => write!(f, "{s:?}"),
            Value::Boolean(b) => write!(f, "{b}"),
            Value::Decimal(d) => write!(f, "{d}"),
            Value::Float(x) => f.write_str(&fmt_float(f64::from(*x), true)),
            Value::Double(x) => f.write_str(&fmt_float(*x, false)),
            Value::Duration(d) => write!(f, "{d}"),
            Value::DateTime(d) => write!(f, "{d}"),
            Value::HexBinary(b) => {
                for x in b.iter() {
                    write!(f, "{x:02X}")?;
                }
                Ok(())
            }
            Value::Base64Binary(b) => f.write_str(&super::binary::base64_encode(b)),
            Value::QName(n, l) | Value::Notation(n, l) => match n {
                Some(n) => write!(f, "{{{n}}}{l}"),
                None => write!(f, "{l}"),
            },
            Value::List(items) => {
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{v}")?;
                }
                Ok(())
            }
        }
    }
}

/// XSD 1.0 (Second Edition) float/double identity: one NaN (equal to itself), one zero
/// (`-0` is a lexical form of zero: the value space is m × 2^e plus INF, -INF, NaN, §3.2.4).
fn float_key(x: f64) -> u64 {
    if x.is_nan() {
        u64::MAX
    } else if x == 0.0 {
        0
    } else {
        x.to_bits()
    }
}

/// XSD 1.0 (Second Edition) float/double order (§3.2.4, §3.2.5): numeric, with `-0 == 0`;
/// NaN equals itself and is incomparable with every other value.
fn float_cmp(a: f64, b: f64) -> Option<Ordering> {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Some(Ordering::Equal),
        (false, false) => a.partial_cmp(&b),
        _ => None,
    }
}
fn fmt_float(x: f64, single: bool) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "INF" } else { "-INF" }.into()
    } else if single {
        format!("{}", x as f32)
    } else {
        format!("{x}")
    }
}
