//! Arbitrary bytes through `Document::parse_with` with default options, tight
//! limits, and namespaces off. Every successful parse is walked completely and
//! checked (see `vtdx_fuzz::check_document`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use vtdx_core::{Document, ParseOptions};
use vtdx_fuzz::{check_document, full_dump, is_limit, tight_options};

fuzz_target!(|data: &[u8]| {
    let default = Document::parse(data);
    if let Ok(doc) = &default {
        check_document(doc);
    }

    // Tighter limits can only turn an Ok into a LimitExceeded.
    let tight = Document::parse_with(data, &tight_options());
    match (&tight, &default) {
        (Ok(t), Ok(d)) => {
            check_document(t);
            assert_eq!(full_dump(t), full_dump(d), "tight limits changed the tree");
        }
        (Ok(_), Err(e)) => panic!("accepted with tight limits, rejected with defaults: {e}"),
        (Err(e), Ok(_)) => assert!(is_limit(e.kind()), "tight limits rejected with a non-limit error: {e}"),
        (Err(_), Err(_)) => {}
    }

    // Namespace well-formedness is a restriction of XML well-formedness.
    let plain = Document::parse_with(data, &ParseOptions::new().namespaces(false));
    match (&plain, &default) {
        (Ok(p), _) => check_document(p),
        (Err(e), Ok(_)) => panic!("namespace-aware parse accepted, plain parse rejected: {e}"),
        (Err(_), Err(_)) => {}
    }
});
