//! # vtdx-schema
//!
//! XML Schema 1.0 validation over the vtdx token index.
//!
//! A schema set is loaded from local files (`include`, `import`, `redefine`
//! resolved relative to the including document, nothing fetched), checked
//! against the constraints of XML Schema 1.0 Part 1, and compiled: content
//! models to deterministic automata over interned names, simple types to
//! lexical checks ([`datatypes`]). A compiled [`Schema`] is `Send + Sync` and
//! validates any number of documents, each in one walk over its token index,
//! reporting every error with line, column, byte offset and element path.
//!
//! ```
//! use vtdx_schema::Schema;
//!
//! let schema = Schema::from_bytes("po.xsd", br#"
//! <xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
//!   <xs:element name="order">
//!     <xs:complexType>
//!       <xs:sequence>
//!         <xs:element name="item" maxOccurs="unbounded" type="xs:string"/>
//!         <xs:element name="total" type="xs:decimal"/>
//!       </xs:sequence>
//!     </xs:complexType>
//!   </xs:element>
//! </xs:schema>"#)?;
//! let doc = vtdx_core::Document::parse(b"<order><item>a</item><comment/></order>").unwrap();
//! let v = schema.validate(&doc);
//! assert_eq!(v.errors()[0].path, "/order/comment");
//! assert_eq!(
//!     v.errors()[0].message,
//!     "unexpected element <comment>: expected one of <item>, <total> (cvc-complex-type.2.4)"
//! );
//!
//! let doc = vtdx_core::Document::parse(b"<order><item>a</item><total>9.50</total></order>").unwrap();
//! let v = schema.validate(&doc);
//! assert!(v.is_valid());
//! let total = doc.root_element().last_child().unwrap();
//! assert_eq!(v.typed_value(total).unwrap().to_string(), "9.5");
//! # Ok::<(), vtdx_schema::SchemaError>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod datatypes;
pub mod regex;

mod automaton;
mod build;
mod build_decl;
mod counted;
mod error;
mod load;
mod model;
mod restriction;
mod schema;
mod sfs;
mod simple;
mod validate;

pub use error::{Location, SchemaError, SchemaErrorKind, ValidationError, ValidationErrorKind};
pub use load::{XS as XSD_NAMESPACE, XSI as XSI_NAMESPACE};
pub use schema::{HintScope, Schema, SchemaBuilder, SchemaLimits, ValidateOptions};
pub use validate::Validation;
