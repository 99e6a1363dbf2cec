//! The transcoding path: the input (read as UTF-8, invalid sequences replaced)
//! is encoded as UTF-16 with a byte-order mark. The transcoded text is the same
//! UTF-8 text, so the result must equal the result of parsing it as UTF-8.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vtdx_core::Document;
use vtdx_fuzz::{check_document, full_dump};

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else { return };
    let s = String::from_utf8_lossy(rest);
    let le = flags & 1 == 0;
    let mut bytes: Vec<u8> = if le { vec![0xFF, 0xFE] } else { vec![0xFE, 0xFF] };
    for u in s.encode_utf16() {
        bytes.extend_from_slice(&if le { u.to_le_bytes() } else { u.to_be_bytes() });
    }
    let r16 = Document::parse(&bytes);
    if let Ok(doc) = &r16 {
        check_document(doc);
    }

    // Compare with the same characters as UTF-8, unless something in the text
    // changes how the UTF-8 bytes would be read: an encoding declaration, a
    // leading U+FEFF (a BOM in UTF-8, a character after the UTF-16 BOM), or
    // NUL bytes that look like UTF-16/UCS-4 to the autodetection.
    if s.contains("encoding") || s.starts_with('\u{FEFF}') || s.contains('\0') {
        return;
    }
    let r8 = Document::parse(s.as_bytes());
    match (&r16, &r8) {
        (Ok(a), Ok(b)) => assert_eq!(full_dump(a), full_dump(b), "UTF-16 and UTF-8 trees differ"),
        (Ok(_), Err(e)) => panic!("UTF-16 accepted, UTF-8 rejected: {e}"),
        (Err(e), Ok(_)) => panic!("UTF-8 accepted, UTF-16 rejected: {e}"),
        (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "different errors for UTF-16 and UTF-8"),
    }
});
