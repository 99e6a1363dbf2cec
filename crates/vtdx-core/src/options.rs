//! Parser configuration: limits with safe defaults and the external-entity policy.

/// Resource limits. Every limit is on by default; raise or lower them with the
/// builder-style setters or by writing the public fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Deepest element nesting accepted. Default 1,024 (libxml2 uses 256 without
    /// `XML_PARSE_HUGE`; pugixml has none).
    pub max_depth: u32,
    /// Most attributes (namespace declarations included) on one element. Default 10,000.
    pub max_attributes: u32,
    /// Longest element, attribute, entity or PI-target name, in bytes. Default 50,000.
    pub max_name_len: u32,
    /// Largest input, in bytes. Default 4 GiB - 1, the most the 32-bit offsets of
    /// the token index can address. Larger documents are refused with
    /// [`crate::LimitKind::DocumentSize`].
    pub max_document_size: u64,
    /// Most bytes that entity expansion may produce in total while checking and
    /// reading a document. Default 10 MiB.
    pub max_entity_expansion_bytes: u64,
    /// Largest ratio of expanded bytes to document bytes (checked once expansion
    /// passes 64 KiB). Default 20, so billion-laughs fails within microseconds.
    pub max_entity_amplification: u32,
    /// Deepest nesting of entity references inside entity replacement text. Default 32.
    pub max_entity_depth: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 1024,
            max_attributes: 10_000,
            max_name_len: 50_000,
            max_document_size: u32::MAX as u64,
            max_entity_expansion_bytes: 10 * 1024 * 1024,
            max_entity_amplification: 20,
            max_entity_depth: 32,
        }
    }
}

/// What to do when the document refers to an external entity (a general entity
/// declared with `SYSTEM` or `PUBLIC`) in content. External entities are never
/// fetched, whatever the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExternalEntityPolicy {
    /// Report [`crate::ErrorKind::ExternalEntity`].
    Error,
    /// Leave the reference unexpanded: it reads as nothing (the text around it is kept).
    /// This is what the XML spec allows a non-validating processor to do (§4.4.3).
    #[default]
    Skip,
}

/// Options for [`crate::Document::parse_with`] and [`crate::Parser`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseOptions {
    /// Resource limits.
    pub limits: Limits,
    /// External entity references in content.
    pub external_entities: ExternalEntityPolicy,
    /// Apply Namespaces in XML 1.0 (prefix declared, QName syntax, reserved
    /// prefixes, unique expanded attribute names). Default `true`. With `false`
    /// colons are ordinary name characters and no namespace URIs are resolved.
    pub namespaces: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            limits: Limits::default(),
            external_entities: ExternalEntityPolicy::default(),
            namespaces: true,
        }
    }
}

impl ParseOptions {
    /// The defaults: namespace-aware, limits on, external entities skipped.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets [`Limits::max_depth`].
    pub fn max_depth(mut self, n: u32) -> Self {
        self.limits.max_depth = n;
        self
    }
    /// Sets [`Limits::max_attributes`].
    pub fn max_attributes(mut self, n: u32) -> Self {
        self.limits.max_attributes = n;
        self
    }
    /// Sets [`Limits::max_name_len`].
    pub fn max_name_len(mut self, n: u32) -> Self {
        self.limits.max_name_len = n;
        self
    }
    /// Sets [`Limits::max_document_size`].
    pub fn max_document_size(mut self, n: u64) -> Self {
        self.limits.max_document_size = n;
        self
    }
    /// Sets [`Limits::max_entity_expansion_bytes`].
    pub fn max_entity_expansion_bytes(mut self, n: u64) -> Self {
        self.limits.max_entity_expansion_bytes = n;
        self
    }
    /// Sets [`Limits::max_entity_amplification`].
    pub fn max_entity_amplification(mut self, n: u32) -> Self {
        self.limits.max_entity_amplification = n;
        self
    }
    /// Sets [`ParseOptions::external_entities`].
    pub fn external_entities(mut self, p: ExternalEntityPolicy) -> Self {
        self.external_entities = p;
        self
    }
    /// Sets [`ParseOptions::namespaces`].
    pub fn namespaces(mut self, on: bool) -> Self {
        self.namespaces = on;
        self
    }
}
