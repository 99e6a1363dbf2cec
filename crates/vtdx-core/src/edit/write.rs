//! Writing the edited document: untouched text copied as it is (references to
//! markup entities kept), new bytes escaped and encoded in the document's own
//! encoding, with character references only where they are recognized.

use std::io::Write;

use crate::document::{Document, EntityExpansion};
use crate::input::{OutEncoding, SourceEncoding};
use crate::options::ParseOptions;

use super::plan::Edit;
use super::{EditError, Editor};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ctx {
    /// Character data or an attribute value: references may stand for any character.
    Text,
    /// A name, comment, PI or CDATA content: no references.
    Markup,
    /// An XML fragment: references in its text and attribute values only.
    Fragment,
    /// The inside of a start tag (an attribute to add).
    InTag,
}

impl<'d> Editor<'d> {
    /// Writes the edited document in the document's own encoding.
    pub fn write_to<W: Write>(&self, mut w: W) -> Result<(), EditError> {
        let mut buf = Vec::new();
        self.append_to(&mut buf)?;
        w.write_all(&buf)?;
        Ok(())
    }

    /// The edited document as bytes, in the document's own encoding.
    pub fn to_vec(&self) -> Result<Vec<u8>, EditError> {
        let mut v = Vec::new();
        self.append_to(&mut v)?;
        Ok(v)
    }

    /// Appends the edited document to `out`, as `Canonicalizer::append_*` and
    /// `Vec::extend_from_slice` do: what `out` held stays in front. To reuse one buffer for
    /// many documents, `out.clear()` before each call; its allocation is kept. On an error
    /// `out` may hold part of the document after its old contents.
    pub fn append_to(&self, out: &mut Vec<u8>) -> Result<(), EditError> {
        let doc = self.doc;
        let planned;
        let (plan, extra): (&[Edit<'d>], &[u8]) = if self.in_order() {
            (&self.edits, &[])
        } else {
            planned = self.plan()?;
            (&planned.0, &planned.1)
        };
        let enc = doc.encoding().out_encoding();
        let t = doc.text();
        out.reserve(doc.source().len() + self.data.len());
        // the byte-order mark as it was
        match (doc.encoding(), enc) {
            (_, OutEncoding::Utf8) => out.extend_from_slice(&doc.source()[..doc.bom_len()]),
            (SourceEncoding::Utf16Le { bom: true }, _) => out.extend_from_slice(&[0xFF, 0xFE]),
            (SourceEncoding::Utf16Be { bom: true }, _) => out.extend_from_slice(&[0xFE, 0xFF]),
            _ => {}
        }
        let unexpanded = doc.unexpanded_text();
        let mut w =
            Writer { enc, label: doc.encoding(), text: t, unexpanded: &unexpanded, regions: doc.entity_expansions(), ri: 0, delta: 0 };
        let mut cursor = 0usize;
        for e in plan {
            if e.start > cursor {
                w.text(cursor, e.start, out)?;
            }
            let bytes = if e.extra { &extra[e.data.0..e.data.0 + e.data.1] } else { &self.data[e.data.0..e.data.0 + e.data.1] };
            w.data(bytes, e.ctx, out)?;
            cursor = cursor.max(e.end);
        }
        w.text(cursor, t.len(), out)?;
        Ok(())
    }

    /// Writes the edited document and parses it again (with the document's options),
    /// so editing can go on.
    pub fn into_document(self) -> Result<Document<'static>, EditError> {
        let bytes = self.to_vec()?;
        let opts: ParseOptions = self.doc.options().clone();
        crate::parser::Parser::with_options(opts).parse_owned(bytes).map_err(EditError::MalformedFragment)
    }
}

/// Writes text ranges and new bytes in the document's encoding.
struct Writer<'w> {
    enc: OutEncoding,
    label: &'w SourceEncoding,
    text: &'w [u8],
    unexpanded: &'w [u8],
    regions: &'w [EntityExpansion],
    /// The next region that may meet a text range, and the growth of the text
    /// before it ((expanded - unexpanded) bytes).
    ri: usize,
    delta: isize,
}

impl Writer<'_> {
    fn label(&self) -> String {
        match self.label {
            SourceEncoding::Other { label } => label.clone(),
            e => format!("{e:?}"),
        }
    }

    /// Untouched text `a..b` of the document: the input's own text, references to
    /// markup entities kept unless an edit cut into their expansion.
    fn text(&mut self, mut a: usize, b: usize, out: &mut Vec<u8>) -> Result<(), EditError> {
        while a < b {
            // skip regions that end before `a`
            while self.ri < self.regions.len() && self.regions[self.ri].expansion.end <= a {
                let r = &self.regions[self.ri];
                self.delta += r.expansion.len() as isize - r.reference.len() as isize;
                self.ri += 1;
            }
            let Some(r) = self.regions.get(self.ri) else {
                let (ua, ub) = ((a as isize - self.delta) as usize, (b as isize - self.delta) as usize);
                return self.source_text(&self.unexpanded[ua..ub], out);
            };
            let (xs, xe) = (r.expansion.start, r.expansion.end);
            if a < xs {
                let stop = xs.min(b);
                let (ua, ub) = ((a as isize - self.delta) as usize, (stop as isize - self.delta) as usize);
                self.source_text(&self.unexpanded[ua..ub], out)?;
                a = stop;
                continue;
            }
            // inside region `ri`
            let stop = xe.min(b);
            if a == xs && stop == xe {
                self.source_text(&self.unexpanded[r.reference.clone()], out)?;
            } else {
                // an edit cut into the expansion: write it expanded
                self.source_text(&self.text[a..stop], out)?;
            }
            a = stop;
        }
        Ok(())
    }

    /// True when `s` can be written as it is: UTF-8 output, or ASCII bytes in any
    /// encoding but UTF-16 (each encoded chunk ends in the encoding's ASCII state).
    fn as_is(&self, s: &[u8]) -> bool {
        match self.enc {
            OutEncoding::Utf8 => true,
            OutEncoding::Utf16 { .. } => false,
            _ => s.is_ascii(),
        }
    }

    /// Untouched document text (always encodable: it came from the input).
    fn source_text(&self, s: &[u8], out: &mut Vec<u8>) -> Result<(), EditError> {
        if self.as_is(s) {
            out.extend_from_slice(s);
            return Ok(());
        }
        self.encode(s, true, out)
    }

    /// New bytes, written with references only where `ctx` allows them.
    fn data(&self, s: &[u8], ctx: Ctx, out: &mut Vec<u8>) -> Result<(), EditError> {
        if self.as_is(s) {
            out.extend_from_slice(s);
            return Ok(());
        }
        match (self.enc, ctx) {
            (OutEncoding::Utf16 { .. }, _) | (_, Ctx::Text) => self.encode(s, true, out),
            (_, Ctx::Markup) => self.encode(s, false, out),
            (_, Ctx::Fragment | Ctx::InTag) => {
                for (a, b, refs) in reference_spans(s, ctx == Ctx::InTag) {
                    self.encode(&s[a..b], refs, out)?;
                }
                Ok(())
            }
        }
    }

    /// Encodes UTF-8 `s`; a character the encoding lacks becomes a reference when
    /// `refs`, else an error.
    fn encode(&self, s: &[u8], refs: bool, out: &mut Vec<u8>) -> Result<(), EditError> {
        let s = std::str::from_utf8(s).map_err(|_| EditError::InvalidBytes)?;
        let unencodable = |c: char, out: &mut Vec<u8>| {
            if refs {
                out.extend_from_slice(format!("&#x{:X};", c as u32).as_bytes());
                Ok(())
            } else {
                Err(EditError::Unencodable { ch: c, encoding: self.label() })
            }
        };
        match self.enc {
            OutEncoding::Utf8 => out.extend_from_slice(s.as_bytes()),
            OutEncoding::Utf16 { le } => {
                for u in s.encode_utf16() {
                    out.extend_from_slice(&if le { u.to_le_bytes() } else { u.to_be_bytes() });
                }
            }
            OutEncoding::Latin1 | OutEncoding::Ascii => {
                let max = if matches!(self.enc, OutEncoding::Latin1) { 0x100 } else { 0x80 };
                for c in s.chars() {
                    if (c as u32) < max {
                        out.push(c as u32 as u8);
                    } else {
                        unencodable(c, out)?;
                    }
                }
            }
            OutEncoding::Other(e) => {
                let mut enc = e.new_encoder();
                let mut rest = s;
                loop {
                    let need = enc.max_buffer_length_from_utf8_without_replacement(rest.len()).unwrap_or(rest.len() * 4 + 16);
                    let at = out.len();
                    out.resize(at + need.max(16), 0);
                    let (res, read, written) = enc.encode_from_utf8_without_replacement(rest, &mut out[at..], true);
                    out.truncate(at + written);
                    rest = &rest[read..];
                    match res {
                        encoding_rs::EncoderResult::InputEmpty => break,
                        encoding_rs::EncoderResult::OutputFull => {}
                        encoding_rs::EncoderResult::Unmappable(c) => unencodable(c, out)?,
                    }
                }
            }
        }
        Ok(())
    }
}

/// Splits an XML fragment into spans where character references may stand for a
/// character (text, attribute values: `true`) and where they may not (names,
/// comments, PIs, CDATA: `false`). `in_tag`: the fragment starts inside a start tag.
fn reference_spans(s: &[u8], in_tag: bool) -> Vec<(usize, usize, bool)> {
    #[derive(PartialEq, Clone, Copy)]
    enum St {
        Content,
        Tag,
        Value(u8),
        Until(&'static [u8]),
    }
    let refs = |st: St| matches!(st, St::Content | St::Value(_));
    let mut spans: Vec<(usize, usize, bool)> = Vec::new();
    let mut st = if in_tag { St::Tag } else { St::Content };
    let mut start = 0;
    let mut i = 0;
    let switch = |spans: &mut Vec<(usize, usize, bool)>, at: usize, from: St, start: &mut usize| {
        if at > *start {
            spans.push((*start, at, refs(from)));
        }
        *start = at;
    };
    while i < s.len() {
        let rest = &s[i..];
        match st {
            St::Content if rest[0] == b'<' => {
                let next = if rest.starts_with(b"<!--") {
                    St::Until(b"-->")
                } else if rest.starts_with(b"<![CDATA[") {
                    St::Until(b"]]>")
                } else if rest.starts_with(b"<?") {
                    St::Until(b"?>")
                } else {
                    St::Tag
                };
                switch(&mut spans, i, st, &mut start);
                st = next;
            }
            St::Tag if rest[0] == b'"' || rest[0] == b'\'' => {
                switch(&mut spans, i + 1, st, &mut start);
                st = St::Value(rest[0]);
            }
            St::Tag if rest[0] == b'>' => {
                switch(&mut spans, i + 1, st, &mut start);
                st = St::Content;
            }
            St::Value(q) if rest[0] == q => {
                switch(&mut spans, i, st, &mut start);
                st = St::Tag;
            }
            St::Until(end) if rest.starts_with(end) => {
                i += end.len();
                switch(&mut spans, i, st, &mut start);
                st = St::Content;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if s.len() > start {
        spans.push((start, s.len(), refs(st)));
    }
    spans
}

/// Escapes character data: `&`, `<`, `>` and CR (which would otherwise read as LF).
pub fn escape_text(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.bytes().any(|b| matches!(b, b'&' | b'<' | b'>' | b'\r')) {
        return s.into();
    }
    let mut o = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '\r' => o.push_str("&#xD;"),
            c => o.push(c),
        }
    }
    o.into()
}

/// Escapes an attribute value for the given quote: `&`, `<`, the quote, and TAB,
/// LF, CR (which attribute-value normalization would turn into spaces).
pub fn escape_attr(s: &str, quote: u8) -> std::borrow::Cow<'_, str> {
    if !s.bytes().any(|b| matches!(b, b'&' | b'<' | b'"' | b'\'' | b'\t' | b'\n' | b'\r')) {
        return s.into();
    }
    let mut o = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '"' if quote == b'"' => o.push_str("&quot;"),
            '\'' if quote == b'\'' => o.push_str("&apos;"),
            '\t' => o.push_str("&#x9;"),
            '\n' => o.push_str("&#xA;"),
            '\r' => o.push_str("&#xD;"),
            c => o.push(c),
        }
    }
    o.into()
}
