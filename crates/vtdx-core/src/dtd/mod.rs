//! The document type declaration: `<!DOCTYPE ...>` and its internal subset
//! (XML 1.0 Fifth Edition §2.8, §3.2–§3.4, §4.1–§4.7), and attribute-value
//! normalization (§3.3.3).
//!
//! The internal subset is checked against the full grammar of markup
//! declarations (element type, attribute-list, entity and notation
//! declarations, processing instructions and comments) and the
//! well-formedness constraints that apply to it. Content models are checked
//! but not recorded. Entity, attribute-list and notation declarations are
//! recorded in a [`Dtd`].
//!
//! An external subset or external parameter entity is never fetched. Following
//! §5.1, once a reference to a parameter entity that is not read (external or
//! undeclared) has been seen, later entity and attribute-list declarations are
//! still checked but no longer recorded (unless the document is standalone),
//! and [`Dtd::skipped_declarations`] is set.
//!
//! Replacement texts ([`EntityValue::Internal`]) are stored with line ends
//! already normalized (§2.11): a literal CR LF pair or lone CR in the entity
//! value becomes one LF, while a CR produced by a character reference such as
//! `&#13;` is kept as CR. Consumers must therefore not normalize line ends in
//! replacement text again.
//!
//! The module holds one concern per file: `model` (the [`Dtd`] and its
//! declarations, with name lookups), `normalize` (attribute-value
//! normalization and the [`ExpansionBudget`]) and `doctype` (the parser,
//! [`parse_doctype`]).

mod doctype;
mod model;
mod normalize;
#[cfg(test)]
mod tests;

pub use doctype::parse_doctype;
pub use model::{AttDecl, AttDefault, AttType, Dtd, DtdIndex, EntityDecl, EntityValue, NotationDecl};
pub(crate) use normalize::PREDEFINED;
pub use normalize::{normalize_attribute_value, ExpansionBudget};
