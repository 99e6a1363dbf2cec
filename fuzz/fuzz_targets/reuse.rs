//! Two documents through one reused `Parser` (with `recycle`) give exactly the
//! results of fresh parses, errors included.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vtdx_core::{Document, ParseOptions, Parser};
use vtdx_fuzz::{check_document, outcome, tight_options};

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else { return };
    // The two documents are separated by the first NUL byte (or split in half).
    let (a, b) = match rest.iter().position(|&c| c == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => rest.split_at(rest.len() / 2),
    };
    let opts = match flags % 3 {
        0 => ParseOptions::new(),
        1 => tight_options(),
        _ => ParseOptions::new().namespaces(false),
    };
    let fresh_a = outcome(&Document::parse_with(a, &opts));
    let fresh_b = outcome(&Document::parse_with(b, &opts));

    let mut parser = Parser::with_options(opts);
    for (input, expected) in [(a, &fresh_a), (b, &fresh_b), (a, &fresh_a), (b, &fresh_b)] {
        let r = parser.parse(input);
        assert_eq!(&outcome(&r), expected, "reused parser differs from a fresh parse");
        match r {
            Ok(doc) => {
                if flags & 0x80 != 0 {
                    check_document(&doc);
                }
                parser.recycle(doc);
            }
            Err(_) => {}
        }
    }
});
