//! The compiled schema: building it from files or bytes, its limits, and the
//! entry points of validation.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use vtdx_core::{Document, ParseOptions};

use crate::automaton::{self, Automaton, AutomatonLimits, CompileError};
use crate::build::{Builder, Components};
use crate::error::{SchemaError, SchemaErrorKind};
use crate::load::{self, Hint, LoadLimits, Source};
use crate::model::*;
use crate::validate::{Validation, Validator};

/// Limits that bound what a schema may cost to load and compile. All are on by
/// default; raise them for very large schemas.
#[derive(Debug, Clone)]
pub struct SchemaLimits {
    /// Schema documents in one set (includes, imports and redefines counted).
    pub max_documents: usize,
    /// Positions (element and wildcard occurrences after expanding occurrence ranges)
    /// in one content model compiled to a deterministic automaton, and particles in one
    /// content model run with counters.
    pub max_positions: usize,
    /// Content models whose expansion needs at most this many positions are compiled to
    /// a deterministic automaton; larger ones (large `minOccurs` / `maxOccurs`) are run
    /// with occurrence counters, at a cost independent of the counts.
    pub max_expanded_positions: usize,
    /// Configurations (leaf particle and counts) one step of a content model run with
    /// counters may keep; an instance that needs more gets a `Limit` error.
    pub max_counter_configs: usize,
    /// Transitions of one content model's position automaton.
    pub max_edges: usize,
    /// States of one content model's deterministic automaton.
    pub max_states: usize,
    /// Total size of the position sets of one content model's deterministic automaton
    /// (bounds compile time for nested occurrence ranges such as `(a{1,10}|b){1,99}`).
    pub max_dfa_work: usize,
    /// Nesting depth of schema components (anonymous types, groups, particles).
    pub max_depth: u32,
    /// Parse options for schema documents (secure defaults: nothing external).
    pub parse: ParseOptions,
}

impl Default for SchemaLimits {
    fn default() -> Self {
        SchemaLimits {
            max_documents: 1000,
            max_positions: 250_000,
            max_expanded_positions: 4096,
            max_counter_configs: 64,
            max_edges: 4_000_000,
            max_states: 250_000,
            max_dfa_work: 2_000_000,
            max_depth: 256,
            parse: ParseOptions::default(),
        }
    }
}

/// Options of one validation run.
#[derive(Debug, Clone)]
pub struct ValidateOptions {
    /// Stop after this many errors (the last one says so). Default 1000.
    pub max_errors: usize,
    /// Keep the typed value of every validated simple content and attribute
    /// ([`Validation::typed_value`]). Default `true`.
    pub typed_values: bool,
    /// Rows of one identity-constraint table (unique, key, keyref). Default 1,000,000.
    pub max_identity_rows: usize,
    /// Element nesting depth the validator follows. Default 10,000.
    pub max_depth: usize,
    /// The name reported as the file of each error (empty by default).
    pub file: String,
}

impl Default for ValidateOptions {
    fn default() -> Self {
        ValidateOptions { max_errors: 1000, typed_values: true, max_identity_rows: 1_000_000, max_depth: 10_000, file: String::new() }
    }
}

/// Builds a [`Schema`] from one or more schema documents.
///
/// ```
/// use vtdx_schema::SchemaBuilder;
/// let xsd = br#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
///   <xs:element name="qty" type="xs:positiveInteger"/>
/// </xs:schema>"#;
/// let schema = SchemaBuilder::new().source("qty.xsd", xsd.to_vec()).build()?;
/// let doc = vtdx_core::Document::parse(b"<qty>0</qty>").unwrap();
/// let v = schema.validate(&doc);
/// assert!(!v.is_valid());
/// assert_eq!(v.errors()[0].location.line, 1);
/// # Ok::<(), vtdx_schema::SchemaError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct SchemaBuilder {
    sources: Vec<Source>,
    hints: Vec<Hint>,
    limits: SchemaLimits,
}

/// Which elements of an instance document [`SchemaBuilder::schema_location_hints`]
/// reads `xsi:schemaLocation` and `xsi:noNamespaceSchemaLocation` from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HintScope {
    /// The document element only (the common case, and what the CLI uses).
    #[default]
    DocumentElement,
    /// Every element, in document order (XML Schema 1.0 §4.3.2 allows hints anywhere).
    AllElements,
}

impl SchemaBuilder {
    /// An empty builder with default limits.
    pub fn new() -> SchemaBuilder {
        SchemaBuilder::default()
    }

    /// Adds a schema document read from `path`; its includes and imports resolve
    /// relative to its directory.
    pub fn file(mut self, path: impl AsRef<Path>) -> SchemaBuilder {
        self.sources.push(Source::File(path.as_ref().to_path_buf()));
        self
    }

    /// Adds a schema document given as bytes; `name` is reported in errors. Relative
    /// locations in it resolve against the current directory (see [`SchemaBuilder::source_in`]).
    pub fn source(mut self, name: &str, bytes: Vec<u8>) -> SchemaBuilder {
        self.sources.push(Source::Bytes { name: name.to_string(), bytes, base: None });
        self
    }

    /// Adds a schema document given as bytes whose relative locations resolve in `dir`.
    pub fn source_in(mut self, name: &str, bytes: Vec<u8>, dir: impl Into<PathBuf>) -> SchemaBuilder {
        self.sources.push(Source::Bytes { name: name.to_string(), bytes, base: Some(dir.into()) });
        self
    }

    /// Opts in to the schema location hints of an instance document: adds the schema
    /// documents that its `xsi:schemaLocation` (namespace and location pairs) and
    /// `xsi:noNamespaceSchemaLocation` attributes name, on the elements `scope` says.
    ///
    /// Locations are resolved only as local paths relative to `base` (normally the
    /// instance's directory); `../` and absolute paths are allowed, as for `xs:include`,
    /// but a location with a URI scheme other than `file:` (`http:`, `https:`, ...) is a
    /// [`SchemaErrorKind::RemoteLocation`] error at the hint: nothing is fetched. `name`
    /// is the instance's name in errors. A hint is used only when no schema document
    /// loaded before it (those the caller gave, what they import, and earlier hints) has
    /// its namespace as target namespace; its document must have that target namespace.
    /// A hint that names no readable file is an [`SchemaErrorKind::Io`] error when the
    /// schema is built. Parsing and limits are those of every schema load.
    ///
    /// ```
    /// use vtdx_schema::{HintScope, SchemaBuilder, SchemaErrorKind};
    /// let doc = vtdx_core::Document::parse(
    ///     br#"<a xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    ///            xsi:noNamespaceSchemaLocation="http://example.com/a.xsd"/>"#,
    /// ).unwrap();
    /// let e = SchemaBuilder::new().schema_location_hints(&doc, "a.xml", ".", HintScope::DocumentElement).unwrap_err();
    /// assert_eq!(e.kind, SchemaErrorKind::RemoteLocation);
    /// assert_eq!((e.location.line, e.location.column), (2, 12));
    /// ```
    pub fn schema_location_hints(
        mut self,
        doc: &Document<'_>,
        name: &str,
        base: impl AsRef<Path>,
        scope: HintScope,
    ) -> Result<SchemaBuilder, SchemaError> {
        let hints = load::instance_hints(doc, name, base.as_ref(), scope == HintScope::AllElements)?;
        self.hints.extend(hints);
        Ok(self)
    }

    /// Replaces the limits.
    pub fn limits(mut self, limits: SchemaLimits) -> SchemaBuilder {
        self.limits = limits;
        self
    }

    /// Loads, checks and compiles the schema set.
    pub fn build(self) -> Result<Schema, SchemaError> {
        let loaded = load::load(
            &self.sources,
            &self.hints,
            &LoadLimits { max_documents: self.limits.max_documents, parse: self.limits.parse.clone() },
        )?;
        for doc in &loaded.docs {
            crate::sfs::check_document(doc, self.limits.max_depth)?;
        }
        let mut b = Builder::new(&loaded.docs);
        b.max_depth = self.limits.max_depth;
        b.collect()?;
        b.build_all()?;
        let mut c = b.c;
        let alimits = AutomatonLimits {
            max_positions: self.limits.max_positions,
            max_edges: self.limits.max_edges,
            max_states: self.limits.max_states,
            max_work: self.limits.max_dfa_work,
            max_expanded: self.limits.max_expanded_positions,
            max_configs: self.limits.max_counter_configs,
        };
        let mut automata = Vec::new();
        for t in 0..c.types.len() {
            crate::restriction::check(&c, t as TypeId)?;
            let compiled = {
                let td = &c.types[t];
                let TypeBody::Complex(cd) = &td.body else { continue };
                let Content::Elements { particle, .. } = &cd.content else { continue };
                match automaton::compile(&c, particle, alimits) {
                    Ok(a) => a,
                    Err(CompileError::Limit(m)) => {
                        return Err(SchemaError { kind: SchemaErrorKind::Limit, message: m, location: td.loc.clone() })
                    }
                    Err(CompileError::Constraint(m)) => {
                        return Err(SchemaError { kind: SchemaErrorKind::Constraint, message: m, location: td.loc.clone() })
                    }
                }
            };
            let idx = automata.len() as u32;
            automata.push(compiled);
            if let TypeBody::Complex(ComplexDef { content: Content::Elements { automaton, .. }, .. }) = &mut c.types[t].body {
                *automaton = idx;
            }
        }
        let referenced: HashSet<IcId> = c.ics.iter().filter_map(|i| if let IcKind::KeyRef(r) = i.kind { Some(r) } else { None }).collect();
        Ok(Schema { c, automata, referenced, warnings: loaded.warnings })
    }
}

/// A compiled schema set: `Send + Sync`, reusable for any number of documents
/// on any number of threads.
pub struct Schema {
    pub(crate) c: Components,
    pub(crate) automata: Vec<Automaton>,
    /// Key and unique constraints that some keyref refers to (their tables bubble up).
    pub(crate) referenced: HashSet<IcId>,
    warnings: Vec<SchemaError>,
}

impl std::fmt::Debug for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schema")
            .field("elements", &self.c.global_elements.len())
            .field("types", &self.c.types.len())
            .field("automata", &self.automata.len())
            .finish()
    }
}

impl Schema {
    /// Loads and compiles the schema document at `path` with default limits.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Schema, SchemaError> {
        SchemaBuilder::new().file(path).build()
    }

    /// Loads and compiles several schema documents as one set.
    pub fn from_files<P: AsRef<Path>>(paths: &[P]) -> Result<Schema, SchemaError> {
        paths.iter().fold(SchemaBuilder::new(), |b, p| b.file(p)).build()
    }

    /// Compiles a schema given as bytes (relative locations resolve against the
    /// current directory).
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<Schema, SchemaError> {
        SchemaBuilder::new().source(name, bytes.to_vec()).build()
    }

    /// Loads and compiles the schema that the instance document at `path` names in the
    /// `xsi:schemaLocation` / `xsi:noNamespaceSchemaLocation` attributes of its document
    /// element, resolved relative to its directory (see
    /// [`SchemaBuilder::schema_location_hints`]; nothing is fetched). The instance is
    /// parsed with the secure defaults; a document that is not well-formed is a
    /// [`SchemaErrorKind::NotWellFormed`] error.
    pub fn from_instance_hints(path: impl AsRef<Path>) -> Result<Schema, SchemaError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| SchemaError {
            kind: SchemaErrorKind::Io,
            message: format!("cannot read instance document {name}: {e}"),
            location: crate::Location { file: name.clone(), ..Default::default() },
        })?;
        let doc = Document::parse(&bytes).map_err(|e| SchemaError {
            kind: SchemaErrorKind::NotWellFormed,
            message: format!("instance document is not well-formed: {}", e.kind()),
            location: crate::Location { file: name.clone(), line: e.line(), column: e.column(), offset: e.offset() },
        })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        SchemaBuilder::new().schema_location_hints(&doc, &name, base, HintScope::DocumentElement)?.build()
    }

    /// Problems that did not stop loading: `include`/`import` locations that name
    /// no readable file (XML Schema 1.0 §4.2 allows skipping them).
    pub fn warnings(&self) -> &[SchemaError] {
        &self.warnings
    }

    /// Validates a parsed document with default options.
    pub fn validate<'d>(&self, doc: &'d Document<'d>) -> Validation<'d> {
        self.validate_with(doc, &ValidateOptions::default())
    }

    /// Validates a parsed document.
    pub fn validate_with<'d>(&self, doc: &'d Document<'d>, opts: &ValidateOptions) -> Validation<'d> {
        Validator::new(self, doc, opts).run()
    }

    /// Is the global element `{namespace}local` declared?
    pub fn has_element(&self, namespace: Option<&str>, local: &str) -> bool {
        let ns = self.c.names.find_ns(namespace.unwrap_or(""));
        let n = self.c.names.find(ns, local);
        self.c.global_elements.contains_key(&n)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn schema_is_send_sync() {
        fn check<T: Send + Sync>() {}
        check::<super::Schema>();
    }
}
