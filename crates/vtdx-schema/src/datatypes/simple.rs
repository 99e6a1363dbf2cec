//! Simple type definitions: built-in, restriction, list and union.

use super::fast::{self, Fast};
use super::lexical::{self, Atom};
use super::{
    Builtin, DatatypeError, DatatypeErrorKind, Decimal, FacetError, FacetKind, FacetSpec, Facets, NsResolver, Primitive, Value, WhiteSpace,
    XSD_NAMESPACE,
};
use crate::regex::RegexOptions;
use crate::regex::XsdRegex;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::sync::Arc;
use std::sync::OnceLock;

/// The variety of a simple type (§2.5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variety {
    /// Atomic: one value of a primitive's value space.
    Atomic,
    /// List: a white-space separated sequence of items of the item type.
    List,
    /// Union: a value of one of the member types (tried in order).
    Union,
}

/// Limits applied when a type is derived.
#[derive(Debug, Clone, Default)]
pub struct DerivationLimits {
    /// Limits on the compiled `pattern` regexes.
    pub regex: RegexOptions,
}

/// A simple type definition: `Send + Sync`, cheap to clone (an `Arc`).
///
/// Identity: two handles are the same type when [`SimpleType::same_type`] says so
/// (built-in types are shared singletons).
#[derive(Clone)]
pub struct SimpleType(pub(crate) Arc<Inner>);

pub(crate) struct Inner {
    pub(crate) name: Option<(Option<Arc<str>>, Arc<str>)>,
    pub(crate) variety: Variety,
    pub(crate) builtin: Option<Builtin>,
    pub(crate) base: Option<SimpleType>,
    pub(crate) primitive: Option<Primitive>,
    pub(crate) item: Option<SimpleType>,
    pub(crate) members: Vec<SimpleType>,
    pub(crate) whitespace: WhiteSpace,
    pub(crate) facets: Facets,
    /// The built-in atomic type whose lexical space applies (atomic types only).
    pub(crate) lex: Builtin,
    /// The short-path plan of the validator, worked out on first use.
    pub(crate) fast: OnceLock<Fast>,
}

impl std::fmt::Debug for SimpleType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SimpleType({})", self.display_name())
    }
}

/// (lower bound, its facet, upper bound, its facet, the orderings allowed between them)
type BoundPair<'a> = (&'a Option<Value>, FacetKind, &'a Option<Value>, FacetKind, &'a [Ordering]);

fn ferr(kind: FacetKind, msg: impl Into<String>) -> FacetError {
    FacetError::new(Some(kind), msg)
}

/// Which facets apply to a variety/primitive (XSD 1.0 Part 2 §4.1.5).
fn applicable(variety: Variety, prim: Option<Primitive>, kind: FacetKind) -> bool {
    use FacetKind as F;
    match variety {
        Variety::List => {
            matches!(kind, F::Length | F::MinLength | F::MaxLength | F::Pattern | F::Enumeration | F::WhiteSpace)
        }
        Variety::Union => matches!(kind, F::Pattern | F::Enumeration),
        Variety::Atomic => {
            let p = match prim {
                Some(p) => p,
                None => return false,
            };
            match kind {
                F::Pattern | F::WhiteSpace => p != Primitive::AnySimpleType,
                F::Enumeration => !matches!(p, Primitive::Boolean | Primitive::AnySimpleType),
                F::Length | F::MinLength | F::MaxLength => matches!(
                    p,
                    Primitive::String
                        | Primitive::AnyUri
                        | Primitive::HexBinary
                        | Primitive::Base64Binary
                        | Primitive::QName
                        | Primitive::Notation
                ),
                F::MaxInclusive | F::MaxExclusive | F::MinInclusive | F::MinExclusive => p.is_ordered(),
                F::TotalDigits | F::FractionDigits => p == Primitive::Decimal,
            }
        }
    }
}

fn parse_count(spec: &FacetSpec, positive: bool) -> Result<u64, FacetError> {
    let v = super::whitespace::trim(&spec.value);
    let d = v.strip_prefix('+').unwrap_or(v);
    let ok = !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit());
    let n =
        if ok { d.trim_start_matches('0').parse::<u64>().ok().or(if d.bytes().all(|c| c == b'0') { Some(0) } else { None }) } else { None };
    match n {
        Some(n) if !positive || n > 0 => Ok(n),
        Some(_) | None if ok && d.len() > 19 => Ok(u64::MAX),
        _ => Err(ferr(
            spec.kind,
            format!(
                "value {:?} of facet {} is not a valid {}",
                spec.value,
                spec.kind,
                if positive { "positiveInteger" } else { "nonNegativeInteger" }
            ),
        )),
    }
}

/// Whether `a` compared with `b` is not one of the orderings the rule forbids; values
/// that are incomparable (a partial order) break no rule, as the spec words each as
/// "it is an error if X is greater than Y" (§4.3.7.4 - §4.3.10.4).
fn cmp_ok(a: &Value, b: &Value, allowed: &[Ordering]) -> bool {
    a.partial_cmp_xsd(b).is_none_or(|o| allowed.contains(&o))
}

fn builtins() -> &'static [SimpleType] {
    static B: OnceLock<Vec<SimpleType>> = OnceLock::new();
    B.get_or_init(|| {
        let mut v: Vec<SimpleType> = Vec::with_capacity(Builtin::ALL.len());
        for &b in Builtin::ALL {
            debug_assert_eq!(b as usize, v.len());
            let base = b.base().map(|x| v[x as usize].clone());
            let item = b.list_item().map(|x| v[x as usize].clone());
            let variety = if b.is_list() { Variety::List } else { Variety::Atomic };
            let mut facets = match &base {
                Some(bt) if variety == Variety::Atomic => bt.0.facets.clone(),
                _ => Facets::default(),
            };
            facets.whitespace = Some(b.whitespace());
            let string_like = b == Builtin::AnySimpleType || b.primitive() == Primitive::String;
            if (!string_like || variety == Variety::List) && !facets.fixed.contains(&FacetKind::WhiteSpace) {
                facets.fixed.push(FacetKind::WhiteSpace);
            }
            let int = |x: i128| Some(Value::Decimal(Decimal::from_i128(x)));
            match b {
                Builtin::Integer => {
                    facets.fraction_digits = Some(0);
                    facets.fixed.push(FacetKind::FractionDigits);
                }
                Builtin::NonPositiveInteger => facets.max_inclusive = int(0),
                Builtin::NegativeInteger => facets.max_inclusive = int(-1),
                Builtin::Long => {
                    facets.min_inclusive = int(i128::from(i64::MIN));
                    facets.max_inclusive = int(i128::from(i64::MAX));
                }
                Builtin::Int => {
                    facets.min_inclusive = int(i128::from(i32::MIN));
                    facets.max_inclusive = int(i128::from(i32::MAX));
                }
                Builtin::Short => {
                    facets.min_inclusive = int(i128::from(i16::MIN));
                    facets.max_inclusive = int(i128::from(i16::MAX));
                }
                Builtin::Byte => {
                    facets.min_inclusive = int(i128::from(i8::MIN));
                    facets.max_inclusive = int(i128::from(i8::MAX));
                }
                Builtin::NonNegativeInteger => facets.min_inclusive = int(0),
                Builtin::UnsignedLong => facets.max_inclusive = int(i128::from(u64::MAX)),
                Builtin::UnsignedInt => facets.max_inclusive = int(i128::from(u32::MAX)),
                Builtin::UnsignedShort => facets.max_inclusive = int(i128::from(u16::MAX)),
                Builtin::UnsignedByte => facets.max_inclusive = int(i128::from(u8::MAX)),
                Builtin::PositiveInteger => facets.min_inclusive = int(1),
                Builtin::NmTokens | Builtin::IdRefs | Builtin::Entities => facets.min_length = Some(1),
                _ => {}
            }
            v.push(SimpleType(Arc::new(Inner {
                name: Some((Some(Arc::from(XSD_NAMESPACE)), Arc::from(b.local_name()))),
                variety,
                builtin: Some(b),
                base,
                primitive: if variety == Variety::Atomic { Some(b.primitive()) } else { None },
                item,
                members: Vec::new(),
                whitespace: b.whitespace(),
                facets,
                lex: if variety == Variety::Atomic { b } else { Builtin::AnySimpleType },
                fast: OnceLock::new(),
            })));
        }
        v
    })
}

/// Derives a type from `base` by restriction with `facets` (§4.1.2.1, Schema Component
/// Constraint: Derivation Valid (Restriction, Simple), and each facet's constraints).
///
/// `resolver` resolves prefixes in `enumeration` values of QName and NOTATION types (the
/// namespaces in scope at the `<restriction>`).
pub fn restrict(base: &SimpleType, facets: &[FacetSpec], resolver: &dyn NsResolver) -> Result<SimpleType, FacetError> {
    restrict_with(base, facets, resolver, &DerivationLimits::default())
}

/// [`restrict`] with explicit limits (the size of compiled patterns).
pub fn restrict_with(
    base: &SimpleType,
    specs: &[FacetSpec],
    resolver: &dyn NsResolver,
    limits: &DerivationLimits,
) -> Result<SimpleType, FacetError> {
    use FacetKind as F;
    let b = &base.0;
    let mut f = b.facets.clone();
    if b.variety == Variety::Union {
        // a union's facets are its own, not its members'
        f = b.facets.clone();
    }
    if base.as_builtin() == Some(Builtin::AnySimpleType) && !specs.is_empty() {
        return Err(ferr(specs[0].kind, format!("facet {} is not applicable to type anySimpleType", specs[0].kind)));
    }
    // each non-list facet at most once per step
    for (i, s) in specs.iter().enumerate() {
        if !applicable(b.variety, b.primitive, s.kind) {
            return Err(ferr(s.kind, format!("facet {} is not applicable to type {}", s.kind, base.display_name())));
        }
        if !matches!(s.kind, F::Pattern | F::Enumeration) && specs[..i].iter().any(|p| p.kind == s.kind) {
            return Err(ferr(s.kind, format!("facet {} appears more than once in one restriction", s.kind)));
        }
    }
    let has = |k: FacetKind| specs.iter().any(|s| s.kind == k);
    for (a, c) in [(F::MaxInclusive, F::MaxExclusive), (F::MinInclusive, F::MinExclusive)] {
        if has(a) && has(c) {
            return Err(ferr(c, format!("facets {a} and {c} cannot both be specified in one restriction")));
        }
    }
    // length-minLength-maxLength (Part 2 §4.3.1.4, second edition): length may stand beside
    // minLength (maxLength) only when that value is the base's unchanged, the base has no
    // length, and minLength <= length (maxLength >= length): `IDREFS` restricted by
    // length 5 and minLength 1 (its built-in minLength)
    let count = |k: FacetKind| specs.iter().find(|s| s.kind == k).and_then(|s| s.value.trim().parse::<u64>().ok());
    for (other, inherited) in [(F::MinLength, b.facets.min_length), (F::MaxLength, b.facets.max_length)] {
        if !(has(F::Length) && has(other)) {
            continue;
        }
        let (len, v) = (count(F::Length), count(other));
        let ordered = match (len, v) {
            (Some(l), Some(v)) => {
                if other == F::MinLength {
                    v <= l
                } else {
                    v >= l
                }
            }
            _ => false,
        };
        if !(ordered && b.facets.length.is_none() && v.is_some() && v == inherited) {
            return Err(ferr(F::Length, format!("facets length and {other} cannot both be specified in one restriction")));
        }
    }
    let fixed_check = |kind: FacetKind, same: bool, new: &dyn std::fmt::Display| -> Result<(), FacetError> {
        if b.facets.is_fixed(kind) && !same {
            return Err(ferr(
                kind,
                format!("facet {kind} is fixed in the base type {}; found a different value {new}", base.display_name()),
            ));
        }
        Ok(())
    };
    let bound_value = |s: &FacetSpec| -> Result<Value, FacetError> {
        let v = super::whitespace::trim(&s.value);
        let prim = b.primitive.unwrap_or(Primitive::String);
        lexical::parse(b.lex, v, resolver)
            .map(|a| a.into_value(prim))
            .map_err(|e| ferr(s.kind, format!("value {:?} of facet {} is not valid: {}", s.value, s.kind, e)))
    };
    let mut patterns: Vec<XsdRegex> = Vec::new();
    let mut enums: Vec<Value> = Vec::new();
    for s in specs {
        match s.kind {
            F::Length | F::MinLength | F::MaxLength | F::TotalDigits | F::FractionDigits => {
                let n = parse_count(s, s.kind == F::TotalDigits)?;
                let (cur, bl) = match s.kind {
                    F::Length => (&mut f.length, b.facets.length),
                    F::MinLength => (&mut f.min_length, b.facets.min_length),
                    F::MaxLength => (&mut f.max_length, b.facets.max_length),
                    F::TotalDigits => (&mut f.total_digits, b.facets.total_digits),
                    _ => (&mut f.fraction_digits, b.facets.fraction_digits),
                };
                fixed_check(s.kind, bl == Some(n), &n)?;
                let loosens = match (s.kind, bl) {
                    (F::Length, Some(x)) => n != x,
                    (F::MinLength, Some(x)) => n < x,
                    (F::MaxLength | F::TotalDigits | F::FractionDigits, Some(x)) => n > x,
                    _ => false,
                };
                if loosens {
                    let rel = match s.kind {
                        F::Length => "different from",
                        F::MinLength => "less than",
                        _ => "greater than",
                    };
                    return Err(ferr(s.kind, format!("{} {n} is {rel} the base type's {} {}", s.kind, s.kind, bl.unwrap_or(0))));
                }
                *cur = Some(n);
            }
            F::WhiteSpace => {
                let v = super::whitespace::trim(&s.value);
                let ws = WhiteSpace::from_name(v).ok_or_else(|| {
                    ferr(s.kind, format!("value {:?} of facet whiteSpace is not one of preserve, replace, collapse", s.value))
                })?;
                fixed_check(s.kind, ws == b.whitespace, &ws.name())?;
                if ws < b.whitespace {
                    return Err(ferr(
                        s.kind,
                        format!("whiteSpace {} is looser than the base type's whiteSpace {}", ws.name(), b.whitespace.name()),
                    ));
                }
                f.whitespace = Some(ws);
            }
            F::Pattern => {
                let re = XsdRegex::with_options(&s.value, &limits.regex).map_err(|e| ferr(F::Pattern, e.to_string()))?;
                patterns.push(re);
            }
            F::Enumeration => {
                let v = base
                    .validate(&s.value, resolver)
                    .map_err(|e| ferr(F::Enumeration, format!("enumeration value {:?} is not valid for the base type: {e}", s.value)))?;
                enums.push(v);
            }
            F::MaxInclusive | F::MaxExclusive | F::MinInclusive | F::MinExclusive => {
                let v = bound_value(s)?;
                let basev = match s.kind {
                    F::MaxInclusive => &b.facets.max_inclusive,
                    F::MaxExclusive => &b.facets.max_exclusive,
                    F::MinInclusive => &b.facets.min_inclusive,
                    _ => &b.facets.min_exclusive,
                };
                fixed_check(s.kind, basev.as_ref() == Some(&v), &v)?;
                use Ordering::{Equal as E, Greater as G, Less as L};
                // (base facet, allowed orderings of new vs base)
                let rules: [(&Option<Value>, FacetKind, &[Ordering]); 4] = match s.kind {
                    F::MaxInclusive => [
                        (&b.facets.max_inclusive, F::MaxInclusive, &[L, E]),
                        (&b.facets.max_exclusive, F::MaxExclusive, &[L]),
                        (&b.facets.min_inclusive, F::MinInclusive, &[G, E]),
                        (&b.facets.min_exclusive, F::MinExclusive, &[G]),
                    ],
                    F::MaxExclusive => [
                        (&b.facets.max_exclusive, F::MaxExclusive, &[L, E]),
                        (&b.facets.max_inclusive, F::MaxInclusive, &[L, E]),
                        (&b.facets.min_inclusive, F::MinInclusive, &[G]),
                        (&b.facets.min_exclusive, F::MinExclusive, &[G]),
                    ],
                    F::MinInclusive => [
                        (&b.facets.min_inclusive, F::MinInclusive, &[G, E]),
                        (&b.facets.min_exclusive, F::MinExclusive, &[G]),
                        (&b.facets.max_inclusive, F::MaxInclusive, &[L, E]),
                        (&b.facets.max_exclusive, F::MaxExclusive, &[L]),
                    ],
                    _ => [
                        (&b.facets.min_exclusive, F::MinExclusive, &[G, E]),
                        (&b.facets.min_inclusive, F::MinInclusive, &[G, E]),
                        (&b.facets.max_inclusive, F::MaxInclusive, &[L]),
                        (&b.facets.max_exclusive, F::MaxExclusive, &[L]),
                    ],
                };
                for (bv, bk, allowed) in rules {
                    if let Some(bv) = bv {
                        if !cmp_ok(&v, bv, allowed) {
                            return Err(ferr(s.kind, format!("{} {v} is not within the base type's {bk} {bv}", s.kind)));
                        }
                    }
                }
                match s.kind {
                    F::MaxInclusive => {
                        f.max_inclusive = Some(v);
                        f.max_exclusive = None;
                    }
                    F::MaxExclusive => {
                        f.max_exclusive = Some(v);
                        f.max_inclusive = None;
                    }
                    F::MinInclusive => {
                        f.min_inclusive = Some(v);
                        f.min_exclusive = None;
                    }
                    _ => {
                        f.min_exclusive = Some(v);
                        f.min_inclusive = None;
                    }
                }
            }
        }
        if s.fixed && !f.fixed.contains(&s.kind) {
            f.fixed.push(s.kind);
        }
    }
    if !patterns.is_empty() {
        f.patterns.push(patterns);
    }
    if !enums.is_empty() {
        f.enumeration = Some(enums);
    }
    // consistency of the effective facets
    if let Some(len) = f.length {
        if f.min_length.is_some_and(|m| m > len) || f.max_length.is_some_and(|m| m < len) {
            return Err(ferr(F::Length, format!("length {len} is outside the minLength/maxLength of the type")));
        }
    }
    if let (Some(a), Some(c)) = (f.min_length, f.max_length) {
        if a > c {
            return Err(ferr(F::MinLength, format!("minLength {a} is greater than maxLength {c}")));
        }
    }
    if let (Some(fd), Some(td)) = (f.fraction_digits, f.total_digits) {
        if fd > td {
            return Err(ferr(F::FractionDigits, format!("fractionDigits {fd} is greater than totalDigits {td}")));
        }
    }
    use Ordering::{Equal as E, Less as L};
    let pairs: [BoundPair<'_>; 4] = [
        (&f.min_inclusive, F::MinInclusive, &f.max_inclusive, F::MaxInclusive, &[L, E]),
        (&f.min_inclusive, F::MinInclusive, &f.max_exclusive, F::MaxExclusive, &[L]),
        (&f.min_exclusive, F::MinExclusive, &f.max_inclusive, F::MaxInclusive, &[L]),
        (&f.min_exclusive, F::MinExclusive, &f.max_exclusive, F::MaxExclusive, &[L, E]),
    ];
    for (lo, lk, hi, hk, allowed) in pairs {
        if let (Some(lo), Some(hi)) = (lo, hi) {
            if !cmp_ok(lo, hi, allowed) {
                let rel = if allowed.contains(&E) { "less than or equal to" } else { "less than" };
                return Err(ferr(lk, format!("{lk} {lo} must be {rel} {hk} {hi}")));
            }
        }
    }
    let whitespace = f.whitespace.unwrap_or(b.whitespace);
    Ok(SimpleType(Arc::new(Inner {
        name: None,
        variety: b.variety,
        builtin: None,
        base: Some(base.clone()),
        primitive: b.primitive,
        item: b.item.clone(),
        members: b.members.clone(),
        whitespace,
        facets: f,
        lex: b.lex,
        fast: OnceLock::new(),
    })))
}

/// Derives a list type whose items are of type `item` (§4.1.2.2); `item` must be atomic
/// or a union whose members are not lists.
pub fn list(item: &SimpleType) -> Result<SimpleType, FacetError> {
    if item.contains_list() {
        return Err(FacetError::new(
            None,
            format!("the item type of a list must be atomic or a union of atomic types; found {}", item.display_name()),
        ));
    }
    let mut facets = Facets { whitespace: Some(WhiteSpace::Collapse), ..Facets::default() };
    facets.fixed.push(FacetKind::WhiteSpace);
    Ok(SimpleType(Arc::new(Inner {
        name: None,
        variety: Variety::List,
        builtin: None,
        base: Some(SimpleType::any_simple_type()),
        primitive: None,
        item: Some(item.clone()),
        members: Vec::new(),
        whitespace: WhiteSpace::Collapse,
        facets,
        lex: Builtin::AnySimpleType,
        fast: OnceLock::new(),
    })))
}

/// Derives a union of `members` (§4.1.2.3); a value is checked against each member in
/// order and belongs to the first that accepts it.
pub fn union(members: &[SimpleType]) -> Result<SimpleType, FacetError> {
    if members.is_empty() {
        return Err(FacetError::new(None, "a union needs at least one member type; found none"));
    }
    Ok(SimpleType(Arc::new(Inner {
        name: None,
        variety: Variety::Union,
        builtin: None,
        base: Some(SimpleType::any_simple_type()),
        primitive: None,
        item: None,
        members: members.to_vec(),
        whitespace: WhiteSpace::Collapse,
        facets: Facets::default(),
        lex: Builtin::AnySimpleType,
        fast: OnceLock::new(),
    })))
}

fn facet_error(kind: FacetKind, msg: String) -> DatatypeError {
    DatatypeError::new(DatatypeErrorKind::Facet(kind), msg)
}

fn list_enum(values: &[Value]) -> String {
    let mut out = String::new();
    for (i, v) in values.iter().enumerate() {
        if i == 10 {
            out.push_str(&format!(", ... ({} in all)", values.len()));
            break;
        }
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&v.to_string());
    }
    out
}

impl SimpleType {
    /// The built-in type `b` (a shared singleton).
    pub fn builtin(b: Builtin) -> SimpleType {
        builtins()[b as usize].clone()
    }

    /// `anySimpleType`.
    pub fn any_simple_type() -> SimpleType {
        SimpleType::builtin(Builtin::AnySimpleType)
    }

    /// The same definition under a name (used in messages and by [`SimpleType::name`]).
    /// The result is a new type definition: [`SimpleType::same_type`] tells it apart
    /// from `self`; it derives from what `self` derives from.
    pub fn with_name(&self, namespace: Option<&str>, local: &str) -> SimpleType {
        let i = &self.0;
        SimpleType(Arc::new(Inner {
            name: Some((namespace.map(Arc::from), Arc::from(local))),
            variety: i.variety,
            builtin: None,
            base: i.base.clone(),
            primitive: i.primitive,
            item: i.item.clone(),
            members: i.members.clone(),
            whitespace: i.whitespace,
            facets: i.facets.clone(),
            lex: i.lex,
            fast: OnceLock::new(),
        }))
    }

    /// The type's name (namespace, local name); `None` for an anonymous type.
    pub fn name(&self) -> Option<(Option<&str>, &str)> {
        self.0.name.as_ref().map(|(ns, l)| (ns.as_deref(), &**l))
    }

    /// The name used in messages: the local name, or `anonymous type derived from X`.
    pub fn display_name(&self) -> String {
        match &self.0.name {
            Some((_, l)) => l.to_string(),
            None => match self.0.variety {
                Variety::List if self.0.base.as_ref().is_some_and(|b| b.0.variety != Variety::List) => {
                    format!("anonymous list of {}", self.0.item.as_ref().map_or_else(String::new, SimpleType::display_name))
                }
                Variety::Union if self.0.base.as_ref().is_some_and(|b| b.0.variety != Variety::Union) => {
                    let m: Vec<String> = self.0.members.iter().map(SimpleType::display_name).collect();
                    format!("anonymous union of {}", m.join(", "))
                }
                _ => format!("anonymous type derived from {}", self.0.base.as_ref().map_or_else(String::new, SimpleType::display_name)),
            },
        }
    }

    /// Whether `self` and `other` are the same type definition.
    pub fn same_type(&self, other: &SimpleType) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The built-in type this is, if it is one.
    pub fn as_builtin(&self) -> Option<Builtin> {
        self.0.builtin
    }

    /// The nearest built-in ancestor (the type itself when built-in; `anySimpleType` for
    /// user-defined list and union types).
    pub fn nearest_builtin(&self) -> Builtin {
        let mut t = self;
        loop {
            if let Some(b) = t.0.builtin {
                return b;
            }
            match &t.0.base {
                Some(b) => t = b,
                None => return Builtin::AnySimpleType,
            }
        }
    }

    /// The short-path plan of the validator ([`Fast`]), worked out on first use.
    #[inline]
    pub(crate) fn fast(&self) -> &Fast {
        self.0.fast.get_or_init(|| fast::plan(self))
    }

    /// The variety.
    pub fn variety(&self) -> Variety {
        self.0.variety
    }

    /// The primitive type of an atomic type (`None` for list and union types;
    /// `anySimpleType` for itself).
    pub fn primitive(&self) -> Option<Primitive> {
        self.0.primitive
    }

    /// The base type definition (`None` for `anySimpleType`).
    pub fn base(&self) -> Option<&SimpleType> {
        self.0.base.as_ref()
    }

    /// The item type of a list type.
    pub fn item_type(&self) -> Option<&SimpleType> {
        self.0.item.as_ref()
    }

    /// The member types of a union type (empty for other varieties).
    pub fn member_types(&self) -> &[SimpleType] {
        &self.0.members
    }

    /// The `whiteSpace` applied before checking a value.
    pub fn whitespace(&self) -> WhiteSpace {
        self.0.whitespace
    }

    /// The effective facets.
    pub fn facets(&self) -> &Facets {
        &self.0.facets
    }

    fn contains_list(&self) -> bool {
        match self.0.variety {
            Variety::List => true,
            Variety::Union => self.0.members.iter().any(SimpleType::contains_list),
            Variety::Atomic => false,
        }
    }

    /// Whether `self` is `other` or derived from it (Type Derivation OK (Simple),
    /// Part 1 §3.14.6, with an empty blocking set): through the base chain; any type
    /// derives from `anySimpleType`; a type derives from a union when it derives from one
    /// of its members.
    pub fn derives_from(&self, other: &SimpleType) -> bool {
        if other.as_builtin() == Some(Builtin::AnySimpleType) {
            return true;
        }
        let mut t = Some(self);
        while let Some(x) = t {
            if x.same_type(other) {
                return true;
            }
            t = x.base();
        }
        other.0.variety == Variety::Union && other.0.members.iter().any(|m| self.derives_from(m))
    }

    /// Whether `self` is the built-in `b` or derived from it by restriction (through
    /// the base chain).
    pub fn derives_from_builtin(&self, b: Builtin) -> bool {
        let mut t = Some(self);
        while let Some(x) = t {
            if x.0.builtin == Some(b) {
                return true;
            }
            t = x.base();
        }
        false
    }

    /// `ID` or derived from it.
    pub fn is_id(&self) -> bool {
        self.derives_from_builtin(Builtin::Id)
    }
    /// `IDREF` or derived from it.
    pub fn is_idref(&self) -> bool {
        self.derives_from_builtin(Builtin::IdRef)
    }
    /// A list whose items are `IDREF`s (`IDREFS` or a user list of IDREF).
    pub fn is_idrefs(&self) -> bool {
        self.item_type().is_some_and(SimpleType::is_idref)
    }
    /// `ENTITY` or derived from it.
    pub fn is_entity(&self) -> bool {
        self.derives_from_builtin(Builtin::Entity)
    }
    /// A list whose items are `ENTITY`s.
    pub fn is_entities(&self) -> bool {
        self.item_type().is_some_and(SimpleType::is_entity)
    }
    /// `NOTATION` or derived from it.
    pub fn is_notation(&self) -> bool {
        self.primitive() == Some(Primitive::Notation)
    }
    /// `QName` or derived from it.
    pub fn is_qname(&self) -> bool {
        self.primitive() == Some(Primitive::QName)
    }
    /// Whether validating a value may consult the namespace resolver (QName or
    /// NOTATION anywhere: the type, its list item, its union members).
    pub fn is_namespace_sensitive(&self) -> bool {
        match self.0.variety {
            Variety::Atomic => self.is_qname() || self.is_notation(),
            Variety::List => self.item_type().is_some_and(SimpleType::is_namespace_sensitive),
            Variety::Union => self.member_types().iter().any(SimpleType::is_namespace_sensitive),
        }
    }

    /// Applies the `whiteSpace` facet; borrows when nothing changes.
    pub fn normalize<'a>(&self, lexical: &'a str) -> Cow<'a, str> {
        self.0.whitespace.normalize(lexical)
    }

    /// Validates `lexical` (as it stands in the document: white space is normalized
    /// first) and returns the typed value.
    pub fn validate(&self, lexical: &str, resolver: &dyn NsResolver) -> Result<Value, DatatypeError> {
        self.validate_member(lexical, resolver).map(|(v, _)| v)
    }

    /// As [`SimpleType::validate`], also returning the type that accepted the value: for
    /// a union, the (innermost) member that matched; otherwise `self`.
    pub fn validate_member(&self, lexical: &str, resolver: &dyn NsResolver) -> Result<(Value, SimpleType), DatatypeError> {
        let (v, t) = self.run(lexical, resolver, true)?;
        // `run` builds the value whenever it is asked to (`want`)
        let v = v.ok_or_else(|| DatatypeError::new(DatatypeErrorKind::Limit, "internal error: no value was built"))?;
        Ok((v, t.unwrap_or_else(|| self.clone())))
    }

    /// Checks `lexical` without building the value. For atomic types whose value needs
    /// no decoding (strings, numbers, booleans, dates without fractional seconds) this
    /// does not allocate unless the white space must be rewritten.
    pub fn check(&self, lexical: &str, resolver: &dyn NsResolver) -> Result<(), DatatypeError> {
        self.run(lexical, resolver, false).map(|_| ())
    }

    /// [`SimpleType::validate`] on bytes: checks UTF-8 first.
    pub fn validate_bytes(&self, bytes: &[u8], resolver: &dyn NsResolver) -> Result<Value, DatatypeError> {
        self.validate(utf8(bytes)?, resolver)
    }

    /// [`SimpleType::check`] on bytes: checks UTF-8 first.
    pub fn check_bytes(&self, bytes: &[u8], resolver: &dyn NsResolver) -> Result<(), DatatypeError> {
        self.check(utf8(bytes)?, resolver)
    }

    /// The validation engine: `(value if wanted, matched union member if any)`.
    fn run(&self, lexical: &str, resolver: &dyn NsResolver, want: bool) -> Result<(Option<Value>, Option<SimpleType>), DatatypeError> {
        let i = &*self.0;
        match i.variety {
            Variety::Atomic => {
                let norm = self.normalize_fast(lexical);
                let atom = lexical::parse(i.lex, &norm, resolver)?;
                self.check_facets(&atom, &norm, None)?;
                let prim = i.primitive.unwrap_or(Primitive::String);
                Ok((if want { Some(atom.into_value(prim)) } else { None }, None))
            }
            Variety::List => {
                let norm = WhiteSpace::Collapse.normalize(lexical);
                let item = i.item.as_ref().expect("a list type has an item type");
                let mut values = Vec::new();
                let mut count = 0u64;
                let need = want || i.facets.enumeration.is_some();
                if !norm.is_empty() {
                    for part in norm.split(' ') {
                        count += 1;
                        match item.run(part, resolver, need) {
                            Ok((v, _)) => {
                                if let Some(v) = v {
                                    values.push(v);
                                }
                            }
                            Err(e) => {
                                return Err(DatatypeError::new(
                                    DatatypeErrorKind::ListItem,
                                    format!("item {count} of list value {:?} is invalid: {e}", &*norm),
                                ))
                            }
                        }
                    }
                }
                let value = if need { Some(Value::List(values.into())) } else { None };
                self.check_list_facets(count, &norm, value.as_ref())?;
                Ok((value, None))
            }
            Variety::Union => {
                let need = want || i.facets.enumeration.is_some();
                let mut errors = Vec::new();
                for m in &i.members {
                    match m.run(lexical, resolver, need) {
                        Ok((v, inner)) => {
                            let matched = inner.unwrap_or_else(|| m.clone());
                            let norm = matched.normalize(lexical);
                            self.check_union_facets(&norm, v.as_ref())?;
                            return Ok((v, Some(matched)));
                        }
                        Err(e) => errors.push(e),
                    }
                }
                let names: Vec<String> = i.members.iter().map(SimpleType::display_name).collect();
                Err(DatatypeError::new(
                    DatatypeErrorKind::NoUnionMember,
                    format!(
                        "{:?} is not a valid value of type {}: no member type accepts it ({})",
                        lexical.trim_matches([' ', '\t', '\n', '\r']),
                        self.display_name(),
                        names.join(", ")
                    ),
                ))
            }
        }
    }

    /// White-space normalization; for primitives whose lexical space has no inner white
    /// space, `collapse` is a trim (an inner space makes the value invalid either way).
    fn normalize_fast<'a>(&self, s: &'a str) -> Cow<'a, str> {
        let i = &*self.0;
        let no_inner = matches!(
            i.primitive,
            Some(
                Primitive::Decimal
                    | Primitive::Float
                    | Primitive::Double
                    | Primitive::Boolean
                    | Primitive::Duration
                    | Primitive::DateTime
                    | Primitive::Time
                    | Primitive::Date
                    | Primitive::GYearMonth
                    | Primitive::GYear
                    | Primitive::GMonthDay
                    | Primitive::GDay
                    | Primitive::GMonth
                    | Primitive::HexBinary
                    | Primitive::QName
                    | Primitive::Notation
            )
        );
        if no_inner && i.whitespace == WhiteSpace::Collapse {
            Cow::Borrowed(super::whitespace::trim(s))
        } else {
            i.whitespace.normalize(s)
        }
    }

    fn check_patterns(&self, norm: &str) -> Result<(), DatatypeError> {
        for group in &self.0.facets.patterns {
            if !group.iter().any(|re| re.is_match(norm)) {
                let srcs: Vec<&str> = group.iter().map(XsdRegex::as_str).collect();
                return Err(facet_error(FacetKind::Pattern, format!("value {norm:?} does not match pattern {}", srcs.join(" | "))));
            }
        }
        Ok(())
    }

    fn check_lengths(&self, len: u64, norm: &str, unit: &str) -> Result<(), DatatypeError> {
        let f = &self.0.facets;
        let shown = format_args!("{norm:?}");
        if let Some(n) = f.length {
            if len != n {
                return Err(facet_error(FacetKind::Length, format!("value {shown} has length {len} {unit}; expected length {n}")));
            }
        }
        if let Some(n) = f.min_length {
            if len < n {
                return Err(facet_error(FacetKind::MinLength, format!("value {shown} has length {len} {unit}, less than minLength {n}")));
            }
        }
        if let Some(n) = f.max_length {
            if len > n {
                return Err(facet_error(
                    FacetKind::MaxLength,
                    format!("value {shown} has length {len} {unit}, greater than maxLength {n}"),
                ));
            }
        }
        Ok(())
    }

    fn check_facets(&self, atom: &Atom<'_>, norm: &str, _v: Option<&Value>) -> Result<(), DatatypeError> {
        let f = &self.0.facets;
        if f.length.is_some() || f.min_length.is_some() || f.max_length.is_some() {
            if let Some(len) = atom.length() {
                let unit = if matches!(atom, Atom::Hex(..) | Atom::B64(..)) { "octets" } else { "characters" };
                self.check_lengths(len, norm, unit)?;
            }
        }
        self.check_patterns(norm)?;
        if let Some(e) = &f.enumeration {
            if !e.iter().any(|v| atom.eq_value(v)) {
                return Err(facet_error(FacetKind::Enumeration, format!("value {norm:?} is not one of the enumeration: {}", list_enum(e))));
            }
        }
        let shown = || match atom {
            Atom::Str(_) => format!("{norm:?}"),
            _ => norm.to_string(),
        };
        if let Some(b) = &f.max_inclusive {
            match atom.cmp_value(b) {
                Some(Ordering::Less | Ordering::Equal) => {}
                Some(_) => return Err(facet_error(FacetKind::MaxInclusive, format!("value {} is greater than maxInclusive {b}", shown()))),
                None => {
                    return Err(facet_error(FacetKind::MaxInclusive, format!("value {} is not comparable with maxInclusive {b}", shown())))
                }
            }
        }
        if let Some(b) = &f.max_exclusive {
            if atom.cmp_value(b) != Some(Ordering::Less) {
                return Err(facet_error(FacetKind::MaxExclusive, format!("value {} is not less than maxExclusive {b}", shown())));
            }
        }
        if let Some(b) = &f.min_inclusive {
            match atom.cmp_value(b) {
                Some(Ordering::Greater | Ordering::Equal) => {}
                Some(_) => return Err(facet_error(FacetKind::MinInclusive, format!("value {} is less than minInclusive {b}", shown()))),
                None => {
                    return Err(facet_error(FacetKind::MinInclusive, format!("value {} is not comparable with minInclusive {b}", shown())))
                }
            }
        }
        if let Some(b) = &f.min_exclusive {
            if atom.cmp_value(b) != Some(Ordering::Greater) {
                return Err(facet_error(FacetKind::MinExclusive, format!("value {} is not greater than minExclusive {b}", shown())));
            }
        }
        if let Atom::Dec(d) = atom {
            if let Some(n) = f.total_digits {
                let t = d.total_digits();
                if t > n {
                    return Err(facet_error(
                        FacetKind::TotalDigits,
                        format!("value {norm} has {t} total digits; expected at most totalDigits {n}"),
                    ));
                }
            }
            if let Some(n) = f.fraction_digits {
                let t = u64::from(d.scale());
                if t > n {
                    return Err(facet_error(
                        FacetKind::FractionDigits,
                        format!("value {norm} has {t} fraction digits; expected at most fractionDigits {n}"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn check_list_facets(&self, count: u64, norm: &str, value: Option<&Value>) -> Result<(), DatatypeError> {
        self.check_lengths(count, norm, "items")?;
        self.check_patterns(norm)?;
        if let (Some(e), Some(v)) = (&self.0.facets.enumeration, value) {
            if !e.contains(v) {
                return Err(facet_error(FacetKind::Enumeration, format!("value {norm:?} is not one of the enumeration: {}", list_enum(e))));
            }
        }
        Ok(())
    }

    fn check_union_facets(&self, norm: &str, value: Option<&Value>) -> Result<(), DatatypeError> {
        self.check_patterns(norm)?;
        if let (Some(e), Some(v)) = (&self.0.facets.enumeration, value) {
            if !e.contains(v) {
                return Err(facet_error(FacetKind::Enumeration, format!("value {norm:?} is not one of the enumeration: {}", list_enum(e))));
            }
        }
        Ok(())
    }
}

fn utf8(bytes: &[u8]) -> Result<&str, DatatypeError> {
    std::str::from_utf8(bytes).map_err(|e| {
        DatatypeError::new(DatatypeErrorKind::Lexical, format!("expected UTF-8 text; found an invalid byte at offset {}", e.valid_up_to()))
    })
}

#[cfg(test)]
mod tests;
