//! Checks that keep the output well-formed: fragments parsed where they land,
//! and namespace prefixes still in use.

use crate::document::{Document, Node};
use crate::error::Error;

use super::{escape_attr, EditError};

/// Where a fragment is checked.
#[derive(Clone, Copy)]
pub(super) enum Place<'d> {
    /// In the content of this element.
    Content(Node<'d>),
    /// Beside the root element: comments, PIs and white space only.
    TopLevel,
    /// In place of the root element: exactly one element, with comments and PIs.
    RootElement,
}

/// Does a name in the scope of `owner`'s declaration of `prefix` use the prefix?
pub(super) fn prefix_used(owner: Node<'_>, prefix: &str) -> bool {
    let uses = |n: &Node<'_>| n.prefix() == prefix || n.attributes().any(|a| a.prefix() == prefix);
    if uses(&owner) {
        return true;
    }
    let declares = |n: &Node<'_>| n.namespace_declarations().any(|d| d.name().strip_prefix("xmlns:") == Some(prefix));
    let mut stack: Vec<Node<'_>> = owner.element_children().collect();
    stack.reverse();
    while let Some(n) = stack.pop() {
        if declares(&n) {
            continue; // redeclared: its subtree is out of scope
        }
        if uses(&n) {
            return true;
        }
        let before = stack.len();
        stack.extend(n.element_children());
        stack[before..].reverse();
    }
    false
}

/// Checks a fragment by parsing it inside a wrapper that declares the namespaces in
/// scope where it lands and repeats the document's internal subset (for its entities).
pub(super) fn check_fragment(doc: &Document<'_>, place: Place<'_>, fragment: &[u8]) -> Result<(), EditError> {
    let mut w: Vec<u8> = Vec::with_capacity(fragment.len() + 256);
    if let Some(d) = doc.dtd() {
        if let Some(r) = &d.internal_subset {
            w.extend_from_slice(b"<!DOCTYPE w [");
            w.extend_from_slice(&doc.text()[r.clone()]);
            w.extend_from_slice(b"]>");
        }
    }
    let prefix_len;
    match place {
        Place::TopLevel => {
            // only comments, PIs and white space may stand beside the root element
            w.extend_from_slice(b"<w/>");
            prefix_len = w.len();
            w.extend_from_slice(fragment);
        }
        Place::RootElement => {
            // a comment first, so that an XML declaration in the fragment is an error
            w.extend_from_slice(b"<!---->");
            prefix_len = w.len();
            w.extend_from_slice(fragment);
        }
        Place::Content(context) => {
            w.extend_from_slice(b"<w");
            for (p, u) in context.namespaces() {
                if p == "xml" {
                    continue;
                }
                crate::xml::write_xmlns(&mut w, p, |b| b.extend_from_slice(escape_attr(u, b'"').as_bytes()));
            }
            w.push(b'>');
            prefix_len = w.len();
            w.extend_from_slice(fragment);
            w.extend_from_slice(b"</w>");
        }
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
