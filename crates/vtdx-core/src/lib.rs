//! # vtdx-core
//!
//! A non-extractive XML 1.0 parser. The document stays as bytes; a compact
//! token index (the *tape*, see `docs/index-format.md`) describes its
//! structure. Nothing is copied or decoded until someone asks: names are
//! interned symbols, text and attribute values are decoded lazily and borrowed
//! when no decoding is needed.
//!
//! ```
//! use vtdx_core::Document;
//!
//! let doc = Document::parse(br#"<po xmlns="urn:po"><item n="1">Can</item></po>"#)?;
//! let item = doc.root_element().first_element_child().unwrap();
//! assert_eq!(item.local_name(), "item");
//! assert_eq!(item.namespace_uri(), Some("urn:po"));
//! assert_eq!(item.attribute("n").as_deref(), Some("1"));
//! assert_eq!(item.text().as_deref(), Some("Can"));
//! # Ok::<(), vtdx_core::Error>(())
//! ```
//!
//! Parsing checks full well-formedness (XML 1.0 Fifth Edition) and namespace
//! well-formedness (Namespaces in XML 1.0). External entities and external DTD
//! subsets are never fetched. Limits on depth, attributes, name length,
//! document size and entity expansion are on by default ([`Limits`]).
//!
//! Besides [`Document`], [`Node`] and the [`Editor`], a few expert modules serve
//! the crates built on the core (XPath, canonical XML, signatures, the CLI and
//! the Python bindings), so that each primitive has one definition:
//!
//! * [`tape`]: the token index's record layout and its one typed reader
//!   (`docs/index-format.md`);
//! * [`xml`]: the predefined entities, text decoding straight from the
//!   document's bytes (references resolved, internal entities expanded, line
//!   ends normalized), the writer of a namespace declaration, and
//!   [`xml::is_textish`] (is a node a text node or a CDATA section);
//! * [`dtd`]: the document type declaration model and attribute-value
//!   normalization;
//! * [`input`]: encoding detection, transcoding and the `Char` check;
//! * [`debug`]: the index dump of `vtdx debug index`.

#![deny(unsafe_code)]
#![warn(missing_docs)]

mod assemble;
mod chars;
pub mod debug;
mod document;
pub mod dtd;
mod edit;
mod error;
#[cfg(all(feature = "mmap", target_os = "linux"))]
mod hugepage;
mod index;
pub mod input;
mod names;
mod options;
mod parser;
pub mod tape;
mod template;
mod text;
mod write;
pub mod xml;

pub use assemble::{Assembler, InputEncoding, Piece};
pub use chars::{is_name, is_name_char, is_name_start_char, is_xml_char};
pub use document::{Children, DescendantElements, Descendants, Document, EntityExpansion, Node, NodeId, NodeKind, RecordCounts};
pub use edit::{escape_attr, escape_text, EditError, Editor};
pub use error::{line_column, Error, ErrorKind, LimitKind};
pub use input::SourceEncoding;
pub use names::{has_uri_scheme, BuildFx, Names, NsId, Sym, NS_NONE, NS_XML, NS_XMLNS, XMLNS_NAMESPACE, XML_NAMESPACE};
pub use options::{ExternalPolicy, Limits, ParseOptions, PARALLEL_CHECK_MIN_BYTES, PARALLEL_PARSE_MIN_BYTES};
#[cfg(feature = "test-hooks")]
#[doc(hidden)]
pub use parser::__force_split;
pub use parser::{Parser, XmlDecl};
pub use template::{TemplateCache, TemplateConfig, TemplateStats};
pub use write::write_pretty;
