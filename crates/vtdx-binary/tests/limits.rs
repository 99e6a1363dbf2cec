//! The decompression bomb of the packed form: a frame whose text is far larger than
//! the frame (`Limits::max_packed_amplification`), refused before the text is made.

use std::time::Instant;

use vtdx_binary::ErrorKind;
use vtdx_core::{Document, LimitKind, ParseOptions};

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// `<r>`, `count` leaf elements `<NAME>v</NAME>` with NAME `name_len` × `a`, `</r>`.
fn xml(name_len: usize, count: usize) -> Vec<u8> {
    let name = vec![b'a'; name_len];
    let mut xml = b"<r>".to_vec();
    for _ in 0..count {
        xml.extend_from_slice(&[&b"<"[..], &name, b">v</", &name, b">"].concat());
    }
    xml.extend_from_slice(b"</r>");
    xml
}

/// The payload (`docs/binary-format.md`) of [`xml`]`(name_len, count)`, with the
/// text length `stated` (None: the true one), and that true length.
fn bomb(name_len: usize, count: usize, stated: Option<u64>) -> (Vec<u8>, u64) {
    let name = vec![b'a'; name_len];
    let text = 3 + count as u64 * (2 * name_len as u64 + 6) + 4;
    // UTF-8; names `r` and NAME; no namespace names; symbols (0, 0) and (1, 0)
    let mut p = vec![0x00, 2, 1, b'r'];
    varint(&mut p, name_len as u64);
    p.extend_from_slice(&name);
    p.extend_from_slice(&[0, 2, 0, 0, 1, 0]);
    varint(&mut p, stated.unwrap_or(text));
    // an element record of 5 words each
    varint(&mut p, 5 * (count as u64 + 1));
    // start tag of symbol 0; each leaf: token E1 (symbol 1), a literal of 1 byte (v = 1 << 2), `v`
    p.push(0x00);
    for _ in 0..count {
        p.extend_from_slice(&[0xE1, 4, b'v']);
    }
    p.extend_from_slice(&[0xC0, 0xCC]);
    (p, text)
}

/// A file of the given flags around `payloads`, sealed by the crate's `reseal`.
fn file(flags: u8, payloads: &[&[u8]]) -> Vec<u8> {
    let mut out = vtdx_binary::MAGIC.to_vec();
    out.extend_from_slice(&[vtdx_binary::VERSION, flags]);
    for p in payloads {
        out.push(b'D');
        varint(&mut out, p.len() as u64);
        out.extend_from_slice(p);
        out.extend_from_slice(&[0; 8]);
    }
    out.push(b'Z');
    assert_eq!(vtdx_binary::reseal(&mut out).unwrap(), payloads.len());
    out
}

fn amplification(e: &vtdx_binary::Error) -> Option<(u64, u64)> {
    match e.kind() {
        ErrorKind::Document(d) => match d.kind() {
            vtdx_core::ErrorKind::LimitExceeded { limit: LimitKind::PackedAmplification, value, max } => Some((*value, *max)),
            _ => None,
        },
        _ => None,
    }
}

#[test]
fn a_bomb_is_refused_under_the_default_and_read_when_allowed() {
    // 300 leaves of a 10,000-byte name: 6,001,807 bytes of text from a frame of 10,919 bytes (549×)
    let (payload, text) = bomb(10_000, 300, None);
    let xml = xml(10_000, 300);
    assert_eq!(xml.len() as u64, text);
    let packed = file(0, &[&payload]);
    let ratio = xml.len() as u64 / payload.len() as u64;
    assert!(ratio > 256 && ratio < 1000, "{ratio}");
    let start = Instant::now();
    let e = vtdx_binary::unpack(&packed).unwrap_err();
    assert!(start.elapsed().as_millis() < 500, "refused late");
    assert_eq!(amplification(&e), Some((ratio, 256)), "{e}");
    // reported after `text-length`, with no position in the text: file header 10,
    // "D" and the frame length 3, then transform 1, names 1 + 2 + 2 + 10,000,
    // namespaces 1, symbols 5, `text-length` 4 (a varint of 6,001,807)
    let ErrorKind::Document(d) = e.kind() else { unreachable!() };
    assert_eq!((d.line(), d.column()), (0, 0));
    let header = 13 + 1 + (1 + 2 + 2 + 10_000) + 1 + 5 + 4;
    assert_eq!(e.offset(), header as u64, "{e}");
    assert!(e.to_string().starts_with("packed document refused: limit exceeded: packed amplification factor"), "{e}");
    // a lower limit, and the limit raised: the document the parser makes of the XML
    let e = vtdx_binary::unpack_with(&packed, &ParseOptions::new().max_packed_amplification(100)).unwrap_err();
    assert_eq!(amplification(&e), Some((ratio, 100)), "{e}");
    let doc = vtdx_binary::unpack_with(&packed, &ParseOptions::new().max_packed_amplification(1000)).unwrap();
    assert_eq!(doc.source(), &xml[..]);
    crate::common::assert_same(&doc, &Document::parse(&xml).unwrap(), "bomb");
    // at exactly the limit (the ratio rounded down, as for entity amplification)
    let at = ParseOptions::new().max_packed_amplification(ratio as u32);
    assert!(vtdx_binary::unpack_with(&packed, &at).is_ok());
}

#[test]
fn small_texts_are_never_refused_for_amplification() {
    // 3 leaves: 60,025 bytes of text (under 64 KiB) from 10,019 bytes of frame, allowed at ratio 1
    let (payload, text) = bomb(10_000, 3, None);
    assert!(text <= 64 << 10);
    let d = vtdx_binary::unpack_with(&file(0, &[&payload]), &ParseOptions::new().max_packed_amplification(1)).unwrap();
    assert_eq!(d.source(), &xml(10_000, 3)[..]);
    // 4 leaves pass 64 KiB: refused at ratio 1
    let (payload, _) = bomb(10_000, 4, None);
    let e = vtdx_binary::unpack_with(&file(0, &[&payload]), &ParseOptions::new().max_packed_amplification(1)).unwrap_err();
    assert!(amplification(&e).is_some(), "{e}");
}

#[test]
fn a_header_that_understates_the_text_stops_the_tokens_there() {
    // the probe's shape at full size, 10,000 leaves of a 50,000-byte name (1 GB of
    // text), whose header claims 60,000 bytes: decoding stops at the first leaf past it
    let (payload, _) = bomb(50_000, 10_000, Some(60_000));
    let start = Instant::now();
    let e = vtdx_binary::unpack(&file(0, &[&payload])).unwrap_err();
    assert!(start.elapsed().as_millis() < 500, "read too far");
    match e.kind() {
        ErrorKind::SizeMismatch { stated_text: 60_000, complete: false, text, .. } => assert!(*text <= 60_000 + 100_006, "{e}"),
        k => panic!("expected an incomplete size mismatch, got {k:?}"),
    }
    // and stated truly, it is refused for amplification (1,000,060,007 bytes from 80,024)
    let (payload, text) = bomb(50_000, 10_000, None);
    assert_eq!(text, 1_000_060_007);
    let e = vtdx_binary::unpack(&file(0, &[&payload])).unwrap_err();
    assert_eq!(amplification(&e), Some((text / payload.len() as u64, 256)), "{e}");
    assert_eq!(payload.len(), 1 + 1 + 2 + 3 + 50_000 + 1 + 5 + 5 + 3 + 1 + 3 * 10_000 + 2);
}

#[test]
fn a_stream_frame_is_measured_alone() {
    // stream mode: the first document enters the long name, the second refers to it
    // 300 times in a frame of 930 bytes
    let (first, _) = bomb(10_000, 1, None);
    let mut second = vec![0x00, 0, 0, 0];
    let text = 3 + 300 * 20_006 + 4;
    varint(&mut second, text);
    varint(&mut second, 5 * 301);
    second.push(0x00);
    for _ in 0..300 {
        second.extend_from_slice(&[0xE1, 4, b'v']);
    }
    second.extend_from_slice(&[0xC0, 0xCC]);
    let packed = file(vtdx_binary::FLAG_STREAM, &[&first, &second]);
    let mut r = vtdx_binary::StreamReader::new(&packed).unwrap();
    assert!(r.next().unwrap().is_ok());
    let e = r.next().unwrap().unwrap_err();
    assert_eq!(amplification(&e), Some((text / second.len() as u64, 256)), "{e}");
    let mut r = vtdx_binary::StreamReader::with_options(&packed, &ParseOptions::new().max_packed_amplification(10_000)).unwrap();
    assert!(r.next().unwrap().is_ok());
    assert_eq!(r.next().unwrap().unwrap().source().len() as u64, text);
}
