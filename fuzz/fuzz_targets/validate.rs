//! Schemas and instances: loading, compiling and validating must return
//! `Ok`/`Err` or errors, never panic or hang (the limits bound content models,
//! nesting and error counts).
//!
//! The input is an instance, or a schema, a NUL byte and an instance. Every
//! instance is validated against the fixed schemas of `testdata/schema`
//! (compiled once: `order.xsd`, `shapes.xsd`, `po.xsd`), which drives the
//! validator deep (content models, simple types, identity constraints,
//! wildcards) whatever the schema half does; the schema half (or, without a
//! NUL, the whole input) is compiled too and validates the instance (or
//! `<a/>`). Each validation runs twice, with typed values and without (the
//! short paths on the bytes as written), and the two verdicts must agree.
//!
//! Seeds: the schemas and instances of `testdata/schema` and small schemas and
//! instances of the W3C suite (the seed command in `HACKING.md`).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use vtdx_core::Document;
use vtdx_schema::{Schema, SchemaBuilder, SchemaLimits, ValidateOptions};

fn limits() -> SchemaLimits {
    SchemaLimits { max_positions: 10_000, max_states: 10_000, max_dfa_work: 100_000, ..Default::default() }
}

fn fixed() -> &'static [Schema] {
    static S: OnceLock<Vec<Schema>> = OnceLock::new();
    S.get_or_init(|| {
        let sources: [(&str, &[u8]); 3] = [
            ("order.xsd", include_bytes!("../../testdata/schema/py/order.xsd")),
            ("shapes.xsd", include_bytes!("../../testdata/schema/py/shapes.xsd")),
            ("po.xsd", include_bytes!("../../testdata/schema/po.xsd")),
        ];
        sources
            .iter()
            .map(|(name, xsd)| SchemaBuilder::new().source(name, xsd.to_vec()).limits(limits()).build().expect("a fixed schema compiles"))
            .collect()
    })
}

fn check(schema: &Schema, doc: &Document<'_>) {
    let v = schema.validate(doc);
    for e in v.errors() {
        assert!(e.location.line >= 1);
    }
    // typed values off (as `vtdx validate` runs) takes the short paths on the bytes as
    // written: the same verdict as the full check
    let short = schema.validate_with(doc, &ValidateOptions { typed_values: false, ..ValidateOptions::default() });
    if !v.truncated() && !short.truncated() {
        assert_eq!(
            v.is_valid(),
            short.is_valid(),
            "typed values on: {:?}; off: {:?}",
            v.errors().first().map(|e| &e.message),
            short.errors().first().map(|e| &e.message)
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let (xsd, xml) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &b"<a/>"[..]),
    };
    let instance = if xsd.len() == data.len() { data } else { xml };
    let doc = Document::parse(instance).ok();
    if let Some(doc) = &doc {
        for s in fixed() {
            check(s, doc);
        }
    }
    let Ok(schema) = SchemaBuilder::new().source("fuzz.xsd", xsd.to_vec()).limits(limits()).build() else { return };
    if let Ok(doc) = Document::parse(xml) {
        check(&schema, &doc);
    }
});
