//! Property tests on generated documents (`common/gen.rs`):
//!
//! * the zero-copy fast path gives exactly the bytes of the general path, for
//!   every algorithm, with and without comments and prefix lists, on the whole
//!   document and on every subtree;
//! * the tree walk (document, subtree, subtree minus excluded subtrees) gives
//!   exactly what the general node-set walk gives for the same node-set;
//! * canonicalization is idempotent, and on canonical input the fast path
//!   passes the input through unchanged.

mod common;

use common::gen::Gen;
use proptest::prelude::*;
use vtdx_c14n::{Algorithm, Canonicalizer, SetNode};
use vtdx_core::{Document, Node};

const ALGS: [Algorithm; 3] = [Algorithm::C14n10, Algorithm::C14n11, Algorithm::ExcC14n10];

fn configs() -> Vec<Canonicalizer> {
    let mut v = Vec::new();
    for alg in ALGS {
        for comments in [false, true] {
            v.push(Canonicalizer::new(alg).with_comments(comments));
        }
    }
    v.push(Canonicalizer::new(Algorithm::ExcC14n10).inclusive_prefixes(&["p", "#default"]));
    v.push(Canonicalizer::new(Algorithm::ExcC14n10).with_comments(true).inclusive_prefixes(&["q", "ds", "soap"]));
    v
}

fn elements<'d>(doc: &'d Document<'d>) -> Vec<Node<'d>> {
    doc.root().descendants().filter(|n| n.is_element()).collect()
}

fn same(a: &Result<Vec<u8>, vtdx_c14n::C14nError>, b: &Result<Vec<u8>, vtdx_c14n::C14nError>) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => x == y,
        (Err(x), Err(y)) => x.to_string() == y.to_string(),
        _ => false,
    }
}

fn show(r: &Result<Vec<u8>, vtdx_c14n::C14nError>) -> String {
    match r {
        Ok(v) => String::from_utf8_lossy(v).into_owned(),
        Err(e) => format!("error: {e}"),
    }
}

fn within(n: Node<'_>, apex: Node<'_>) -> bool {
    n == apex || n.ancestors().any(|a| a == apex)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn fast_path_equals_general_path(seed in any::<u64>()) {
        let xml = Gen::new(seed).document();
        let doc = Document::parse(xml.as_bytes()).unwrap();
        let els = elements(&doc);
        for c in configs() {
            let slow = c.clone().fast_path(false);
            let (f, s) = (c.document_to_vec(&doc), slow.document_to_vec(&doc));
            prop_assert!(same(&f, &s), "{:?} whole document\n{xml}\nfast: {}\ngeneral: {}", c, show(&f), show(&s));
            for &e in els.iter().take(12) {
                let (f, s) = (c.subtree_to_vec(e), slow.subtree_to_vec(e));
                prop_assert!(same(&f, &s), "{:?} subtree {:?}\n{xml}\nfast: {}\ngeneral: {}", c, e, show(&f), show(&s));
            }
        }
    }

    #[test]
    fn tree_walk_equals_node_set_walk(seed in any::<u64>()) {
        let xml = Gen::new(seed).document();
        let doc = Document::parse(xml.as_bytes()).unwrap();
        let els = elements(&doc);
        for c in configs() {
            let tree = c.document_to_vec(&doc);
            let mut set = Vec::new();
            let r = c.canonicalize_node_set(&doc, |_| true, &mut set).map(|_| set);
            prop_assert!(same(&tree, &r), "{:?} whole document\n{xml}\ntree: {}\nnode-set: {}", c, show(&tree), show(&r));
            for &e in els.iter().take(8) {
                let tree = c.subtree_to_vec(e);
                let mut set = Vec::new();
                let r = c
                    .canonicalize_node_set(&doc, |n| match n {
                        SetNode::Node(x) => within(x, e),
                        SetNode::Namespace { element, .. } => within(element, e),
                    }, &mut set)
                    .map(|_| set);
                prop_assert!(same(&tree, &r), "{:?} subtree {:?}\n{xml}\ntree: {}\nnode-set: {}", c, e, show(&tree), show(&r));
            }
            // the document element minus the subtrees of every third element
            if els.len() > 2 {
                let root = els[0];
                let excluded: Vec<Node<'_>> = els.iter().skip(1).step_by(3).copied().collect();
                let mut t = Vec::new();
                let tree = c.canonicalize_subtree_excluding(root, &excluded, &mut t).map(|_| t);
                let mut set = Vec::new();
                let r = c
                    .canonicalize_node_set(&doc, |n| {
                        let x = match n {
                            SetNode::Node(x) => x,
                            SetNode::Namespace { element, .. } => element,
                        };
                        within(x, root) && !excluded.iter().any(|&ex| within(x, ex))
                    }, &mut set)
                    .map(|_| set);
                prop_assert!(same(&tree, &r), "{:?} excluding\n{xml}\ntree: {}\nnode-set: {}", c, show(&tree), show(&r));
            }
        }
    }

    #[test]
    fn idempotent_and_raw_on_canonical_input(seed in any::<u64>()) {
        let xml = Gen::new(seed).document();
        let doc = Document::parse(xml.as_bytes()).unwrap();
        for c in configs() {
            let Ok(once) = c.document_to_vec(&doc) else { continue };
            let doc2 = Document::parse(&once).unwrap_or_else(|e| panic!("canonical form does not parse: {e}\n{}", String::from_utf8_lossy(&once)));
            let twice = c.document_to_vec(&doc2).unwrap();
            prop_assert!(once == twice, "{:?} not idempotent\n{xml}\nonce: {}\ntwice: {}", c, String::from_utf8_lossy(&once), String::from_utf8_lossy(&twice));
        }
    }
}

#[test]
fn fast_path_passes_canonical_input_through() {
    // On input that is already canonical the fast path copies whole runs; the
    // output is then the input itself.
    let canonical = br#"<env:Envelope xmlns:env="urn:env"><env:Body><m:r xmlns:m="urn:m" a="1" b="x&amp;y"><m:v>12 &lt; 13</m:v><!--c--><?pi d?></m:r></env:Body></env:Envelope>"#;
    let doc = Document::parse(canonical).unwrap();
    for alg in ALGS {
        let out = Canonicalizer::new(alg).with_comments(true).document_to_vec(&doc).unwrap();
        assert_eq!(out, canonical.to_vec(), "{alg:?}");
    }
}

#[test]
fn deep_and_wide_namespace_stacks() {
    // deeper than the inline stacks (elements, scope, rendered, declarations) hold
    let mut xml = String::new();
    for d in 0..40 {
        xml.push_str(&format!("<p{}:e{d} xmlns:p{}='urn:{d}' xmlns:q{d}='urn:q{d}' xmlns:r{d}='urn:r' xmlns:s{d}='urn:s{d}' xmlns:t{d}='urn:t' a{d}='v' p{}:b='w'>", d % 7, d % 7, d % 7));
        xml.push_str("t\r\n&amp;");
    }
    for d in (0..40).rev() {
        xml.push_str(&format!("<!--c{d}--></p{}:e{d}>", d % 7));
    }
    let doc = Document::parse(xml.as_bytes()).unwrap();
    let els = elements(&doc);
    for c in configs() {
        let slow = c.clone().fast_path(false);
        for &e in [els[0], els[5], els[20], els[39]].iter() {
            let (f, s) = (c.subtree_to_vec(e), slow.subtree_to_vec(e));
            assert!(same(&f, &s), "{c:?}\nfast: {}\ngeneral: {}", show(&f), show(&s));
            let mut set = Vec::new();
            let r = c
                .canonicalize_node_set(
                    &doc,
                    |n| match n {
                        SetNode::Node(x) => within(x, e),
                        SetNode::Namespace { element, .. } => within(element, e),
                    },
                    &mut set,
                )
                .map(|_| set);
            assert!(same(&f, &r), "{c:?}\ntree: {}\nnode-set: {}", show(&f), show(&r));
        }
    }
}

#[test]
fn entity_with_markup_is_expanded() {
    // the parser expands such a document into an owned buffer; the walk works on it
    let doc = Document::parse(b"<!DOCTYPE r [<!ENTITY e '<b a=\"1\">x&#38;amp;y</b>'>]><r>&e;&e;</r>").unwrap();
    for c in configs() {
        let out = c.document_to_vec(&doc).unwrap();
        assert_eq!(out, br#"<r><b a="1">x&amp;y</b><b a="1">x&amp;y</b></r>"#.to_vec(), "{c:?}");
    }
}
