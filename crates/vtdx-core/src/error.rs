//! Errors: a typed kind, the byte offset where the problem was found, and the
//! line and column of that offset.
//!
//! Every error is reported at the first byte that makes the input wrong. Line and
//! column are 1-based; the column counts Unicode scalar values (not bytes) from
//! the start of the line. Offsets are into the UTF-8 buffer the index describes:
//! for a UTF-8 input that is the input itself (after a byte-order mark, which is
//! counted), for a transcoded input it is the transcoded buffer.

use std::fmt;

/// Which configurable limit was exceeded. See [`crate::Limits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LimitKind {
    /// [`crate::Limits::max_depth`].
    Depth,
    /// [`crate::Limits::max_attributes`].
    Attributes,
    /// [`crate::Limits::max_name_len`].
    NameLength,
    /// [`crate::Limits::max_document_size`].
    DocumentSize,
    /// [`crate::Limits::max_entity_expansion_bytes`].
    EntityExpansionBytes,
    /// [`crate::Limits::max_entity_amplification`].
    EntityAmplification,
    /// [`crate::Limits::max_entity_depth`].
    EntityDepth,
    /// The token index cannot address more records (2^31 words) or names (2^27).
    IndexCapacity,
}

impl LimitKind {
    fn describe(self) -> &'static str {
        match self {
            LimitKind::Depth => "element nesting depth",
            LimitKind::Attributes => "attributes per element",
            LimitKind::NameLength => "name length",
            LimitKind::DocumentSize => "document size",
            LimitKind::EntityExpansionBytes => "total bytes produced by entity expansion",
            LimitKind::EntityAmplification => "entity amplification factor",
            LimitKind::EntityDepth => "entity nesting depth",
            LimitKind::IndexCapacity => "token index capacity",
        }
    }
}

/// What went wrong. Each variant names the XML 1.0 (Fifth Edition) or Namespaces
/// in XML 1.0 production or constraint that was violated.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended inside a construct. `expected` names what was still needed.
    UnexpectedEof { expected: &'static str },
    /// A byte or character that the grammar does not allow here.
    Unexpected { expected: &'static str, found: String },
    /// A character outside the `Char` production (XML 1.0 §2.2).
    InvalidChar { code_point: u32 },
    /// The bytes are not valid UTF-8 (or not valid in the declared encoding).
    InvalidUtf8,
    /// A name that does not match the `Name` production (§2.3), or a QName that
    /// does not match Namespaces §3.
    InvalidName { name: String },
    /// An end tag that does not match the open start tag (WFC: Element Type Match).
    MismatchedEndTag { expected: String, found: String },
    /// The input ended while an element was still open.
    UnclosedElement { name: String },
    /// An end tag with no open element.
    UnexpectedEndTag { found: String },
    /// The same attribute twice in one start tag (WFC: Unique Att Spec, and
    /// Namespaces §6.3 for the same expanded name).
    DuplicateAttribute { name: String },
    /// A namespace prefix with no in-scope declaration (Namespaces §5, NSC: Prefix Declared).
    UndeclaredPrefix { prefix: String },
    /// A reserved prefix or namespace name used wrongly (Namespaces §3, NSC: Reserved
    /// Prefixes and Namespace Names; empty prefixed declaration).
    ReservedNamespace { detail: String },
    /// A reference to an entity that is not declared (WFC: Entity Declared).
    UndeclaredEntity { name: String },
    /// An entity that refers to itself, directly or indirectly (WFC: No Recursion).
    RecursiveEntity { name: String },
    /// A reference to an unparsed entity (WFC: Parsed Entity), or an external
    /// entity where one is not allowed (WFC: No External Entity References).
    ForbiddenEntityReference { name: String, reason: &'static str },
    /// An entity whose replacement text is not well-formed where it is used
    /// (§4.3.2).
    MalformedEntity { name: String, detail: String },
    /// A reference in content to an external parsed entity, with
    /// [`crate::ExternalPolicy::RejectReferences`].
    ExternalEntity { name: String },
    /// An external identifier in the document type declaration (an external DTD
    /// subset, an external or unparsed entity declaration), refused by
    /// [`crate::ExternalPolicy::Forbid`], the default. `what` says which
    /// declaration; `identifier` quotes the identifier as written.
    ExternalReference { what: String, identifier: String },
    /// A character reference to a code point outside `Char` (WFC: Legal Character).
    InvalidCharRef { text: String },
    /// Something in the XML declaration (§2.8) or text declaration is wrong.
    XmlDeclaration { detail: String },
    /// A document type declaration problem (§2.8, §3.2-§4.7).
    Dtd { detail: String },
    /// The encoding is unknown, unsupported, or contradicts the byte-order mark (§4.3.3).
    Encoding { detail: String },
    /// A malformed construct not covered by a more specific kind; `detail` says
    /// which and quotes it.
    Syntax { detail: String },
    /// A configured limit was exceeded.
    LimitExceeded { limit: LimitKind, value: u64, max: u64 },
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::UnexpectedEof { expected } => {
                write!(f, "unexpected end of input: expected {expected}")
            }
            ErrorKind::Unexpected { expected, found } => {
                write!(f, "expected {expected}, found {found}")
            }
            ErrorKind::InvalidChar { code_point } => {
                write!(f, "character U+{code_point:04X} is not allowed in XML")
            }
            ErrorKind::InvalidUtf8 => write!(f, "invalid UTF-8 byte sequence"),
            ErrorKind::InvalidName { name } => write!(f, "invalid name `{name}`"),
            ErrorKind::MismatchedEndTag { expected, found } => {
                write!(f, "end tag `</{found}>` does not match start tag `<{expected}>`")
            }
            ErrorKind::UnclosedElement { name } => {
                write!(f, "unexpected end of input: element `<{name}>` is not closed")
            }
            ErrorKind::UnexpectedEndTag { found } => {
                write!(f, "end tag `</{found}>` has no matching start tag")
            }
            ErrorKind::DuplicateAttribute { name } => {
                write!(f, "attribute `{name}` appears more than once in the same start tag")
            }
            ErrorKind::UndeclaredPrefix { prefix } => {
                write!(f, "namespace prefix `{prefix}` is not declared")
            }
            ErrorKind::ReservedNamespace { detail } => write!(f, "{detail}"),
            ErrorKind::UndeclaredEntity { name } => write!(f, "entity `&{name};` is not declared"),
            ErrorKind::RecursiveEntity { name } => {
                write!(f, "entity `&{name};` refers to itself")
            }
            ErrorKind::ForbiddenEntityReference { name, reason } => {
                write!(f, "reference to entity `{name}` is not allowed here: {reason}")
            }
            ErrorKind::MalformedEntity { name, detail } => {
                write!(f, "replacement text of entity `{name}` is not well-formed: {detail}")
            }
            ErrorKind::ExternalEntity { name } => write!(f, "entity `{name}` is external; external entities are never fetched"),
            ErrorKind::ExternalReference { what, identifier } => write!(
                f,
                "{what} names external content ({identifier}), which is refused: nothing external is ever fetched, \
                 and the document would read differently without it; to read it anyway, leaving the external \
                 content out, use ExternalPolicy::Ignore (CLI `--external ignore`, Python `forbid_external=False`)"
            ),
            ErrorKind::InvalidCharRef { text } => {
                write!(f, "character reference `{text}` is not a legal XML character")
            }
            ErrorKind::XmlDeclaration { detail } => write!(f, "XML declaration: {detail}"),
            ErrorKind::Dtd { detail } => write!(f, "document type declaration: {detail}"),
            ErrorKind::Encoding { detail } => write!(f, "encoding: {detail}"),
            ErrorKind::Syntax { detail } => write!(f, "{detail}"),
            ErrorKind::LimitExceeded { limit, value, max } => {
                write!(f, "limit exceeded: {} is {value}, the configured maximum is {max}", limit.describe())
            }
        }
    }
}

/// A parse error: what, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: Box<ErrorKind>,
    offset: u64,
    line: u32,
    column: u32,
}

impl Error {
    /// Creates an error at `offset` in `text`, computing line and column.
    pub fn at(kind: ErrorKind, text: &[u8], offset: usize) -> Error {
        let (line, column) = line_column(text, offset);
        Error { kind: Box::new(kind), offset: offset as u64, line, column }
    }

    /// Creates an error with an explicit position (used when the error comes from
    /// a buffer other than the one the caller sees, e.g. an entity's text).
    pub fn with_position(kind: ErrorKind, offset: u64, line: u32, column: u32) -> Error {
        Error { kind: Box::new(kind), offset, line, column }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
    /// Byte offset of the problem.
    pub fn offset(&self) -> u64 {
        self.offset
    }
    /// 1-based line of the problem.
    pub fn line(&self) -> u32 {
        self.line
    }
    /// 1-based column (in characters) of the problem.
    pub fn column(&self) -> u32 {
        self.column
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {} (byte {})", self.line, self.column, self.kind, self.offset)
    }
}

impl std::error::Error for Error {}

/// 1-based line and column (in characters) of `offset` in `text`.
/// A CR, an LF, and a CR LF pair each end a line.
pub fn line_column(text: &[u8], offset: usize) -> (u32, u32) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let mut line = 1u32;
    let mut line_start = 0usize;
    let mut i = 0usize;
    while let Some(p) = memchr::memchr2(b'\n', b'\r', &before[i..]) {
        let p = i + p;
        line = line.saturating_add(1);
        if before[p] == b'\r' && before.get(p + 1) == Some(&b'\n') {
            i = p + 2;
        } else if before[p] == b'\r' && p + 1 == offset && text.get(p + 1) == Some(&b'\n') {
            // offset points at the LF of a CR LF pair: still the same line break
            i = p + 1;
        } else {
            i = p + 1;
        }
        line_start = i;
    }
    let column = before[line_start.min(offset)..].iter().filter(|&&b| (b & 0xC0) != 0x80).count() as u32 + 1;
    (line, column)
}

/// Shows at most `max` characters of `bytes` as a quoted construct in a message.
pub(crate) fn snippet(bytes: &[u8], max: usize) -> String {
    let s = String::from_utf8_lossy(bytes);
    let mut out: String = s.chars().take(max).collect();
    if s.chars().count() > max {
        out.push('…');
    }
    out
}

/// Describes the character at `pos` (or end of input) for "found ..." messages.
pub(crate) fn describe_at(text: &[u8], pos: usize) -> String {
    match text.get(pos..) {
        None | Some([]) => "end of input".to_string(),
        Some(rest) => {
            let ch = std::str::from_utf8(&rest[..rest.len().min(4)]).ok().and_then(|s| s.chars().next()).or_else(|| {
                let n = utf8_len(rest[0]).min(rest.len());
                std::str::from_utf8(&rest[..n]).ok().and_then(|s| s.chars().next())
            });
            match ch {
                Some(c) if c.is_control() || c == ' ' => format!("U+{:04X}", c as u32),
                Some(c) => format!("`{c}`"),
                None => format!("byte 0x{:02X}", rest[0]),
            }
        }
    }
}

pub(crate) fn utf8_len(first: u8) -> usize {
    match first {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column() {
        let t = b"ab\ncd\r\nef\rg\xc3\xa9h";
        assert_eq!(line_column(t, 0), (1, 1));
        assert_eq!(line_column(t, 4), (2, 2));
        assert_eq!(line_column(t, 7), (3, 1));
        assert_eq!(line_column(t, 10), (4, 1));
        // column counts characters: é is two bytes
        assert_eq!(line_column(t, 13), (4, 3));
    }

    #[test]
    fn error_is_small() {
        assert!(std::mem::size_of::<Error>() <= 24);
    }
}
