//! Errors of schema loading ([`SchemaError`]) and of instance validation
//! ([`ValidationError`]): a message that says what was expected and what was
//! found, and where (file, 1-based line and column, byte offset).

use std::fmt;

/// A position in a schema document or an instance.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location {
    /// The file as the caller named it (or as an `include`/`import` resolved it); empty for
    /// in-memory sources without a name.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// Byte offset into the (UTF-8) text.
    pub offset: u64,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// What kind of problem made a schema unusable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaErrorKind {
    /// A file could not be read.
    Io,
    /// A schema document is not well-formed XML.
    NotWellFormed,
    /// A `schemaLocation` names a remote resource (`http:`, `https:`, ...): nothing is fetched.
    RemoteLocation,
    /// The document is not a schema (`xs:schema` expected), or a schema element
    /// or attribute is not allowed where it stands (the schema-for-schemas).
    Structure,
    /// A reference (`ref`, `type`, `base`, `substitutionGroup`, `refer`, ...) names no component.
    Unresolved,
    /// Two global components of one kind share a name.
    Duplicate,
    /// A schema component constraint of XML Schema 1.0 Part 1 §3 is violated
    /// (derivation, Unique Particle Attribution, circular definitions, ...).
    Constraint,
    /// A simple type definition or facet is invalid (Part 2).
    SimpleType,
    /// A configured limit was exceeded (content model size, nesting depth, ...).
    Limit,
}

/// A schema that cannot be loaded or is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// What kind of problem.
    pub kind: SchemaErrorKind,
    /// What was expected and what was found.
    pub message: String,
    /// Where in which schema document (file, line, column, byte offset).
    pub location: Location,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

impl std::error::Error for SchemaError {}

/// What kind of validity problem an instance has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ValidationErrorKind {
    /// The document is not well-formed (reported by the parser; only through the
    /// file-level helpers).
    NotWellFormed,
    /// The root element has no global declaration, or an element is not allowed by its
    /// parent's content model (cvc-complex-type.2.4, cvc-elt.1).
    Content,
    /// A required element is missing at the end of a content model.
    Missing,
    /// An attribute is not declared, missing, prohibited or has a wrong fixed value
    /// (cvc-complex-type.3, cvc-au).
    Attribute,
    /// Character data where none is allowed, or a simple value that is not valid for its
    /// type (cvc-datatype-valid, cvc-complex-type.2.1/2.2/2.3).
    Value,
    /// `xsi:type`, `xsi:nil`, abstract or blocked elements and types (cvc-elt, cvc-type).
    Type,
    /// `unique`, `key` or `keyref` (cvc-identity-constraint), or ID/IDREF (cvc-id).
    Identity,
    /// A configured limit was reached (error count, identity table size).
    Limit,
}

/// One validity error of an instance document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationError {
    /// What kind of problem.
    pub kind: ValidationErrorKind,
    /// What was expected and what was found.
    pub message: String,
    /// Where (file left empty unless the caller named the document).
    pub location: Location,
    /// The element path, e.g. `/po:purchaseOrder/items/item[3]/quantity`; an attribute
    /// ends in `/@name`.
    pub path: String,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

impl std::error::Error for ValidationError {}
