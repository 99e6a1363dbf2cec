//! A document parsed in two halves (`ParseOptions::parallel_parse`, cut at a place
//! the input chooses) gives exactly what one pass gives: the same index, names
//! and error (kind, offset, line, column), whatever the cut, with the UTF-8 and
//! `Char` check made in the halves or before; and a check (`Parser::check`, whose
//! halves are not joined into one index) gives one pass's verdict and error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vtdx_core::{Document, ParseOptions, Parser};
use vtdx_fuzz::{outcome, tight_options};

fuzz_target!(|data: &[u8]| {
    let Some((head, doc)) = data.split_first_chunk::<3>() else { return };
    let [flags, cut, warm] = *head;
    let opts = match flags % 3 {
        0 => ParseOptions::new(),
        1 => tight_options(),
        _ => ParseOptions::new().namespaces(false),
    };
    let one_pass = outcome(&Document::parse_with(doc, &opts));
    let at = doc.len() * cut as usize / 256;
    let split = ParseOptions { parallel_parse: true, parallel_check: flags & 0x80 != 0, ..opts };
    vtdx_core::__force_split(Some((at, warm as usize)));
    let mut parser = Parser::with_options(split);
    let r = parser.parse(doc);
    let checked = parser.check(doc);
    vtdx_core::__force_split(None);
    assert_eq!(outcome(&r), one_pass, "a split parse (cut from {at}, warm-up {warm}) differs from one pass");
    let want = match &r {
        Ok(_) => "OK".to_string(),
        Err(_) => one_pass,
    };
    let got = match checked {
        Ok(()) => "OK".to_string(),
        Err(e) => format!("ERR {:?} @{} {}:{}", e.kind(), e.offset(), e.line(), e.column()),
    };
    assert_eq!(got, want, "a split check (cut from {at}, warm-up {warm}) differs from one pass");
});
