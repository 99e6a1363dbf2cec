//! Parser configuration: limits with safe defaults and the external-entity policy.

/// Resource limits. Every limit is on by default; raise or lower them with the
/// builder-style setters of [`ParseOptions`] (one per limit, named after the field) or by
/// writing the public fields of `Limits::default()`. The struct is `#[non_exhaustive]`:
/// new limits may be added, so build it from [`Limits::default`], not with a literal.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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
    /// Largest ratio of a packed document's text to the bytes of its packed frame
    /// (`vtdx-binary`, `docs/binary-format.md`), checked once the text passes
    /// 64 KiB. Default 256: the documents of the shared corpus unpack to at most
    /// 8.1 text bytes per packed byte, very repetitive messages with long names to
    /// about 34, while a frame of two-byte references to one long name (a
    /// decompression bomb) reaches 14,000 and more. Refused with
    /// [`crate::LimitKind::PackedAmplification`].
    pub max_packed_amplification: u32,
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
            max_packed_amplification: 256,
        }
    }
}

/// What to do with external identifiers (`SYSTEM "..."` / `PUBLIC "..." "..."`) in
/// the document type declaration: an external DTD subset, an external general or
/// parameter entity, an unparsed (`NDATA`) entity. Nothing external is ever fetched,
/// whatever the policy; the policy decides whether a document that *names* something
/// external is read at all.
///
/// Notation declarations carry external identifiers too; they name a format, not
/// content, and are accepted under every policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ExternalPolicy {
    /// Refuse the document with [`crate::ErrorKind::ExternalReference`] at the
    /// first external identifier (the default, like defusedxml's
    /// `forbid_external` and .NET's `DtdProcessing.Prohibit` for external
    /// content): a document whose meaning depends on content that is not read
    /// would otherwise read differently from what its author wrote.
    #[default]
    Forbid,
    /// Parse the declarations and never fetch anything: a reference to an
    /// external parsed entity in content reads as nothing (the text around it is
    /// kept), and declarations after a reference to an external parameter entity
    /// are not processed (XML 1.0 §4.4.3 and §5.1 allow a non-validating
    /// processor both).
    Ignore,
    /// Like [`ExternalPolicy::Ignore`], but a reference to an external parsed
    /// entity in content is [`crate::ErrorKind::ExternalEntity`].
    RejectReferences,
}

impl ExternalPolicy {
    /// The policy's name as the CLI and the Python package spell it:
    /// `forbid`, `ignore`, `reject-references`.
    pub fn name(self) -> &'static str {
        match self {
            ExternalPolicy::Forbid => "forbid",
            ExternalPolicy::Ignore => "ignore",
            ExternalPolicy::RejectReferences => "reject-references",
        }
    }

    /// The policy named `name` (see [`ExternalPolicy::name`]).
    pub fn from_name(name: &str) -> Option<ExternalPolicy> {
        [ExternalPolicy::Forbid, ExternalPolicy::Ignore, ExternalPolicy::RejectReferences].into_iter().find(|p| p.name() == name)
    }
}

/// Options for [`crate::Document::parse_with`] and [`crate::Parser`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseOptions {
    /// Resource limits.
    pub limits: Limits,
    /// External identifiers in the DOCTYPE: refused by default
    /// ([`ExternalPolicy::Forbid`]).
    pub external: ExternalPolicy,
    /// Apply Namespaces in XML 1.0 (prefix declared, QName syntax, reserved
    /// prefixes, unique expanded attribute names). Default `true`. With `false`
    /// colons are ordinary name characters and no namespace URIs are resolved.
    pub namespaces: bool,
    /// Add the attributes that attribute-list declarations of the internal
    /// subset default (XML 1.0 §3.3.2, §5.1) to the elements that do not specify
    /// them, as attribute nodes marked not specified
    /// ([`crate::Node::is_specified`]). Default `true`, as the spec requires of
    /// a processor that reads the declarations; `false` leaves them out of the
    /// attribute axis, as lxml does unless `attribute_defaults=True`. Namespace
    /// declarations (`xmlns`, `xmlns:p`) defaulted this way always bind, and are
    /// always present; Canonical XML always outputs defaulted attributes.
    pub attribute_defaults: bool,
    /// Check UTF-8 and the `Char` production (XML 1.0 §2.2) of a large UTF-8 input on a
    /// second thread while this one parses, instead of before. Results and errors are
    /// the same as without it: when the check fails, its error is returned, as it
    /// would have come first, and nothing the parse read is used. Costs one thread
    /// start per parse, so it applies only to inputs of [`PARALLEL_CHECK_MIN_BYTES`]
    /// or more. Default `false` (a library does not start threads unasked); the CLI
    /// turns it on.
    pub parallel_check: bool,
    /// Parse a large document in two halves on two threads (see the `split`
    /// module of the parser): this thread parses up to the first start tag past the
    /// middle, a second thread the rest, and the halves are joined after checking
    /// what the second half assumed about the first. The document (or error) is the
    /// one a single pass makes; a document whose cut falls inside a comment, CDATA
    /// section or PI, or where namespaces are declared below the document element
    /// around the cut, is parsed on from the cut in one pass after all. Applies only
    /// to UTF-8 inputs of [`PARALLEL_PARSE_MIN_BYTES`] or more without a document
    /// type declaration. Default `false`; the CLI turns it on.
    pub parallel_parse: bool,
}

/// Inputs smaller than this are parsed in one pass even with
/// [`ParseOptions::parallel_parse`].
pub const PARALLEL_PARSE_MIN_BYTES: usize = 2 << 20;

/// Inputs smaller than this are checked before parsing even with
/// [`ParseOptions::parallel_check`]: starting a thread costs more than it saves.
pub const PARALLEL_CHECK_MIN_BYTES: usize = 1 << 20;

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            limits: Limits::default(),
            external: ExternalPolicy::default(),
            namespaces: true,
            attribute_defaults: true,
            parallel_check: false,
            parallel_parse: false,
        }
    }
}

impl ParseOptions {
    /// The defaults: namespace-aware, limits on, external identifiers refused.
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
    /// Sets [`Limits::max_entity_depth`].
    pub fn max_entity_depth(mut self, n: u32) -> Self {
        self.limits.max_entity_depth = n;
        self
    }
    /// Sets [`Limits::max_packed_amplification`].
    pub fn max_packed_amplification(mut self, n: u32) -> Self {
        self.limits.max_packed_amplification = n;
        self
    }
    /// Sets [`ParseOptions::external`].
    pub fn external(mut self, p: ExternalPolicy) -> Self {
        self.external = p;
        self
    }
    /// Sets [`ParseOptions::attribute_defaults`].
    pub fn attribute_defaults(mut self, on: bool) -> Self {
        self.attribute_defaults = on;
        self
    }
    /// Sets [`ParseOptions::parallel_parse`].
    pub fn parallel_parse(mut self, on: bool) -> Self {
        self.parallel_parse = on;
        self
    }
    /// Sets [`ParseOptions::parallel_check`].
    pub fn parallel_check(mut self, on: bool) -> Self {
        self.parallel_check = on;
        self
    }
    /// Sets [`ParseOptions::namespaces`].
    pub fn namespaces(mut self, on: bool) -> Self {
        self.namespaces = on;
        self
    }
}
