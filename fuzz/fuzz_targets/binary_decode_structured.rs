//! The decoder behind the checksum: the input is a list of frame payloads, which
//! this target frames (length, `vtdx_binary::reseal` for the checksums) so that
//! every frame reaches the table, token and assembly checks. A payload whose
//! stated text or index size is wrong (`ErrorKind::SizeMismatch`) is given the
//! sizes its tokens make and decoded again, so the final whole-text check of
//! `Assembler::finish` is reached too.
//!
//! Input: one options byte (bit 0: stream mode; bit 1: tight limits; bit 2:
//! namespaces off), then the payloads separated by `SEP`; an empty payload is a
//! reset mark `R`. Seeds: `cargo run -p vtdx-binary --example fuzz_seeds` (see
//! HACKING.md), which writes valid packed documents in this form.
//!
//! Checks: `Ok` or `Err`, never a panic; every accepted document is walked and
//! parses again from its own input, under the same options, to the same tree;
//! in one-document mode, each frame decoded alone gives what it gave in the
//! sequence and through a reused `Unpacker` that goes on after errors (tables
//! kept across a reset must not change a result).
#![no_main]

use libfuzzer_sys::fuzz_target;
use vtdx_binary::{ErrorKind, StreamReader};
use vtdx_core::{Document, ParseOptions};
use vtdx_fuzz::{check_document, full_dump, tight_options};

/// The payload separator (the seed writer, `crates/vtdx-binary/examples/fuzz_seeds.rs`, writes the same).
const SEP: [u8; 4] = [0xFF, 0xFE, 0xFD, 0xFC];
/// The text length given to a payload whose tokens ran past its stated length.
const RETRY_TEXT: u64 = 1 << 20;

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A packed file of the payloads (`None`: a reset mark), checksums sealed.
fn build(stream: bool, payloads: &[Option<Vec<u8>>]) -> Vec<u8> {
    let mut out = vtdx_binary::MAGIC.to_vec();
    out.push(vtdx_binary::VERSION);
    out.push(u8::from(stream));
    for p in payloads {
        match p {
            Some(p) => {
                out.push(b'D');
                put_varint(&mut out, p.len() as u64);
                out.extend_from_slice(p);
                out.extend_from_slice(&[0; 8]);
            }
            None => out.push(b'R'),
        }
    }
    out.push(b'Z');
    vtdx_binary::reseal(&mut out).expect("the target's own framing reseals");
    out
}

fn varint(p: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *p.get(*pos)?;
        *pos += 1;
        v |= u64::from(b & 0x7F) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// Where a structure payload's text-length and index-words fields are: (start, end).
fn size_fields(p: &[u8]) -> Option<(usize, usize)> {
    if *p.first()? >= 7 {
        return None;
    }
    let mut pos = 1;
    for _ in 0..2 {
        let n = varint(p, &mut pos)?;
        for _ in 0..n {
            let len = usize::try_from(varint(p, &mut pos)?).ok()?;
            pos = pos.checked_add(len).filter(|&e| e <= p.len())?;
        }
    }
    let n = varint(p, &mut pos)?;
    for _ in 0..n.checked_mul(2)? {
        varint(p, &mut pos)?;
    }
    let start = pos;
    varint(p, &mut pos)?;
    varint(p, &mut pos)?;
    Some((start, pos))
}

/// Every document's outcome, in order, up to and including the first error.
fn read_all(packed: &[u8], opts: &ParseOptions) -> Vec<Result<Document<'static>, vtdx_binary::Error>> {
    match StreamReader::with_options(packed, opts) {
        Ok(r) => r.collect(),
        Err(e) => vec![Err(e)],
    }
}

fn same(a: &Result<Document<'static>, vtdx_binary::Error>, b: &Result<Document<'static>, vtdx_binary::Error>) -> bool {
    match (a, b) {
        (Ok(a), Ok(b)) => a.source() == b.source() && full_dump(a) == full_dump(b),
        (Err(a), Err(b)) => a.kind() == b.kind(),
        _ => false,
    }
}

fn describe(r: &Result<Document<'static>, vtdx_binary::Error>) -> String {
    match r {
        Ok(d) => format!("{:?}", String::from_utf8_lossy(d.source())),
        Err(e) => format!("error {e}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&o, rest)) = data.split_first() else { return };
    let stream = o & 1 != 0;
    let opts = if o & 2 != 0 { tight_options() } else { ParseOptions::default() };
    let opts = if o & 4 != 0 { opts.namespaces(false) } else { opts };
    let mut payloads: Vec<Option<Vec<u8>>> = Vec::new();
    let mut at = 0;
    loop {
        let end = rest[at..].windows(SEP.len()).position(|w| w == SEP).map(|i| at + i);
        let p = &rest[at..end.unwrap_or(rest.len())];
        payloads.push(if p.is_empty() { None } else { Some(p.to_vec()) });
        match end {
            Some(e) => at = e + SEP.len(),
            None => break,
        }
    }
    if payloads.len() > 16 {
        return;
    }

    // decode; a size mismatch gets the sizes the tokens make, and another go
    let mut packed = build(stream, &payloads);
    let mut docs = read_all(&packed, &opts);
    for _ in 0..2 * payloads.len() + 1 {
        let Some(Err(e)) = docs.last() else { break };
        let ErrorKind::SizeMismatch { text, index_words, complete, .. } = *e.kind() else { break };
        let (text, words) = if complete { (text, index_words) } else { (RETRY_TEXT, index_words) };
        let k = docs.len() - 1;
        let Some(p) = payloads.iter_mut().flatten().nth(k) else { break };
        let Some((s, e)) = size_fields(p) else { break };
        let mut fields = Vec::new();
        put_varint(&mut fields, text);
        put_varint(&mut fields, words);
        if p[s..e] == fields[..] {
            break;
        }
        p.splice(s..e, fields);
        packed = build(stream, &payloads);
        docs = read_all(&packed, &opts);
    }

    for doc in docs.iter().flatten() {
        check_document(doc);
        let again = Document::parse_with(doc.source(), &opts).expect("an unpacked document parses under the same options");
        assert_eq!(full_dump(&again), full_dump(doc), "unpacked tree differs from the parsed one");
    }

    // one-document mode: tables are reset after each document, so each frame
    // alone must give what it gave in the sequence
    // sequence, and through one reused `Unpacker` (each frame its own file, going
    // on after errors)
    if !stream && payloads.len() <= 4 && payloads.iter().all(Option::is_some) {
        let mut u = vtdx_binary::Unpacker::with_options(&opts);
        for (i, p) in payloads.iter().flatten().enumerate() {
            let file = build(false, &[Some(p.clone())]);
            let alone = read_all(&file, &opts).into_iter().next().expect("a result");
            if let Some(in_seq) = docs.get(i) {
                assert!(same(&alone, in_seq), "frame {i} alone: {}; in the sequence: {}", describe(&alone), describe(in_seq));
            }
            let reused = u.unpack(&file);
            assert!(same(&alone, &reused), "frame {i} alone: {}; through a reused unpacker: {}", describe(&alone), describe(&reused));
            if let Ok(d) = reused {
                u.recycle(d);
            }
        }
    }
});
