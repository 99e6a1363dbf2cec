//! Arbitrary bytes, parsed, then canonicalized in every algorithm (with and
//! without comments, Exclusive C14N also with a prefix list), the whole
//! document and the subtree of each of the first elements: the zero-copy fast
//! path must give exactly the bytes (or the error) of the general path, and
//! neither may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vtdx_c14n::{Algorithm, Canonicalizer};
use vtdx_core::Document;

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = Document::parse(data) else { return };
    let mut configs = Vec::new();
    for alg in [Algorithm::C14n10, Algorithm::C14n11, Algorithm::ExcC14n10] {
        for comments in [false, true] {
            configs.push(Canonicalizer::new(alg).with_comments(comments));
        }
    }
    configs.push(Canonicalizer::new(Algorithm::ExcC14n10).inclusive_prefixes(&["p", "#default"]));
    let elements: Vec<_> = doc.root().descendant_elements().take(6).collect();
    for fast in configs {
        let general = fast.clone().fast_path(false);
        let same = |a: &Result<Vec<u8>, vtdx_c14n::C14nError>, b: &Result<Vec<u8>, vtdx_c14n::C14nError>| match (a, b) {
            (Ok(x), Ok(y)) => x == y,
            (Err(x), Err(y)) => x.to_string() == y.to_string(),
            _ => false,
        };
        let (f, g) = (fast.document_to_vec(&doc), general.document_to_vec(&doc));
        assert!(same(&f, &g), "whole document: fast path {f:?} differs from general path {g:?}");
        for &e in &elements {
            let (f, g) = (fast.subtree_to_vec(e), general.subtree_to_vec(e));
            assert!(same(&f, &g), "subtree: fast path {f:?} differs from general path {g:?}");
        }
    }
});
