//! Damaged, truncated and hostile packed input: a typed error, never a panic, a
//! hang or a different document.

use std::time::Instant;

use vtdx_binary::{ErrorKind, StreamReader};
use vtdx_core::Document;

const DOCS: [&[u8]; 4] = [
    b"<?xml version='1.0'?>\n<po xmlns='urn:po' date=\"2026\"><item n='1'>Can &amp; lid</item>\n  <item n='2'/><!--x--></po>",
    b"<!DOCTYPE a [<!ENTITY e 'ent'>]><a x='1'>&e;<b/></a>",
    b"\xFF\xFE<\0a\0>\0\xE9\0<\0/\0a\0>\0",
    b"<s:Envelope xmlns:s='http://schemas.xmlsoap.org/soap/envelope/'><s:Body><m:q xmlns:m='urn:m'>1</m:q></s:Body></s:Envelope>",
];

fn packed_samples() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = DOCS.iter().map(|x| vtdx_binary::pack(&Document::parse(x).unwrap()).unwrap()).collect();
    let mut w = vtdx_binary::StreamWriter::new();
    for x in DOCS {
        w.push(&Document::parse(x).unwrap()).unwrap();
    }
    w.reset();
    w.push(&Document::parse(DOCS[0]).unwrap()).unwrap();
    out.push(w.finish());
    out
}

/// Reads every document of `data`; `Ok` with their input bytes, or the first error.
fn read_all(data: &[u8]) -> Result<Vec<Vec<u8>>, vtdx_binary::Error> {
    let mut out = Vec::new();
    for d in StreamReader::new(data)? {
        out.push(d?.source().to_vec());
    }
    Ok(out)
}

#[test]
fn every_truncation_is_refused() {
    for p in packed_samples() {
        let full = read_all(&p).unwrap();
        assert!(!full.is_empty());
        for cut in 0..p.len() {
            let r = read_all(&p[..cut]);
            assert!(r.is_err(), "truncated at {cut} of {} was accepted", p.len());
        }
    }
}

#[test]
fn every_byte_flip_is_refused() {
    for p in packed_samples() {
        for i in 0..p.len() {
            for mask in [0x01u8, 0x10, 0x80, 0xFF] {
                let mut d = p.clone();
                d[i] ^= mask;
                let start = Instant::now();
                let r = read_all(&d);
                assert!(r.is_err(), "flip {mask:#x} at byte {i} of {} was accepted", p.len());
                assert!(start.elapsed().as_secs() < 2);
            }
        }
    }
}

#[test]
fn checksum_and_header_errors_are_typed() {
    let p = vtdx_binary::pack(&Document::parse(DOCS[0]).unwrap()).unwrap();
    let mut d = p.clone();
    let last_payload = d.len() - 10;
    d[last_payload] ^= 1;
    assert!(matches!(vtdx_binary::unpack(&d).unwrap_err().kind(), ErrorKind::Checksum { .. }));
    assert!(matches!(vtdx_binary::unpack(b"<a/>").unwrap_err().kind(), ErrorKind::NotPacked));
    let mut d = p.clone();
    d[8] = 2;
    assert!(matches!(vtdx_binary::unpack(&d).unwrap_err().kind(), ErrorKind::UnsupportedVersion { found: 2 }));
    let mut d = p.clone();
    d[9] = 0x80;
    assert!(matches!(vtdx_binary::unpack(&d).unwrap_err().kind(), ErrorKind::UnknownFlags { .. }));
    let d = [&p[..p.len() - 1], b"ZZ"].concat();
    assert!(vtdx_binary::unpack(&d).is_err());
    // a reset mark is refused outside stream mode
    let d = [&p[..10], b"R", &p[10..]].concat();
    assert!(vtdx_binary::unpack(&d).is_err());
    // two documents where one is asked for
    let mut w = vtdx_binary::StreamWriter::new();
    w.push(&Document::parse(b"<a/>").unwrap()).unwrap();
    w.push(&Document::parse(b"<a/>").unwrap()).unwrap();
    assert!(matches!(vtdx_binary::unpack(&w.finish()).unwrap_err().kind(), ErrorKind::DocumentCount { found: 2 }));
}

/// Builds a frame around a hand-written payload, with a correct checksum: what a
/// hostile writer can do.
fn forge(payload: &[u8]) -> Vec<u8> {
    let mut out = vtdx_binary::MAGIC.to_vec();
    out.extend_from_slice(&[vtdx_binary::VERSION, 0]);
    let start = out.len();
    out.push(b'D');
    let mut n = payload.len();
    loop {
        if n < 0x80 {
            out.push(n as u8);
            break;
        }
        out.push((n as u8 & 0x7F) | 0x80);
        n >>= 7;
    }
    out.extend_from_slice(payload);
    let sum = xxh3(&out[start..]);
    out.extend_from_slice(&sum.to_le_bytes());
    out.push(b'Z');
    out
}

/// The frame checksum as `docs/binary-format.md` defines it: XXH3-64 seeded with
/// `version << 8 | flags` (here version 1, flags 0).
fn xxh3(b: &[u8]) -> u64 {
    ::xxhash_rust::xxh3::xxh3_64_with_seed(b, 1 << 8)
}

#[test]
fn forged_frames_are_refused() {
    // tables: 1 name "a", 0 namespaces, 1 symbol (name 0, namespace 0); text 4 bytes, 5 index words
    let head = |text: u8, words: u8| vec![0u8, 1, 1, b'a', 0, 1, 0, 0, text, words];
    let good = [head(4, 5), vec![0x00, 0xC1, 0xCC]].concat();
    assert_eq!(vtdx_binary::unpack(&forge(&good)).unwrap().source(), b"<a/>");
    // (payload, refused by the document check rather than by the stream's own structure)
    let cases: Vec<(Vec<u8>, bool)> = vec![
        // a handle outside the table
        ([head(4, 5), vec![0x05, 0xC1, 0xCC]].concat(), false),
        // the text size misstated
        ([head(9, 5), vec![0x00, 0xC1, 0xCC]].concat(), false),
        ([head(4, 9), vec![0x00, 0xC1, 0xCC]].concat(), false),
        // an end tag with nothing open, a document left open, two roots
        ([head(4, 5), vec![0xC0, 0xCC]].concat(), false),
        ([head(3, 5), vec![0x00, 0xCC]].concat(), false),
        ([head(8, 10), vec![0x00, 0xC1, 0x00, 0xC1, 0xCC]].concat(), false),
        // markup smuggled in as text: the index does not describe it
        ([head(13, 5), vec![0x00, 0x86, b'<', b'b', b'/', b'>', b'x', b'y', 0xC0, 0xCC]].concat(), true),
        // text outside the root element, a name that is not a Name
        ([head(5, 5), vec![0x00, 0xC1, 0x81, b'x', 0xCC]].concat(), true),
        (vec![0u8, 1, 1, b'1', 0, 1, 0, 0, 4, 5, 0x00, 0xC1, 0xCC], true),
        // a bad character reference, an undeclared entity, an invalid character, `]]>`
        ([head(11, 5), vec![0x00, 0x84, b'&', b'#', b'0', b';', 0xC0, 0xCC]].concat(), true),
        ([head(11, 5), vec![0x00, 0x84, b'&', b'e', b'e', b';', 0xC0, 0xCC]].concat(), true),
        ([head(8, 5), vec![0x00, 0x81, 0x01, 0xC0, 0xCC]].concat(), true),
        ([head(10, 5), vec![0x00, 0x83, b']', b']', b'>', 0xC0, 0xCC]].concat(), true),
        // a comment with `--`, a PI named xml, a CDATA section at the top level
        ([head(18, 9), vec![0x00, 0xC7, 4, b'a', b'-', b'-', b'b', 0xC0, 0xCC]].concat(), true),
        ([head(15, 9), vec![0x00, 0xC8, 4, b'x', b'm', b'l', b' ', 0xC0, 0xCC]].concat(), true),
        ([head(17, 9), vec![0xC9, 1, b'x', 0x00, 0xC1, 0xCC]].concat(), true),
        // an attribute value with `<`
        (vec![0u8, 2, 1, b'a', 1, b'x', 0, 2, 0, 0, 1, 0, 10, 7, 0x00, 0x41, 4, b'<', 0xC1, 0xCC], true),
        // the same attribute twice
        (vec![0u8, 2, 1, b'a', 1, b'x', 0, 2, 0, 0, 1, 0, 16, 9, 0x00, 0x41, 4, b'1', 0x41, 4, b'2', 0xC1, 0xCC], true),
        // an unknown token, a huge length, a huge table
        ([head(4, 5), vec![0x00, 0xCE, 0xCC]].concat(), false),
        ([head(4, 5), vec![0x00, 0xBF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0xCC]].concat(), false),
        (vec![0u8, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], false),
        // a prefix that is not declared, a namespace the prefix is not bound to
        (vec![0u8, 1, 3, b'p', b':', b'a', 1, 5, b'u', b'r', b'n', b':', b'p', 1, 0, 3, 6, 5, 0x00, 0xC1, 0xCC], true),
        (
            vec![
                0u8, 2, 3, b'p', b':', b'a', 7, b'x', b'm', b'l', b'n', b's', b':', b'p', 2, 5, b'u', b'r', b'n', b':', b'p', 5, b'u',
                b'r', b'n', b':', b'q', 2, 0, 4, 1, 2, 22, 7, 0x00, 0x41, 21, b'u', b'r', b'n', b':', b'p', 0xC1, 0xCC,
            ],
            true,
        ),
    ];
    for (i, (c, in_document)) in cases.iter().enumerate() {
        let start = Instant::now();
        let r = vtdx_binary::unpack(&forge(c));
        match r {
            Ok(d) => panic!("forged case {i} was accepted: {:?}", String::from_utf8_lossy(d.source())),
            Err(e) => assert_eq!(matches!(e.kind(), ErrorKind::Document(_)), *in_document, "case {i}: {e}"),
        }
        assert!(start.elapsed().as_secs() < 2, "case {i} took too long");
    }
}

#[test]
fn forged_leaf_elements_and_namespace_values() {
    let head = |text: u8, words: u8| vec![0u8, 1, 1, b'a', 0, 1, 0, 0, text, words];
    // a leaf element as the root, and inside it (literal `hi`: v = 2 << 2)
    let d = vtdx_binary::unpack(&forge(&[head(9, 5), vec![0xE0, 8, b'h', b'i', 0xCC]].concat())).unwrap();
    assert_eq!(d.source(), b"<a>hi</a>");
    crate::common::assert_same(&d, &Document::parse(b"<a>hi</a>").unwrap(), "forged");
    let d = vtdx_binary::unpack(&forge(&[head(14, 10), vec![0x00, 0xE0, 0, 0xC0, 0xCC]].concat())).unwrap();
    assert_eq!(d.source(), b"<a><a></a></a>");
    crate::common::assert_same(&d, &Document::parse(b"<a><a></a></a>").unwrap(), "forged");
    // a namespace declaration whose value is the namespaces table's entry 3 (v = 3 << 2 | 3)
    let ns_head =
        vec![0u8, 2, 3, b'p', b':', b'a', 7, b'x', b'm', b'l', b'n', b's', b':', b'p', 1, 5, b'u', b'r', b'n', b':', b'p', 2, 0, 3, 1, 2];
    let xml = b"<p:a xmlns:p=\"urn:p\"/>";
    let d = vtdx_binary::unpack(&forge(&[ns_head.clone(), vec![22, 7, 0x00, 0x41, 15, 0xC1, 0xCC]].concat())).unwrap();
    assert_eq!(d.source(), xml);
    crate::common::assert_same(&d, &Document::parse(xml).unwrap(), "forged");
    let cases: Vec<(Vec<u8>, bool)> = vec![
        // markup, a bad reference and `]]>` in a leaf's text
        ([head(16, 10), vec![0x00, 0xE0, 8, b'<', b'b', 0xC0, 0xCC]].concat(), true),
        ([head(17, 10), vec![0x00, 0xE0, 12, b'&', b'x', b';', 0xC0, 0xCC]].concat(), true),
        ([head(17, 10), vec![0x00, 0xE0, 12, b']', b']', b'>', 0xC0, 0xCC]].concat(), true),
        // two leaf roots, a leaf handle outside the table (inline and varint), a leaf left unfinished
        ([head(14, 10), vec![0xE0, 0, 0xE0, 0, 0xCC]].concat(), false),
        ([head(7, 5), vec![0xE1, 0, 0xCC]].concat(), false),
        ([head(7, 5), vec![0xFF, 0, 0, 0xCC]].concat(), false),
        ([head(7, 5), vec![0xE0]].concat(), false),
        // a namespace-table value as a leaf's text, a namespace handle outside the table
        ([head(7, 5), vec![0xE0, 3, 0xCC]].concat(), false),
        ([ns_head.clone(), vec![22, 7, 0x00, 0x41, 39, 0xC1, 0xCC]].concat(), false),
        // the reserved namespace bound by a table reference (entry 1: the XML namespace)
        ([ns_head, vec![58, 7, 0x00, 0x41, 7, 0xC1, 0xCC]].concat(), true),
    ];
    for (i, (c, in_document)) in cases.iter().enumerate() {
        match vtdx_binary::unpack(&forge(c)) {
            Ok(d) => panic!("forged case {i} was accepted: {:?}", String::from_utf8_lossy(d.source())),
            Err(e) => assert_eq!(matches!(e.kind(), ErrorKind::Document(_)), *in_document, "case {i}: {e}"),
        }
    }
}

#[test]
fn size_mismatches_are_typed() {
    let head = |text: u8, words: u8| vec![0u8, 1, 1, b'a', 0, 1, 0, 0, text, words];
    // `<a/>`: 4 bytes of text, an element record of 5 words
    let e = vtdx_binary::unpack(&forge(&[head(9, 6), vec![0x00, 0xC1, 0xCC]].concat())).unwrap_err();
    assert_eq!(
        *e.kind(),
        ErrorKind::SizeMismatch { stated_text: 9, stated_index_words: 6, text: 4, index_words: 5, complete: true },
        "{e}"
    );
    // the start tag alone (`<a`, 2 bytes) passes the stated 1 byte: reading stops there
    let e = vtdx_binary::unpack(&forge(&[head(1, 5), vec![0x00, 0xC1, 0xCC]].concat())).unwrap_err();
    match e.kind() {
        ErrorKind::SizeMismatch { stated_text: 1, complete: false, text, .. } => assert!(*text > 1, "{e}"),
        k => panic!("expected an incomplete size mismatch, got {k:?}"),
    }
}

/// A one-document file around `payloads` (a reset mark for `None`), every
/// checksum zero.
fn unsealed(flags: u8, payloads: &[Option<&[u8]>]) -> Vec<u8> {
    let mut out = vtdx_binary::MAGIC.to_vec();
    out.extend_from_slice(&[vtdx_binary::VERSION, flags]);
    for p in payloads {
        match p {
            Some(p) => {
                assert!(p.len() < 0x80);
                out.extend_from_slice(&[b'D', p.len() as u8]);
                out.extend_from_slice(p);
                out.extend_from_slice(&[0; 8]);
            }
            None => out.push(b'R'),
        }
    }
    out.push(b'Z');
    out
}

#[test]
fn reseal_writes_the_checksums_the_format_defines() {
    let payload = [0u8, 1, 1, b'a', 0, 1, 0, 0, 4, 5, 0x00, 0xC1, 0xCC];
    let mut d = unsealed(0, &[Some(&payload)]);
    assert!(matches!(vtdx_binary::unpack(&d).unwrap_err().kind(), ErrorKind::Checksum { .. }));
    assert_eq!(vtdx_binary::reseal(&mut d).unwrap(), 1);
    // the same bytes as the frame forged with XXH3-64 computed here
    assert_eq!(d, forge(&payload));
    assert_eq!(vtdx_binary::unpack(&d).unwrap().source(), b"<a/>");

    // a stream with a reset: each frame's checksum seeded with the stream flag
    let second = [0u8, 0, 0, 0, 4, 5, 0x00, 0xC1, 0xCC];
    let mut d = unsealed(1, &[Some(&payload), Some(&second), None, Some(&payload)]);
    assert_eq!(vtdx_binary::reseal(&mut d).unwrap(), 3);
    let first_end = 10 + 2 + payload.len();
    let seeded = ::xxhash_rust::xxh3::xxh3_64_with_seed(&d[10..first_end], (1 << 8) | 1);
    assert_eq!(d[first_end..first_end + 8], seeded.to_le_bytes());
    let docs: Vec<_> = StreamReader::new(&d).unwrap().map(|r| r.unwrap().source().to_vec()).collect();
    assert_eq!(docs, [b"<a/>".to_vec(), b"<a/>".to_vec(), b"<a/>".to_vec()]);

    // sealing a sealed file changes nothing; what is not a packed file is refused
    let p = vtdx_binary::pack(&Document::parse(DOCS[0]).unwrap()).unwrap();
    let mut q = p.clone();
    assert_eq!(vtdx_binary::reseal(&mut q).unwrap(), 1);
    assert_eq!(p, q);
    assert!(matches!(vtdx_binary::reseal(&mut b"<a/>".to_vec()).unwrap_err().kind(), ErrorKind::NotPacked));
    let mut t = p[..p.len() - 3].to_vec();
    assert!(matches!(vtdx_binary::reseal(&mut t).unwrap_err().kind(), ErrorKind::Truncated { .. }));
    let mut u = [&p[..10], b"Q"].concat();
    assert!(matches!(vtdx_binary::reseal(&mut u).unwrap_err().kind(), ErrorKind::Malformed { .. }));
}

#[test]
fn a_failed_document_does_not_leave_its_tables_to_the_next() {
    // `<a/>`, then a document whose table additions fail at their second symbol
    // (a namespace handle outside the table) after entering the name `b` and a
    // symbol for it, then `<a/>` again through the same unpacker
    let a = [0u8, 1, 1, b'a', 0, 1, 0, 0, 4, 5, 0x00, 0xC1, 0xCC];
    let b = [0u8, 1, 1, b'b', 0, 2, 0, 0, 0, 9, 4, 5, 0x00, 0xC1, 0xCC];
    let mut u = vtdx_binary::Unpacker::new();
    assert_eq!(u.unpack(&forge(&a)).unwrap().source(), b"<a/>");
    assert!(u.unpack(&forge(&b)).is_err());
    assert_eq!(u.unpack(&forge(&a)).unwrap().source(), b"<a/>");
}
