//! Schema and instance from one input (split at the first NUL byte): loading,
//! compiling and validating must return `Ok`/`Err` or errors, never panic or hang
//! (the limits bound content models, nesting and error counts).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (xsd, xml) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &b"<a/>"[..]),
    };
    let limits = vtdx_schema::SchemaLimits { max_positions: 10_000, max_states: 10_000, max_dfa_work: 100_000, ..Default::default() };
    let Ok(schema) = vtdx_schema::SchemaBuilder::new().source("fuzz.xsd", xsd.to_vec()).limits(limits).build() else { return };
    if let Ok(doc) = vtdx_core::Document::parse(xml) {
        let v = schema.validate(&doc);
        for e in v.errors() {
            assert!(e.location.line >= 1);
        }
    }
});
