//! The `Editor` on arbitrary documents with edits derived from the input.
//!
//! The input is a document, a NUL byte, then an edit program (without a NUL the
//! document's own bytes are also the program). The program's first byte chooses
//! fragment checking, indentation removal, namespace processing and the number
//! of edits (1 to 4); each edit is an operation byte, a node index (two bytes,
//! over every node and attribute in document order) and its string arguments
//! (a byte below 0x80 picks a fragment, name or value from [`WORDS`]; above, the
//! next `b & 0x3f` program bytes are taken as text).
//!
//! Checks: nothing panics; `to_vec` and `write_to` give the same bytes; with
//! fragment checking on and no raw-bytes insert, the output of successful edits
//! re-parses with the document's options (a `LimitExceeded` aside). For a single
//! edit on a document without a DOCTYPE, the re-parsed document also shows the
//! edit: the renamed element has its new name, a set attribute its value, an
//! element given text that text, and a removed element's subtree is gone.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vtdx_core::{Document, Editor, Node, NodeKind, ParseOptions};
use vtdx_fuzz::is_limit;

/// Fragments, names and values the program picks from.
const WORDS: &[&str] = &[
    "",
    "x",
    "a",
    "b",
    "p:x",
    "q:x",
    "xmlns",
    "xmlns:p",
    "xmlns:q",
    "xml:lang",
    "xml:space",
    "urn:p",
    "text",
    " ",
    "\r\n",
    "\t",
    "a&amp;b",
    "&lt;",
    "&e;",
    "&#x10000;",
    "é",
    "\u{10000}",
    "--",
    "-",
    "?>",
    "]]>",
    "<b/>",
    "<p:b/>",
    "<b>t</b>",
    "<b a='1'/>",
    "<b a='1' a='2'/>",
    "<b xmlns=''/>",
    "<b xmlns:p='urn:q'><p:c/></b>",
    "<a xmlns:p='urn:p'><p:c p:x='1'/></a>",
    "<!--c-->",
    "<?pi d?>",
    "<![CDATA[x]]>",
    "<b",
    "</a>",
    "t<b/>u",
    "<!DOCTYPE a>",
    "<?xml version='1.0'?>",
    "x y",
    "1",
];

struct Program<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Program<'a> {
    /// The next byte; 0 once the program is used up.
    fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    fn index(&mut self, len: usize) -> usize {
        (usize::from(self.byte()) << 8 | usize::from(self.byte())) % len
    }

    fn string(&mut self) -> String {
        let b = self.byte();
        if b < 0x80 {
            return WORDS[usize::from(b) % WORDS.len()].to_string();
        }
        let n = usize::from(b & 0x3f);
        let start = self.pos.min(self.bytes.len());
        let end = (self.pos + n).min(self.bytes.len());
        self.pos += n;
        String::from_utf8_lossy(&self.bytes[start..end]).into_owned()
    }
}

/// One edit that was accepted, as far as the single-edit postconditions need it.
#[derive(Debug)]
enum Done {
    Rename { element: usize, name: String },
    SetAttribute { element: usize, name: String, value: String },
    SetText { element: usize, text: String },
    RemoveElement { elements: usize },
    Other,
}

/// The position of `n` among the document's elements in document order.
fn element_index(doc: &Document<'_>, n: Node<'_>) -> usize {
    doc.root().descendant_elements().position(|e| e == n).expect("an element of the document")
}

/// The concatenated text and CDATA content under `n` (its XPath string-value).
fn string_value(n: Node<'_>) -> String {
    n.descendants().filter(|d| matches!(d.kind(), NodeKind::Text | NodeKind::CData)).map(|d| d.value().into_owned()).collect()
}

fuzz_target!(|data: &[u8]| {
    let (doc_bytes, program) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, data),
    };
    let mut p = Program { bytes: program, pos: 0 };
    let flags = p.byte();
    let check = flags & 1 == 0;
    let strip = flags & 2 != 0;
    let namespaces = flags & 4 == 0;
    let count = 1 + usize::from(flags >> 3 & 3);

    let opts = ParseOptions::new().namespaces(namespaces);
    let Ok(doc) = Document::parse_with(doc_bytes, &opts) else { return };
    let mut nodes: Vec<Node<'_>> = Vec::new();
    for n in doc.root().descendants() {
        nodes.push(n);
        if n.is_element() {
            nodes.extend(n.all_attributes());
        }
    }

    let mut ed = Editor::new(&doc).check_fragments(check).remove_indentation(strip);
    let mut raw = false;
    let mut done = Vec::new();
    for _ in 0..count {
        let op = p.byte() % 16;
        let n = nodes[p.index(nodes.len())];
        let r = match op {
            0 => ed.remove(n).map(|()| {
                if n.is_element() {
                    Done::RemoveElement { elements: 1 + n.descendant_elements().count() }
                } else {
                    Done::Other
                }
            }),
            1 => {
                let (name, value) = (p.string(), p.string());
                ed.set_attribute(n, &name, &value).map(|()| Done::SetAttribute { element: element_index(&doc, n), name, value })
            }
            2 => {
                let v = p.string();
                ed.set_value(n, &v).map(|()| Done::Other)
            }
            3 => {
                let text = p.string();
                ed.set_text(n, &text).map(|()| if n.is_element() { Done::SetText { element: element_index(&doc, n), text } } else { Done::Other })
            }
            4 => ed.insert_before(n, &p.string()).map(|()| Done::Other),
            5 => ed.insert_after(n, &p.string()).map(|()| Done::Other),
            6 => ed.insert_text_before(n, &p.string()).map(|()| Done::Other),
            7 => ed.insert_text_after(n, &p.string()).map(|()| Done::Other),
            8 => ed.prepend_child(n, &p.string()).map(|()| Done::Other),
            9 => ed.append_child(n, &p.string()).map(|()| Done::Other),
            10 => ed.append_text(n, &p.string()).map(|()| Done::Other),
            11 => ed.replace(n, &p.string()).map(|()| Done::Other),
            12 => {
                let name = p.string();
                ed.rename(n, &name).map(|()| if n.is_element() { Done::Rename { element: element_index(&doc, n), name } } else { Done::Other })
            }
            // raw bytes: never checked, so the output need not re-parse
            13 => ed.insert_bytes_before(n, p.string().as_bytes()).map(|()| Done::Other),
            14 => ed.insert_bytes_after(n, p.string().as_bytes()).map(|()| Done::Other),
            _ => ed.append_bytes(n, p.string().as_bytes()).map(|()| Done::Other),
        };
        // a refused edit leaves the editor as it was
        if let Ok(d) = r {
            raw |= op >= 13;
            done.push((op, d));
        }
    }

    let Ok(out) = ed.to_vec() else { return };
    let mut again = Vec::new();
    ed.write_to(&mut again).expect("write_to a Vec after to_vec succeeded");
    assert_eq!(out, again, "to_vec and write_to differ");
    if !check || raw {
        return;
    }
    let edited = match Document::parse_with(&out, doc.options()) {
        Ok(d) => d,
        Err(e) if is_limit(e.kind()) => return,
        Err(e) => panic!(
            "checked edits {done:?} gave output that does not re-parse: {e}\noutput: {:?}",
            String::from_utf8_lossy(&out)
        ),
    };
    // single-edit postconditions, where no DTD can default, normalize or expand
    if done.len() != 1 || doc.dtd().is_some() {
        return;
    }
    let elements: Vec<Node<'_>> = edited.root().descendant_elements().collect();
    let show = || format!("{:?}", String::from_utf8_lossy(&out));
    match &done[0].1 {
        Done::Rename { element, name } => {
            assert_eq!(elements[*element].name(), name, "rename not in the output: {}", show())
        }
        // namespace declarations are not attributes once parsed with namespaces on
        Done::SetAttribute { name, .. } if name == "xmlns" || name.starts_with("xmlns:") => {}
        Done::SetAttribute { element, name, value } => {
            assert_eq!(elements[*element].attribute(name).as_deref(), Some(value.as_str()), "set_attribute not in the output: {}", show())
        }
        Done::SetText { element, text } => {
            assert_eq!(&string_value(elements[*element]), text, "set_text not in the output: {}", show())
        }
        Done::RemoveElement { elements: removed } => {
            let before = doc.root().descendant_elements().count();
            assert_eq!(elements.len(), before - removed, "remove left elements behind: {}", show())
        }
        Done::Other => {}
    }
});
