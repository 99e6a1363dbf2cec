//! Writing: the whole document byte for byte, any node's bytes, and a
//! re-indenting pretty printer.

use std::io::{self, Write};

use crate::document::{Document, Node, NodeKind};

impl Document<'_> {
    /// Writes the input exactly as it was given.
    pub fn write_to<W: Write>(&self, mut w: W) -> io::Result<()> {
        w.write_all(self.source())
    }

    /// Writes a re-indented copy of the document (see [`write_pretty`]).
    pub fn write_pretty<W: Write>(&self, w: W, indent: usize) -> io::Result<()> {
        write_pretty(self, w, indent)
    }
}

impl Node<'_> {
    /// Writes the node's exact bytes ([`Node::raw`]).
    pub fn write_to<W: Write>(&self, mut w: W) -> io::Result<()> {
        w.write_all(self.raw())
    }
}

/// Re-indents a document: each element that contains only elements, comments and
/// processing instructions (and whitespace) gets its children on their own lines,
/// indented by `indent` spaces per level; whitespace-only text between them is
/// replaced. Elements with any other text (mixed or text content) are written
/// exactly as they are, so no character data changes. Tags, attributes and
/// references are copied byte for byte from the (UTF-8) text.
pub fn write_pretty<W: Write>(doc: &Document<'_>, mut w: W, indent: usize) -> io::Result<()> {
    let t = doc.text();
    let mut items: Vec<(usize, usize)> = Vec::new();
    if let Some(d) = doc.xml_declaration() {
        items.push((d.span.start, d.span.end));
    }
    if let Some(d) = doc.dtd() {
        items.push((d.span.start, d.span.end));
    }
    let mut top = doc.root().first_child();
    let mut nodes = Vec::new();
    while let Some(n) = top {
        let r = n.range();
        items.push((r.start, r.end));
        nodes.push((r.start, n));
        top = n.next_sibling();
    }
    items.sort_unstable();
    let mut buf = Vec::with_capacity(t.len() + t.len() / 4);
    for (s, e) in items {
        match nodes.iter().find(|(ns, n)| *ns == s && n.is_element()) {
            Some((_, n)) => element(t, *n, 0, indent, &mut buf),
            None => {
                buf.extend_from_slice(&t[s..e]);
                buf.push(b'\n');
            }
        }
    }
    w.write_all(&buf)
}

fn pad(out: &mut Vec<u8>, n: usize) {
    out.resize(out.len() + n, b' ');
}

/// Writes element `root` re-indented. Iterative (an explicit stack), so document
/// depth is limited by memory, not by the call stack.
fn element(t: &[u8], root: Node<'_>, level: usize, indent: usize, out: &mut Vec<u8>) {
    enum Step<'d> {
        Open(Node<'d>, usize),
        Close(Node<'d>, usize),
        Leaf(Node<'d>, usize),
    }
    let mut stack = vec![Step::Open(root, level)];
    while let Some(step) = stack.pop() {
        match step {
            Step::Leaf(n, level) => {
                pad(out, level * indent);
                out.extend_from_slice(n.raw());
                out.push(b'\n');
            }
            Step::Close(e, level) => {
                pad(out, level * indent);
                let ce = e.content_range().map_or(0, |r| r.end);
                out.extend_from_slice(&t[ce..e.range().end]);
                out.push(b'\n');
            }
            Step::Open(e, level) => {
                pad(out, level * indent);
                let structural = e.children().all(|c| match c.kind() {
                    NodeKind::Text => c.raw().iter().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')),
                    NodeKind::CData => false,
                    _ => true,
                });
                let has_children = e.children().any(|c| !c.is_text());
                if !structural || !has_children {
                    if structural && !e.is_empty_element_tag() {
                        // only whitespace inside: keep the tags, drop the whitespace
                        let st = e.start_tag_range().unwrap_or(0..0);
                        let ce = e.content_range().map_or(0, |r| r.end);
                        out.extend_from_slice(&t[st]);
                        out.extend_from_slice(&t[ce..e.range().end]);
                    } else {
                        out.extend_from_slice(e.raw());
                    }
                    out.push(b'\n');
                    continue;
                }
                let st = e.start_tag_range().unwrap_or(0..0);
                out.extend_from_slice(&t[st]);
                out.push(b'\n');
                stack.push(Step::Close(e, level));
                let children: Vec<Node<'_>> = e.children().filter(|c| !c.is_text()).collect();
                for c in children.into_iter().rev() {
                    if c.is_element() {
                        stack.push(Step::Open(c, level + 1));
                    } else {
                        // comments and PIs: written as they are, at the child level
                        stack.push(Step::Leaf(c, level + 1));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_keeps_text_and_reindents_structure() {
        let doc = Document::parse(b"<?xml version='1.0'?><a><b x='1'><c>t &amp; u</c></b><!--k--><d/><e>  </e></a>").unwrap();
        let mut out = Vec::new();
        doc.write_pretty(&mut out, 2).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert_eq!(s, "<?xml version='1.0'?>\n<a>\n  <b x='1'>\n    <c>t &amp; u</c>\n  </b>\n  <!--k-->\n  <d/>\n  <e></e>\n</a>\n");
    }
}
