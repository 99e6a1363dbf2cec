//! The XML-DSig interop vectors (`c14n/merlin-interop`): every `ds:Reference`
//! of each signature is processed the way XML Signature does it (URI
//! dereference, XPath filter, enveloped-signature and canonicalization
//! transforms), and the resulting octets must equal `c14n-<i>.txt` byte for
//! byte; the last `c14n-N.txt` is the canonical form of `ds:SignedInfo`.
//! SHA-1 digests are also recomputed through `DigestWriter` and compared with
//! the `DigestValue`s.

mod common;

use common::*;
use std::io::Write;
use vtdx_c14n::xpath::XPathNodeSet;
use vtdx_c14n::{Algorithm, Canonicalizer, DigestWriter};
use vtdx_core::{Document, Node, NodeKind};
use vtdx_xpath::{Context, Namespaces, XNode, XNodeKind, XPath};

const DSIG: &str = "http://www.w3.org/2000/09/xmldsig#";
const EXC: &str = "http://www.w3.org/2001/10/xml-exc-c14n#";
const XPATH_FILTER: &str = "http://www.w3.org/TR/1999/REC-xpath-19991116";
const ENVELOPED: &str = "http://www.w3.org/2000/09/xmldsig#enveloped-signature";
const SHA1: &str = "http://www.w3.org/2000/09/xmldsig#sha1";

/// Cases known not to pass, with the reason: `conformance/expected-failures/c14n-merlin-interop.txt`.
const EXPECTED_FAILURES: &str = "c14n-merlin-interop";

enum Data<'d> {
    Nodes(&'d Document<'d>, Vec<XNode<'d>>),
    Octets(Vec<u8>),
}

fn leak_doc(bytes: Vec<u8>) -> &'static Document<'static> {
    Box::leak(Box::new(Document::parse_owned(bytes).expect("well-formed")))
}

fn dsig_children<'d>(n: Node<'d>, local: &'d str) -> impl Iterator<Item = Node<'d>> + 'd {
    n.element_children().filter(move |c| c.local_name() == local && c.namespace_uri() == Some(DSIG))
}

/// Every node of the subtree at `from` (the whole document for the root), in document order.
fn all_nodes<'d>(from: Node<'d>, comments: bool) -> Vec<XNode<'d>> {
    let expr = if from.kind() == NodeKind::Root {
        "(//. | //@* | //namespace::*)"
    } else {
        "(descendant-or-self::node() | descendant-or-self::node()/@* | descendant-or-self::node()/namespace::*)"
    };
    let set = XPath::compile(expr, &Namespaces::new()).unwrap().select(from).unwrap();
    set.iter().copied().filter(|x| comments || x.kind() != XNodeKind::Comment).collect()
}

fn by_id<'d>(doc: &'d Document<'d>, id: &str) -> Node<'d> {
    doc.root()
        .descendants()
        .find(|n| n.is_element() && n.attributes().any(|a| matches!(a.local_name(), "Id" | "ID" | "id") && a.value() == id))
        .unwrap_or_else(|| panic!("no element with ID {id}"))
}

fn canonicalizer(transform: Node<'_>, alg_uri: &str) -> Option<Canonicalizer> {
    let (alg, comments) = Algorithm::from_uri(alg_uri)?;
    let mut c = Canonicalizer::new(alg).with_comments(comments);
    if let Some(inc) = transform.element_children().find(|c| c.local_name() == "InclusiveNamespaces" && c.namespace_uri() == Some(EXC)) {
        c = c.inclusive_prefix_list(&inc.attribute("PrefixList").unwrap_or_default());
    }
    Some(c)
}

fn to_nodes<'d>(data: Data<'d>) -> (&'d Document<'d>, Vec<XNode<'d>>) {
    match data {
        Data::Nodes(d, v) => (d, v),
        Data::Octets(bytes) => {
            let d: &'d Document<'d> = leak_doc(bytes);
            (d, all_nodes(d.root(), true))
        }
    }
}

/// The octets a Reference digests.
fn process_reference<'d>(doc: &'d Document<'d>, reference: Node<'d>, dir: &std::path::Path) -> Vec<u8> {
    let uri = reference.attribute("URI").unwrap_or_default().into_owned();
    let mut data = if uri.is_empty() {
        Data::Nodes(doc, all_nodes(doc.root(), false))
    } else if uri == "#xpointer(/)" {
        Data::Nodes(doc, all_nodes(doc.root(), true))
    } else if let Some(id) = uri.strip_prefix("#xpointer(id('").and_then(|r| r.strip_suffix("'))")) {
        Data::Nodes(doc, all_nodes(by_id(doc, id), true))
    } else if let Some(id) = uri.strip_prefix('#') {
        Data::Nodes(doc, all_nodes(by_id(doc, id), false))
    } else {
        Data::Octets(read(&dir.join(&uri)))
    };
    let transforms: Vec<Node<'d>> = dsig_children(reference, "Transforms").flat_map(|t| dsig_children(t, "Transform")).collect();
    for t in transforms {
        let alg = t.attribute("Algorithm").unwrap_or_default().into_owned();
        if alg == XPATH_FILTER {
            let (d, nodes) = to_nodes(data);
            let xel = dsig_children(t, "XPath").next().expect("XPath element");
            let ns: Namespaces = xel.namespaces().into_iter().filter(|(p, _)| !p.is_empty()).collect();
            let xp = XPath::compile(&xel.value(), &ns).unwrap_or_else(|e| panic!("{e}"));
            let ctx = Context::new(d);
            let kept = nodes.into_iter().filter(|&x| xp.evaluate_in(&ctx, x).unwrap().boolean()).collect();
            data = Data::Nodes(d, kept);
        } else if alg == ENVELOPED {
            let (d, nodes) = to_nodes(data);
            let sig = t.ancestors().find(|a| a.local_name() == "Signature" && a.namespace_uri() == Some(DSIG)).unwrap();
            let kept = nodes
                .into_iter()
                .filter(|x| {
                    let n = x.node();
                    !(n == sig || n.ancestors().any(|a| a == sig))
                })
                .collect();
            data = Data::Nodes(d, kept);
        } else if let Some(c) = canonicalizer(t, &alg) {
            let (d, nodes) = to_nodes(data);
            data = Data::Octets(c.node_set_to_vec(d, &XPathNodeSet::from_nodes(nodes)).unwrap());
        } else {
            panic!("unsupported transform {alg}");
        }
    }
    match data {
        Data::Octets(o) => o,
        Data::Nodes(d, nodes) => Canonicalizer::new(Algorithm::C14n10).node_set_to_vec(d, &XPathNodeSet::from_nodes(nodes)).unwrap(),
    }
}

#[test]
fn merlin_interop_byte_for_byte() {
    let sets = [
        ("Y1", "exc-signature.xml"),
        ("Y2", "signature-joseph-exc.xml"),
        ("Y3", "signature.xml"),
        ("Y4", "signature.xml"),
        ("Y5", "signature.xml"),
    ];
    let mut failures = Vec::new();
    let mut outcomes: Vec<(String, Option<String>)> = Vec::new();
    let (mut total, mut pass, mut digests) = (0, 0, 0);
    for (folder, file) in sets {
        let dir = c14n_dir("merlin-interop").join(folder);
        let bytes = read(&dir.join(file));
        let doc = Document::parse(&bytes).unwrap();
        let refs: Vec<Node<'_>> = doc
            .root()
            .descendants()
            .filter(|n| n.is_element() && n.local_name() == "Reference" && n.namespace_uri() == Some(DSIG))
            .collect();
        let mut outputs: Vec<(String, Vec<u8>)> = Vec::new();
        for (i, r) in refs.iter().enumerate() {
            let out = process_reference(&doc, *r, &dir);
            // the digest, streamed through DigestWriter
            let dm = dsig_children(*r, "DigestMethod").next().and_then(|m| m.attribute("Algorithm")).unwrap_or_default();
            if dm == SHA1 {
                let mut w = DigestWriter::new(Sha1::default());
                w.write_all(&out).unwrap();
                let want = base64_decode(&dsig_children(*r, "DigestValue").next().unwrap().value());
                if w.into_inner().finish().to_vec() == want {
                    digests += 1;
                } else {
                    failures.push(format!("{folder}/c14n-{i}: SHA-1 digest differs from DigestValue"));
                }
            }
            outputs.push((format!("c14n-{i}.txt"), out));
        }
        let si = doc.root().descendants().find(|n| n.is_element() && n.local_name() == "SignedInfo").unwrap();
        let cm = dsig_children(si, "CanonicalizationMethod").next().unwrap();
        let c = canonicalizer(cm, &cm.attribute("Algorithm").unwrap()).unwrap();
        outputs.push((format!("c14n-{}.txt", refs.len()), c.subtree_to_vec(si).unwrap()));
        let mut files = 0;
        for (name, got) in outputs {
            let p = dir.join(&name);
            if !p.is_file() {
                continue;
            }
            files += 1;
            total += 1;
            let case = format!("{folder}/{name}");
            let want = read(&p);
            if got == want {
                pass += 1;
                outcomes.push((case, None));
            } else {
                outcomes.push((case, Some(diff(&got, &want))));
            }
        }
        let on_disk =
            std::fs::read_dir(&dir).unwrap().filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with("c14n-")).count();
        assert_eq!(files, on_disk, "{folder}: not every c14n-*.txt was matched to a reference");
    }
    eprintln!("merlin interop: {pass} of {total} canonical outputs match; {digests} SHA-1 digests verified");
    assert_eq!(total, 5 + 3 + 9 + 28 + 28, "vector count changed");
    failures.extend(expected_failures(EXPECTED_FAILURES).compare(outcomes.iter().map(|(c, f)| (c.as_str(), f.as_deref()))));
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
