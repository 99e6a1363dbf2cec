//! Two documents through one reused `Parser` (with `recycle`) give exactly the
//! results of fresh parses, errors included. A document kept alive while the
//! parser moves on (its name tables are shared with the parser) must not change.
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
    // kept alive across the following parses
    let kept = parser.parse(a);
    assert_eq!(outcome(&kept), fresh_a, "first parse with a new parser differs");
    for (input, expected) in [(b, &fresh_b), (a, &fresh_a), (b, &fresh_b)] {
        let r = parser.parse(input);
        assert_eq!(&outcome(&r), expected, "reused parser differs from a fresh parse");
        if let Ok(doc) = r {
            if flags & 0x80 != 0 {
                check_document(&doc);
            }
            parser.recycle(doc);
        }
    }
    assert_eq!(outcome(&kept), fresh_a, "a live document changed when its parser was reused");
    if let Ok(doc) = kept {
        parser.recycle(doc);
    }
    assert_eq!(outcome(&parser.parse(b)), fresh_b, "reused parser differs after a late recycle");
});
