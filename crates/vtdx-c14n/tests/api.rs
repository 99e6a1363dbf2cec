//! The API's contract, case by case: algorithms and URIs, document subsets,
//! exact escaping, namespace edge cases, streaming to a digest, errors.

use std::io::Write;

use vtdx_c14n::{Algorithm, C14nError, Canonicalizer, DigestWriter, SetNode};
use vtdx_core::{Document, Node};

fn c14n(alg: Algorithm, xml: &str) -> String {
    let doc = Document::parse(xml.as_bytes()).unwrap();
    String::from_utf8(Canonicalizer::new(alg).document_to_vec(&doc).unwrap()).unwrap()
}

fn find<'d>(doc: &'d Document<'d>, name: &str) -> Node<'d> {
    doc.root().descendants().find(|n| n.is_element() && n.name() == name).unwrap()
}

#[test]
fn algorithm_uris_round_trip() {
    for alg in [Algorithm::C14n10, Algorithm::C14n11, Algorithm::ExcC14n10] {
        for comments in [false, true] {
            assert_eq!(Algorithm::from_uri(alg.uri(comments)), Some((alg, comments)));
        }
    }
    assert_eq!(Algorithm::from_uri("http://www.w3.org/2001/10/xml-exc-c14n#WithComments"), Some((Algorithm::ExcC14n10, true)));
    assert_eq!(Algorithm::from_uri("urn:unknown"), None);
}

#[test]
fn escaping_is_exactly_the_specs() {
    let xml = "<a x=\"&amp;&lt;&gt;&quot;'&#9;&#10;&#13;\">&amp;&lt;&gt;\"'&#9;&#13;\r\n</a>";
    assert_eq!(c14n(Algorithm::C14n10, xml), "<a x=\"&amp;&lt;>&quot;'&#x9;&#xA;&#xD;\">&amp;&lt;&gt;\"'\t&#xD;\n</a>");
}

#[test]
fn namespace_uris_are_escaped_like_attribute_values() {
    let xml = r#"<p:a xmlns:p="http://x.example/?a=1&amp;b=&quot;2&quot;"/>"#;
    for alg in [Algorithm::C14n10, Algorithm::ExcC14n10] {
        assert_eq!(c14n(alg, xml), r#"<p:a xmlns:p="http://x.example/?a=1&amp;b=&quot;2&quot;"></p:a>"#);
    }
}

#[test]
fn empty_elements_become_pairs_and_attributes_sort() {
    let xml = r#"<r xmlns:b="urn:b" xmlns:a="urn:a" z='1' a:z="2" b:a="3" y="4"><e/></r>"#;
    assert_eq!(c14n(Algorithm::C14n10, xml), r#"<r xmlns:a="urn:a" xmlns:b="urn:b" y="4" z="1" a:z="2" b:a="3"><e></e></r>"#);
}

#[test]
fn superfluous_declarations_are_removed() {
    let xml = r#"<r xmlns="urn:d" xmlns:p="urn:p"><p:x xmlns:p="urn:p" xmlns="urn:d"><y xmlns=""><z xmlns=""/></y></p:x></r>"#;
    assert_eq!(c14n(Algorithm::C14n10, xml), r#"<r xmlns="urn:d" xmlns:p="urn:p"><p:x><y xmlns=""><z></z></y></p:x></r>"#);
    assert_eq!(c14n(Algorithm::ExcC14n10, xml), r#"<r xmlns="urn:d"><p:x xmlns:p="urn:p"><y xmlns=""><z></z></y></p:x></r>"#);
}

#[test]
fn subtree_inherits_namespaces_and_xml_attributes() {
    let xml = r#"<r xmlns:u="urn:unused" xmlns:p="urn:p" xml:lang="en" xml:space="preserve" xml:base="a/"><m xml:base="b/"><p:x xml:lang="fr">t</p:x></m></r>"#;
    let doc = Document::parse(xml.as_bytes()).unwrap();
    let x = find(&doc, "p:x");
    let out = |alg| String::from_utf8(Canonicalizer::new(alg).subtree_to_vec(x).unwrap()).unwrap();
    assert_eq!(
        out(Algorithm::C14n10),
        r#"<p:x xmlns:p="urn:p" xmlns:u="urn:unused" xml:base="b/" xml:lang="fr" xml:space="preserve">t</p:x>"#
    );
    assert_eq!(
        out(Algorithm::C14n11),
        r#"<p:x xmlns:p="urn:p" xmlns:u="urn:unused" xml:base="a/b/" xml:lang="fr" xml:space="preserve">t</p:x>"#
    );
    assert_eq!(out(Algorithm::ExcC14n10), r#"<p:x xmlns:p="urn:p" xml:lang="fr">t</p:x>"#);
}

#[test]
fn exclusive_prefix_list() {
    let xml = r#"<r xmlns="urn:d" xmlns:a="urn:a" xmlns:b="urn:b"><x><b:y/></x></r>"#;
    let doc = Document::parse(xml.as_bytes()).unwrap();
    let x = find(&doc, "x");
    let c = Canonicalizer::new(Algorithm::ExcC14n10).inclusive_prefix_list("a #default");
    assert_eq!(
        String::from_utf8(c.subtree_to_vec(x).unwrap()).unwrap(),
        r#"<x xmlns="urn:d" xmlns:a="urn:a"><b:y xmlns:b="urn:b"></b:y></x>"#
    );
}

#[test]
fn enveloped_signature_excludes_a_subtree() {
    let xml = r#"<doc Id="d"><data>v</data><ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo/></ds:Signature><!--c--></doc>"#;
    let doc = Document::parse(xml.as_bytes()).unwrap();
    let sig = find(&doc, "ds:Signature");
    let c = Canonicalizer::new(Algorithm::C14n10);
    let mut out = Vec::new();
    c.canonicalize_subtree_excluding(doc.root(), &[sig], &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), r#"<doc Id="d"><data>v</data></doc>"#);
    // the same through the general node-set walk
    let mut out = Vec::new();
    c.canonicalize_node_set(
        &doc,
        |n| {
            let x = match n {
                SetNode::Node(x) => x,
                SetNode::Namespace { element, .. } => element,
            };
            x != sig && !x.ancestors().any(|a| a == sig)
        },
        &mut out,
    )
    .unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), r#"<doc Id="d"><data>v</data></doc>"#);
}

#[test]
fn whitespace_outside_the_document_element() {
    let xml = "<?xml version='1.0'?>\r\n<?a?>\n\n<!--b-->\n<r/>\n<?c d ?>\n<!--e-->\n";
    let doc = Document::parse(xml.as_bytes()).unwrap();
    let with = Canonicalizer::new(Algorithm::C14n10).with_comments(true).document_to_vec(&doc).unwrap();
    assert_eq!(String::from_utf8(with).unwrap(), "<?a?>\n<!--b-->\n<r></r>\n<?c d ?>\n<!--e-->");
    let without = Canonicalizer::new(Algorithm::C14n10).document_to_vec(&doc).unwrap();
    assert_eq!(String::from_utf8(without).unwrap(), "<?a?>\n<r></r>\n<?c d ?>");
}

#[test]
fn dtd_defaults_entities_and_types() {
    // a character reference in a default stays the character; a literal tab becomes a space
    let xml =
        "<!DOCTYPE r [<!ATTLIST r d CDATA 'x&#9;y\tz' t NMTOKENS #IMPLIED><!ENTITY e 'E&#38;amp;'>]><r t='  a   b '>&e;<![CDATA[<&>]]></r>";
    assert_eq!(c14n(Algorithm::C14n10, xml), r#"<r d="x&#x9;y z" t="a b">E&amp;&lt;&amp;&gt;</r>"#);
}

#[test]
fn relative_namespace_uri_fails() {
    let doc = Document::parse(br#"<r xmlns:x="../rel"><x:a/></r>"#).unwrap();
    let e = Canonicalizer::new(Algorithm::C14n10).document_to_vec(&doc).unwrap_err();
    assert!(matches!(e, C14nError::RelativeNamespaceUri { ref prefix, ref uri, .. } if prefix == "x" && uri == "../rel"), "{e}");
    assert!(e.to_string().contains("relative namespace URI"));
}

#[test]
fn streams_to_a_digest_in_pieces() {
    // a document larger than the output buffer, so the digest sees many writes
    let mut xml = String::from("<r xmlns='urn:r'>");
    for i in 0..20_000 {
        xml.push_str(&format!("<i n='{i}'>a &amp; b<e/></i>"));
    }
    xml.push_str("</r>");
    let doc = Document::parse(xml.as_bytes()).unwrap();
    let c = Canonicalizer::new(Algorithm::ExcC14n10);
    let whole = c.document_to_vec(&doc).unwrap();
    let mut pieces = 0;
    let mut seen = Vec::new();
    let mut w = DigestWriter::new(|d: &[u8]| {
        pieces += 1;
        seen.extend_from_slice(d);
    });
    c.canonicalize_document(&doc, &mut w).unwrap();
    assert_eq!(w.bytes(), whole.len() as u64);
    w.flush().unwrap();
    assert!(pieces > 1);
    assert_eq!(seen, whole);
}

/// `write_size` sets how much output collects before each write: the same
/// bytes, in pieces of at least that size (but the last) and, with a small size,
/// many more of them; the size is clamped to 1 KiB..64 KiB.
#[test]
fn write_size_sets_the_pieces() {
    let mut xml = String::from("<r xmlns='urn:r'>");
    for i in 0..5_000 {
        xml.push_str(&format!("<i n='{i}' b='2' a='1'>a &amp; b<e/></i>"));
    }
    xml.push_str("</r>");
    let doc = Document::parse(xml.as_bytes()).unwrap();
    let whole = Canonicalizer::new(Algorithm::ExcC14n10).document_to_vec(&doc).unwrap();
    assert!(whole.len() > 200_000);
    for (size, least) in [(1usize, 1024usize), (4096, 4096), (16 << 10, 16 << 10), (1 << 30, 64 << 10)] {
        let mut sizes = Vec::new();
        let mut seen = Vec::new();
        {
            let mut w = DigestWriter::new(|d: &[u8]| {
                sizes.push(d.len());
                seen.extend_from_slice(d);
            });
            Canonicalizer::new(Algorithm::ExcC14n10).write_size(size).canonicalize_document(&doc, &mut w).unwrap();
        }
        assert_eq!(seen, whole, "write_size {size}");
        let last = sizes.pop().unwrap();
        assert!(last > 0 && sizes.iter().all(|&n| n >= least), "write_size {size}: {sizes:?}");
        assert!(sizes.len() + 1 >= whole.len() / (least + 4096), "write_size {size}: {} pieces", sizes.len() + 1);
    }
}

#[test]
fn write_errors_are_reported() {
    struct Fail;
    impl Write for Fail {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let doc = Document::parse(b"<a/>").unwrap();
    let e = Canonicalizer::new(Algorithm::C14n10).canonicalize_document(&doc, &mut Fail).unwrap_err();
    assert!(matches!(e, C14nError::Io(_)));
}

#[test]
fn non_element_subtrees() {
    let doc = Document::parse(b"<a>x &amp; y<!--c--><?p d?></a>").unwrap();
    let a = doc.root_element();
    let kids: Vec<Node<'_>> = a.children().collect();
    let c = Canonicalizer::new(Algorithm::C14n10).with_comments(true);
    let outs: Vec<String> = kids.iter().map(|&k| String::from_utf8(c.subtree_to_vec(k).unwrap()).unwrap()).collect();
    assert_eq!(outs, ["x &amp; y", "<!--c-->", "<?p d?>"]);
    assert_eq!(c.subtree_to_vec(doc.root()).unwrap(), b"<a>x &amp; y<!--c--><?p d?></a>");
}

#[test]
fn foreign_excluded_node_is_an_error() {
    let d1 = Document::parse(b"<a><b/></a>").unwrap();
    let d2 = Document::parse(b"<a><b/></a>").unwrap();
    let b2 = d2.root_element().first_element_child().unwrap();
    let mut out = Vec::new();
    let r = Canonicalizer::new(Algorithm::C14n10).canonicalize_subtree_excluding(d1.root_element(), &[b2], &mut out);
    assert!(matches!(r, Err(C14nError::ForeignNode)));
}

#[test]
fn utf16_and_latin1_inputs_give_utf8() {
    let latin1 = b"<?xml version='1.0' encoding='ISO-8859-1'?><a>\xe9</a>";
    let doc = Document::parse(latin1).unwrap();
    assert_eq!(Canonicalizer::new(Algorithm::C14n10).document_to_vec(&doc).unwrap(), "<a>\u{e9}</a>".as_bytes());
}

/// Exclusive C14N renders a prefix where it is visibly utilized and the output
/// does not already bind it so (Exc-C14N §3). Plain start tags are copied on a
/// fast path that remembers which prefixes the output binds; these documents
/// change that binding (by an output declaration, and by leaving an element
/// that made one) between two uses of the same element name.
#[test]
fn exclusive_rendering_follows_the_output_bindings() {
    let cases = [
        // p is rebound to urn:2 in the output by p:z; w redeclares urn:1 without
        // utilizing it, so the second p:b must declare it again
        (
            r#"<p:a xmlns:p="urn:1"><p:b>x</p:b><p:z xmlns:p="urn:2"><w xmlns:p="urn:1"><p:b>y</p:b></w></p:z></p:a>"#,
            r#"<p:a xmlns:p="urn:1"><p:b>x</p:b><p:z xmlns:p="urn:2"><w><p:b xmlns:p="urn:1">y</p:b></w></p:z></p:a>"#,
        ),
        // the first outer p:b renders p; after it closes, its sibling must render p again
        (
            r#"<r xmlns:p="urn:1"><x><p:b><p:b>1</p:b></p:b></x><p:b>2</p:b></r>"#,
            r#"<r><x><p:b xmlns:p="urn:1"><p:b>1</p:b></p:b></x><p:b xmlns:p="urn:1">2</p:b></r>"#,
        ),
        // tidy start tags with a prefixed attribute: the prefix is utilized there,
        // and rendered unless the output binds it already (by p:y on r); attributes
        // out of canonical order are sorted
        (
            r#"<r xmlns:p="urn:p"><e p:x="1">t</e><e b="2" p:x="1"><f/></e></r>"#,
            r#"<r><e xmlns:p="urn:p" p:x="1">t</e><e xmlns:p="urn:p" b="2" p:x="1"><f></f></e></r>"#,
        ),
        (
            r#"<r xmlns:p="urn:p" p:y="0"><e p:x="1">t</e><e b="2" a="1">u</e></r>"#,
            r#"<r xmlns:p="urn:p" p:y="0"><e p:x="1">t</e><e a="1" b="2">u</e></r>"#,
        ),
    ];
    for (input, want) in cases {
        assert_eq!(c14n(Algorithm::ExcC14n10, input), want, "{input}");
    }
}

#[test]
fn own_prefix_declarations_copied_or_rebuilt() {
    // an element declaring just its own prefix (`<m:GetQuote xmlns:m="...">`), on the
    // copy path when the declaration is new and written canonically; redundant
    // declarations dropped, a URI written with a reference rewritten, default
    // namespace declarations and undeclarations (expected bytes from lxml 6.1's C14N)
    let cases = [
        (
            r#"<r xmlns:m="urn:m"><m:a xmlns:m="urn:m">1</m:a><m:b xmlns:m="urn:n"><m:c>2</m:c></m:b><m:d xmlns:m="urn&#x3A;m"><m:e/></m:d></r>"#,
            r#"<r xmlns:m="urn:m"><m:a>1</m:a><m:b xmlns:m="urn:n"><m:c>2</m:c></m:b><m:d><m:e></m:e></m:d></r>"#,
            r#"<r><m:a xmlns:m="urn:m">1</m:a><m:b xmlns:m="urn:n"><m:c>2</m:c></m:b><m:d xmlns:m="urn:m"><m:e></m:e></m:d></r>"#,
        ),
        (
            r#"<r><m:a xmlns:m="urn:m"><m:b xmlns:m="urn:m">x</m:b><m:c xmlns:m="urn:o" a="1">y</m:c></m:a><m:a xmlns:m="urn:m" z="2">t</m:a></r>"#,
            r#"<r><m:a xmlns:m="urn:m"><m:b>x</m:b><m:c xmlns:m="urn:o" a="1">y</m:c></m:a><m:a xmlns:m="urn:m" z="2">t</m:a></r>"#,
            r#"<r><m:a xmlns:m="urn:m"><m:b>x</m:b><m:c xmlns:m="urn:o" a="1">y</m:c></m:a><m:a xmlns:m="urn:m" z="2">t</m:a></r>"#,
        ),
        (
            r#"<r xmlns="urn:d"><a xmlns="">1</a><b xmlns="urn:d">2</b><c xmlns="urn:e"><d xmlns="">3</d></c></r>"#,
            r#"<r xmlns="urn:d"><a xmlns="">1</a><b>2</b><c xmlns="urn:e"><d xmlns="">3</d></c></r>"#,
            r#"<r xmlns="urn:d"><a xmlns="">1</a><b>2</b><c xmlns="urn:e"><d xmlns="">3</d></c></r>"#,
        ),
        (
            r#"<r><a xmlns="">1</a><b xmlns="urn:d"><c xmlns="">2</c></b></r>"#,
            r#"<r><a>1</a><b xmlns="urn:d"><c xmlns="">2</c></b></r>"#,
            r#"<r><a>1</a><b xmlns="urn:d"><c xmlns="">2</c></b></r>"#,
        ),
    ];
    for (input, inclusive, exclusive) in cases {
        assert_eq!(c14n(Algorithm::C14n10, input), inclusive, "{input}");
        assert_eq!(c14n(Algorithm::C14n11, input), inclusive, "{input}");
        assert_eq!(c14n(Algorithm::ExcC14n10, input), exclusive, "{input}");
    }
    // a relative namespace URI is an error on every path
    let doc = Document::parse(br#"<r><m:a xmlns:m="rel/m">1</m:a></r>"#).unwrap();
    for alg in [Algorithm::C14n10, Algorithm::ExcC14n10] {
        let err = Canonicalizer::new(alg).document_to_vec(&doc).unwrap_err();
        assert!(matches!(err, vtdx_c14n::C14nError::RelativeNamespaceUri { .. }), "{alg:?}: {err}");
    }
}

#[test]
fn append_entry_points_match_the_writer_entry_points() {
    let xml = br#"<s:Envelope xmlns:s="urn:s"><s:Header/><s:Body xmlns:w="urn:w" w:Id="b"><m:q xmlns:m="urn:m"><m:v>1 &lt; 2</m:v></m:q></s:Body></s:Envelope>"#;
    let doc = Document::parse(xml).unwrap();
    let body = find(&doc, "s:Body");
    for alg in [Algorithm::C14n10, Algorithm::C14n11, Algorithm::ExcC14n10] {
        let c = Canonicalizer::new(alg);
        let (mut whole, mut sub) = (Vec::new(), Vec::new());
        c.canonicalize_document(&doc, &mut whole).unwrap();
        c.canonicalize_subtree(body, &mut sub).unwrap();
        // appended after what the vector holds, into the same vector message after message
        let mut out = b"prefix:".to_vec();
        c.append_document(&doc, &mut out).unwrap();
        assert_eq!(out, [&b"prefix:"[..], &whole].concat(), "{alg:?}");
        out.clear();
        c.append_subtree(body, &mut out).unwrap();
        assert_eq!(out, sub, "{alg:?}");
        c.append_subtree(doc.root(), &mut out).unwrap();
        assert_eq!(out, [&sub[..], &whole].concat(), "{alg:?}");
        assert_eq!(c.subtree_to_vec(body).unwrap(), sub);
        assert_eq!(c.document_to_vec(&doc).unwrap(), whole);
    }
    // on an error the vector keeps what it held
    let bad = Document::parse(br#"<r><m:a xmlns:m="rel/m">1</m:a></r>"#).unwrap();
    let mut out = b"kept".to_vec();
    assert!(Canonicalizer::new(Algorithm::ExcC14n10).append_document(&bad, &mut out).is_err());
    assert!(out.starts_with(b"kept"));
}

/// C14N's data model includes attributes and namespace declarations defaulted
/// by the internal subset, normalized by type (C14N 1.0 §2.1: "the input is
/// normalized... attribute defaults added"). Expected bytes by hand from the specs.
#[test]
fn defaulted_attributes_and_declarations_are_output() {
    let xml = "<!DOCTYPE a [<!ATTLIST a xmlns:p CDATA #FIXED 'urn:p' c CDATA 'v' t NMTOKENS ' x  y '>]><a k='1'><p:b/><q/></a>";
    let want = "<a xmlns:p=\"urn:p\" c=\"v\" k=\"1\" t=\"x y\"><p:b></p:b><q></q></a>";
    assert_eq!(c14n(Algorithm::C14n10, xml), want);
    assert_eq!(c14n(Algorithm::C14n11, xml), want);
    // exclusive: the declaration goes where the prefix is visibly utilized
    assert_eq!(c14n(Algorithm::ExcC14n10, xml), "<a c=\"v\" k=\"1\" t=\"x y\"><p:b xmlns:p=\"urn:p\"></p:b><q></q></a>");
    // with attribute defaults left out of the index, C14N still outputs them
    let doc = Document::parse_with(xml.as_bytes(), &vtdx_core::ParseOptions::new().attribute_defaults(false)).unwrap();
    let got = Canonicalizer::new(Algorithm::C14n10).document_to_vec(&doc).unwrap();
    assert_eq!(String::from_utf8(got).unwrap(), want);
    // a subtree inherits a defaulted declaration of its ancestor (inclusive)
    let doc = Document::parse(xml.as_bytes()).unwrap();
    let b = find(&doc, "p:b");
    let got = Canonicalizer::new(Algorithm::C14n10).subtree_to_vec(b).unwrap();
    assert_eq!(String::from_utf8(got).unwrap(), "<p:b xmlns:p=\"urn:p\"></p:b>");
}
