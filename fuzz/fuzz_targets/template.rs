//! The template cache against the full parser: the input is a template message
//! and a second message (split at the first NUL byte, or in half). The first is
//! learned; both then go through an isolated parser with the cache and through
//! an isolated parser without it, and must give the same outcome: the same index
//! word for word, the same nodes, names and text, or the same error at the same
//! place.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use vtdx_core::{ParseOptions, Parser, TemplateCache, TemplateConfig};
use vtdx_fuzz::{check_document, outcome, tight_options};

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else { return };
    let (a, b) = match rest.iter().position(|&c| c == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => rest.split_at(rest.len() / 2),
    };
    let opts = match flags % 3 {
        0 => ParseOptions::new(),
        1 => tight_options(),
        _ => ParseOptions::new().namespaces(false),
    };
    let cache = Arc::new(TemplateCache::with_config(TemplateConfig { learn_after: 0, ..TemplateConfig::default() }));
    cache.learn(a, &opts);
    for input in [a, b] {
        // Isolated parsers: a new parser otherwise starts from the name tables the
        // last parser dropped on this thread, so its symbol numbers depend on what
        // the thread parsed before; a template's are those of the message parsed
        // alone, which is what an isolated parser gives.
        let via_cache = Parser::isolated(opts.clone()).with_template_cache(Arc::clone(&cache)).parse(input);
        let full = Parser::isolated(opts.clone()).parse(input);
        assert_eq!(outcome(&via_cache), outcome(&full), "the cache and the full parser differ");
        if let (Ok(c), Ok(f)) = (&via_cache, &full) {
            assert_eq!(c.tape(), f.tape(), "the indexes differ");
            check_document(c);
        }
    }
});
