//! XML primitives shared by the crates built on the core: the predefined
//! entities, text decoding straight from the document's bytes, the writer of a
//! namespace declaration, and what counts as a text node.
//!
//! This is an expert-level module for `vtdx-c14n`, `vtdx-xpath`, the CLI and the
//! Python bindings, so that each primitive has one definition; most users want
//! [`Node::value`](crate::Node::value) and the editor instead.

use memchr::{memchr, memchr2};

use crate::document::{Document, Node, NodeKind};
use crate::dtd::EntityValue;
use crate::text::as_str;

/// The predefined entities (XML 1.0 §4.6): each name with its character.
pub const PREDEFINED_ENTITIES: [(&str, char); 5] = [("lt", '<'), ("gt", '>'), ("amp", '&'), ("apos", '\''), ("quot", '"')];

/// The character predefined entity `name` stands for (`lt` `gt` `amp` `apos`
/// `quot`, XML 1.0 §4.6), or `None` for any other name.
#[inline]
pub fn predefined_entity(name: &str) -> Option<char> {
    PREDEFINED_ENTITIES.iter().find(|(n, _)| *n == name).map(|&(_, c)| c)
}

/// Is `n` character data: a text node or a CDATA section? (XPath and lxml join
/// adjacent ones into one text.)
#[inline]
pub fn is_textish(n: &Node<'_>) -> bool {
    matches!(n.kind(), NodeKind::Text | NodeKind::CData)
}

/// Where decoded text goes: a `String`, or a `Vec<u8>` that stays UTF-8 (the
/// bytes pushed are whole characters of the document's text, which was checked
/// as UTF-8 when it was parsed).
pub trait TextSink {
    /// Appends UTF-8 bytes taken from the document.
    fn push_utf8(&mut self, b: &[u8]);
    /// Appends one character.
    fn push_char(&mut self, c: char);
}

impl TextSink for String {
    #[inline]
    fn push_utf8(&mut self, b: &[u8]) {
        self.push_str(as_str(b));
    }
    #[inline]
    fn push_char(&mut self, c: char) {
        self.push(c);
    }
}

impl TextSink for Vec<u8> {
    #[inline]
    fn push_utf8(&mut self, b: &[u8]) {
        self.extend_from_slice(b);
    }
    #[inline]
    fn push_char(&mut self, c: char) {
        if c.is_ascii() {
            self.push(c as u8);
        } else {
            let mut b = [0u8; 4];
            self.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
        }
    }
}

/// Line-end normalization (XML 1.0 §2.11) of `raw` into `out`: CR LF and a lone
/// CR become LF.
#[inline]
pub fn normalize_newlines_into<S: TextSink + ?Sized>(out: &mut S, raw: &[u8]) {
    let mut i = 0;
    while let Some(p) = memchr(b'\r', &raw[i..]) {
        let p = i + p;
        out.push_utf8(&raw[i..p]);
        out.push_char('\n');
        i = if raw.get(p + 1) == Some(&b'\n') { p + 2 } else { p + 1 };
    }
    out.push_utf8(&raw[i..]);
}

/// Decodes raw character data of `doc` (`doc_text`: document text, whose line
/// ends are normalized here) or an entity's replacement text (whose line ends were
/// normalized when the entity was declared) into `out`: character references and
/// the predefined entities resolved, internal entities expanded up to
/// `max_entity_depth` (external and undeclared ones read as nothing, as the parser
/// reads them). `depth` is the entity nesting of `raw` (0 for document text).
///
/// References were checked and the total expansion charged against the limits
/// when the document was parsed, so this cannot fail.
pub fn decode_text_into<S: TextSink + ?Sized>(doc: &Document<'_>, raw: &[u8], out: &mut S, doc_text: bool, depth: u32) {
    let mut i = 0;
    loop {
        let found = if doc_text { memchr2(b'&', b'\r', &raw[i..]) } else { memchr(b'&', &raw[i..]) };
        let Some(p) = found else { break };
        let p = i + p;
        out.push_utf8(&raw[i..p]);
        if raw[p] == b'\r' {
            out.push_char('\n');
            i = if raw.get(p + 1) == Some(&b'\n') { p + 2 } else { p + 1 };
            continue;
        }
        let e = p + memchr(b';', &raw[p..]).unwrap_or(raw.len() - p);
        let name = as_str(&raw[p + 1..e]);
        i = (e + 1).min(raw.len());
        if let Some(num) = name.strip_prefix('#') {
            let v = match num.strip_prefix('x') {
                Some(h) => u32::from_str_radix(h, 16).ok(),
                None => num.parse::<u32>().ok(),
            };
            if let Some(c) = v.and_then(char::from_u32) {
                out.push_char(c);
            }
            continue;
        }
        if let Some(c) = predefined_entity(name) {
            out.push_char(c);
            continue;
        }
        // undeclared (with an unread external subset) and external entities read as nothing
        if let Some(EntityValue::Internal(repl)) = doc.dtd().and_then(|t| t.entity(name)).map(|e| &e.value) {
            if depth < doc.options().limits.max_entity_depth {
                decode_text_into(doc, repl.as_bytes(), out, false, depth + 1);
            }
        }
    }
    out.push_utf8(&raw[i..]);
}

/// Appends a namespace declaration, ` xmlns="…"` for the empty `prefix`, else
/// ` xmlns:prefix="…"`; `value` writes the URI, escaped as the caller's format
/// requires, between the quotes.
#[inline]
pub fn write_xmlns(out: &mut Vec<u8>, prefix: &str, value: impl FnOnce(&mut Vec<u8>)) {
    if prefix.is_empty() {
        out.extend_from_slice(b" xmlns=\"");
    } else {
        out.extend_from_slice(b" xmlns:");
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(b"=\"");
    }
    value(out);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predefined() {
        for (name, c) in PREDEFINED_ENTITIES {
            assert_eq!(predefined_entity(name), Some(c));
        }
        assert_eq!(predefined_entity("nbsp"), None);
        assert_eq!(predefined_entity(""), None);
    }

    #[test]
    fn decodes_into_both_sinks() {
        // `&x;` is undeclared: it reads as nothing
        let xml = "<!DOCTYPE r [<!ENTITY e 'x&amp;y'>]><r/>";
        let doc = Document::parse(xml.as_bytes()).unwrap();
        let raw = b"a&lt;b&#x41;&#233;&e;&x;\r\nc\rd&quot;";
        let want = "a<bA\u{e9}x&y\nc\nd\"";
        let mut s = String::new();
        decode_text_into(&doc, raw, &mut s, true, 0);
        assert_eq!(s, want);
        let mut v = Vec::new();
        decode_text_into(&doc, raw, &mut v, true, 0);
        assert_eq!(v, want.as_bytes());
        // replacement text keeps CR (its line ends were normalized when declared)
        let mut s = String::new();
        decode_text_into(&doc, b"a\rb", &mut s, false, 1);
        assert_eq!(s, "a\rb");
    }

    #[test]
    fn newlines() {
        let mut v = Vec::new();
        normalize_newlines_into(&mut v, b"a\r\nb\rc\n\r");
        assert_eq!(v, b"a\nb\nc\n\n");
    }

    #[test]
    fn xmlns() {
        let mut v = Vec::new();
        write_xmlns(&mut v, "", |b| b.extend_from_slice(b"urn:d"));
        write_xmlns(&mut v, "p", |b| b.extend_from_slice(b"urn:p"));
        assert_eq!(v, b" xmlns=\"urn:d\" xmlns:p=\"urn:p\"");
    }
}
