//! # vtdx
//!
//! A high-performance XML toolkit for web-service messages and documents.
//! The input stays as bytes; a compact token index describes it, so parsing
//! is fast and memory stays close to the document's own size.
//!
//! This facade is what most users depend on. It re-exports the core parser
//! and navigation API of [`vtdx_core`].
//!
//! ```
//! let doc = vtdx::Document::parse(b"<order><item qty='2'>Can</item></order>")?;
//! for item in doc.root_element().element_children() {
//!     println!("{} x{}", item.text().unwrap_or_default(), item.attribute("qty").unwrap_or_default());
//! }
//! # Ok::<(), vtdx::Error>(())
//! ```

#![forbid(unsafe_code)]

pub use vtdx_core::{
    dtd, escape_attr, escape_text, input, is_name, line_column, write_pretty, Children, Descendants, Document, EditError, Editor, Error,
    ErrorKind, ExternalPolicy, LimitKind, Limits, Node, NodeId, NodeKind, ParseOptions, Parser, SourceEncoding, XmlDecl,
};

/// The core crate, for the expert-level API (token tape, name tables).
pub use vtdx_core as core;

/// XPath 1.0 on the token index: [`XPath`] compiles once and evaluates on any document.
pub use vtdx_xpath as xpath;
pub use vtdx_xpath::{Value, XPath, XPathError};

/// Canonical XML 1.0/1.1 and Exclusive XML Canonicalization straight from the index: [`c14n::Canonicalizer`].
pub use vtdx_c14n as c14n;

/// The README's examples, run as doctests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
