//! Incremental editing without reserialization.
//!
//! An [`Editor`] records insertions, deletions and replacements as byte ranges of
//! the document text; [`Editor::write_to`] then writes the new document in one O(n)
//! pass that copies every untouched range as it is and splices in the new bytes.
//! Bytes outside edited ranges are identical to the input.
//!
//! ## Conflicting edits
//!
//! Edits are applied in document order; edits at the same position keep the order
//! in which they were made (so two inserts at one point both land, first call
//! first). When one removal or replacement contains another edit (an update inside
//! a removed subtree, an insert into a removed element), the outer edit wins and the
//! inner one is **absorbed**: it has no effect. Two ranges that overlap without one
//! containing the other are a [`EditError::Conflict`] when the output is written.
//! Output is never corrupt: it is either what the rules above say, or an error.

use std::fmt;
use std::io::{self, Write};

use crate::document::{Document, Node, NodeKind};
use crate::error::Error;
use crate::input::SourceEncoding;
use crate::options::ParseOptions;

/// Why an edit could not be made or written.
#[derive(Debug)]
#[non_exhaustive]
pub enum EditError {
    /// The operation does not apply to this kind of node (e.g. renaming a comment).
    WrongNodeKind { operation: &'static str, kind: NodeKind },
    /// A fragment to insert is not well-formed where it lands
    /// ([`Editor::check_fragments`] is on).
    MalformedFragment(Error),
    /// A new name is not a valid (qualified) name.
    InvalidName(String),
    /// A new name uses a prefix not declared where it lands.
    UndeclaredPrefix(String),
    /// The edit would leave the document without exactly one root element.
    RootElement(&'static str),
    /// Two edits overlap without one containing the other: bytes `a` and `b`.
    Conflict { a: std::ops::Range<usize>, b: std::ops::Range<usize> },
    /// Writing failed.
    Io(io::Error),
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::WrongNodeKind { operation, kind } => write!(f, "cannot {operation} a node of kind {kind:?}"),
            EditError::MalformedFragment(e) => write!(f, "fragment is not well-formed here: {}", e.kind()),
            EditError::InvalidName(n) => write!(f, "`{n}` is not a valid name"),
            EditError::UndeclaredPrefix(p) => write!(f, "namespace prefix `{p}` is not declared where the name is used"),
            EditError::RootElement(what) => write!(f, "{what}"),
            EditError::Conflict { a, b } => write!(f, "edits at bytes {}..{} and {}..{} overlap", a.start, a.end, b.start, b.end),
            EditError::Io(e) => write!(f, "write failed: {e}"),
        }
    }
}

impl std::error::Error for EditError {}

impl From<io::Error> for EditError {
    fn from(e: io::Error) -> Self {
        EditError::Io(e)
    }
}

#[derive(Debug, Clone)]
struct Edit {
    start: usize,
    end: usize,
    /// Offset and length of the new bytes in `Editor::data`.
    data: (usize, usize),
    /// Among insertions at one position: 0 = new content of an empty-element tag, 1 =
    /// the end tag made for it, 2 = everything else.
    prio: u8,
    seq: u32,
}

/// Records edits against a [`Document`] and writes the edited document.
///
/// ```
/// use vtdx_core::{Document, Editor};
/// let doc = Document::parse(b"<a><b>1</b><c>2</c></a>").unwrap();
/// let b = doc.root_element().first_element_child().unwrap();
/// let mut ed = Editor::new(&doc);
/// ed.remove(b).unwrap();
/// ed.append_child(doc.root_element(), "<d/>").unwrap();
/// assert_eq!(ed.to_vec().unwrap(), b"<a><c>2</c><d/></a>");
/// ```
pub struct Editor<'d> {
    doc: &'d Document<'d>,
    edits: Vec<Edit>,
    data: Vec<u8>,
    check: bool,
    strip_indent: bool,
    /// Empty-element tags (`<a/>`) that receive content: (element, end offset). Their
    /// end tags are made at output time, with the element's name as renamed by then.
    opened: Vec<(Node<'d>, usize)>,
    renamed: Vec<(usize, Vec<u8>)>,
}

impl<'d> Editor<'d> {
    /// An editor with no edits. Fragment checking and indentation removal are off.
    pub fn new(doc: &'d Document<'d>) -> Editor<'d> {
        Editor { doc, edits: Vec::new(), data: Vec::new(), check: false, strip_indent: false, opened: Vec::new(), renamed: Vec::new() }
    }

    /// Check every inserted fragment for well-formedness in the namespace context
    /// where it lands (undeclared prefixes are errors). Off by default; on in the CLI.
    pub fn check_fragments(mut self, on: bool) -> Self {
        self.check = on;
        self
    }

    /// When removing an element, comment or PI that sits alone on its line, also
    /// remove the line's indentation, so pretty documents stay pretty.
    pub fn remove_indentation(mut self, on: bool) -> Self {
        self.strip_indent = on;
        self
    }

    /// The document being edited.
    pub fn document(&self) -> &'d Document<'d> {
        self.doc
    }

    /// Number of recorded edits.
    pub fn len(&self) -> usize {
        self.edits.len()
    }

    /// True when no edit was recorded.
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// Forgets every edit, keeping the allocations.
    pub fn clear(&mut self) {
        self.edits.clear();
        self.data.clear();
        self.opened.clear();
        self.renamed.clear();
    }

    fn push(&mut self, start: usize, end: usize, bytes: &[u8]) {
        self.push_prio(start, end, bytes, 2);
    }

    fn push_prio(&mut self, start: usize, end: usize, bytes: &[u8], prio: u8) {
        let off = self.data.len();
        self.data.extend_from_slice(bytes);
        let seq = self.edits.len() as u32;
        self.edits.push(Edit { start, end, data: (off, bytes.len()), prio, seq });
    }

    // ---- removal ---------------------------------------------------------------

    /// Removes a node: an element with its subtree, an attribute with the whitespace
    /// before it, a text node, a CDATA section, a comment or a processing instruction.
    pub fn remove(&mut self, node: Node<'d>) -> Result<(), EditError> {
        let t = self.doc.text();
        match node.kind() {
            NodeKind::Root => Err(EditError::WrongNodeKind { operation: "remove", kind: NodeKind::Root }),
            NodeKind::Element if node.parent().is_some_and(|p| p.is_root()) => {
                Err(EditError::RootElement("cannot remove the root element"))
            }
            NodeKind::Attribute => {
                let r = node.range();
                let mut s = r.start;
                while s > 0 && matches!(t[s - 1], b' ' | b'\t' | b'\n' | b'\r') {
                    s -= 1;
                }
                self.push(s, r.end, b"");
                Ok(())
            }
            kind => {
                let r = node.range();
                let (mut s, mut e) = (r.start, r.end);
                if self.strip_indent && kind != NodeKind::Text {
                    let mut ls = s;
                    while ls > 0 && matches!(t[ls - 1], b' ' | b'\t') {
                        ls -= 1;
                    }
                    let mut le = e;
                    while le < t.len() && matches!(t[le], b' ' | b'\t') {
                        le += 1;
                    }
                    let line_before = ls > 0 && t[ls - 1] == b'\n';
                    let line_after = le >= t.len() || matches!(t[le], b'\n' | b'\r');
                    if line_before && line_after {
                        // drop "\n<indent>node<trailing blanks>", keep the following line end
                        s = ls - 1;
                        if s > 0 && t[s - 1] == b'\r' {
                            s -= 1;
                        }
                        e = le;
                    }
                }
                self.push(s, e, b"");
                Ok(())
            }
        }
    }

    // ---- insertion -------------------------------------------------------------

    fn check_fragment(&self, context: Node<'d>, fragment: &[u8], top_level: bool) -> Result<(), EditError> {
        if !self.check {
            return Ok(());
        }
        check_fragment(self.doc, context, fragment, top_level)
    }

    /// Inserts an XML fragment (elements, text, comments, PIs; UTF-8) just before a node.
    pub fn insert_before(&mut self, node: Node<'d>, fragment: &str) -> Result<(), EditError> {
        self.insert_at(node, fragment.as_bytes(), true)
    }

    /// Inserts an XML fragment just after a node.
    pub fn insert_after(&mut self, node: Node<'d>, fragment: &str) -> Result<(), EditError> {
        self.insert_at(node, fragment.as_bytes(), false)
    }

    /// Inserts raw bytes (not checked, not escaped) just before a node.
    pub fn insert_bytes_before(&mut self, node: Node<'d>, bytes: &[u8]) -> Result<(), EditError> {
        self.sibling_position(node, true).map(|p| self.push(p, p, bytes))
    }

    /// Inserts raw bytes (not checked, not escaped) just after a node.
    pub fn insert_bytes_after(&mut self, node: Node<'d>, bytes: &[u8]) -> Result<(), EditError> {
        self.sibling_position(node, false).map(|p| self.push(p, p, bytes))
    }

    /// Inserts character data (escaped) just before a node.
    pub fn insert_text_before(&mut self, node: Node<'d>, text: &str) -> Result<(), EditError> {
        self.insert_at(node, escape_text(text).as_bytes(), true)
    }

    /// Inserts character data (escaped) just after a node.
    pub fn insert_text_after(&mut self, node: Node<'d>, text: &str) -> Result<(), EditError> {
        self.insert_at(node, escape_text(text).as_bytes(), false)
    }

    fn sibling_position(&self, node: Node<'d>, before: bool) -> Result<usize, EditError> {
        match node.kind() {
            NodeKind::Root | NodeKind::Attribute => {
                Err(EditError::WrongNodeKind { operation: if before { "insert before" } else { "insert after" }, kind: node.kind() })
            }
            _ => {
                let r = node.range();
                Ok(if before { r.start } else { r.end })
            }
        }
    }

    fn insert_at(&mut self, node: Node<'d>, fragment: &[u8], before: bool) -> Result<(), EditError> {
        let p = self.sibling_position(node, before)?;
        let parent = node.parent().unwrap_or(self.doc.root());
        self.check_fragment(parent, fragment, parent.is_root())?;
        self.push(p, p, fragment);
        Ok(())
    }

    /// Inserts an XML fragment as the first content of an element.
    pub fn prepend_child(&mut self, element: Node<'d>, fragment: &str) -> Result<(), EditError> {
        self.child_insert(element, fragment.as_bytes(), true, true)
    }

    /// Inserts an XML fragment as the last content of an element.
    pub fn append_child(&mut self, element: Node<'d>, fragment: &str) -> Result<(), EditError> {
        self.child_insert(element, fragment.as_bytes(), false, true)
    }

    /// Appends character data (escaped) as the last content of an element.
    pub fn append_text(&mut self, element: Node<'d>, text: &str) -> Result<(), EditError> {
        self.child_insert(element, escape_text(text).as_bytes(), false, false)
    }

    /// Appends raw bytes (not checked) as the last content of an element.
    pub fn append_bytes(&mut self, element: Node<'d>, bytes: &[u8]) -> Result<(), EditError> {
        self.child_insert(element, bytes, false, false)
    }

    fn child_insert(&mut self, element: Node<'d>, bytes: &[u8], first: bool, check: bool) -> Result<(), EditError> {
        if !element.is_element() {
            return Err(EditError::WrongNodeKind { operation: "insert a child into", kind: element.kind() });
        }
        if check {
            self.check_fragment(element, bytes, false)?;
        }
        if element.is_empty_element_tag() {
            // `<a .../>` becomes `<a ...>content</a>`: drop the `/`, add the content
            // after the `>`, and the end tag after all content (made at output time)
            let end = element.range().end;
            if !self.opened.iter().any(|(e, _)| *e == element) {
                self.opened.push((element, end));
                self.push(end - 2, end - 1, b"");
            }
            if first {
                // before content appended earlier: give it the earliest sequence number
                let off = self.data.len();
                self.data.extend_from_slice(bytes);
                let min_seq = self.edits.iter().filter(|e| e.start == end && e.prio == 0).map(|e| e.seq).min().unwrap_or(0);
                for e in self.edits.iter_mut().filter(|e| e.start == end && e.prio == 0) {
                    e.seq += 1;
                }
                self.edits.push(Edit { start: end, end, data: (off, bytes.len()), prio: 0, seq: min_seq });
            } else {
                self.push_prio(end, end, bytes, 0);
            }
            return Ok(());
        }
        let r = element.content_range().unwrap_or(0..0);
        let p = if first { r.start } else { r.end };
        self.push(p, p, bytes);
        Ok(())
    }

    // ---- attributes ------------------------------------------------------------

    /// Sets an attribute on an element: replaces the value if the attribute is
    /// there, else adds ` qname="value"` at the end of the start tag. The value is
    /// escaped for an attribute in double quotes.
    pub fn set_attribute(&mut self, element: Node<'d>, qname: &str, value: &str) -> Result<(), EditError> {
        if !element.is_element() {
            return Err(EditError::WrongNodeKind { operation: "set an attribute on", kind: element.kind() });
        }
        if let Some(a) = element.all_attributes().find(|a| a.name() == qname) {
            return self.set_value(a, value);
        }
        self.check_name(element, qname, true)?;
        let st = element.start_tag_range().unwrap_or(0..0);
        let t = self.doc.text();
        let mut p = if element.is_empty_element_tag() { st.end - 2 } else { st.end - 1 };
        while p > st.start && matches!(t[p - 1], b' ' | b'\t' | b'\n' | b'\r') {
            p -= 1;
        }
        let mut v = Vec::with_capacity(qname.len() + value.len() + 4);
        v.push(b' ');
        v.extend_from_slice(qname.as_bytes());
        v.extend_from_slice(b"=\"");
        v.extend_from_slice(escape_attr(value, b'"').as_bytes());
        v.push(b'"');
        self.push(p, p, &v);
        Ok(())
    }

    fn check_name(&self, context: Node<'d>, qname: &str, attribute: bool) -> Result<(), EditError> {
        if !crate::chars::is_name(qname.as_bytes()) {
            return Err(EditError::InvalidName(qname.to_string()));
        }
        if !self.doc.options().namespaces {
            return Ok(());
        }
        let parts: Vec<&str> = qname.split(':').collect();
        match parts.as_slice() {
            [_] => Ok(()),
            [p, l] if !p.is_empty() && !l.is_empty() && crate::chars::is_name(l.as_bytes()) => {
                if *p == "xml" || (attribute && *p == "xmlns") || context.lookup_namespace(p).is_some() {
                    Ok(())
                } else {
                    Err(EditError::UndeclaredPrefix(p.to_string()))
                }
            }
            _ => Err(EditError::InvalidName(qname.to_string())),
        }
    }

    // ---- values ----------------------------------------------------------------

    /// Replaces a node's value, escaped for its context: a text node's characters,
    /// a CDATA section's content, an attribute's value, a comment's content, a PI's data.
    pub fn set_value(&mut self, node: Node<'d>, value: &str) -> Result<(), EditError> {
        let t = self.doc.text();
        match node.kind() {
            NodeKind::Text => {
                let r = node.range();
                self.push(r.start, r.end, escape_text(value).as_bytes());
            }
            NodeKind::CData => {
                let r = node.range();
                let v = value.replace("]]>", "]]]]><![CDATA[>");
                self.push(r.start + 9, r.end - 3, v.as_bytes());
            }
            NodeKind::Attribute => {
                let r = node.value_range().unwrap_or(0..0);
                let q = t[r.start - 1];
                self.push(r.start, r.end, escape_attr(value, q).as_bytes());
            }
            NodeKind::Comment => {
                let r = node.range();
                let mut v = value.replace("--", "- -");
                if v.ends_with('-') {
                    v.push(' ');
                }
                self.push(r.start + 4, r.end - 3, v.as_bytes());
            }
            NodeKind::ProcessingInstruction => {
                let r = node.range();
                let target_end = r.start + 2 + node.name().len();
                let v = value.replace("?>", "? >");
                let mut d = Vec::with_capacity(v.len() + 1);
                if !v.is_empty() {
                    d.push(b' ');
                }
                d.extend_from_slice(v.as_bytes());
                self.push(target_end, r.end - 2, &d);
            }
            NodeKind::Element => return self.set_text(node, value),
            NodeKind::Root => return Err(EditError::WrongNodeKind { operation: "set the value of", kind: NodeKind::Root }),
        }
        Ok(())
    }

    /// Replaces all content of an element with character data (escaped).
    pub fn set_text(&mut self, element: Node<'d>, text: &str) -> Result<(), EditError> {
        if !element.is_element() {
            return self.set_value(element, text);
        }
        let esc = escape_text(text);
        if element.is_empty_element_tag() {
            return self.child_insert(element, esc.as_bytes(), false, false);
        }
        let r = element.content_range().unwrap_or(0..0);
        self.push(r.start, r.end, esc.as_bytes());
        Ok(())
    }

    /// Replaces a whole node (element with subtree, text, comment, PI, CDATA) with an
    /// XML fragment.
    pub fn replace(&mut self, node: Node<'d>, fragment: &str) -> Result<(), EditError> {
        match node.kind() {
            NodeKind::Root | NodeKind::Attribute => return Err(EditError::WrongNodeKind { operation: "replace", kind: node.kind() }),
            _ => {}
        }
        let parent = node.parent().unwrap_or(self.doc.root());
        self.check_fragment(parent, fragment.as_bytes(), parent.is_root())?;
        let r = node.range();
        self.push(r.start, r.end, fragment.as_bytes());
        Ok(())
    }

    /// Renames an element (start and end tag together) or an attribute.
    pub fn rename(&mut self, node: Node<'d>, new_qname: &str) -> Result<(), EditError> {
        let old = node.name();
        match node.kind() {
            NodeKind::Element => {
                self.check_name(node, new_qname, false)?;
                let s = node.range().start + 1;
                self.push(s, s + old.len(), new_qname.as_bytes());
                self.renamed.push((node.range().start, new_qname.as_bytes().to_vec()));
                if !node.is_empty_element_tag() {
                    let ce = node.content_range().unwrap_or(0..0).end + 2;
                    self.push(ce, ce + old.len(), new_qname.as_bytes());
                }
                Ok(())
            }
            NodeKind::Attribute => {
                let owner = node.parent().unwrap_or(self.doc.root());
                self.check_name(owner, new_qname, true)?;
                let s = node.range().start;
                self.push(s, s + old.len(), new_qname.as_bytes());
                Ok(())
            }
            k => Err(EditError::WrongNodeKind { operation: "rename", kind: k }),
        }
    }

    // ---- output ----------------------------------------------------------------

    /// Writes the edited document in the document's own encoding.
    pub fn write_to<W: Write>(&self, mut w: W) -> Result<(), EditError> {
        let mut buf = Vec::new();
        self.write_into(&mut buf)?;
        w.write_all(&buf)?;
        Ok(())
    }

    /// The edited document as bytes, in the document's own encoding.
    pub fn to_vec(&self) -> Result<Vec<u8>, EditError> {
        let mut v = Vec::new();
        self.write_into(&mut v)?;
        Ok(v)
    }

    /// Writes the edited document into `out` (cleared first; its allocation is reused).
    pub fn write_into(&self, out: &mut Vec<u8>) -> Result<(), EditError> {
        out.clear();
        let doc = self.doc;
        let utf8_source = doc.text_is_source();
        if utf8_source {
            out.reserve(doc.source().len() + self.data.len());
            out.extend_from_slice(&doc.source()[..doc.bom_len()]);
            self.splice(doc.text(), out)?;
            return Ok(());
        }
        let mut utf8 = Vec::with_capacity(doc.text().len() + self.data.len());
        self.splice(doc.text(), &mut utf8)?;
        encode_like(doc, &utf8, out);
        Ok(())
    }

    fn splice(&self, t: &[u8], out: &mut Vec<u8>) -> Result<(), EditError> {
        // end tags for empty-element tags that received content
        let mut extra: Vec<Edit> = Vec::new();
        let mut extra_data: Vec<u8> = Vec::new();
        for (el, end) in &self.opened {
            let start = el.range().start;
            let name: &[u8] = self.renamed.iter().rev().find(|(s, _)| *s == start).map_or(el.name().as_bytes(), |(_, n)| n);
            let off = extra_data.len();
            extra_data.extend_from_slice(b"</");
            extra_data.extend_from_slice(name);
            extra_data.push(b'>');
            extra.push(Edit { start: *end, end: *end, data: (usize::MAX - off, name.len() + 3), prio: 1, seq: 0 });
        }
        let all: Vec<&Edit> = self.edits.iter().chain(extra.iter()).collect();
        let mut order: Vec<u32> = (0..all.len() as u32).collect();
        // insertions (empty ranges) before replacements at the same start, ordered by
        // priority then call order; among replacements the outer (longer) first
        order.sort_unstable_by_key(|&i| {
            let e = all[i as usize];
            (e.start, e.end != e.start, std::cmp::Reverse(e.end), e.prio, e.seq)
        });
        let bytes_of = |e: &Edit| -> &[u8] {
            if e.data.0 > usize::MAX / 2 {
                let off = usize::MAX - e.data.0;
                &extra_data[off..off + e.data.1]
            } else {
                &self.data[e.data.0..e.data.0 + e.data.1]
            }
        };
        let mut cursor = 0usize;
        // the last replacement written: inner edits inside it are absorbed
        let mut last_repl: Option<(usize, usize)> = None;
        for &i in &order {
            let e = all[i as usize];
            if e.start < cursor {
                if e.end <= cursor {
                    continue; // absorbed by an enclosing removal or replacement
                }
                let (a, b) = last_repl.unwrap_or((0, cursor));
                return Err(EditError::Conflict { a: a..b, b: e.start..e.end });
            }
            out.extend_from_slice(&t[cursor..e.start]);
            out.extend_from_slice(bytes_of(e));
            cursor = e.end.max(cursor);
            if e.end > e.start {
                last_repl = Some((e.start, e.end));
            }
        }
        out.extend_from_slice(&t[cursor..]);
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

/// Checks a fragment by parsing it inside a wrapper that declares the namespaces in
/// scope at `context` and repeats the document's internal subset (for its entities).
fn check_fragment(doc: &Document<'_>, context: Node<'_>, fragment: &[u8], top_level: bool) -> Result<(), EditError> {
    let mut w: Vec<u8> = Vec::with_capacity(fragment.len() + 256);
    if let Some(d) = doc.dtd() {
        if let Some(r) = &d.internal_subset {
            w.extend_from_slice(b"<!DOCTYPE w [");
            w.extend_from_slice(&doc.text()[r.clone()]);
            w.extend_from_slice(b"]>");
        }
    }
    let prefix_len;
    if top_level {
        // only comments, PIs and whitespace may stand beside the root element
        w.extend_from_slice(b"<w/>");
        prefix_len = w.len();
        w.extend_from_slice(fragment);
    } else {
        w.extend_from_slice(b"<w");
        for (p, u) in context.namespaces() {
            if p == "xml" {
                continue;
            }
            if p.is_empty() {
                w.extend_from_slice(b" xmlns=\"");
            } else {
                w.extend_from_slice(b" xmlns:");
                w.extend_from_slice(p.as_bytes());
                w.extend_from_slice(b"=\"");
            }
            w.extend_from_slice(escape_attr(u, b'"').as_bytes());
            w.push(b'"');
        }
        w.push(b'>');
        prefix_len = w.len();
        w.extend_from_slice(fragment);
        w.extend_from_slice(b"</w>");
    }
    match Document::parse_with(&w, doc.options()) {
        Ok(_) => Ok(()),
        Err(e) => {
            let off = (e.offset() as usize).saturating_sub(prefix_len).min(fragment.len());
            let (line, col) = crate::error::line_column(fragment, off);
            Err(EditError::MalformedFragment(Error::with_position(e.kind().clone(), off as u64, line, col)))
        }
    }
}

/// Encodes UTF-8 `utf8` into the encoding the document came in.
fn encode_like(doc: &Document<'_>, utf8: &[u8], out: &mut Vec<u8>) {
    let s = String::from_utf8_lossy(utf8);
    match doc.encoding() {
        SourceEncoding::Utf8 { bom } => {
            if *bom {
                out.extend_from_slice(b"\xEF\xBB\xBF");
            }
            out.extend_from_slice(utf8);
        }
        SourceEncoding::Utf16Le { bom } | SourceEncoding::Utf16Be { bom } => {
            let le = matches!(doc.encoding(), SourceEncoding::Utf16Le { .. });
            let mut push = |u: u16| {
                let b = if le { u.to_le_bytes() } else { u.to_be_bytes() };
                out.extend_from_slice(&b);
            };
            if *bom {
                push(0xFEFF);
            }
            for u in s.encode_utf16() {
                push(u);
            }
        }
        SourceEncoding::Other { label } => {
            let l = label.to_ascii_lowercase();
            if matches!(l.as_str(), "iso-8859-1" | "latin1" | "iso_8859-1" | "l1" | "iso-ir-100" | "csisolatin1" | "ibm819" | "cp819") {
                for c in s.chars() {
                    if (c as u32) < 0x100 {
                        out.push(c as u32 as u8);
                    } else {
                        out.extend_from_slice(format!("&#x{:X};", c as u32).as_bytes());
                    }
                }
                return;
            }
            match encoding_rs::Encoding::for_label(label.as_bytes()) {
                Some(enc) => {
                    // unmappable characters come out as numeric character references
                    let (bytes, _, _) = enc.encode(&s);
                    out.extend_from_slice(&bytes);
                }
                None => out.extend_from_slice(utf8),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edited(src: &str, f: impl for<'x> FnOnce(&'x Document<'x>, &mut Editor<'x>)) -> String {
        let doc = Document::parse(src.as_bytes()).unwrap();
        let mut ed = Editor::new(&doc);
        f(&doc, &mut ed);
        String::from_utf8(ed.to_vec().unwrap()).unwrap()
    }

    #[test]
    fn no_edits_is_identity() {
        let src = "<?xml version='1.0'?>\n<a x='1'><b/>t&amp;<!--c--></a>\n";
        assert_eq!(edited(src, |_, _| {}), src);
    }

    #[test]
    fn remove_each_kind() {
        let src = "<a x='1' y=\"2\"><b>t</b>u<!--c--><?p d?><![CDATA[e]]></a>";
        let out = edited(src, |doc, ed| {
            let a = doc.root_element();
            ed.remove(a.attribute_node("y").unwrap()).unwrap();
            for c in a.children() {
                if c.kind() != NodeKind::Element {
                    ed.remove(c).unwrap();
                }
            }
        });
        assert_eq!(out, "<a x='1'><b>t</b></a>");
    }

    #[test]
    fn inserts_keep_call_order() {
        let out = edited("<a><b/></a>", |doc, ed| {
            let b = doc.root_element().first_element_child().unwrap();
            ed.insert_before(b, "<x/>").unwrap();
            ed.insert_before(b, "<y/>").unwrap();
            ed.insert_after(b, "<z/>").unwrap();
            ed.prepend_child(b, "1").unwrap();
            ed.append_child(b, "2").unwrap();
        });
        assert_eq!(out, "<a><x/><y/><b>12</b><z/></a>");
    }

    #[test]
    fn values_are_escaped() {
        let out = edited("<a x='1'>old</a>", |doc, ed| {
            let a = doc.root_element();
            ed.set_value(a.attribute_node("x").unwrap(), "it's <&>\"").unwrap();
            ed.set_value(a.first_child().unwrap(), "a<b & ]]> c").unwrap();
            ed.set_attribute(a, "y", "\"q\"\n").unwrap();
        });
        assert_eq!(out, "<a x='it&apos;s &lt;&amp;>\"' y=\"&quot;q&quot;&#xA;\">a&lt;b &amp; ]]&gt; c</a>");
        // and the result reads back as the values that were set
        let doc = Document::parse(out.as_bytes()).unwrap();
        assert_eq!(doc.root_element().attribute("x").unwrap(), "it's <&>\"");
        assert_eq!(doc.root_element().attribute("y").unwrap(), "\"q\"\n");
        assert_eq!(doc.root_element().text().unwrap(), "a<b & ]]> c");
    }

    #[test]
    fn empty_element_tag_receives_content() {
        let out = edited("<a><b x='1'/><c/></a>", |doc, ed| {
            let b = doc.root_element().first_element_child().unwrap();
            ed.append_child(b, "2").unwrap();
            ed.prepend_child(b, "1").unwrap();
            ed.insert_after(b, "<z/>").unwrap();
            ed.rename(b, "bb").unwrap();
            ed.set_attribute(b, "y", "v").unwrap();
        });
        assert_eq!(out, "<a><bb x='1' y=\"v\">12</bb><z/><c/></a>");
    }

    #[test]
    fn rename_start_and_end() {
        let out = edited("<a><b>x</b><b/></a>", |doc, ed| {
            for b in doc.root_element().element_children() {
                ed.rename(b, "c").unwrap();
            }
        });
        assert_eq!(out, "<a><c>x</c><c/></a>");
    }

    #[test]
    fn inner_edits_are_absorbed() {
        let out = edited("<a><b x='1'>t</b></a>", |doc, ed| {
            let b = doc.root_element().first_element_child().unwrap();
            ed.set_value(b.attribute_node("x").unwrap(), "2").unwrap();
            ed.remove(b).unwrap();
            ed.append_child(b, "<c/>").unwrap();
        });
        assert_eq!(out, "<a></a>");
    }

    #[test]
    fn partial_overlap_is_an_error() {
        let doc = Document::parse(b"<a>x\n  <b/>\n</a>").unwrap();
        let mut ed = Editor::new(&doc).remove_indentation(true);
        let b = doc.root_element().first_element_child().unwrap();
        let ws = doc.root_element().first_child().unwrap();
        ed.set_value(ws, "y").unwrap();
        ed.remove(b).unwrap();
        assert!(matches!(ed.to_vec(), Err(EditError::Conflict { .. })));
    }

    #[test]
    fn indentation_removed_with_element() {
        let out = edited("<a>\n  <b/>\n  <c/>\n</a>", |_, _| {});
        assert_eq!(out, "<a>\n  <b/>\n  <c/>\n</a>");
        let doc = Document::parse(b"<a>\n  <b/>\n  <c/>\n</a>").unwrap();
        let mut ed = Editor::new(&doc).remove_indentation(true);
        ed.remove(doc.root_element().first_element_child().unwrap()).unwrap();
        assert_eq!(ed.to_vec().unwrap(), b"<a>\n  <c/>\n</a>");
    }

    #[test]
    fn fragments_checked_in_namespace_context() {
        let doc = Document::parse(b"<a xmlns:p='urn:p'><b/></a>").unwrap();
        let mut ed = Editor::new(&doc).check_fragments(true);
        let b = doc.root_element().first_element_child().unwrap();
        assert!(ed.append_child(b, "<p:c/>").is_ok());
        assert!(matches!(ed.append_child(b, "<q:c/>"), Err(EditError::MalformedFragment(_))));
        assert!(matches!(ed.append_child(b, "<c>"), Err(EditError::MalformedFragment(_))));
        assert!(matches!(ed.insert_after(doc.root_element(), "<x/>"), Err(EditError::MalformedFragment(_))));
        assert!(ed.insert_after(doc.root_element(), "<!--ok-->").is_ok());
        assert!(matches!(ed.rename(b, "q:z"), Err(EditError::UndeclaredPrefix(_))));
    }

    #[test]
    fn utf16_document_is_written_in_utf16() {
        let src: Vec<u8> = std::iter::once(0xFEFFu16)
            .chain("<a>é</a>".encode_utf16())
            .flat_map(|u| u.to_le_bytes())
            .collect();
        let doc = Document::parse(&src).unwrap();
        let mut ed = Editor::new(&doc);
        ed.append_text(doc.root_element(), "ü").unwrap();
        let out = ed.to_vec().unwrap();
        let expect: Vec<u8> = std::iter::once(0xFEFFu16)
            .chain("<a>éü</a>".encode_utf16())
            .flat_map(|u| u.to_le_bytes())
            .collect();
        assert_eq!(out, expect);
    }

    #[test]
    fn into_document_continues() {
        let doc = Document::parse(b"<a><b/></a>").unwrap();
        let mut ed = Editor::new(&doc);
        ed.append_child(doc.root_element(), "<c/>").unwrap();
        let d2 = ed.into_document().unwrap();
        assert_eq!(d2.root_element().element_children().count(), 2);
    }
}
