//! Arbitrary bytes after a valid header (one-document and stream mode) through
//! `vtdx_binary::StreamReader`: `Ok` or `Err`, never a panic. Every document it
//! accepts is walked and checked, and parses again from its own input to the
//! same tree (an unpacked document is one the parser makes).
#![no_main]

use libfuzzer_sys::fuzz_target;
use vtdx_core::Document;
use vtdx_fuzz::{check_document, full_dump};

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else { return };
    let mut packed = vtdx_binary::MAGIC.to_vec();
    packed.push(vtdx_binary::VERSION);
    packed.push(flags & 1);
    packed.extend_from_slice(rest);
    let Ok(reader) = vtdx_binary::StreamReader::new(&packed) else { return };
    for doc in reader {
        let Ok(doc) = doc else { break };
        check_document(&doc);
        let again = Document::parse(doc.source()).expect("an unpacked document parses");
        assert_eq!(full_dump(&again), full_dump(&doc), "unpacked tree differs from the parsed one");
    }
});
