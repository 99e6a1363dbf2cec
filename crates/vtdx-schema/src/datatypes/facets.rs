//! Constraining facets (XSD 1.0 Part 2 §4.3) and their validity in derivation by
//! restriction.

use super::{Value, WhiteSpace};
use crate::regex::XsdRegex;

/// The twelve constraining facets of XSD 1.0 (§4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FacetKind {
    /// `length` (§4.3.1).
    Length,
    /// `minLength` (§4.3.2).
    MinLength,
    /// `maxLength` (§4.3.3).
    MaxLength,
    /// `pattern` (§4.3.4).
    Pattern,
    /// `enumeration` (§4.3.5).
    Enumeration,
    /// `whiteSpace` (§4.3.6).
    WhiteSpace,
    /// `maxInclusive` (§4.3.7).
    MaxInclusive,
    /// `maxExclusive` (§4.3.8).
    MaxExclusive,
    /// `minExclusive` (§4.3.9).
    MinExclusive,
    /// `minInclusive` (§4.3.10).
    MinInclusive,
    /// `totalDigits` (§4.3.11).
    TotalDigits,
    /// `fractionDigits` (§4.3.12).
    FractionDigits,
}

impl FacetKind {
    /// Every facet.
    pub const ALL: [FacetKind; 12] = [
        FacetKind::Length,
        FacetKind::MinLength,
        FacetKind::MaxLength,
        FacetKind::Pattern,
        FacetKind::Enumeration,
        FacetKind::WhiteSpace,
        FacetKind::MaxInclusive,
        FacetKind::MaxExclusive,
        FacetKind::MinExclusive,
        FacetKind::MinInclusive,
        FacetKind::TotalDigits,
        FacetKind::FractionDigits,
    ];

    /// The facet's element name in a schema (`minInclusive`, ...).
    pub fn name(self) -> &'static str {
        match self {
            FacetKind::Length => "length",
            FacetKind::MinLength => "minLength",
            FacetKind::MaxLength => "maxLength",
            FacetKind::Pattern => "pattern",
            FacetKind::Enumeration => "enumeration",
            FacetKind::WhiteSpace => "whiteSpace",
            FacetKind::MaxInclusive => "maxInclusive",
            FacetKind::MaxExclusive => "maxExclusive",
            FacetKind::MinExclusive => "minExclusive",
            FacetKind::MinInclusive => "minInclusive",
            FacetKind::TotalDigits => "totalDigits",
            FacetKind::FractionDigits => "fractionDigits",
        }
    }

    /// The facet with this element name.
    pub fn from_local_name(name: &str) -> Option<FacetKind> {
        FacetKind::ALL.into_iter().find(|f| f.name() == name)
    }
}

impl std::fmt::Display for FacetKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One facet of a `<restriction>` as written in the schema: its kind, its `value`
/// attribute (unnormalized) and its `fixed` attribute. Several `pattern` or `enumeration`
/// specs in one restriction form one facet (patterns: any may match; enumeration: a set).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FacetSpec {
    /// The facet.
    pub kind: FacetKind,
    /// The `value` attribute as written.
    pub value: String,
    /// The `fixed` attribute (`false` when absent).
    pub fixed: bool,
}

impl FacetSpec {
    /// A facet with `fixed="false"`.
    pub fn new(kind: FacetKind, value: impl Into<String>) -> FacetSpec {
        FacetSpec { kind, value: value.into(), fixed: false }
    }

    /// The same facet with `fixed="true"`.
    pub fn fixed(mut self) -> FacetSpec {
        self.fixed = true;
        self
    }
}

/// The effective facets of a simple type: those it sets and those it inherits.
#[derive(Debug, Clone, Default)]
pub struct Facets {
    pub(crate) length: Option<u64>,
    pub(crate) min_length: Option<u64>,
    pub(crate) max_length: Option<u64>,
    /// One entry per derivation step that has patterns; each step's patterns are ORed,
    /// the steps ANDed (§4.3.4.4).
    pub(crate) patterns: Vec<Vec<XsdRegex>>,
    pub(crate) enumeration: Option<Vec<Value>>,
    pub(crate) whitespace: Option<WhiteSpace>,
    pub(crate) max_inclusive: Option<Value>,
    pub(crate) max_exclusive: Option<Value>,
    pub(crate) min_inclusive: Option<Value>,
    pub(crate) min_exclusive: Option<Value>,
    pub(crate) total_digits: Option<u64>,
    pub(crate) fraction_digits: Option<u64>,
    /// Facets set with `fixed="true"` somewhere in the derivation.
    pub(crate) fixed: Vec<FacetKind>,
}

impl Facets {
    /// `length`.
    pub fn length(&self) -> Option<u64> {
        self.length
    }
    /// `minLength`.
    pub fn min_length(&self) -> Option<u64> {
        self.min_length
    }
    /// `maxLength`.
    pub fn max_length(&self) -> Option<u64> {
        self.max_length
    }
    /// The pattern sources, one group per derivation step (each group's patterns are
    /// alternatives; every group must match).
    pub fn patterns(&self) -> Vec<Vec<&str>> {
        self.patterns.iter().map(|g| g.iter().map(XsdRegex::as_str).collect()).collect()
    }
    /// The enumeration's values, in schema order.
    pub fn enumeration(&self) -> Option<&[Value]> {
        self.enumeration.as_deref()
    }
    /// The `whiteSpace` facet set on the type or inherited.
    pub fn whitespace(&self) -> Option<WhiteSpace> {
        self.whitespace
    }
    /// `maxInclusive`.
    pub fn max_inclusive(&self) -> Option<&Value> {
        self.max_inclusive.as_ref()
    }
    /// `maxExclusive`.
    pub fn max_exclusive(&self) -> Option<&Value> {
        self.max_exclusive.as_ref()
    }
    /// `minInclusive`.
    pub fn min_inclusive(&self) -> Option<&Value> {
        self.min_inclusive.as_ref()
    }
    /// `minExclusive`.
    pub fn min_exclusive(&self) -> Option<&Value> {
        self.min_exclusive.as_ref()
    }
    /// `totalDigits`.
    pub fn total_digits(&self) -> Option<u64> {
        self.total_digits
    }
    /// `fractionDigits`.
    pub fn fraction_digits(&self) -> Option<u64> {
        self.fraction_digits
    }
    /// Whether `kind` is fixed (`fixed="true"`) in this type or an ancestor.
    pub fn is_fixed(&self, kind: FacetKind) -> bool {
        self.fixed.contains(&kind)
    }
}
