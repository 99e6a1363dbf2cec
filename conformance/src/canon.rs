//! James Clark's canonical XML, with Sun's notation extension (the "Second XML
//! Canonical Form", `sun/cxml.html`), which is what the suite's `out/` files hold.
//!
//! ```text
//! CanonXML2 ::= Pi* SubsetPi* DTD2? Pi* element Pi*     (in document order)
//! DTD2      ::= '<!DOCTYPE ' name ' [' #xA Notations ']>' #xA
//! Notations ::= ('<!NOTATION ' Name ' ' ExternalID '>' #xA)*   (sorted by name)
//! element   ::= '<' Name Atts '>' (Datachar | Pi | element)* '</' Name '>'
//! Atts      ::= (' ' Name '="' Datachar* '"')*                  (sorted by name)
//! Pi        ::= '<?' Name ' ' Data '?>'
//! ```
//!
//! `SubsetPi` are processing instructions inside the internal subset: the IBM
//! outputs (made through SAX, which reports them) contain them, in front of the
//! notation summary. Comments are dropped, white space outside the document element is dropped,
//! attributes defaulted by the internal subset are written, and `& < > "` TAB
//! LF CR are escaped in character data and attribute values.

use vtdx_core::dtd::{normalize_attribute_value, AttDefault, AttType, Dtd, ExpansionBudget};
use vtdx_core::{Document, Node, NodeKind, ParseOptions};

/// The canonical form of a parsed document.
pub fn canonical(doc: &Document<'_>, opts: &ParseOptions) -> Result<Vec<u8>, String> {
    let mut out = String::new();
    // What the DOCTYPE contributes (internal-subset PIs, the notation summary)
    // is written where it stands: before the first top-level node after it.
    let mut dtd_pending = doc.dtd();
    for child in doc.root().children() {
        if let Some(d) = dtd_pending {
            if child.range().start >= d.span.end {
                write_subset_pis(doc, d, &mut out);
                if !d.notations.is_empty() {
                    write_doctype(d, &mut out);
                }
                dtd_pending = None;
            }
        }
        match child.kind() {
            NodeKind::Element => write_element(doc, child, opts, &mut out)?,
            NodeKind::ProcessingInstruction => write_pi(child, &mut out),
            // Comments are dropped; text outside the document element can only be
            // white space, which is dropped too.
            NodeKind::Comment | NodeKind::Text => {}
            other => return Err(format!("unexpected {other:?} node at the top level")),
        }
    }
    if let Some(d) = dtd_pending {
        return Err(format!("the DOCTYPE (bytes {:?}) is after every top-level node", d.span));
    }
    Ok(out.into_bytes())
}

/// Processing instructions in the internal subset, in order. The suite's IBM
/// outputs were made through SAX, which reports them like any other PI, before
/// the notation summary (`ibm-valid-P29-ibm29v01.xml`).
fn write_subset_pis(doc: &Document<'_>, d: &Dtd, out: &mut String) {
    let Some(r) = d.internal_subset.clone() else { return };
    let Some(b) = doc.text().get(r) else { return };
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"<!--") {
            i = find(b, i + 4, b"-->").map_or(b.len(), |e| e + 3);
        } else if b[i..].starts_with(b"<?") {
            let end = find(b, i + 2, b"?>").unwrap_or(b.len());
            let body = String::from_utf8_lossy(&b[i + 2..end]);
            let is_ws = |c: char| matches!(c, ' ' | '\t' | '\r' | '\n');
            let (target, data) = match body.find(is_ws) {
                Some(p) => (&body[..p], body[p..].trim_start_matches(is_ws)),
                None => (&body[..], ""),
            };
            out.push_str("<?");
            out.push_str(target);
            out.push(' ');
            out.push_str(&data.replace("\r\n", "\n").replace('\r', "\n"));
            out.push_str("?>");
            i = end + 2;
        } else if b[i..].starts_with(b"<!") {
            // A markup declaration: skip to its `>`, stepping over quoted literals.
            let mut j = i + 2;
            let mut quote = None;
            while j < b.len() {
                match (quote, b[j]) {
                    (None, b'"' | b'\'') => quote = Some(b[j]),
                    (Some(q), c) if c == q => quote = None,
                    (None, b'>') => break,
                    _ => {}
                }
                j += 1;
            }
            i = j + 1;
        } else {
            i += 1;
        }
    }
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|p| from + p)
}

fn write_doctype(d: &Dtd, out: &mut String) {
    out.push_str("<!DOCTYPE ");
    out.push_str(&d.name);
    out.push_str(" [\n");
    let mut notations: Vec<_> = d.notations.iter().collect();
    notations.sort_by(|a, b| a.name.cmp(&b.name));
    for n in notations {
        out.push_str("<!NOTATION ");
        out.push_str(&n.name);
        match (&n.public_id, &n.system_id) {
            (Some(p), Some(s)) => {
                out.push_str(" PUBLIC '");
                out.push_str(&normalize_public_id(p));
                out.push_str("' '");
                out.push_str(s);
                out.push('\'');
            }
            (Some(p), None) => {
                out.push_str(" PUBLIC '");
                out.push_str(&normalize_public_id(p));
                out.push('\'');
            }
            (None, Some(s)) => {
                out.push_str(" SYSTEM '");
                out.push_str(s);
                out.push('\'');
            }
            (None, None) => {}
        }
        out.push_str(">\n");
    }
    out.push_str("]>\n");
}

/// §4.2.2: runs of white space become one space, leading and trailing white space
/// is removed. (Idempotent, so harmless if the parser already did it.)
fn normalize_public_id(p: &str) -> String {
    p.split([' ', '\t', '\r', '\n']).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" ")
}

fn write_pi(pi: Node<'_>, out: &mut String) {
    out.push_str("<?");
    out.push_str(pi.pi_target().unwrap_or(""));
    // The grammar always has the space, even for empty data (`<?pi ?>`).
    out.push(' ');
    out.push_str(&pi.value());
    out.push_str("?>");
}

fn write_element(doc: &Document<'_>, root: Node<'_>, opts: &ParseOptions, out: &mut String) -> Result<(), String> {
    // Iterative walk: (node, children-iterator) pairs; the end tag is written when
    // the iterator runs out.
    let mut stack = vec![(root, root.children())];
    open_tag(doc, root, opts, out)?;
    while let Some((node, iter)) = stack.last_mut() {
        match iter.next() {
            None => {
                out.push_str("</");
                out.push_str(node.name());
                out.push('>');
                stack.pop();
            }
            Some(c) => match c.kind() {
                NodeKind::Element => {
                    open_tag(doc, c, opts, out)?;
                    stack.push((c, c.children()));
                }
                NodeKind::Text | NodeKind::CData => escape_into(&c.value(), out),
                NodeKind::ProcessingInstruction => write_pi(c, out),
                NodeKind::Comment => {}
                other => return Err(format!("unexpected {other:?} child of <{}>", node.name())),
            },
        }
    }
    Ok(())
}

fn open_tag(doc: &Document<'_>, e: Node<'_>, opts: &ParseOptions, out: &mut String) -> Result<(), String> {
    let name = e.name();
    let mut attrs: Vec<(String, String)> = e.all_attributes().map(|a| (a.name().to_string(), a.value().into_owned())).collect();
    if let Some(dtd) = doc.dtd() {
        for decl in dtd.attributes_of(name) {
            let raw = match &decl.default {
                AttDefault::Default(v) | AttDefault::Fixed(v) => v,
                AttDefault::Required | AttDefault::Implied => continue,
            };
            if attrs.iter().any(|(n, _)| *n == decl.name) {
                continue;
            }
            let mut budget = ExpansionBudget::new(opts, doc.text().len());
            let cdata = decl.ty == AttType::Cdata;
            let v = normalize_attribute_value(raw, doc.text(), decl.decl_offset, Some(dtd), cdata, &mut budget, 0)
                .map_err(|err| format!("default of attribute {} of <{name}> does not normalize: {err}", decl.name))?;
            attrs.push((decl.name.clone(), v.into_owned()));
        }
    }
    // Unicode code point order; byte order of UTF-8 is the same.
    attrs.sort_by(|a, b| a.0.cmp(&b.0));
    out.push('<');
    out.push_str(name);
    for (n, v) in &attrs {
        out.push(' ');
        out.push_str(n);
        out.push_str("=\"");
        escape_into(v, out);
        out.push('"');
    }
    out.push('>');
    Ok(())
}

fn escape_into(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' => out.push_str("&#9;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(s: &str) -> String {
        let opts = ParseOptions::new();
        let doc = Document::parse_with(s.as_bytes(), &opts).unwrap();
        String::from_utf8(canonical(&doc, &opts).unwrap()).unwrap()
    }

    #[test]
    fn basics() {
        assert_eq!(
            canon("<?xml version='1.0'?><!--c--><a b='1' a='&lt;'>x<![CDATA[<y>]]><e/></a>\n"),
            "<a a=\"&lt;\" b=\"1\">x&lt;y&gt;<e></e></a>"
        );
        assert_eq!(canon("<a>\t\r\n\"</a>"), "<a>&#9;&#10;&quot;</a>");
        assert_eq!(canon("<?pi?><a><?x  y ?></a><?z?>"), "<?pi ?><a><?x y ?></a><?z ?>");
    }

    #[test]
    fn defaults_and_notations() {
        let s = "<?p?><!DOCTYPE d [<!ATTLIST d t NMTOKENS ' x  y ' c CDATA #FIXED 'v'>\
                 <!NOTATION n2 SYSTEM 's'><!NOTATION n1 PUBLIC 'p  q'>]><d c='w'/>";
        assert_eq!(canon(s), "<?p ?><!DOCTYPE d [\n<!NOTATION n1 PUBLIC 'p q'>\n<!NOTATION n2 SYSTEM 's'>\n]>\n<d c=\"w\" t=\"x y\"></d>");
    }

    #[test]
    fn subset_pis() {
        let s = "<!DOCTYPE d [<!ENTITY e '<?no?>'><?a b\r\nc?><!-- <?no?> --><!NOTATION n SYSTEM 's'><?z?>]><?y?><d/>";
        assert_eq!(canon(s), "<?a b\nc?><?z ?><!DOCTYPE d [\n<!NOTATION n SYSTEM 's'>\n]>\n<?y ?><d></d>");
    }
}
