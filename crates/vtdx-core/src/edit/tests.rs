//! Unit tests of the editor: the rules, escaping, encodings.

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
    let src: Vec<u8> = std::iter::once(0xFEFFu16).chain("<a>é</a>".encode_utf16()).flat_map(|u| u.to_le_bytes()).collect();
    let doc = Document::parse(&src).unwrap();
    let mut ed = Editor::new(&doc);
    ed.append_text(doc.root_element(), "ü").unwrap();
    let out = ed.to_vec().unwrap();
    let expect: Vec<u8> = std::iter::once(0xFEFFu16).chain("<a>éü</a>".encode_utf16()).flat_map(|u| u.to_le_bytes()).collect();
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
