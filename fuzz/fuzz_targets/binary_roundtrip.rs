//! Arbitrary bytes parsed; every document the parser accepts packs, and unpacks
//! (alone and in a stream after another document) to the same input bytes and tree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vtdx_core::{Document, ExternalPolicy, ParseOptions};
use vtdx_fuzz::full_dump;

fuzz_target!(|data: &[u8]| {
    let opts = ParseOptions::default().external(ExternalPolicy::Ignore);
    let Ok(doc) = Document::parse_with(data, &opts) else { return };
    let packed = vtdx_binary::pack(&doc).expect("a parsed document packs");
    let back = vtdx_binary::unpack_with(&packed, &opts).expect("a packed document unpacks");
    assert_eq!(back.source(), data, "not byte for byte");
    assert_eq!(full_dump(&back), full_dump(&doc), "tree differs");
    let mut w = vtdx_binary::StreamWriter::new();
    w.push(&Document::parse(b"<a xmlns='urn:x' b='1'>\n <c/>\n</a>").expect("parses")).expect("packs");
    w.push(&doc).expect("packs");
    let stream = w.finish();
    let docs: Vec<_> = vtdx_binary::StreamReader::with_options(&stream, &opts).expect("header").collect::<Result<_, _>>().expect("unpacks");
    assert_eq!(docs[1].source(), data);
});
