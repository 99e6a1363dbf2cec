//! The byte-range [`Editor`]: round trips, every operation on every node kind,
//! bytes outside edited ranges, fragment checking, and a differential test against
//! lxml (a Python subprocess; see `edit_lxml.py`).
//!
//! Expected outputs are written by hand from the rules in the `vtdx_core::edit`
//! module documentation and the method documentation, never from running vtdx.

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use vtdx_core::{Document, EditError, Editor, Node, NodeKind, ParseOptions};

use crate::common::Rng;

// ---- helpers ---------------------------------------------------------------------------

/// Parses `src`, lets `f` record edits, and returns the output as a string.
#[track_caller]
fn edited(src: &str, f: impl for<'x> FnOnce(&'x Document<'x>, &mut Editor<'x>)) -> String {
    let doc = Document::parse(src.as_bytes()).unwrap_or_else(|e| panic!("test input does not parse: {e}"));
    let mut ed = Editor::new(&doc);
    f(&doc, &mut ed);
    let out = ed.to_vec().unwrap_or_else(|e| panic!("to_vec failed: {e}"));
    String::from_utf8(out).unwrap()
}

/// Like [`edited`], and the output must be a well-formed document.
#[track_caller]
fn edited_wf(src: &str, f: impl for<'x> FnOnce(&'x Document<'x>, &mut Editor<'x>)) -> String {
    let out = edited(src, f);
    if let Err(e) = Document::parse(out.as_bytes()) {
        panic!("the output is not well-formed ({e}):\n{out}");
    }
    out
}

/// `src` with the single occurrence of `old` replaced by `new`.
#[track_caller]
fn sub(src: &str, old: &str, new: &str) -> String {
    assert_eq!(src.matches(old).count(), 1, "{old:?} must occur exactly once in the input");
    src.replacen(old, new, 1)
}

/// The `i`-th child (any kind) of `n`.
#[track_caller]
fn kid<'d>(n: Node<'d>, i: usize) -> Node<'d> {
    n.children().nth(i).unwrap_or_else(|| panic!("{n:?} has no child {i}"))
}

#[track_caller]
fn wrong_kind(r: Result<(), EditError>, kind: NodeKind) {
    match r {
        Err(EditError::WrongNodeKind { kind: k, .. }) => assert_eq!(k, kind),
        other => panic!("expected WrongNodeKind({kind:?}), got {other:?}"),
    }
}

#[track_caller]
fn malformed(r: Result<(), EditError>) {
    assert!(matches!(r, Err(EditError::MalformedFragment(_))), "expected MalformedFragment, got {r:?}");
}

// The document most tests edit. Children of `r`, by index:
// 0 text `t1`, 1 `<e x="y"/>`, 2 `<p:f>in</p:f>`, 3 comment, 4 PI, 5 CDATA, 6 text `t2`,
// 7 `<g\n  k='v' />` (an empty-element tag with white space before `/>`).
const DOC: &str = "<?xml version=\"1.0\"?>\n<!--top-->\n<r xmlns:p=\"urn:p\" a='1' p:b=\"2\">t1<e x=\"y\"/><p:f>in</p:f><!--c--><?pi data?><![CDATA[cd]]>t2<g\n  k='v' /></r>\n<?tail?>\n";
/// The raw bytes of each child of `r` in [`DOC`].
const RAW: [&str; 8] = ["t1", "<e x=\"y\"/>", "<p:f>in</p:f>", "<!--c-->", "<?pi data?>", "<![CDATA[cd]]>", "t2", "<g\n  k='v' />"];
const KINDS: [NodeKind; 8] = [
    NodeKind::Text,
    NodeKind::Element,
    NodeKind::Element,
    NodeKind::Comment,
    NodeKind::ProcessingInstruction,
    NodeKind::CData,
    NodeKind::Text,
    NodeKind::Element,
];

fn r<'d>(doc: &'d Document<'d>) -> Node<'d> {
    doc.root_element()
}

#[test]
fn the_test_document_is_what_the_comments_say() {
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let kids: Vec<Node> = r(&doc).children().collect();
    assert_eq!(kids.len(), 8);
    for (i, k) in kids.iter().enumerate() {
        assert_eq!(k.kind(), KINDS[i], "child {i}");
        assert_eq!(k.raw(), RAW[i].as_bytes(), "child {i}");
    }
    assert!(kids[1].is_empty_element_tag() && kids[7].is_empty_element_tag() && !kids[2].is_empty_element_tag());
}

// ---- (a) round trips --------------------------------------------------------------------

fn corpus_dir() -> PathBuf {
    match std::env::var_os("VTDX_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

/// Every benchmark document of the shared corpus up to 3 MB: UTF-8 and ISO-8859-1,
/// with and without DTDs, namespaced SOAP, pretty and dense.
fn corpus_docs() -> Vec<(String, Vec<u8>)> {
    let root = corpus_dir().join("bench");
    let mut out = Vec::new();
    for dir in ["generated", "classic", "soap", "vtd-xml-samples", "xmark"] {
        let d = root.join(dir);
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("the corpus is missing: {}: {e} (set VTDX_CORPUS)", d.display()));
        let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "xml")).collect();
        files.sort();
        for p in files {
            let bytes = std::fs::read(&p).unwrap();
            if bytes.len() <= 3_000_000 {
                out.push((format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()), bytes));
            }
        }
    }
    for must in ["generated/po_small.xml", "classic/much_ado.xml", "soap/soap-fault.xml", "classic/xml.xml", "classic/xmlspec.xml"] {
        assert!(out.iter().any(|(n, _)| n == must), "corpus document {must} is missing");
    }
    out
}

fn corpus_doc(name: &str) -> Vec<u8> {
    let p = corpus_dir().join("bench").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("the corpus is missing: {}: {e} (set VTDX_CORPUS)", p.display()))
}

/// Corpus documents with references to entities whose replacement text holds markup:
/// see `round_trip_keeps_references_to_markup_entities` (ignored: a known bug).
const EXPANDS_MARKUP_ENTITIES: [&str; 1] = ["classic/xml.xml"];

#[test]
fn round_trip_without_edits_is_identical_on_the_corpus() {
    let docs = corpus_docs();
    assert!(docs.len() >= 20, "only {} corpus documents", docs.len());
    let mut buf = b"left over from before".to_vec();
    for (name, bytes) in &docs {
        if EXPANDS_MARKUP_ENTITIES.contains(&name.as_str()) {
            continue;
        }
        // classic/xml.xml and xmlspec.xml name an external DTD: read without it
        let opts = ParseOptions::new().external(vtdx_core::ExternalPolicy::Ignore);
        let doc = Document::parse_with(bytes, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ed = Editor::new(&doc);
        assert!(ed.is_empty());
        assert_eq!(ed.len(), 0);
        assert!(ed.to_vec().unwrap() == *bytes, "{name}: to_vec differs from the input");
        buf.clear();
        ed.append_to(&mut buf).unwrap();
        assert!(buf == *bytes, "{name}: append_to differs from the input");
        let mut w = Vec::new();
        ed.write_to(&mut w).unwrap();
        assert!(w == *bytes, "{name}: write_to differs from the input");
        let again = ed.into_document().unwrap();
        assert_eq!(again.source(), &bytes[..], "{name}: into_document");
    }
}

#[test]
fn round_trip_keeps_references_to_markup_entities() {
    // `<!DOCTYPE a [<!ENTITY e "<b>x</b>">]><a>&e;</a>` comes out as `…<a><b>x</b></a>`
    let src = "<!DOCTYPE a [<!ENTITY e \"<b>x</b>\">]><a>&e;</a>";
    assert_eq!(edited(src, |_, _| {}), src);
    let src = "<!DOCTYPE a [<!ENTITY e \"<b>x</b>\">]><a>&e;<c/></a>";
    assert_eq!(
        edited(src, |d, ed| ed.remove(d.root_element().last_child().unwrap()).unwrap()),
        "<!DOCTYPE a [<!ENTITY e \"<b>x</b>\">]><a>&e;</a>"
    );
    let bytes = b"<?xml version='1.0' encoding='ISO-8859-1'?><!DOCTYPE a [<!ENTITY e \"<b/>\">]><a>&e;\xE9</a>";
    let doc = Document::parse(bytes).unwrap();
    assert_eq!(Editor::new(&doc).to_vec().unwrap(), bytes.to_vec());
    for name in EXPANDS_MARKUP_ENTITIES {
        let bytes = corpus_doc(name);
        let doc = Document::parse(&bytes).unwrap();
        assert!(Editor::new(&doc).to_vec().unwrap() == bytes, "{name}");
    }
}

#[test]
fn round_trip_without_edits_keeps_every_detail() {
    for src in [
        DOC,
        "\u{FEFF}<?xml version='1.0' encoding='utf-8' standalone='yes'?>\r\n<a\tb = \"1\"\r\n c='&amp;&#x9;'>x&#10;\r\ny<![CDATA[\r\n]]></a  >\r\n",
        "<!DOCTYPE a [<!ENTITY e 'v'><!ATTLIST a d CDATA 'z'>]><a>&e;</a>",
        "<a/>",
        "<p:a xmlns:p='u'><p:b/></p:a><!--end--><?pi?>   ",
    ] {
        assert_eq!(edited(src, |_, _| {}), src);
    }
    // UTF-16 (both byte orders) and ISO-8859-1 come back in their own encoding
    for bytes in [
        crate::common::utf16("<?xml version='1.0' encoding='UTF-16'?><a>é€𝄞</a>", true, true),
        crate::common::utf16("<?xml version='1.0' encoding='UTF-16'?><a>é€𝄞</a>", false, true),
        b"<?xml version='1.0' encoding='ISO-8859-1'?><a b='\xE9'>caf\xE9 &#x20AC;</a>".to_vec(),
    ] {
        let doc = Document::parse(&bytes).unwrap();
        assert_eq!(Editor::new(&doc).to_vec().unwrap(), bytes);
    }
}

// ---- (b) every operation on every node kind ---------------------------------------------

#[test]
fn remove_each_child_kind() {
    for (i, raw) in RAW.iter().enumerate() {
        let out = edited_wf(DOC, |doc, ed| ed.remove(kid(r(doc), i)).unwrap());
        assert_eq!(out, sub(DOC, raw, ""), "child {i}");
    }
}

#[test]
fn remove_all_children_at_once() {
    let out = edited_wf(DOC, |doc, ed| {
        for c in r(doc).children() {
            ed.remove(c).unwrap();
        }
    });
    assert_eq!(out, "<?xml version=\"1.0\"?>\n<!--top-->\n<r xmlns:p=\"urn:p\" a='1' p:b=\"2\"></r>\n<?tail?>\n");
}

#[test]
fn remove_attributes_takes_the_white_space_before() {
    let out = edited_wf(DOC, |doc, ed| ed.remove(r(doc).attribute_node("a").unwrap()).unwrap());
    assert_eq!(out, sub(DOC, " a='1'", ""));
    let out = edited_wf(DOC, |doc, ed| ed.remove(r(doc).attribute_node("p:b").unwrap()).unwrap());
    assert_eq!(out, sub(DOC, " p:b=\"2\"", ""));
    let out = edited_wf(DOC, |doc, ed| ed.remove(kid(r(doc), 7).attribute_node("k").unwrap()).unwrap());
    assert_eq!(out, sub(DOC, "<g\n  k='v' />", "<g />"));
    let out = edited_wf(DOC, |doc, ed| ed.remove(kid(r(doc), 1).attribute_node("x").unwrap()).unwrap());
    assert_eq!(out, sub(DOC, "<e x=\"y\"/>", "<e/>"));
    // all of them, and white space of every kind
    let src = "<a\n\tx='1'\r\n  y = \"2\"   z='3'>t</a>";
    let out = edited_wf(src, |doc, ed| {
        for a in doc.root_element().attributes() {
            ed.remove(a).unwrap();
        }
    });
    assert_eq!(out, "<a>t</a>");
}

#[test]
fn remove_top_level_comment_and_pi() {
    let out = edited_wf(DOC, |doc, ed| ed.remove(doc.root().first_child().unwrap()).unwrap());
    assert_eq!(out, sub(DOC, "<!--top-->", ""));
    let out = edited_wf(DOC, |doc, ed| ed.remove(doc.root().last_child().unwrap()).unwrap());
    assert_eq!(out, sub(DOC, "<?tail?>", ""));
}

#[test]
fn remove_the_root_or_the_root_element_is_refused() {
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let mut ed = Editor::new(&doc);
    wrong_kind(ed.remove(doc.root()), NodeKind::Root);
    assert!(matches!(ed.remove(doc.root_element()), Err(EditError::RootElement(_))));
    assert!(ed.is_empty());
    assert_eq!(ed.to_vec().unwrap(), DOC.as_bytes());
}

fn remove_with_indentation(src: &str, pick: impl for<'x> Fn(&'x Document<'x>) -> Node<'x>) -> String {
    let doc = Document::parse(src.as_bytes()).unwrap();
    let mut ed = Editor::new(&doc).remove_indentation(true);
    ed.remove(pick(&doc)).unwrap();
    String::from_utf8(ed.to_vec().unwrap()).unwrap()
}

fn first_el<'d>(d: &'d Document<'d>) -> Node<'d> {
    d.root_element().first_element_child().unwrap()
}

fn first_of_kind<'d>(d: &'d Document<'d>, k: NodeKind) -> Node<'d> {
    d.root_element().children().find(|c| c.kind() == k).unwrap()
}

#[test]
fn remove_indentation_takes_the_whole_line() {
    // alone on its line: the line end before it and its indentation go
    assert_eq!(remove_with_indentation("<a>\n  <b/>\n  <c/>\n</a>", first_el), "<a>\n  <c/>\n</a>");
    assert_eq!(remove_with_indentation("<a>\n\t<b>x</b>\t \n</a>", first_el), "<a>\n</a>");
    assert_eq!(remove_with_indentation("<a>\r\n  <b/>\r\n</a>", first_el), "<a>\r\n</a>");
    assert_eq!(remove_with_indentation("<a>\n  <!-- c -->\n  <b/>\n</a>", |d| first_of_kind(d, NodeKind::Comment)), "<a>\n  <b/>\n</a>");
    assert_eq!(remove_with_indentation("<a>\n  <?p x?>\n</a>", |d| first_of_kind(d, NodeKind::ProcessingInstruction)), "<a>\n</a>");
    // not alone on its line: only the node goes
    assert_eq!(remove_with_indentation("<a>x <b/>\n</a>", first_el), "<a>x \n</a>");
    assert_eq!(remove_with_indentation("<a>\n  <b/> y\n</a>", first_el), "<a>\n   y\n</a>");
    assert_eq!(remove_with_indentation("<a>\n  <b/><c/>\n</a>", first_el), "<a>\n  <c/>\n</a>");
    // text nodes are never widened, attributes neither
    assert_eq!(remove_with_indentation("<a>\n  x\n</a>", |d| d.root_element().first_child().unwrap()), "<a></a>");
    assert_eq!(remove_with_indentation("<a\n  x='1'\n/>", |d| d.root_element().attribute_node("x").unwrap()), "<a\n/>");
    // top level, on its own line
    assert_eq!(remove_with_indentation("<!--c-->\n<a/>\n<!--d-->\n", |d| d.root().last_child().unwrap()), "<!--c-->\n<a/>\n");
    // without the option the indentation stays
    assert_eq!(edited("<a>\n  <b/>\n  <c/>\n</a>", |d, ed| ed.remove(first_el(d)).unwrap()), "<a>\n  \n  <c/>\n</a>");
}

#[test]
fn insert_before_and_after_each_child_kind() {
    for (i, raw) in RAW.iter().enumerate() {
        let out = edited_wf(DOC, |doc, ed| ed.insert_before(kid(r(doc), i), "<n/>").unwrap());
        assert_eq!(out, sub(DOC, raw, &format!("<n/>{raw}")), "before child {i}");
        let out = edited_wf(DOC, |doc, ed| ed.insert_after(kid(r(doc), i), "<n/>").unwrap());
        assert_eq!(out, sub(DOC, raw, &format!("{raw}<n/>")), "after child {i}");
    }
    // inside a namespaced element, with its prefix, fragments checked
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let mut ed = Editor::new(&doc).check_fragments(true);
    let f = kid(r(&doc), 2);
    let inner = f.first_child().unwrap();
    ed.insert_before(inner, "<p:x/>").unwrap();
    ed.insert_after(inner, "<!--after in-->").unwrap();
    assert_eq!(String::from_utf8(ed.to_vec().unwrap()).unwrap(), sub(DOC, "<p:f>in</p:f>", "<p:f><p:x/>in<!--after in--></p:f>"));
}

#[test]
fn insert_at_top_level() {
    let out = edited_wf(DOC, |doc, ed| {
        ed.insert_before(doc.root_element(), "<!--before root-->").unwrap();
        ed.insert_after(doc.root_element(), "<?after root?>").unwrap();
        ed.insert_before(doc.root().first_child().unwrap(), "\n").unwrap();
        ed.insert_after(doc.root().last_child().unwrap(), "<!--last-->").unwrap();
    });
    let want = sub(DOC, "<!--top-->\n<r ", "\n<!--top-->\n<!--before root--><r ");
    let want = sub(&want, "</r>\n<?tail?>\n", "</r><?after root?>\n<?tail?><!--last-->\n");
    assert_eq!(out, want);
}

#[test]
fn insert_next_to_an_attribute_or_the_root_is_refused() {
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let mut ed = Editor::new(&doc);
    let a = r(&doc).attribute_node("a").unwrap();
    wrong_kind(ed.insert_before(a, "x"), NodeKind::Attribute);
    wrong_kind(ed.insert_after(a, "x"), NodeKind::Attribute);
    wrong_kind(ed.insert_text_before(a, "x"), NodeKind::Attribute);
    wrong_kind(ed.insert_bytes_after(a, b"x"), NodeKind::Attribute);
    wrong_kind(ed.insert_before(doc.root(), "x"), NodeKind::Root);
    wrong_kind(ed.insert_after(doc.root(), "x"), NodeKind::Root);
    assert!(ed.is_empty());
}

#[test]
fn insert_text_and_bytes() {
    let out = edited_wf(DOC, |doc, ed| {
        ed.insert_text_before(kid(r(doc), 1), "a&b<c>\r").unwrap();
        ed.insert_text_after(kid(r(doc), 3), "<").unwrap();
        ed.insert_bytes_before(kid(r(doc), 4), b"&amp;").unwrap();
        ed.insert_bytes_after(kid(r(doc), 5), b"<z/>").unwrap();
    });
    let want = sub(DOC, "t1<e", "t1a&amp;b&lt;c&gt;&#xD;<e");
    let want = sub(&want, "<!--c--><?pi data?><![CDATA[cd]]>", "<!--c-->&lt;&amp;<?pi data?><![CDATA[cd]]><z/>");
    assert_eq!(out, want);
    // raw bytes are not checked, even with checking on
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let mut ed = Editor::new(&doc).check_fragments(true);
    ed.insert_bytes_after(kid(r(&doc), 0), b"<unclosed").unwrap();
    ed.append_bytes(kid(r(&doc), 2), b"&nope;").unwrap();
    let want = sub(DOC, "t1<e", "t1<unclosed<e");
    let want = sub(&want, "in</p:f>", "in&nope;</p:f>");
    assert_eq!(String::from_utf8(ed.to_vec().unwrap()).unwrap(), want);
}

#[test]
fn prepend_and_append_child() {
    // an element with content
    let out = edited_wf(DOC, |doc, ed| {
        ed.prepend_child(r(doc), "<first/>").unwrap();
        ed.append_child(r(doc), "<last/>").unwrap();
        ed.append_child(kid(r(doc), 2), "<p:z/>").unwrap();
        ed.prepend_child(kid(r(doc), 2), "A").unwrap();
    });
    let want = sub(DOC, "p:b=\"2\">t1", "p:b=\"2\"><first/>t1");
    let want = sub(&want, "<p:f>in</p:f>", "<p:f>Ain<p:z/></p:f>");
    let want = sub(&want, "/></r>", "/><last/></r>");
    assert_eq!(out, want);
    // an empty element written `<b></b>`: prepends first, appends in call order
    assert_eq!(
        edited_wf("<a><b></b></a>", |d, ed| {
            let b = d.root_element().first_element_child().unwrap();
            ed.prepend_child(b, "1").unwrap();
            ed.append_child(b, "2").unwrap();
            ed.append_child(b, "3").unwrap();
        }),
        "<a><b>123</b></a>"
    );
    // append_text escapes
    assert_eq!(
        edited_wf(DOC, |doc, ed| ed.append_text(kid(r(doc), 2), "<&>\"'").unwrap()),
        sub(DOC, "in</p:f>", "in&lt;&amp;&gt;\"'</p:f>")
    );
}

#[test]
fn prepend_after_append_on_an_empty_element() {
    // <a><b></b></a>: append_child(b, "2"), prepend_child(b, "1") gives <a><b>21</b></a>
    for src in ["<a><b></b></a>", "<a><b/></a>", "<a><b>x</b></a>"] {
        let out = edited_wf(src, |d, ed| {
            let b = d.root_element().first_element_child().unwrap();
            ed.append_child(b, "2").unwrap();
            ed.prepend_child(b, "1").unwrap();
        });
        assert!(out.starts_with("<a><b>1"), "{src}: {out}");
    }
}

#[test]
fn empty_element_tags_receive_content() {
    // `<e x="y"/>` becomes `<e x="y">…</e>`: first the content prepended, then what
    // was appended, each in call order
    let out = edited_wf(DOC, |doc, ed| {
        let e = kid(r(doc), 1);
        ed.append_child(e, "<b1/>").unwrap();
        ed.append_text(e, "&").unwrap();
        ed.prepend_child(e, "<a2/>").unwrap();
        ed.prepend_child(e, "<a1/>").unwrap();
        ed.append_bytes(e, b"<b3/>").unwrap();
    });
    assert_eq!(out, sub(DOC, "<e x=\"y\"/>", "<e x=\"y\"><a2/><a1/><b1/>&amp;<b3/></e>"));
    // the white space before `/>` stays in the start tag
    let out = edited_wf(DOC, |doc, ed| ed.append_child(kid(r(doc), 7), "t").unwrap());
    assert_eq!(out, sub(DOC, "<g\n  k='v' />", "<g\n  k='v' >t</g>"));
    // a namespaced empty element, renamed: the end tag made for it has the new name
    let out = edited_wf("<p:a xmlns:p='u'><p:b/></p:a>", |d, ed| {
        let b = d.root_element().first_child().unwrap();
        ed.set_text(b, "x").unwrap();
        ed.rename(b, "p:c").unwrap();
    });
    assert_eq!(out, "<p:a xmlns:p='u'><p:c>x</p:c></p:a>");
    // the root element itself
    assert_eq!(
        edited_wf("<?xml version='1.0'?><a/>", |d, ed| ed.append_child(d.root_element(), "<b/>").unwrap()),
        "<?xml version='1.0'?><a><b/></a>"
    );
}

#[test]
fn child_insertion_into_a_non_element_is_refused() {
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let mut ed = Editor::new(&doc);
    for i in [0, 3, 4, 5, 6] {
        let n = kid(r(&doc), i);
        wrong_kind(ed.append_child(n, "x"), KINDS[i]);
        wrong_kind(ed.prepend_child(n, "x"), KINDS[i]);
        wrong_kind(ed.append_text(n, "x"), KINDS[i]);
        wrong_kind(ed.append_bytes(n, b"x"), KINDS[i]);
    }
    wrong_kind(ed.append_child(r(&doc).attribute_node("a").unwrap(), "x"), NodeKind::Attribute);
    wrong_kind(ed.append_child(doc.root(), "<!--x-->"), NodeKind::Root);
    assert!(ed.is_empty());
}

#[test]
fn set_value_on_each_kind() {
    let cases: [(usize, &str, &str); 8] = [
        (0, "a<b>&\r\n", "a&lt;b&gt;&amp;&#xD;\n"),
        (1, "v", "<e x=\"y\">v</e>"),
        (2, "v<", "<p:f>v&lt;</p:f>"),
        (3, "a--b-", "<!--a- -b- -->"),
        (4, "d?>e", "<?pi d? >e?>"),
        (5, "x]]>y<&", "<![CDATA[x]]]]><![CDATA[>y<&]]>"),
        (6, "", ""),
        (7, "&", "<g\n  k='v' >&amp;</g>"),
    ];
    for (i, value, new_raw) in cases {
        let out = edited_wf(DOC, |doc, ed| ed.set_value(kid(r(doc), i), value).unwrap());
        let old = if i == 0 {
            "t1<e"
        } else if i == 6 {
            "t2<g"
        } else {
            RAW[i]
        };
        let new = if i == 0 {
            format!("{new_raw}<e")
        } else if i == 6 {
            "<g".to_string()
        } else {
            new_raw.to_string()
        };
        assert_eq!(out, sub(DOC, old, &new), "child {i}");
        // and the value reads back as set (for text: CR survives as a reference)
        if !matches!(i, 3 | 4 | 6) {
            let d2 = Document::parse(out.as_bytes()).unwrap();
            let n = kid(d2.root_element(), i);
            let back = if i == 5 {
                // the split CDATA is two sections: their values together
                format!("{}{}", n.value(), kid(d2.root_element(), 6).value())
            } else {
                n.value().into_owned()
            };
            assert_eq!(back, value, "child {i} reads back");
        }
    }
    // the PI with no data, the comment with a lone dash
    assert_eq!(edited_wf(DOC, |doc, ed| ed.set_value(kid(r(doc), 4), "").unwrap()), sub(DOC, "<?pi data?>", "<?pi?>"));
    assert_eq!(edited_wf(DOC, |doc, ed| ed.set_value(kid(r(doc), 3), "-").unwrap()), sub(DOC, "<!--c-->", "<!--- -->"));
    // the root element
    assert_eq!(
        edited_wf(DOC, |doc, ed| ed.set_value(r(doc), "all").unwrap()),
        sub(DOC, "t1<e x=\"y\"/><p:f>in</p:f><!--c--><?pi data?><![CDATA[cd]]>t2<g\n  k='v' />", "all")
    );
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    wrong_kind(Editor::new(&doc).set_value(doc.root(), "x"), NodeKind::Root);
}

#[test]
fn set_value_of_attributes_keeps_the_quote() {
    let out = edited_wf(DOC, |doc, ed| {
        ed.set_value(r(doc).attribute_node("a").unwrap(), "it's \"q\" <&>\t\n\r").unwrap();
        ed.set_value(r(doc).attribute_node("p:b").unwrap(), "it's \"q\"").unwrap();
    });
    let want = sub(DOC, "a='1'", "a='it&apos;s \"q\" &lt;&amp;>&#x9;&#xA;&#xD;'");
    let want = sub(&want, "p:b=\"2\"", "p:b=\"it's &quot;q&quot;\"");
    assert_eq!(out, want);
    let d2 = Document::parse(out.as_bytes()).unwrap();
    assert_eq!(d2.root_element().attribute("a").unwrap(), "it's \"q\" <&>\t\n\r");
    assert_eq!(d2.root_element().attribute("p:b").unwrap(), "it's \"q\"");
    // an empty value, on an attribute that had entity references
    assert_eq!(
        edited_wf("<a b='&amp;&#33;'/>", |d, ed| ed.set_value(d.root_element().attribute_node("b").unwrap(), "").unwrap()),
        "<a b=''/>"
    );
}

#[test]
fn set_text_replaces_all_content() {
    assert_eq!(
        edited_wf("<a><b x='1'>t<c/>u<!--v--><![CDATA[w]]></b></a>", |d, ed| {
            ed.set_text(d.root_element().first_child().unwrap(), "<new>").unwrap();
        }),
        "<a><b x='1'>&lt;new&gt;</b></a>"
    );
    assert_eq!(edited_wf("<a><b></b></a>", |d, ed| ed.set_text(d.root_element().first_child().unwrap(), "x").unwrap()), "<a><b>x</b></a>");
    assert_eq!(edited_wf("<a><b/></a>", |d, ed| ed.set_text(d.root_element().first_child().unwrap(), "").unwrap()), "<a><b></b></a>");
    assert_eq!(edited_wf("<a>old</a>", |d, ed| ed.set_text(d.root_element(), "").unwrap()), "<a></a>");
    // on a non-element: the same as set_value
    assert_eq!(edited_wf(DOC, |doc, ed| ed.set_text(kid(r(doc), 3), "x").unwrap()), sub(DOC, "<!--c-->", "<!--x-->"));
    assert_eq!(edited_wf(DOC, |doc, ed| ed.set_text(r(doc).attribute_node("a").unwrap(), "x").unwrap()), sub(DOC, "a='1'", "a='x'"));
}

#[test]
fn set_attribute_adds_or_replaces() {
    let out = edited_wf(DOC, |doc, ed| {
        ed.set_attribute(r(doc), "c", "3").unwrap();
        ed.set_attribute(r(doc), "a", "9").unwrap();
        ed.set_attribute(r(doc), "xml:lang", "en").unwrap();
        ed.set_attribute(kid(r(doc), 1), "z", "<&\"'\t").unwrap();
        ed.set_attribute(kid(r(doc), 2), "p:z", "1").unwrap();
        ed.set_attribute(kid(r(doc), 7), "z", "1").unwrap();
        ed.set_attribute(kid(r(doc), 7), "xmlns:q", "urn:q").unwrap();
    });
    let want = sub(DOC, "a='1' p:b=\"2\">", "a='9' p:b=\"2\" c=\"3\" xml:lang=\"en\">");
    let want = sub(&want, "<e x=\"y\"/>", "<e x=\"y\" z=\"&lt;&amp;&quot;'&#x9;\"/>");
    let want = sub(&want, "<p:f>", "<p:f p:z=\"1\">");
    let want = sub(&want, "<g\n  k='v' />", "<g\n  k='v' z=\"1\" xmlns:q=\"urn:q\" />");
    assert_eq!(out, want);
    // white space at the end of the start tag stays after the new attribute
    assert_eq!(edited_wf("<a x='1'\n></a>", |d, ed| ed.set_attribute(d.root_element(), "y", "2").unwrap()), "<a x='1' y=\"2\"\n></a>");
    assert_eq!(edited_wf("<a ></a>", |d, ed| ed.set_attribute(d.root_element(), "y", "2").unwrap()), "<a y=\"2\" ></a>");
    // after an attribute that is removed: the new one still lands
    assert_eq!(
        edited_wf("<a x='1'/>", |d, ed| {
            ed.set_attribute(d.root_element(), "y", "2").unwrap();
            ed.remove(d.root_element().attribute_node("x").unwrap()).unwrap();
        }),
        "<a y=\"2\"/>"
    );
}

#[test]
fn set_attribute_checks_the_name() {
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let mut ed = Editor::new(&doc);
    let f = kid(r(&doc), 2);
    assert!(matches!(ed.set_attribute(f, "q:z", "1"), Err(EditError::UndeclaredPrefix(p)) if p == "q"));
    for bad in ["1bad", "a b", "", "a:b:c", ":a", "a:", "x>"] {
        assert!(matches!(ed.set_attribute(f, bad, "1"), Err(EditError::InvalidName(_))), "{bad:?}");
    }
    wrong_kind(ed.set_attribute(kid(r(&doc), 0), "z", "1"), NodeKind::Text);
    wrong_kind(ed.set_attribute(kid(r(&doc), 3), "z", "1"), NodeKind::Comment);
    wrong_kind(ed.set_attribute(doc.root(), "z", "1"), NodeKind::Root);
    assert!(ed.is_empty());
    // without namespace processing a colon is just a name character
    let src = b"<a/>";
    let doc = Document::parse_with(src, &ParseOptions::new().namespaces(false)).unwrap();
    let mut ed = Editor::new(&doc);
    ed.set_attribute(doc.root_element(), "q:z", "1").unwrap();
    assert_eq!(ed.to_vec().unwrap(), b"<a q:z=\"1\"/>");
}

#[test]
fn a_declaration_added_binds_the_attributes_added_after_it() {
    // Namespaces in XML 1.0 §6.1: a declaration's scope is the element it is on,
    // its own attributes included
    let src = "<a xmlns:p='urn:p' p:x='1'><b/><c q='2'/></a>";
    let out = edited_wf(src, |doc, ed| {
        let b = kid(r(doc), 0);
        ed.set_attribute(b, "xmlns:w", "urn:w").unwrap();
        ed.set_attribute(b, "w:Id", "i1").unwrap();
        // a prefix already bound is rebound for this element's new attributes
        let c = kid(r(doc), 1);
        ed.set_attribute(c, "xmlns:p", "urn:other").unwrap();
        ed.set_attribute(c, "p:x", "3").unwrap();
    });
    assert_eq!(out, "<a xmlns:p='urn:p' p:x='1'><b xmlns:w=\"urn:w\" w:Id=\"i1\"/><c q='2' xmlns:p=\"urn:other\" p:x=\"3\"/></a>");
    let doc = Document::parse(out.as_bytes()).unwrap();
    let b = kid(r(&doc), 0);
    let id = b.attributes().find(|a| a.local_name() == "Id").unwrap();
    assert_eq!(id.namespace_uri(), Some("urn:w"));
    let doc = Document::parse(src.as_bytes()).unwrap();
    let mut ed = Editor::new(&doc);
    // before the declaration, on another element, or after it was replaced: not bound
    let (b, c) = (kid(r(&doc), 0), kid(r(&doc), 1));
    assert!(matches!(ed.set_attribute(b, "w:Id", "1"), Err(EditError::UndeclaredPrefix(p)) if p == "w"));
    ed.set_attribute(b, "xmlns:w", "urn:w").unwrap();
    assert!(matches!(ed.set_attribute(c, "w:Id", "1"), Err(EditError::UndeclaredPrefix(p)) if p == "w"));
    // uniqueness is by expanded name (Namespaces in XML 1.0 §6.3): `w:x` and `v:x` with
    // both prefixes bound to one namespace on the same element collide
    ed.set_attribute(b, "w:x", "1").unwrap();
    ed.set_attribute(b, "xmlns:v", "urn:w").unwrap();
    assert!(matches!(ed.set_attribute(b, "v:x", "2"), Err(EditError::DuplicateAttribute(n)) if n == "v:x"));
    // an added declaration also rebinds the element's own attributes when checking
    let a = r(&doc);
    ed.set_attribute(a, "xmlns:q", "urn:p").unwrap();
    assert!(matches!(ed.set_attribute(a, "q:x", "2"), Err(EditError::DuplicateAttribute(n)) if n == "q:x"));
}

#[test]
fn replace_each_kind() {
    for (i, raw) in RAW.iter().enumerate() {
        let out = edited_wf(DOC, |doc, ed| ed.replace(kid(r(doc), i), "<n>1</n>").unwrap());
        assert_eq!(out, sub(DOC, raw, "<n>1</n>"), "child {i}");
    }
    assert_eq!(edited_wf(DOC, |doc, ed| ed.replace(kid(r(doc), 2), "").unwrap()), sub(DOC, RAW[2], ""));
    assert_eq!(
        edited_wf(DOC, |doc, ed| ed.replace(doc.root().first_child().unwrap(), "<?top?>").unwrap()),
        sub(DOC, "<!--top-->", "<?top?>")
    );
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let mut ed = Editor::new(&doc).check_fragments(true);
    wrong_kind(ed.replace(r(&doc).attribute_node("a").unwrap(), "x"), NodeKind::Attribute);
    wrong_kind(ed.replace(doc.root(), "<x/>"), NodeKind::Root);
    malformed(ed.replace(kid(r(&doc), 2), "<q:x/>"));
    malformed(ed.replace(doc.root().first_child().unwrap(), "<x/>"));
    ed.replace(kid(r(&doc), 2), "<p:x/>").unwrap();
    assert_eq!(String::from_utf8(ed.to_vec().unwrap()).unwrap(), sub(DOC, RAW[2], "<p:x/>"));
}

#[test]
fn replace_the_root_element() {
    let want = "<?xml version=\"1.0\"?>\n<!--top-->\n<new/>\n<?tail?>\n";
    assert_eq!(edited_wf(DOC, |doc, ed| ed.replace(r(doc), "<new/>").unwrap()), want);
}

#[test]
fn replace_the_root_element_with_checking() {
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let mut ed = Editor::new(&doc).check_fragments(true);
    ed.replace(r(&doc), "<new/>").expect("one element for the root element is well-formed");
    assert_eq!(ed.to_vec().unwrap(), b"<?xml version=\"1.0\"?>\n<!--top-->\n<new/>\n<?tail?>\n");
}

#[test]
fn rename_elements_and_attributes() {
    let out = edited_wf(DOC, |doc, ed| {
        ed.rename(r(doc), "root").unwrap();
        ed.rename(kid(r(doc), 1), "ee").unwrap();
        ed.rename(kid(r(doc), 2), "p:ff").unwrap();
        ed.rename(kid(r(doc), 7), "p:g").unwrap();
        ed.rename(r(doc).attribute_node("a").unwrap(), "p:a").unwrap();
        ed.rename(r(doc).attribute_node("p:b").unwrap(), "b").unwrap();
        ed.rename(kid(r(doc), 1).attribute_node("x").unwrap(), "xml:space").unwrap();
    });
    let want = sub(DOC, "<r xmlns:p=\"urn:p\" a='1' p:b=\"2\">", "<root xmlns:p=\"urn:p\" p:a='1' b=\"2\">");
    let want = sub(&want, "<e x=\"y\"/><p:f>in</p:f>", "<ee xml:space=\"y\"/><p:ff>in</p:ff>");
    let want = sub(&want, "<g\n  k='v' /></r>", "<p:g\n  k='v' /></root>");
    assert_eq!(out, want);
    // end tags with white space, a longer and a shorter name
    assert_eq!(
        edited_wf("<a><f>in</f  ><long-name>x</long-name\n></a>", |d, ed| {
            let mut it = d.root_element().element_children();
            ed.rename(it.next().unwrap(), "ffff").unwrap();
            ed.rename(it.next().unwrap(), "s").unwrap();
        }),
        "<a><ffff>in</ffff  ><s>x</s\n></a>"
    );
    // the name may be declared on the element itself
    assert_eq!(
        edited_wf("<a><b xmlns:q='u'/></a>", |d, ed| ed.rename(d.root_element().first_child().unwrap(), "q:b").unwrap()),
        "<a><q:b xmlns:q='u'/></a>"
    );
}

#[test]
fn rename_checks_kind_and_name() {
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let mut ed = Editor::new(&doc);
    for i in [0, 3, 4, 5, 6] {
        wrong_kind(ed.rename(kid(r(&doc), i), "x"), KINDS[i]);
    }
    wrong_kind(ed.rename(doc.root(), "x"), NodeKind::Root);
    assert!(matches!(ed.rename(kid(r(&doc), 1), "q:x"), Err(EditError::UndeclaredPrefix(p)) if p == "q"));
    assert!(matches!(ed.rename(r(&doc).attribute_node("a").unwrap(), "q:x"), Err(EditError::UndeclaredPrefix(_))));
    // `xmlns` is not a prefix an element may use
    assert!(ed.rename(kid(r(&doc), 1), "xmlns:x").is_err());
    for bad in ["", "x y", "1x", "<x", "a:b:c"] {
        assert!(matches!(ed.rename(kid(r(&doc), 1), bad), Err(EditError::InvalidName(_))), "{bad:?}");
    }
    assert!(ed.is_empty());
    // the prefix of a namespace declared below the element does not count
    let doc = Document::parse(b"<a><b><c xmlns:q='u'/></b></a>").unwrap();
    assert!(matches!(Editor::new(&doc).rename(doc.root_element().first_child().unwrap(), "q:b"), Err(EditError::UndeclaredPrefix(_))));
}

// ---- how edits combine ------------------------------------------------------------------

#[test]
fn inserts_at_one_point_keep_call_order() {
    let out = edited_wf(DOC, |doc, ed| {
        let (e, f) = (kid(r(doc), 1), kid(r(doc), 2));
        ed.insert_after(e, "1").unwrap();
        ed.insert_before(f, "2").unwrap();
        ed.insert_after(e, "3").unwrap();
        ed.insert_text_before(f, "4").unwrap();
        ed.insert_bytes_after(e, b"5").unwrap();
    });
    // one byte position, two places: what goes after `e` (in call order), then what
    // goes before `f` (in call order), as in the tree
    assert_eq!(out, sub(DOC, "<e x=\"y\"/><p:f>", "<e x=\"y\"/>13524<p:f>"));
    let out = edited_wf(DOC, |doc, ed| {
        let a = r(doc);
        ed.set_attribute(a, "n1", "1").unwrap();
        ed.set_attribute(a, "n2", "2").unwrap();
    });
    assert_eq!(out, sub(DOC, "p:b=\"2\">", "p:b=\"2\" n1=\"1\" n2=\"2\">"));
}

#[test]
fn edits_inside_a_removed_node_are_absorbed() {
    // an element with content: updates, inserts, renames inside it vanish with it
    let out = edited_wf(DOC, |doc, ed| {
        let f = kid(r(doc), 2);
        ed.set_value(f.first_child().unwrap(), "X").unwrap();
        ed.append_child(f, "<p:z/>").unwrap();
        ed.prepend_child(f, "<p:z/>").unwrap();
        ed.set_attribute(f, "z", "1").unwrap();
        ed.remove(f).unwrap();
        ed.rename(f, "zz").unwrap();
        ed.insert_before(f.first_child().unwrap(), "in").unwrap();
    });
    assert_eq!(out, sub(DOC, RAW[2], ""));
    // an empty-element tag: attribute edits and renames vanish with it
    let out = edited_wf(DOC, |doc, ed| {
        let e = kid(r(doc), 1);
        ed.set_value(e.attribute_node("x").unwrap(), "2").unwrap();
        ed.set_attribute(e, "z", "1").unwrap();
        ed.remove(e.attribute_node("x").unwrap()).unwrap();
        ed.rename(e, "ee").unwrap();
        ed.remove(e).unwrap();
    });
    assert_eq!(out, sub(DOC, RAW[1], ""));
    // a removed attribute absorbs a rename; setting it again adds it anew; a replaced
    // node absorbs edits inside
    let out = edited_wf(DOC, |doc, ed| {
        let a = r(doc).attribute_node("a").unwrap();
        ed.remove(a).unwrap();
        ed.set_attribute(r(doc), "a", "2").unwrap();
        ed.rename(a, "b").unwrap();
        let f = kid(r(doc), 2);
        ed.replace(f, "<new/>").unwrap();
        ed.set_text(f, "no").unwrap();
    });
    assert_eq!(out, sub(&sub(&sub(DOC, " a='1'", ""), "p:b=\"2\">", "p:b=\"2\" a=\"2\">"), RAW[2], "<new/>"));
    // set_text of an ancestor absorbs everything inside
    let out = edited_wf("<a><b><c x='1'>t</c>u<!--v--></b></a>", |d, ed| {
        let b = d.root_element().first_child().unwrap();
        let c = b.first_child().unwrap();
        ed.remove(c.attribute_node("x").unwrap()).unwrap();
        ed.set_text(c, "T").unwrap();
        ed.set_text(b, "B").unwrap();
        ed.remove(b.last_child().unwrap()).unwrap();
        ed.rename(c, "cc").unwrap();
    });
    assert_eq!(out, "<a><b>B</b></a>");
}

#[test]
fn insert_into_a_removed_empty_element_tag_is_absorbed() {
    // <a><b/></a>: remove(b) + append_child(b, "x") gives "<a>x</b></a>" (not well-formed)
    assert_eq!(
        edited("<a><b/></a>", |d, ed| {
            let b = d.root_element().first_child().unwrap();
            ed.remove(b).unwrap();
            ed.append_child(b, "x").unwrap();
        }),
        "<a></a>"
    );
    assert_eq!(
        edited("<a><b/></a>", |d, ed| {
            let b = d.root_element().first_child().unwrap();
            ed.set_text(b, "x").unwrap();
            ed.remove(b).unwrap();
        }),
        "<a></a>"
    );
    assert_eq!(
        edited("<a><b/><c/></a>", |d, ed| {
            let b = d.root_element().first_child().unwrap();
            ed.append_child(b, "x").unwrap();
            ed.replace(b, "<r/>").unwrap();
        }),
        "<a><r/><c/></a>"
    );
    // set_text of the parent, the empty-element tag being its last child:
    // <a>t<b/></a> gives <a>yx</b></a>
    assert_eq!(
        edited("<a>t<b/></a>", |d, ed| {
            let b = d.root_element().last_child().unwrap();
            ed.append_child(b, "x").unwrap();
            ed.set_text(d.root_element(), "y").unwrap();
        }),
        "<a>y</a>"
    );
}

#[test]
fn set_text_and_child_inserts_on_one_element() {
    // inserts at the edge of a replaced content range are not inside it: a prepended
    // child comes before the new text, an appended one after
    let out = edited_wf(DOC, |doc, ed| {
        let f = kid(r(doc), 2);
        ed.append_child(f, "<p:b/>").unwrap();
        ed.set_text(f, "T").unwrap();
        ed.prepend_child(f, "<p:a/>").unwrap();
    });
    assert_eq!(out, sub(DOC, RAW[2], "<p:f><p:a/>T<p:b/></p:f>"));
}

#[test]
fn set_text_twice_is_one_replacement() {
    let twice = |src: &str| {
        edited_wf(src, |d, ed| {
            let b = d.root_element().first_child().unwrap();
            ed.set_text(b, "1").unwrap();
            ed.set_text(b, "2").unwrap();
        })
    };
    let full = twice("<a><b>old</b></a>");
    assert!(full == "<a><b>1</b></a>" || full == "<a><b>2</b></a>", "{full}");
    let want = full.clone();
    assert_eq!(twice("<a><b></b></a>"), want);
    assert_eq!(twice("<a><b/></a>"), want);
}

#[test]
fn set_text_after_editing_the_only_child() {
    // <a>t</a>: remove(t) then set_text(a, "x") gives <a></a>; <a>t<b/></a> gives <a>x</a>
    for src in ["<a>t</a>", "<a>t<b/></a>", "<a><![CDATA[t]]></a>", "<a><!--t--></a>", "<a><b>t</b></a>"] {
        let out = edited_wf(src, |d, ed| {
            let a = d.root_element();
            ed.remove(a.first_child().unwrap()).unwrap();
            ed.set_text(a, "x").unwrap();
        });
        assert_eq!(out, "<a>x</a>", "{src}");
        let out = edited_wf(src, |d, ed| {
            let a = d.root_element();
            ed.set_value(a.first_child().unwrap(), "y").unwrap();
            ed.set_text(a, "x").unwrap();
        });
        assert_eq!(out, "<a>x</a>", "{src}");
    }
}

#[test]
fn set_attribute_twice_with_a_new_name() {
    // <a/>: set_attribute(a, "y", "1") + set_attribute(a, "y", "2") gives <a y="1" y="2"/>
    let doc = Document::parse(b"<a/>").unwrap();
    let mut ed = Editor::new(&doc);
    ed.set_attribute(doc.root_element(), "y", "1").unwrap();
    let second = ed.set_attribute(doc.root_element(), "y", "2");
    if let Ok(()) = second {
        let out = ed.to_vec().unwrap();
        assert!(Document::parse(&out).is_ok(), "not well-formed: {}", String::from_utf8_lossy(&out));
    }
    // the same with renames: two attributes renamed to one name
    let doc = Document::parse(b"<a x='1' y='2'/>").unwrap();
    let mut ed = Editor::new(&doc);
    let a = doc.root_element();
    let ok = ed.rename(a.attribute_node("x").unwrap(), "z").is_ok() & ed.rename(a.attribute_node("y").unwrap(), "z").is_ok();
    if ok {
        let out = ed.to_vec();
        assert!(out.as_ref().map_or(true, |o| Document::parse(o).is_ok()), "not well-formed: {out:?}");
    }
}

#[test]
fn rename_twice_then_content() {
    // <a><b/></a>: rename(b, "c"), rename(b, "d"), append_child(b, "x") gives <a><c>x</d></a>
    let out = edited("<a><b/></a>", |d, ed| {
        let b = d.root_element().first_child().unwrap();
        ed.rename(b, "c").unwrap();
        ed.rename(b, "d").unwrap();
        ed.append_child(b, "x").unwrap();
    });
    assert!(Document::parse(out.as_bytes()).is_ok(), "not well-formed: {out}");
}

#[test]
fn rename_twice_keeps_the_tags_matching() {
    for src in ["<a><b>t</b></a>", "<a><b/></a>"] {
        let out = edited_wf(src, |d, ed| {
            let b = d.root_element().first_child().unwrap();
            ed.rename(b, "c").unwrap();
            ed.rename(b, "d").unwrap();
        });
        assert!(out == src.replace('b', "c") || out == src.replace('b', "d"), "{out}");
    }
}

#[test]
fn partial_overlap_is_a_conflict() {
    // With indentation removal, removing `<b/>` takes the line end and indentation of
    // the text node before it; replacing that text node overlaps without containing.
    let src = "<a>t\n\t<b/>\n</a>";
    let doc = Document::parse(src.as_bytes()).unwrap();
    let mut ed = Editor::new(&doc).remove_indentation(true);
    let t = doc.root_element().first_child().unwrap();
    let b = doc.root_element().first_element_child().unwrap();
    ed.set_value(t, "u").unwrap();
    ed.remove(b).unwrap();
    let err = ed.to_vec().unwrap_err();
    assert!(matches!(err, EditError::Conflict { .. }), "{err:?}");
    assert!(err.to_string().contains("overlap"), "{err}");
    let mut buf = Vec::new();
    assert!(matches!(ed.append_to(&mut buf), Err(EditError::Conflict { .. })));
    assert!(matches!(ed.write_to(Vec::new()), Err(EditError::Conflict { .. })));
    assert!(matches!(ed.into_document(), Err(EditError::Conflict { .. })));
    // the other call order: the same
    let mut ed = Editor::new(&doc).remove_indentation(true);
    ed.remove(b).unwrap();
    ed.set_value(t, "u").unwrap();
    assert!(matches!(ed.to_vec(), Err(EditError::Conflict { .. })));
}

#[test]
fn disjoint_edits_do_not_depend_on_call_order() {
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let a = r(&doc);
    type Op = Box<dyn for<'x> Fn(&mut Editor<'x>, &[Node<'x>], Node<'x>)>;
    let ops: Vec<Op> = vec![
        Box::new(|ed, k, _| ed.remove(k[0]).unwrap()),
        Box::new(|ed, k, _| ed.set_attribute(k[1], "n", "1").unwrap()),
        Box::new(|ed, k, _| ed.rename(k[2], "p:z").unwrap()),
        Box::new(|ed, k, _| ed.set_value(k[3], "cc").unwrap()),
        Box::new(|ed, k, _| ed.insert_after(k[4], "<i/>").unwrap()),
        Box::new(|ed, k, _| ed.set_value(k[5], "dd").unwrap()),
        Box::new(|ed, k, _| ed.append_child(k[7], "<j/>").unwrap()),
        Box::new(|ed, _, a| ed.remove(a.attribute_node("a").unwrap()).unwrap()),
        Box::new(|ed, _, a| ed.set_value(a.attribute_node("p:b").unwrap(), "3").unwrap()),
    ];
    let kids: Vec<Node> = a.children().collect();
    let want = "<?xml version=\"1.0\"?>\n<!--top-->\n<r xmlns:p=\"urn:p\" p:b=\"3\"><e x=\"y\" n=\"1\"/><p:z>in</p:z><!--cc--><?pi data?><i/><![CDATA[dd]]>t2<g\n  k='v' ><j/></g></r>\n<?tail?>\n";
    let mut rng = Rng(0x5eed_0001);
    for _ in 0..50 {
        let mut order: Vec<usize> = (0..ops.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let mut ed = Editor::new(&doc);
        for &i in &order {
            ops[i](&mut ed, &kids, a);
        }
        assert_eq!(String::from_utf8(ed.to_vec().unwrap()).unwrap(), want, "order {order:?}");
    }
}

#[test]
fn comment_values_never_hold_a_double_dash() {
    for v in ["---", "a---b", "----", "-- --"] {
        let out = edited(DOC, |doc, ed| ed.set_value(kid(r(doc), 3), v).unwrap());
        assert!(Document::parse(out.as_bytes()).is_ok(), "{v:?} gives a comment that is not well-formed: {out}");
    }
}

#[test]
fn removing_a_namespace_declaration_in_use() {
    // <r xmlns:p="urn:p" p:b="2">: remove(xmlns:p) gives <r p:b="2"> (undeclared prefix)
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let mut ed = Editor::new(&doc);
    let decl = r(&doc).namespace_declarations().next().unwrap();
    if ed.remove(decl).is_ok() {
        let out = ed.to_vec();
        assert!(out.as_ref().map_or(true, |o| Document::parse(o).is_ok()), "corrupt output: {:?}", out.map(String::from_utf8));
    }
}

#[test]
fn len_clear_and_buffer_reuse() {
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let mut ed = Editor::new(&doc);
    assert!(std::ptr::eq(ed.document(), &doc));
    ed.remove(kid(r(&doc), 0)).unwrap();
    ed.append_child(kid(r(&doc), 1), "x").unwrap();
    ed.rename(kid(r(&doc), 1), "ee").unwrap();
    assert!(!ed.is_empty() && ed.len() >= 3);
    let mut buf = Vec::with_capacity(4096);
    buf.extend_from_slice(b"kept:");
    ed.append_to(&mut buf).unwrap();
    let want = sub(DOC, "t1<e x=\"y\"/>", "<ee x=\"y\">x</ee>");
    assert_eq!(String::from_utf8(buf.clone()).unwrap(), format!("kept:{want}"), "append_to appends");
    let cap = buf.capacity();
    buf.clear();
    ed.append_to(&mut buf).unwrap();
    assert_eq!(String::from_utf8(buf.clone()).unwrap(), want);
    assert_eq!(buf.capacity(), cap, "a cleared buffer is reused");
    // clear forgets everything, the pending end tag of `<e/>` included
    ed.clear();
    assert!(ed.is_empty());
    assert_eq!(ed.to_vec().unwrap(), DOC.as_bytes());
    ed.set_value(kid(r(&doc), 6), "T").unwrap();
    assert_eq!(String::from_utf8(ed.to_vec().unwrap()).unwrap(), sub(DOC, "t2<g", "T<g"));
}

#[test]
fn into_document_parses_the_result() {
    let doc = Document::parse(DOC.as_bytes()).unwrap();
    let mut ed = Editor::new(&doc);
    ed.remove(kid(r(&doc), 2)).unwrap();
    ed.set_attribute(r(&doc), "c", "3").unwrap();
    let d2 = ed.into_document().unwrap();
    assert_eq!(d2.root_element().attribute("c").unwrap(), "3");
    assert_eq!(d2.root_element().element_children().map(|e| e.name()).collect::<Vec<_>>(), ["e", "g"]);
    // and editing goes on with the new document
    let mut ed2 = Editor::new(&d2);
    ed2.rename(d2.root_element(), "s").unwrap();
    let d3 = ed2.into_document().unwrap();
    assert_eq!(d3.root_element().name(), "s");
    // raw bytes that break the document: the parse error comes back
    let doc = Document::parse(b"<a/>").unwrap();
    let mut ed = Editor::new(&doc);
    ed.append_bytes(doc.root_element(), b"<b>").unwrap();
    assert!(matches!(ed.into_document(), Err(EditError::MalformedFragment(_))));
    // the options of the document are kept (here: no namespace processing)
    let doc = Document::parse_with(b"<a/>", &ParseOptions::new().namespaces(false)).unwrap();
    let mut ed = Editor::new(&doc);
    ed.append_child(doc.root_element(), "<q:b/>").unwrap();
    assert_eq!(ed.into_document().unwrap().root_element().first_child().unwrap().name(), "q:b");
}

#[test]
fn documents_keep_their_encoding() {
    // UTF-8 with a BOM: the BOM stays
    let src = "\u{FEFF}<a>é</a>";
    assert_eq!(edited_wf(src, |d, ed| ed.append_text(d.root_element(), "€").unwrap()), "\u{FEFF}<a>é€</a>");
    // UTF-16 big endian
    let src = crate::common::utf16("<?xml version='1.0' encoding='UTF-16'?><a x='é'/>", false, true);
    let doc = Document::parse(&src).unwrap();
    let mut ed = Editor::new(&doc);
    ed.set_attribute(doc.root_element(), "y", "𝄞").unwrap();
    assert_eq!(ed.to_vec().unwrap(), crate::common::utf16("<?xml version='1.0' encoding='UTF-16'?><a x='é' y=\"𝄞\"/>", false, true));
    // ISO-8859-1: Latin-1 characters as bytes, others as character references in text
    // and attribute values
    let src = b"<?xml version='1.0' encoding='ISO-8859-1'?><a b='\xE9'>caf\xE9</a>";
    let doc = Document::parse(src).unwrap();
    let mut ed = Editor::new(&doc);
    ed.append_text(doc.root_element(), "\u{E8}\u{20AC}").unwrap();
    ed.set_value(doc.root_element().attribute_node("b").unwrap(), "\u{FC}\u{2013}").unwrap();
    assert_eq!(ed.to_vec().unwrap(), b"<?xml version='1.0' encoding='ISO-8859-1'?><a b='\xFC&#x2013;'>caf\xE9\xE8&#x20AC;</a>".to_vec());
    let d2 = ed.into_document().unwrap();
    assert_eq!(d2.root_element().attribute("b").unwrap(), "\u{FC}\u{2013}");
    assert_eq!(d2.root_element().text().unwrap(), "caf\u{E9}\u{E8}\u{20AC}");
}

#[test]
fn ascii_document_in_another_encoding() {
    // `<?xml version='1.0' encoding='ISO-8859-1'?><a/>` + append_text(a, "é") gives
    // `<a>\xC3\xA9</a>`, which reads back as "Ã©"
    let src = b"<?xml version='1.0' encoding='ISO-8859-1'?><a/>";
    let doc = Document::parse(src).unwrap();
    let mut ed = Editor::new(&doc);
    ed.append_text(doc.root_element(), "\u{E9}\u{20AC}").unwrap();
    assert_eq!(ed.to_vec().unwrap(), b"<?xml version='1.0' encoding='ISO-8859-1'?><a>\xE9&#x20AC;</a>".to_vec());
}

#[test]
fn unencodable_characters_in_markup() {
    // ISO-8859-1 has no U+20AC, and no character reference can stand for it in a
    // name or a comment: writing fails with `Unencodable` (the module's rules)
    let src = b"<?xml version='1.0' encoding='ISO-8859-1'?><a>\xE9<!--c--></a>";
    let doc = Document::parse(src).unwrap();
    assert!(!doc.text_is_source());
    let check = |r: Result<Document<'static>, EditError>, what: &str| match r {
        Err(EditError::Unencodable { ch, .. }) => assert_eq!(ch, '\u{20AC}', "{what}"),
        Err(e) => panic!("{what}: expected Unencodable, got {e:?}"),
        Ok(d) => panic!("{what}: written as {:?}", String::from_utf8_lossy(d.source())),
    };
    let mut ed = Editor::new(&doc);
    ed.rename(doc.root_element(), "x\u{20AC}").unwrap();
    check(ed.into_document(), "renamed element");
    let mut ed = Editor::new(&doc);
    ed.set_value(doc.root_element().last_child().unwrap(), "\u{20AC}").unwrap();
    check(ed.into_document(), "comment");
}

// ---- (c) bytes outside edited ranges ----------------------------------------------------

/// For many nodes of a document, one edit at a time: the output is the input with
/// exactly the edited range changed.
fn check_single_edits(name: &str, bytes: &[u8], max_nodes: usize) -> usize {
    let doc = Document::parse(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(doc.text_is_source(), "{name}: this check wants a UTF-8 document");
    let t = doc.text();
    let all: Vec<Node> = doc
        .root()
        .descendants()
        .flat_map(|n| std::iter::once(n).chain(n.attributes().collect::<Vec<_>>()))
        .filter(|n| !n.is_root())
        .collect();
    let step = (all.len() / max_nodes).max(1);
    let splice = |s: usize, e: usize, new: &[u8]| -> Vec<u8> { [&t[..s], new, &t[e..]].concat() };
    let mut checked = 0;
    let mut ed = Editor::new(&doc);
    let mut out = Vec::new();
    for n in all.iter().step_by(step) {
        let rg = n.range();
        let top = n.parent().is_some_and(|p| p.is_root());
        // remove
        ed.clear();
        if !(top && n.is_element()) {
            ed.remove(*n).unwrap();
            out.clear();
            ed.append_to(&mut out).unwrap();
            let s = if n.is_attribute() { t[..rg.start].iter().rposition(|b| !b" \t\r\n".contains(b)).unwrap() + 1 } else { rg.start };
            assert!(out == splice(s, rg.end, b""), "{name}: remove {n:?}");
        }
        // set a value
        ed.clear();
        match n.kind() {
            NodeKind::Text => {
                ed.set_value(*n, "<v&>").unwrap();
                out.clear();
                ed.append_to(&mut out).unwrap();
                assert!(out == splice(rg.start, rg.end, b"&lt;v&amp;&gt;"), "{name}: set_value {n:?}");
            }
            NodeKind::Attribute => {
                ed.set_value(*n, "v\"").unwrap();
                out.clear();
                ed.append_to(&mut out).unwrap();
                let v = n.value_range().unwrap();
                let new: &[u8] = if t[v.start - 1] == b'"' { b"v&quot;" } else { b"v\"" };
                assert!(out == splice(v.start, v.end, new), "{name}: set_value {n:?}");
            }
            NodeKind::Comment => {
                ed.set_value(*n, " v ").unwrap();
                out.clear();
                ed.append_to(&mut out).unwrap();
                assert!(out == splice(rg.start, rg.end, b"<!-- v -->"), "{name}: set_value {n:?}");
            }
            NodeKind::Element => {
                ed.set_text(*n, "v").unwrap();
                out.clear();
                ed.append_to(&mut out).unwrap();
                let want = if n.is_empty_element_tag() {
                    [&t[..rg.end - 2], b">v</", n.name().as_bytes(), b">", &t[rg.end..]].concat()
                } else {
                    let c = n.content_range().unwrap();
                    splice(c.start, c.end, b"v")
                };
                assert!(out == want, "{name}: set_text {n:?}");
            }
            _ => {}
        }
        // insert before and after, rename
        ed.clear();
        if !n.is_attribute() {
            ed.insert_bytes_before(*n, b"<!--B-->").unwrap();
            ed.insert_after(*n, "<!--A-->").unwrap();
            out.clear();
            ed.append_to(&mut out).unwrap();
            assert!(out == [&t[..rg.start], b"<!--B-->", &t[rg.clone()], b"<!--A-->", &t[rg.end..]].concat(), "{name}: insert {n:?}");
        }
        ed.clear();
        if n.is_element() {
            ed.rename(*n, "Zz").unwrap();
            out.clear();
            ed.append_to(&mut out).unwrap();
            let l = n.name().len();
            let want = if n.is_empty_element_tag() {
                splice(rg.start + 1, rg.start + 1 + l, b"Zz")
            } else {
                let ce = n.content_range().unwrap().end;
                [&t[..rg.start + 1], b"Zz", &t[rg.start + 1 + l..ce + 2], b"Zz", &t[ce + 2 + l..]].concat()
            };
            assert!(out == want, "{name}: rename {n:?}");
        }
        checked += 1;
    }
    checked
}

#[test]
fn single_edits_change_only_their_range() {
    let mut total = 0;
    for name in [
        "generated/po_small.xml",
        "classic/much_ado.xml",
        "classic/nitf-sample.xml",
        "soap/soap-fault.xml",
        "soap/SignaturePrefixListMessage.xml",
        "generated/soap_wss_2k.xml",
        "vtd-xml-samples/cd.xml",
    ] {
        let bytes = corpus_doc(name);
        total += check_single_edits(name, &bytes, 400);
    }
    assert!(total > 1000, "only {total} nodes checked");
}

#[test]
fn single_edits_in_a_latin1_document() {
    let bytes = corpus_doc("classic/xmlspec.xml");
    let doc = Document::parse(&bytes).unwrap();
    assert!(!doc.text_is_source(), "classic/xmlspec.xml is ISO-8859-1 with non-ASCII characters");
    let latin1 =
        |b: &[u8]| -> Vec<u8> { std::str::from_utf8(b).unwrap().chars().map(|c| u8::try_from(c as u32).expect("Latin-1")).collect() };
    let t = doc.text();
    assert!(latin1(t) == bytes);
    let elements: Vec<Node> = doc.root_element().descendant_elements().collect();
    let mut n = 0;
    for e in elements.iter().step_by(37) {
        if e == &doc.root_element() {
            continue;
        }
        let mut ed = Editor::new(&doc);
        ed.remove(*e).unwrap();
        let rg = e.range();
        let want = [latin1(&t[..rg.start]), latin1(&t[rg.end..])].concat();
        assert!(ed.to_vec().unwrap() == want, "remove {e:?}");
        n += 1;
    }
    assert!(n > 20);
}

#[test]
fn many_disjoint_edits_change_only_their_ranges() {
    // random sets of text replacements and element removals at different places,
    // checked against splicing by hand
    let bytes = corpus_doc("classic/much_ado.xml");
    let doc = Document::parse(&bytes).unwrap();
    let t = doc.text();
    let nodes: Vec<Node> = doc.root_element().descendants().filter(|n| n.is_text() || n.is_element()).collect();
    let mut rng = Rng(0xd15_7017);
    for round in 0..40 {
        let mut picked: Vec<Node> = Vec::new();
        for _ in 0..30 {
            let n = nodes[rng.below(nodes.len())];
            let rg = n.range();
            if n == doc.root_element() || picked.iter().any(|p| p.range().start < rg.end && rg.start < p.range().end) {
                continue;
            }
            picked.push(n);
        }
        let mut ed = Editor::new(&doc);
        for n in &picked {
            if n.is_text() {
                ed.set_value(*n, "T").unwrap();
            } else {
                ed.remove(*n).unwrap();
            }
        }
        picked.sort_by_key(|n| n.range().start);
        let mut want = Vec::new();
        let mut at = 0;
        for n in &picked {
            want.extend_from_slice(&t[at..n.range().start]);
            if n.is_text() {
                want.push(b'T');
            }
            at = n.range().end;
        }
        want.extend_from_slice(&t[at..]);
        assert!(ed.to_vec().unwrap() == want, "round {round}");
    }
}

// ---- (d) malformed fragments ------------------------------------------------------------

#[test]
fn malformed_fragments_are_rejected_when_checking() {
    let src = "<!DOCTYPE r [<!ENTITY ent 'v'>]><r xmlns:p='urn:p' xmlns='urn:d'><s xmlns:q='urn:q'/><t/></r>";
    let doc = Document::parse(src.as_bytes()).unwrap();
    let (s, t) = (doc.root_element().first_child().unwrap(), doc.root_element().last_child().unwrap());
    let mut ed = Editor::new(&doc).check_fragments(true);
    for bad in [
        "<c>",
        "</c>",
        "<a><b></a></b>",
        "<a",
        "<a b='1' b='2'/>",
        "<a b=1/>",
        "<a b='<'/>",
        "&undefined;",
        "&#0;",
        "&#xD800;",
        "& ",
        "a]]>b",
        "<!-- a -- b -->",
        "<!-- a",
        "<?xml version='1.0'?>",
        "<![CDATA[x",
        "<!DOCTYPE x>",
        "<1x/>",
        "<q:x/>",
        "<x q:y='1'/>",
        "<x p:y='1' p:y='2'/>",
        "<x xmlns:p=''/>",
        "\u{1}",
        "\u{FFFE}",
    ] {
        malformed(ed.append_child(t, bad));
        malformed(ed.prepend_child(t, bad));
        malformed(ed.insert_before(t, bad));
        malformed(ed.insert_after(s, bad));
        malformed(ed.replace(t, bad));
    }
    assert!(ed.is_empty(), "a rejected fragment records nothing");
    // namespaces in scope where the fragment lands: q only inside s
    ed.append_child(s, "<q:x/>").unwrap();
    malformed(ed.insert_after(s, "<q:x/>"));
    // the error position is in the fragment
    match ed.append_child(t, "<c>\n</d>") {
        Err(EditError::MalformedFragment(e)) => {
            assert_eq!(e.line(), 2, "{e}");
            assert!(e.offset() <= 8, "{e}");
        }
        other => panic!("{other:?}"),
    }
    // beside the root element only comments, PIs and white space
    for bad in ["<x/>", "text", "&ent;", "<![CDATA[x]]>"] {
        malformed(ed.insert_before(doc.root_element(), bad));
        malformed(ed.insert_after(doc.root_element(), bad));
    }
    for good in ["<!--c-->", "<?pi x?>", " \n\t", ""] {
        ed.insert_after(doc.root_element(), good).unwrap();
    }
}

#[test]
fn well_formed_fragments_are_accepted_when_checking() {
    let src = "<!DOCTYPE r [<!ENTITY ent 'v'>]><r xmlns:p='urn:p' xmlns='urn:d'><t/></r>";
    let doc = Document::parse(src.as_bytes()).unwrap();
    let t = doc.root_element().first_child().unwrap();
    let mut ed = Editor::new(&doc).check_fragments(true);
    let goods = [
        "",
        "text",
        "<x/>tail<y>z</y>",
        "<p:x p:a='1' b=\"2\"/>",
        "&amp;&#233;&#x1D11E;&lt;",
        "&ent;",
        "<![CDATA[<&]]>",
        "<!--c--><?pi data?>",
        "<x xmlns:n='urn:n'><n:y/></x>",
        "<x xmlns=''/>",
        ">",
    ];
    for g in goods {
        ed.append_child(t, g).unwrap_or_else(|e| panic!("{g:?}: {e}"));
    }
    let out = String::from_utf8(ed.to_vec().unwrap()).unwrap();
    assert_eq!(out, sub(src, "<t/>", &format!("<t>{}</t>", goods.concat())));
    // escaping calls never fail, whatever the text
    let mut ed = Editor::new(&doc).check_fragments(true);
    ed.append_text(t, "<&]]>").unwrap();
    ed.set_text(doc.root_element(), "</r>").unwrap();
    // without the entity declaration the reference is refused
    let doc = Document::parse(b"<r><t/></r>").unwrap();
    malformed(Editor::new(&doc).check_fragments(true).append_child(doc.root_element(), "&ent;"));
    // checking is the default, as in the CLI and Python; turning it off lets the fragment through
    malformed(Editor::new(&doc).append_child(doc.root_element(), "<open>"));
    assert!(Editor::new(&doc).check_fragments(false).append_child(doc.root_element(), "<open>").is_ok());
}

#[test]
fn without_checking_fragments_go_in_as_written() {
    let doc = Document::parse(b"<r><t/></r>").unwrap();
    let mut ed = Editor::new(&doc).check_fragments(false);
    ed.append_child(doc.root_element(), "<unclosed>").unwrap();
    ed.insert_after(doc.root_element(), "<second-root/>").unwrap();
    ed.replace(doc.root_element().first_child().unwrap(), "<q:x/>").unwrap();
    assert_eq!(ed.to_vec().unwrap(), b"<r><q:x/><unclosed></r><second-root/>");
    // names are checked either way
    assert!(matches!(ed.rename(doc.root_element(), "q:r"), Err(EditError::UndeclaredPrefix(_))));
    assert!(matches!(ed.set_attribute(doc.root_element(), "1", "v"), Err(EditError::InvalidName(_))));
}

#[test]
fn error_messages() {
    let doc = Document::parse(b"<r><!--c--></r>").unwrap();
    let mut ed = Editor::new(&doc).check_fragments(true);
    let msg = |e: EditError| e.to_string();
    assert!(msg(ed.rename(doc.root_element().first_child().unwrap(), "x").unwrap_err()).contains("Comment"));
    assert!(msg(ed.append_child(doc.root_element(), "<a>").unwrap_err()).contains("not well-formed"));
    assert!(msg(ed.rename(doc.root_element(), "q:x").unwrap_err()).contains("`q`"));
    assert!(msg(ed.rename(doc.root_element(), "1x").unwrap_err()).contains("`1x`"));
    assert!(msg(ed.remove(doc.root_element()).unwrap_err()).contains("root element"));
}

// ---- (e) differential test against lxml -------------------------------------------------

/// One edit, with its target as a path of child indices (all node kinds) from the
/// root element, so that lxml finds the same node.
#[derive(Debug, Clone)]
enum Op {
    /// Remove an element, comment or PI.
    Remove(Vec<usize>),
    /// Remove a text node or CDATA section.
    RemoveText(Vec<usize>),
    RemoveAttr(Vec<usize>, String),
    SetAttr(Vec<usize>, String, String),
    SetText(Vec<usize>, String),
    /// Append an element: name, attributes, text.
    Append(Vec<usize>, String, Vec<(String, String)>, Option<String>),
    Rename(Vec<usize>, String),
}

fn json_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn json_path(p: &[usize], out: &mut String) {
    out.push('[');
    for (i, k) in p.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&k.to_string());
    }
    out.push(']');
}

impl Op {
    fn json(&self, out: &mut String) {
        out.push('[');
        let (tag, path) = match self {
            Op::Remove(p) => ("remove", p),
            Op::RemoveText(p) => ("remove_text", p),
            Op::RemoveAttr(p, _) => ("remove_attr", p),
            Op::SetAttr(p, ..) => ("set_attr", p),
            Op::SetText(p, _) => ("set_text", p),
            Op::Append(p, ..) => ("append", p),
            Op::Rename(p, _) => ("rename", p),
        };
        json_str(tag, out);
        out.push(',');
        json_path(path, out);
        match self {
            Op::Remove(_) | Op::RemoveText(_) => {}
            Op::RemoveAttr(_, q) | Op::SetText(_, q) | Op::Rename(_, q) => {
                out.push(',');
                json_str(q, out);
            }
            Op::SetAttr(_, q, v) => {
                out.push(',');
                json_str(q, out);
                out.push(',');
                json_str(v, out);
            }
            Op::Append(_, q, attrs, text) => {
                out.push(',');
                json_str(q, out);
                out.push_str(",[");
                for (i, (n, v)) in attrs.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push('[');
                    json_str(n, out);
                    out.push(',');
                    json_str(v, out);
                    out.push(']');
                }
                out.push_str("],");
                match text {
                    Some(t) => json_str(t, out),
                    None => out.push_str("null"),
                }
            }
        }
        out.push(']');
    }
}

impl Rng {
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

/// Namespace prefixes in scope while generating: each prefix always means the same
/// URI (`p` urn:p, `q` urn:q, the default urn:d), so lxml picks the same prefixes.
#[derive(Clone, Copy, Default)]
struct Scope {
    p: bool,
    q: bool,
}

impl Scope {
    fn allows(self, qname: &str) -> bool {
        match qname.split_once(':') {
            None => true,
            Some(("p", _)) => self.p,
            Some(("q", _)) => self.q,
            Some(("xml", _)) => true,
            _ => false,
        }
    }
}

const ELEMENT_NAMES: [&str; 8] = ["a", "item", "x-y", "_z", "n.1", "é", "p:e", "q:f"];
const ATTR_NAMES: [&str; 6] = ["id", "x", "é", "p:at", "q:bt", "xml:lang"];
/// Attribute value pieces for a value in `'` (the `"` ones are swapped).
const ATTR_PIECES: [&str; 10] = ["v", "1 2", "&amp;", "&lt;", "&#x9;", "&#10;", "é€", "\"", "&apos;", "\n"];
const TEXT_PIECES: [&str; 14] =
    ["hello", " ", "\n  ", "&amp;", "&lt;", "&gt;", ">", "&#233;", "&#x1D11E;", "é€𝄞", "'\"", "\r\n", "\t", "x&#13;y"];
/// Values set by edits: every character that needs escaping somewhere.
const VALUE_PIECES: [&str; 14] = ["v", "", " ", "&", "<", ">", "\"", "'", "]]>", "é€𝄞", "\t", "\n", "\r", "--"];

struct Gen {
    rng: Rng,
}

impl Gen {
    fn value(&mut self) -> String {
        let n = self.rng.below(4);
        (0..n).map(|_| self.rng.pick(&VALUE_PIECES)).collect()
    }

    fn doc(&mut self) -> String {
        let mut s = String::new();
        let rng = &mut self.rng;
        if rng.chance(50) {
            s.push_str(rng.pick(&[
                "<?xml version=\"1.0\"?>\n",
                "<?xml version='1.0' encoding='UTF-8'?>",
                "<?xml version=\"1.0\" standalone=\"yes\"?>\r\n",
            ]));
        }
        if rng.chance(30) {
            s.push_str("<!-- top -->\n");
        }
        if rng.chance(20) {
            s.push_str("<?top pi?>");
        }
        self.element(&mut s, 0, Scope::default());
        if self.rng.chance(30) {
            s.push_str("\n<!--after-->");
        }
        if self.rng.chance(50) {
            s.push('\n');
        }
        s
    }

    fn ws(&mut self) -> &'static str {
        self.rng.pick(&[" ", " ", " ", "\n  ", "\t", "  "])
    }

    fn element(&mut self, s: &mut String, depth: usize, mut scope: Scope) {
        let mut attrs = String::new();
        if self.rng.chance(20) {
            attrs.push_str(self.ws());
            attrs.push_str("xmlns:p=\"urn:p\"");
            scope.p = true;
        }
        if self.rng.chance(15) {
            attrs.push_str(self.ws());
            attrs.push_str("xmlns:q='urn:q'");
            scope.q = true;
        }
        if self.rng.chance(10) {
            attrs.push_str(self.ws());
            attrs.push_str(if self.rng.chance(70) { "xmlns=\"urn:d\"" } else { "xmlns=\"\"" });
        }
        let names: Vec<&str> = ELEMENT_NAMES.iter().copied().filter(|n| scope.allows(n)).collect();
        let name = self.rng.pick(&names);
        let mut used = Vec::new();
        for _ in 0..self.rng.below(4) {
            let an = self.rng.pick(&ATTR_NAMES);
            if used.contains(&an) || !scope.allows(an) {
                continue;
            }
            used.push(an);
            let q = if self.rng.chance(50) { '\'' } else { '"' };
            let mut v = String::new();
            for _ in 0..self.rng.below(4) {
                let piece = self.rng.pick(&ATTR_PIECES);
                v.push_str(match (q, piece) {
                    ('"', "\"") => "'",
                    ('"', "&apos;") => "&quot;",
                    _ => piece,
                });
            }
            attrs.push_str(self.ws());
            let eq = self.rng.pick(&["=", "=", " = ", "=\n"]);
            attrs.push_str(&format!("{an}{eq}{q}{v}{q}"));
        }
        s.push('<');
        s.push_str(name);
        s.push_str(&attrs);
        if depth >= 4 || self.rng.chance(25) {
            s.push_str(self.rng.pick(&["/>", " />", "\n/>"]));
            return;
        }
        if self.rng.chance(10) {
            s.push(' ');
        }
        s.push('>');
        let mut last_textual = false;
        for _ in 0..self.rng.below(6) {
            let k = self.rng.below(10);
            match k {
                0..=2 if !last_textual => {
                    let n = 1 + self.rng.below(3);
                    for _ in 0..n {
                        s.push_str(self.rng.pick(&TEXT_PIECES));
                    }
                    last_textual = true;
                }
                3 if !last_textual => {
                    // CDATA next to text would merge into one lxml text: never adjacent
                    s.push_str(self.rng.pick(&["<![CDATA[x<y&z]]>", "<![CDATA[ ]] ]]>", "<![CDATA[a]b>]]>"]));
                    last_textual = true;
                }
                4 => {
                    s.push_str(self.rng.pick(&["<!-- c -->", "<!---->", "<!--a-b-->", "<!--\n-->"]));
                    last_textual = false;
                }
                5 => {
                    s.push_str(self.rng.pick(&["<?pi?>", "<?pi data here?>", "<?x-y  a?>"]));
                    last_textual = false;
                }
                _ => {
                    self.element(s, depth + 1, scope);
                    last_textual = false;
                }
            }
        }
        s.push_str("</");
        s.push_str(name);
        s.push_str(self.rng.pick(&["", "", " ", "\n"]));
        s.push('>');
    }
}

/// Every node under the root element (the root element too), with its path.
fn paths<'d>(n: Node<'d>, path: &mut Vec<usize>, out: &mut Vec<(Node<'d>, Vec<usize>)>) {
    out.push((n, path.clone()));
    for (i, c) in n.children().enumerate() {
        path.push(i);
        paths(c, path, out);
        path.pop();
    }
}

/// Draws up to `n` edits for `doc`, records them in `ed`, and returns them for lxml.
///
/// Combinations whose result depends on call order in lxml but not in the Editor
/// (whose rules are by position) are left out: a second set_text or rename of one
/// element, set_text after an append to the element, removing the leading text of
/// an element after its set_text, setting an attribute twice or after removing it.
fn draw_edits<'d>(rng: &mut Rng, doc: &'d Document<'d>, ed: &mut Editor<'d>, n: usize) -> Vec<Op> {
    let mut all = Vec::new();
    paths(doc.root_element(), &mut Vec::new(), &mut all);
    let mut ops = Vec::new();
    let mut text_set: HashSet<Vec<usize>> = HashSet::new();
    let mut appended: HashSet<Vec<usize>> = HashSet::new();
    let mut renamed: HashSet<Vec<usize>> = HashSet::new();
    let mut attr_touched: HashSet<(Vec<usize>, String)> = HashSet::new();
    // the known bug (set_text_after_editing_the_only_child): set_text after the
    // removal of the element's only child loses to it
    let mut child_removed_in: HashSet<Vec<usize>> = HashSet::new();
    // the known bug (insert_into_a_removed_empty_element_tag_is_absorbed): content
    // given to an empty-element tag is not absorbed by a removal or replacement that
    // ends where the tag ends (removing the tag, set_text of its parent when it is the
    // last child)
    let last_child = |node: Node, path: &[usize]| -> Option<Vec<usize>> {
        let n = node.children().count();
        (n > 0).then(|| [path, &[n - 1]].concat())
    };
    let is_last = |node: Node| node.next_sibling().is_none();
    let mut removed_empty: HashSet<Vec<usize>> = HashSet::new();
    let mut filled_empty: HashSet<Vec<usize>> = HashSet::new();
    let mut tries = 0;
    while ops.len() < n && tries < 100 {
        tries += 1;
        let (node, path) = &all[rng.below(all.len())];
        let (node, path) = (*node, path.clone());
        let kind = rng.below(8);
        let op = match (node.kind(), kind) {
            (NodeKind::Element | NodeKind::Comment | NodeKind::ProcessingInstruction, 0 | 1) if !path.is_empty() => {
                if node.is_empty_element_tag() {
                    if filled_empty.contains(&path) {
                        continue;
                    }
                    removed_empty.insert(path.clone());
                }
                child_removed_in.insert(path[..path.len() - 1].to_vec());
                ed.remove(node).unwrap();
                Op::Remove(path)
            }
            (NodeKind::Text | NodeKind::CData, _) => {
                if text_set.contains(&path[..path.len() - 1]) {
                    continue;
                }
                child_removed_in.insert(path[..path.len() - 1].to_vec());
                ed.remove(node).unwrap();
                Op::RemoveText(path)
            }
            (NodeKind::Element, 2) => {
                let attrs: Vec<Node> = node.attributes().collect();
                if attrs.is_empty() {
                    continue;
                }
                let a = rng.pick(&attrs);
                attr_touched.insert((path.clone(), a.name().to_string()));
                ed.remove(a).unwrap();
                Op::RemoveAttr(path, a.name().to_string())
            }
            (NodeKind::Element, 3) => {
                let names: Vec<&str> = ATTR_NAMES
                    .iter()
                    .copied()
                    .filter(|q| q.split_once(':').is_none_or(|(p, _)| p == "xml" || node.lookup_namespace(p).is_some()))
                    .collect();
                let q = rng.pick(&names).to_string();
                if !attr_touched.insert((path.clone(), q.clone())) {
                    continue;
                }
                let v = Gen { rng: Rng(rng.next() | 1) }.value();
                ed.set_attribute(node, &q, &v).unwrap();
                Op::SetAttr(path, q, v)
            }
            (NodeKind::Element, 4) => {
                if text_set.contains(&path) || appended.contains(&path) || removed_empty.contains(&path) || child_removed_in.contains(&path)
                {
                    continue;
                }
                if last_child(node, &path).is_some_and(|c| filled_empty.contains(&c)) {
                    continue;
                }
                if node.is_empty_element_tag() && is_last(node) && text_set.contains(&path[..path.len().saturating_sub(1)]) {
                    continue;
                }
                text_set.insert(path.clone());
                if node.is_empty_element_tag() {
                    filled_empty.insert(path.clone());
                }
                let v = Gen { rng: Rng(rng.next() | 1) }.value();
                ed.set_text(node, &v).unwrap();
                Op::SetText(path, v)
            }
            (NodeKind::Element, 5) => {
                if removed_empty.contains(&path) {
                    continue;
                }
                if node.is_empty_element_tag() && is_last(node) && !path.is_empty() && text_set.contains(&path[..path.len() - 1]) {
                    continue;
                }
                let names: Vec<&str> = ELEMENT_NAMES
                    .iter()
                    .copied()
                    .filter(|q| q.split_once(':').is_none_or(|(p, _)| node.lookup_namespace(p).is_some()))
                    .collect();
                let q = rng.pick(&names).to_string();
                let mut frag = format!("<{q}");
                let mut attrs = Vec::new();
                if rng.chance(50) {
                    let v = Gen { rng: Rng(rng.next() | 1) }.value();
                    frag.push_str(&format!(" k=\"{}\"", vtdx_core::escape_attr(&v, b'"')));
                    attrs.push(("k".to_string(), v));
                }
                let text = rng.chance(60).then(|| Gen { rng: Rng(rng.next() | 1) }.value());
                match &text {
                    Some(t) => frag.push_str(&format!(">{}</{q}>", vtdx_core::escape_text(t))),
                    None => frag.push_str("/>"),
                }
                appended.insert(path.clone());
                if node.is_empty_element_tag() {
                    filled_empty.insert(path.clone());
                }
                ed.append_child(node, &frag).unwrap_or_else(|e| panic!("{frag:?}: {e}"));
                Op::Append(path, q, attrs, text)
            }
            (NodeKind::Element, 6 | 7) => {
                if !renamed.insert(path.clone()) {
                    continue;
                }
                let names: Vec<&str> = ELEMENT_NAMES
                    .iter()
                    .copied()
                    .filter(|q| q.split_once(':').is_none_or(|(p, _)| node.lookup_namespace(p).is_some()))
                    .collect();
                let q = rng.pick(&names).to_string();
                ed.rename(node, &q).unwrap();
                Op::Rename(path, q)
            }
            _ => continue,
        };
        ops.push(op);
    }
    ops
}

fn python() -> String {
    std::env::var("VTDX_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

#[test]
fn differential_against_lxml() {
    const DOCS: usize = 400;
    const EDITS: usize = 10;
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/edit_lxml.py");
    let mut child = Command::new(python())
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {} (python3 with lxml is required; scripts/test.sh installs lxml): {e}", python()));
    let mut cases = Vec::new();
    let mut input = String::new();
    // VTDX_EDIT_SEED=N explores other documents; the default is fixed
    let seed = std::env::var("VTDX_EDIT_SEED").ok().and_then(|s| s.parse::<u64>().ok()).unwrap_or(0x00ed_17ed_1717);
    let mut rng = Rng(seed | 1);
    let mut edits_total = 0;
    for i in 0..DOCS {
        let src = Gen { rng: Rng(rng.next() | 1) }.doc();
        let doc = Document::parse(src.as_bytes()).unwrap_or_else(|e| panic!("generated document {i} does not parse: {e}\n{src}"));
        let mut ed = Editor::new(&doc).check_fragments(true);
        // every fourth document: no edits (a round trip through both)
        let n = if i % 4 == 0 { 0 } else { 1 + rng.below(2 * EDITS) };
        let ops = draw_edits(&mut rng, &doc, &mut ed, n);
        edits_total += ops.len();
        let out = String::from_utf8(ed.to_vec().unwrap_or_else(|e| panic!("document {i}: {e}\n{src}\n{ops:?}"))).unwrap();
        if let Err(e) = Document::parse(out.as_bytes()) {
            panic!("document {i}: the output is not well-formed: {e}\n--- input\n{src}\n--- edits\n{ops:?}\n--- output\n{out}");
        }
        if ops.is_empty() {
            assert_eq!(out, src);
        }
        input.push_str("{\"id\":");
        input.push_str(&i.to_string());
        input.push_str(",\"doc\":");
        json_str(&src, &mut input);
        input.push_str(",\"out\":");
        json_str(&out, &mut input);
        input.push_str(",\"edits\":[");
        for (k, op) in ops.iter().enumerate() {
            if k > 0 {
                input.push(',');
            }
            op.json(&mut input);
        }
        input.push_str("]}\n");
        cases.push((src, ops, out));
    }
    assert!(edits_total >= DOCS * 5, "only {edits_total} edits drawn");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        stdin.write_all(input.as_bytes()).unwrap();
    });
    let res = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let stdout = String::from_utf8_lossy(&res.stdout);
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(res.status.success(), "the lxml side failed ({}):\n{stderr}\n{stdout}", res.status);
    let mut failures = Vec::new();
    let mut ok = 0;
    for line in stdout.lines() {
        if line == "ok" {
            ok += 1;
        } else if let Some(rest) = line.strip_prefix("FAIL ") {
            let (id, why) = rest.split_once(' ').unwrap();
            let (src, ops, out) = &cases[id.parse::<usize>().unwrap()];
            failures.push(format!("document {id}: {why}\n--- input\n{src}\n--- edits\n{ops:?}\n--- vtdx output\n{out}\n"));
        }
    }
    assert!(
        failures.is_empty(),
        "seed {seed}: {} of {DOCS} documents differ from lxml:\n{}",
        failures.len(),
        failures.iter().take(3).cloned().collect::<String>()
    );
    assert_eq!(ok, DOCS, "the lxml side answered for {ok} documents only:\n{stderr}");
}

// ---- rules added with the planner rewrite -------------------------------------------------

#[test]
fn fragments_in_a_latin1_document_use_references_only_where_allowed() {
    let src = b"<?xml version='1.0' encoding='ISO-8859-1'?><a>\xE9</a>";
    let doc = Document::parse(src).unwrap();
    let mut ed = Editor::new(&doc);
    ed.append_child(doc.root_element(), "<x y='\u{20AC}\u{E9}'>\u{20AC}</x>").unwrap();
    assert_eq!(ed.to_vec().unwrap(), b"<?xml version='1.0' encoding='ISO-8859-1'?><a>\xE9<x y='&#x20AC;\xE9'>&#x20AC;</x></a>".to_vec());
    // in a comment, a PI or a name no reference can stand for the character
    for frag in ["<!--\u{20AC}-->", "<?p \u{20AC}?>", "<x\u{20AC}/>", "<![CDATA[\u{20AC}]]>"] {
        let mut ed = Editor::new(&doc);
        ed.append_child(doc.root_element(), frag).unwrap();
        match ed.to_vec() {
            Err(EditError::Unencodable { ch, .. }) => assert_eq!(ch, '\u{20AC}', "{frag}"),
            other => panic!("{frag}: expected Unencodable, got {other:?}"),
        }
    }
}

#[test]
fn namespace_declarations_in_use_cannot_be_removed() {
    let doc = Document::parse(b"<a xmlns:p='u' xmlns:q='v'><b q:x='1'/><c xmlns:p='w'><p:d/></c></a>").unwrap();
    let a = doc.root_element();
    let decl = |p: &str| a.namespace_declarations().find(|d| d.name() == p).unwrap();
    // p is used only below a redeclaration: removable
    let mut ed = Editor::new(&doc);
    ed.remove(decl("xmlns:p")).unwrap();
    assert_eq!(ed.to_vec().unwrap(), b"<a xmlns:q='v'><b q:x='1'/><c xmlns:p='w'><p:d/></c></a>".to_vec());
    // q is used by an attribute of a child
    assert!(matches!(Editor::new(&doc).remove(decl("xmlns:q")), Err(EditError::NamespaceInUse(p)) if p == "q"));
}

#[test]
fn attribute_names_stay_unique() {
    let doc = Document::parse(b"<a xmlns:p='u' xmlns:q='u' p:x='1' y='2' z='3'/>").unwrap();
    let a = doc.root_element();
    let mut ed = Editor::new(&doc);
    // by qualified name
    assert!(matches!(ed.rename(a.attribute_node("y").unwrap(), "z"), Err(EditError::DuplicateAttribute(_))));
    // by expanded name: q:x is {u}x like p:x
    assert!(matches!(ed.rename(a.attribute_node("y").unwrap(), "q:x"), Err(EditError::DuplicateAttribute(_))));
    // a name freed by a removal can be taken
    ed.remove(a.attribute_node("z").unwrap()).unwrap();
    ed.rename(a.attribute_node("y").unwrap(), "z").unwrap();
    assert_eq!(ed.to_vec().unwrap(), b"<a xmlns:p='u' xmlns:q='u' p:x='1' z='2'/>".to_vec());
}

#[test]
fn set_text_keeps_first_and_last_children_added() {
    // prepend_child / append_child stay before / after the new text, in both orders and
    // whether the element is `<b/>`, `<b></b>` or has content
    for src in ["<a><b/></a>", "<a><b></b></a>", "<a><b>old<c/></b></a>"] {
        let out = edited_wf(src, |d, ed| {
            let b = d.root_element().first_child().unwrap();
            ed.append_child(b, "<z/>").unwrap();
            ed.set_text(b, "T").unwrap();
            ed.prepend_child(b, "<y/>").unwrap();
        });
        assert_eq!(out, "<a><b><y/>T<z/></b></a>", "{src}");
    }
}

/// XML 1.0 §2.2 `Char` excludes most C0 controls, U+FFFE and U+FFFF, and no
/// reference can stand for them: every call that writes text or a value refuses
/// them (the `edit` fuzz target found set_text, set_attribute, set_value and
/// append_text writing them; testdata/regressions/edit/err_*_control_character).
#[test]
fn characters_outside_char_are_refused_in_every_value() {
    let doc = Document::parse(b"<a x='1'>t<!--c--><b/></a>").unwrap();
    let a = doc.root_element();
    let x = a.attribute_node("x").unwrap();
    let text = a.first_child().unwrap();
    let comment = text.next_sibling().unwrap();
    let b = a.first_element_child().unwrap();
    for bad in ["\u{1}", "ok\u{1f}", "\u{fffe}", "\u{ffff}"] {
        let c = bad.chars().find(|&c| !vtdx_core::is_xml_char(c as u32)).unwrap();
        let mut ed = Editor::new(&doc);
        let results = [
            ed.set_text(a, bad),
            ed.set_attribute(a, "y", bad),
            ed.set_attribute(a, "x", bad),
            ed.set_value(x, bad),
            ed.set_value(text, bad),
            ed.set_value(comment, bad),
            ed.append_text(a, bad),
            ed.insert_text_before(b, bad),
            ed.insert_text_after(b, bad),
        ];
        for (i, r) in results.into_iter().enumerate() {
            assert!(matches!(r, Err(EditError::InvalidChar(got)) if got == c), "call {i} with {bad:?}: {r:?}");
        }
        assert!(ed.is_empty(), "a refused edit records nothing");
    }
    // tab, LF and CR are characters (written escaped where they must be)
    let mut ed = Editor::new(&doc);
    ed.set_attribute(a, "y", "a\tb\nc").unwrap();
    ed.append_text(a, "\r\n").unwrap();
    let out = ed.to_vec().unwrap();
    let again = Document::parse(&out).unwrap();
    assert_eq!(again.root_element().attribute("y").as_deref(), Some("a\tb\nc"));
}

/// Namespaces in XML 1.0 §3: reserved prefixes and names, and no undeclaring of a
/// prefix in 1.0 (testdata/regressions/edit/err_set_attribute_undeclares_prefix).
#[test]
fn namespace_declarations_obey_the_reserved_names() {
    let doc = Document::parse(b"<a xmlns:p='urn:p'/>").unwrap();
    let a = doc.root_element();
    let p = a.namespace_declarations().next().unwrap();
    let xml = "http://www.w3.org/XML/1998/namespace";
    let xmlns = "http://www.w3.org/2000/xmlns/";
    let refused: [(&str, &str); 6] =
        [("xmlns:q", ""), ("xmlns:xmlns", "urn:x"), ("xmlns:xml", "urn:x"), ("xmlns:q", xml), ("xmlns", xml), ("xmlns:q", xmlns)];
    for (name, value) in refused {
        let mut ed = Editor::new(&doc);
        let r = ed.set_attribute(a, name, value);
        assert!(matches!(r, Err(EditError::ReservedNamespace(_))), "{name}={value:?}: {r:?}");
    }
    let mut ed = Editor::new(&doc);
    assert!(matches!(ed.set_value(p, ""), Err(EditError::ReservedNamespace(_))));
    // allowed: xml bound to its own name, xmlns="" (undeclaring the default), a new prefix
    for (name, value) in [("xmlns:xml", xml), ("xmlns", ""), ("xmlns:q", "urn:q"), ("xmlnsish", "")] {
        let mut ed = Editor::new(&doc);
        ed.set_attribute(a, name, value).unwrap_or_else(|e| panic!("{name}={value:?}: {e}"));
        assert!(Document::parse(&ed.to_vec().unwrap()).is_ok(), "{name}={value:?}");
    }
    // without namespaces these are ordinary attributes
    let doc = Document::parse_with(b"<a/>", &ParseOptions::new().namespaces(false)).unwrap();
    let mut ed = Editor::new(&doc);
    ed.set_attribute(doc.root_element(), "xmlns:q", "").unwrap();
}

/// Renaming a namespace declaration removes its binding: refused while names in
/// its scope use the prefix, as removing it is
/// (testdata/regressions/edit/err_rename_declaration_in_use).
#[test]
fn a_declaration_in_use_cannot_be_renamed() {
    let doc = Document::parse(b"<a xmlns:p='u' xmlns:q='v'><p:b/></a>").unwrap();
    let a = doc.root_element();
    let decls: Vec<_> = a.namespace_declarations().collect();
    let mut ed = Editor::new(&doc);
    assert!(matches!(ed.rename(decls[0], "x"), Err(EditError::NamespaceInUse(p)) if p == "p"));
    assert!(matches!(ed.remove(decls[0]), Err(EditError::NamespaceInUse(_))));
    // q is not used: renaming it is fine and the output parses
    ed.rename(decls[1], "r").unwrap();
    let out = ed.to_vec().unwrap();
    assert_eq!(out, b"<a xmlns:p='u' r='v'><p:b/></a>");
}
