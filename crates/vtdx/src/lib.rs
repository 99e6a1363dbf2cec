//! # vtdx
//!
//! A high-performance XML toolkit for web-service messages and documents.
//! The input stays as bytes; a compact token index describes it, so parsing
//! is fast and memory stays close to the document's own size.
//!
//! This facade is what most users depend on. It re-exports the parser,
//! navigation and editing API of [`vtdx_core`] at its root, XPath 1.0 as
//! [`xpath`] ([`XPath`] at the root), Canonical XML as [`c14n`], and, with the
//! feature `dsig`, XML Signature verification as `dsig`. The expert-level API
//! (the token tape, the name tables) is under [`core`].
//!
//! ```
//! let doc = vtdx::Document::parse(b"<order><item qty='2'>Can</item></order>")?;
//! for item in doc.root_element().element_children() {
//!     println!("{} x{}", item.text().unwrap_or_default(), item.attribute("qty").unwrap_or_default());
//! }
//! # Ok::<(), vtdx::Error>(())
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub use vtdx_core::{
    dtd, escape_attr, escape_text, input, is_name, line_column, write_pretty, Children, Descendants, Document, EditError, Editor, Error,
    ErrorKind, ExternalPolicy, LimitKind, Limits, Node, NodeId, NodeKind, ParseOptions, Parser, SourceEncoding, TemplateCache,
    TemplateConfig, TemplateStats, XmlDecl,
};

/// The core crate, for the expert-level API (token tape, name tables).
pub use vtdx_core as core;

/// XPath 1.0 on the token index: [`XPath`] compiles once and evaluates on any document.
pub use vtdx_xpath as xpath;
pub use vtdx_xpath::{Value, XPath, XPathError};

/// Canonical XML 1.0/1.1 and Exclusive XML Canonicalization straight from the index: [`c14n::Canonicalizer`].
pub use vtdx_c14n as c14n;

/// XML Signature verification with the caller's keys and the verified view (feature `dsig`).
#[cfg(feature = "dsig")]
pub use vtdx_dsig as dsig;

/// The packed binary form with an exact round trip, decoded straight into the index (feature `binary`).
#[cfg(feature = "binary")]
pub use vtdx_binary as binary;

/// The README's and `docs/*.md`'s Rust examples, run as doctests (non-Rust blocks are
/// marked `text`, `sh`, `xml`...; rustdoc runs every other fenced block).
#[cfg(doctest)]
mod docs {
    #[doc = include_str!("../../../README.md")]
    pub struct Readme;
    #[doc = include_str!("../../../docs/c14n.md")]
    pub struct C14n;
    #[doc = include_str!("../../../docs/editing.md")]
    pub struct Editing;
    #[doc = include_str!("../../../docs/index-format.md")]
    pub struct IndexFormat;
    #[doc = include_str!("../../../docs/parsing.md")]
    pub struct Parsing;
    #[doc = include_str!("../../../docs/xpath.md")]
    pub struct XPath;
    #[doc = include_str!("../../../docs/template-cache.md")]
    pub struct TemplateCache;
    #[doc = include_str!("../../../docs/conformance.md")]
    pub struct Conformance;
    #[doc = include_str!("../../../docs/security.md")]
    pub struct Security;
}
