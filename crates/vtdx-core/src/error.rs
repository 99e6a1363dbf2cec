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
    /// [`crate::Limits::max_packed_amplification`].
    PackedAmplification,
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
            LimitKind::PackedAmplification => "packed amplification factor (text bytes per packed byte)",
        }
    }
}

/// What went wrong. Each variant names the XML 1.0 (Fifth Edition) or Namespaces
/// in XML 1.0 (Third Edition) production or constraint that was violated; `[n]`
/// is an XML 1.0 production number, "WFC" a well-formedness constraint and "NSC"
/// a namespace constraint.
///
/// Names and constructs quoted in the fields are taken from the text as written,
/// cut to a few dozen characters (with a trailing `…`) when long.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended inside a construct, so it cannot match production \[1\]
    /// `document` (XML 1.0 §2.1): an unclosed comment, PI, CDATA section, tag,
    /// literal or declaration, or no root element at all. An element left open
    /// is [`ErrorKind::UnclosedElement`] instead.
    UnexpectedEof {
        /// What was still needed, e.g. ``"`-->` closing the comment"``.
        expected: &'static str,
    },
    /// A byte or character that the grammar does not allow here: the production
    /// being matched (XML 1.0 §2-§4, Namespaces §3) needed something else.
    Unexpected {
        /// What the grammar allows at this point, e.g. ``"`;` ending the character reference"``.
        expected: &'static str,
        /// The character found instead: quoted (``"`<`"``), as `U+XXXX` for
        /// controls and spaces, `byte 0xXX` for a byte that does not start a
        /// character, or `end of input`.
        found: String,
    },
    /// A character outside production \[2\] `Char` (XML 1.0 §2.2): most C0
    /// controls, U+FFFE and U+FFFF. Found by the check of the whole decoded text
    /// (see [`crate::input`]), which runs before parsing, or alongside it with
    /// [`crate::ParseOptions::parallel_check`].
    InvalidChar {
        /// The disallowed character's Unicode code point.
        code_point: u32,
    },
    /// The bytes are not valid UTF-8 (XML 1.0 §4.3.3: an entity must not contain
    /// byte sequences that are not legal in its encoding). Bytes that are not
    /// valid in another declared encoding are [`ErrorKind::Encoding`].
    InvalidUtf8,
    /// A name that does not match production \[5\] `Name` (XML 1.0 §2.3), or, with
    /// namespaces on, a QName that does not match production \[7\] `QName`
    /// (Namespaces §4), or a PI target containing a colon (Namespaces §7).
    InvalidName {
        /// The offending name as written.
        name: String,
    },
    /// An end tag whose name differs from that of the open start tag
    /// (\[WFC: Element Type Match\], XML 1.0 §3).
    MismatchedEndTag {
        /// The name in the start tag of the innermost open element.
        expected: String,
        /// The name in the end tag.
        found: String,
    },
    /// The input ended while an element was still open: production \[39\]
    /// `element` (XML 1.0 §3) needs an end tag for every start tag. Reported at
    /// the end of the input.
    UnclosedElement {
        /// The name of the innermost element still open.
        name: String,
    },
    /// An end tag with no open element to close (productions \[39\] `element` and
    /// \[43\] `content`, XML 1.0 §3.1), e.g. in a fragment checked for an edit.
    UnexpectedEndTag {
        /// The name in the end tag.
        found: String,
    },
    /// The same attribute twice in one start tag (\[WFC: Unique Att Spec\],
    /// XML 1.0 §3.1), or, with namespaces on, two attributes with the same
    /// expanded name (Namespaces §6.3).
    DuplicateAttribute {
        /// The qualified name of the second occurrence, as written.
        name: String,
    },
    /// A namespace prefix with no in-scope declaration (\[NSC: Prefix
    /// Declared\], Namespaces §5), on an element or attribute name.
    UndeclaredPrefix {
        /// The prefix, without the colon.
        prefix: String,
    },
    /// A reserved prefix or namespace name used wrongly (\[NSC: Reserved
    /// Prefixes and Namespace Names\], Namespaces §3): `xmlns` declared, `xml`
    /// bound to another name, the XML or XMLNS namespace name bound to another
    /// prefix; or a prefixed declaration with an empty value (Namespaces §3: the
    /// value of a declaration for a prefix must not be empty).
    ReservedNamespace {
        /// Which rule was broken, naming the prefix or namespace name; the
        /// whole message.
        detail: String,
    },
    /// A reference to an entity that is not declared (\[WFC: Entity Declared\],
    /// XML 1.0 §4.1). Only an error when the constraint applies: see
    /// [`crate::dtd::Dtd::entities_complete`].
    UndeclaredEntity {
        /// The entity name, without `&` and `;`.
        name: String,
    },
    /// An entity that refers to itself, directly or through other entities
    /// (\[WFC: No Recursion\], XML 1.0 §4.1).
    RecursiveEntity {
        /// The entity referenced again while its own replacement text was being
        /// read.
        name: String,
    },
    /// A reference to an unparsed entity (\[WFC: Parsed Entity\], XML 1.0 §4.1),
    /// to an external entity in an attribute value (\[WFC: No External Entity
    /// References\], §3.1), or to an entity whose replacement text puts `<` in an
    /// attribute value (\[WFC: No < in Attribute Values\], §3.1).
    ForbiddenEntityReference {
        /// The entity name, without `&` and `;`.
        name: String,
        /// Why the reference is not allowed, naming the constraint.
        reason: &'static str,
    },
    /// An internal entity whose replacement text is not well-formed where it is
    /// referenced in content: it must match production \[43\] `content` (XML 1.0
    /// §4.3.2). Reported at the reference.
    MalformedEntity {
        /// The entity name, without `&` and `;`.
        name: String,
        /// The message of the error found in the replacement text.
        detail: String,
    },
    /// A reference in content to an external parsed entity, with
    /// [`crate::ExternalPolicy::RejectReferences`]. XML 1.0 §4.4.3 lets a
    /// non-validating processor leave such an entity out; this policy refuses
    /// the document instead.
    ExternalEntity {
        /// The entity name, without `&` and `;`.
        name: String,
    },
    /// An external identifier (production \[75\] `ExternalID`, XML 1.0 §4.2.2) in
    /// the document type declaration: an external DTD subset, an external or
    /// unparsed entity declaration, refused by [`crate::ExternalPolicy::Forbid`],
    /// the default. Nothing is ever fetched.
    ExternalReference {
        /// Which declaration names the external content, e.g. the external DTD
        /// subset or an entity by name.
        what: String,
        /// The identifier as written (`SYSTEM "..."` or `PUBLIC "..." "..."`).
        identifier: String,
    },
    /// A character reference to a code point outside \[2\] `Char` (\[WFC: Legal
    /// Character\], XML 1.0 §4.1).
    InvalidCharRef {
        /// The reference as written, e.g. `&#0;`.
        text: String,
    },
    /// Something in the XML declaration is wrong (production \[23\] `XMLDecl`,
    /// XML 1.0 §2.8, with \[24\] `VersionInfo`, \[80\] `EncodingDecl` (§4.3.3) and
    /// \[32\] `SDDecl` (§2.9)).
    XmlDeclaration {
        /// What is wrong, e.g. ``"`version` must come first"``.
        detail: String,
    },
    /// A problem in the document type declaration (production \[28\]
    /// `doctypedecl`, XML 1.0 §2.8) or one of its markup declarations (§3.2-§4.7),
    /// including \[WFC: PEs in Internal Subset\] (§2.8) and an input that ends
    /// inside the replacement text of a parameter entity.
    Dtd {
        /// What is wrong; names the parameter entity when the problem is in its
        /// replacement text.
        detail: String,
    },
    /// The encoding is unknown or unsupported, contradicts the byte-order mark,
    /// or the bytes are not valid in it (XML 1.0 §4.3.3 and Appendix F).
    Encoding {
        /// What is wrong, naming the encoding or the byte.
        detail: String,
    },
    /// A malformed construct not covered by a more specific kind (a production
    /// of XML 1.0 §2-§3, e.g. `]]>` in character data, \[14\] `CharData`, or a PI
    /// target `xml`, \[17\] `PITarget`).
    Syntax {
        /// Which construct is wrong, quoting it; the whole message.
        detail: String,
    },
    /// A configured limit was exceeded. Not a well-formedness error (neither
    /// spec sets limits): the document may be well-formed, but reading it would
    /// cost more than [`crate::Limits`] allow.
    LimitExceeded {
        /// Which limit.
        limit: LimitKind,
        /// The amount the document reached when it was stopped (one past the
        /// maximum for a count), in the limit's unit: nesting levels, attributes,
        /// bytes, words or names, or (for [`LimitKind::EntityAmplification`])
        /// expanded bytes per document byte, or (for
        /// [`LimitKind::PackedAmplification`]) text bytes per packed frame byte.
        value: u64,
        /// The maximum allowed, in the same unit: the [`crate::Limits`] field, or
        /// what the token index can address (for [`LimitKind::IndexCapacity`],
        /// and for [`LimitKind::DocumentSize`] when the configured maximum is
        /// larger).
        max: u64,
    },
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
