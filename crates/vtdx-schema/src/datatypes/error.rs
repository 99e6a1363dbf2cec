//! Errors of simple-type validation and of simple-type derivation.

use super::FacetKind;
use std::fmt;

/// What kind of rule a value broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DatatypeErrorKind {
    /// The (white-space normalized) text is not in the lexical space of the type
    /// (Part 2 §2.3, cvc-datatype-valid.1).
    Lexical,
    /// A constraining facet rejects the value (cvc-datatype-valid.2, cvc-facet-valid).
    Facet(FacetKind),
    /// A `QName` or `NOTATION` value uses a prefix with no namespace binding in scope
    /// (§3.2.18).
    UndeclaredPrefix,
    /// No member type of a union accepts the value (§2.5.1.3).
    NoUnionMember,
    /// An item of a list value is invalid (§2.5.1.2); the message names the item.
    ListItem,
    /// A value is outside what this implementation can represent (e.g. a year beyond
    /// the 64-bit range).
    Limit,
}

/// A value that is not valid for a simple type.
///
/// The message says what was expected and what was found, e.g.
/// `"12a" is not a valid value of type decimal` or `value 120 is greater than maxInclusive 100`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatatypeError {
    kind: DatatypeErrorKind,
    message: String,
}

impl DatatypeError {
    /// Builds an error (the message lowercase, without trailing period).
    pub fn new(kind: DatatypeErrorKind, message: impl Into<String>) -> Self {
        DatatypeError { kind, message: message.into() }
    }

    /// The rule broken.
    pub fn kind(&self) -> DatatypeErrorKind {
        self.kind
    }

    /// The facet that rejected the value, if a facet did.
    pub fn facet(&self) -> Option<FacetKind> {
        match self.kind {
            DatatypeErrorKind::Facet(f) => Some(f),
            _ => None,
        }
    }

    /// The message, as `Display` prints it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for DatatypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DatatypeError {}

/// A simple type definition that cannot be built: a facet that does not apply to the
/// base type, an invalid facet value, a facet that loosens the base's or changes a fixed
/// one, an inconsistent pair of facets, or an invalid list or union definition
/// (XSD 1.0 Part 2 §4.1.3 and the facet constraints of §4.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FacetError {
    facet: Option<FacetKind>,
    message: String,
}

impl FacetError {
    /// Builds an error about `facet` (or about the definition as a whole when `None`).
    pub fn new(facet: Option<FacetKind>, message: impl Into<String>) -> Self {
        FacetError { facet, message: message.into() }
    }

    /// The facet at fault, if the error is about one.
    pub fn facet(&self) -> Option<FacetKind> {
        self.facet
    }

    /// The message, as `Display` prints it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for FacetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FacetError {}
