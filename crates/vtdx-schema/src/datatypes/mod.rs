//! XML Schema 1.0 simple types (XSD 1.0 Part 2: Datatypes).
//!
//! A [`SimpleType`] is a cheap, shareable (`Arc`), `Send + Sync` handle on a simple type
//! definition: one of the built-in types ([`SimpleType::builtin`]), or a type derived from
//! one by restriction ([`restrict`]), by list ([`list`]) or by union ([`union`]).
//!
//! [`SimpleType::validate`] applies the type's `whiteSpace` facet, then checks the lexical
//! form and every facet, and returns the typed [`Value`]. [`SimpleType::check`] does the same
//! without building the value and, for the common types, without allocating.
//!
//! ```
//! use vtdx_schema::datatypes::{restrict, Builtin, FacetKind, FacetSpec, NoNamespaces, SimpleType};
//!
//! let decimal = SimpleType::builtin(Builtin::Decimal);
//! let price = restrict(
//!     &decimal,
//!     &[FacetSpec::new(FacetKind::MaxInclusive, "100"), FacetSpec::new(FacetKind::FractionDigits, "2")],
//!     &NoNamespaces,
//! )
//! .unwrap();
//! assert!(price.check(" 99.50 ", &NoNamespaces).is_ok());
//! let err = price.check("120", &NoNamespaces).unwrap_err();
//! assert_eq!(err.to_string(), "value 120 is greater than maxInclusive 100");
//! assert_eq!(
//!     decimal.check("12a", &NoNamespaces).unwrap_err().to_string(),
//!     "\"12a\" is not a valid value of type decimal"
//! );
//! ```
//!
//! Value-space rules follow XSD 1.0 Second Edition: decimals compare exactly at any length
//! (`1.0` equals `1`); float and double follow the Second Edition (§3.2.4, §3.2.5): `-0` is
//! zero, `NaN` equals itself and is incomparable with every other value, so a bound facet
//! excludes it; date/time values with and without a time
//! zone are partially ordered with the ±14:00 rule (§3.2.7.4); durations are partially ordered
//! by the four reference dateTimes (§3.2.6.2).

mod binary;
mod builtins;
mod datetime;
mod decimal;
mod error;
mod facets;
pub(crate) mod fast;
mod lexical;
mod simple;
mod value;
mod whitespace;

pub use builtins::{Builtin, Primitive};
pub use datetime::{DateTime, DateTimeKind, Duration};
pub use decimal::Decimal;
pub use error::{DatatypeError, DatatypeErrorKind, FacetError};
pub use facets::{FacetKind, FacetSpec, Facets};
pub use simple::{list, restrict, restrict_with, union, DerivationLimits, SimpleType, Variety};
pub use value::Value;
pub use whitespace::WhiteSpace;

/// Resolves namespace prefixes for `QName` and `NOTATION` values (XSD 1.0 Part 2 §3.2.18).
///
/// The caller provides the in-scope namespaces of the element where the value stands.
pub trait NsResolver {
    /// The namespace URI bound to `prefix`, or `None` when the prefix is not declared.
    ///
    /// The empty prefix asks for the default namespace (`None`: no default namespace,
    /// and an unprefixed QName then has no namespace). The prefix `xml` need not be
    /// handled: it is always bound to `http://www.w3.org/XML/1998/namespace`.
    fn resolve(&self, prefix: &str) -> Option<&str>;
}

/// A resolver with no namespace declarations in scope (only the `xml` prefix is bound).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoNamespaces;

impl NsResolver for NoNamespaces {
    fn resolve(&self, _prefix: &str) -> Option<&str> {
        None
    }
}

/// A resolver over a list of `(prefix, namespace URI)` pairs; later pairs win.
#[derive(Debug, Clone, Default)]
pub struct NsMap(pub Vec<(String, String)>);

impl NsResolver for NsMap {
    fn resolve(&self, prefix: &str) -> Option<&str> {
        self.0.iter().rev().find(|(p, _)| p == prefix).map(|(_, u)| u.as_str())
    }
}

/// The namespace of the built-in types: `http://www.w3.org/2001/XMLSchema`.
pub const XSD_NAMESPACE: &str = "http://www.w3.org/2001/XMLSchema";

/// The namespace bound to the prefix `xml`.
pub const XML_NAMESPACE: &str = "http://www.w3.org/XML/1998/namespace";
