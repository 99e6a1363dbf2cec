//! Writes the starting corpus of the `binary_decode_structured` fuzz target
//! (`fuzz/fuzz_targets/binary_decode_structured.rs`): valid packed documents in
//! the target's input form, an options byte and then frame payloads (without
//! their frame tag, length and checksum) separated by `FF FE FD FC`, an empty
//! payload standing for a reset mark.
//!
//! ```sh
//! cargo run --release -p vtdx-binary --example fuzz_seeds -- OUT_DIR FILE_OR_DIR...
//! ```
//!
//! Each XML file (directories are walked) that parses and packs to at most 8 KiB
//! gives: the document alone (default options, tight limits, and in stream mode),
//! twice in a one-document file (the second time through tables kept across the
//! reset), and with the next file in a stream, with and without a reset between.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use vtdx_core::{Document, ExternalPolicy, ParseOptions};

/// The payload separator of the fuzz target's input.
const SEP: [u8; 4] = [0xFF, 0xFE, 0xFD, 0xFC];
/// Largest packed document taken.
const MAX_PACKED: usize = 8 << 10;

/// The payloads of the frames of a packed file (or of a stream written so far,
/// without its end mark), in order (`None`: a reset mark).
fn payloads(packed: &[u8]) -> Vec<Option<Vec<u8>>> {
    let mut out = Vec::new();
    let mut pos = vtdx_binary::MAGIC.len() + 2;
    loop {
        match packed.get(pos) {
            Some(b'D') => {
                pos += 1;
                let (mut len, mut shift) = (0usize, 0);
                loop {
                    let b = packed[pos];
                    pos += 1;
                    len |= usize::from(b & 0x7F) << shift;
                    shift += 7;
                    if b < 0x80 {
                        break;
                    }
                }
                out.push(Some(packed[pos..pos + len].to_vec()));
                pos += len + 8;
            }
            Some(b'R') => {
                out.push(None);
                pos += 1;
            }
            _ => return out,
        }
    }
}

/// A fuzz input: the options byte, then the payloads joined by [`SEP`].
fn seed(options: u8, frames: &[Option<Vec<u8>>]) -> Vec<u8> {
    let mut out = vec![options];
    for (i, f) in frames.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(&SEP);
        }
        if let Some(p) = f {
            out.extend_from_slice(p);
        }
    }
    out
}

fn files(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let Ok(rd) = std::fs::read_dir(p) else { return };
        let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        entries.sort();
        for e in entries {
            files(&e, out);
        }
    } else {
        out.push(p.to_path_buf());
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((out_dir, inputs)) = args.split_first() else {
        eprintln!("usage: fuzz_seeds OUT_DIR FILE_OR_DIR...");
        return ExitCode::from(2);
    };
    let mut paths = Vec::new();
    for i in inputs {
        files(Path::new(i), &mut paths);
    }
    let opts = ParseOptions::default().external(ExternalPolicy::Ignore);
    let mut sources = Vec::new();
    for p in &paths {
        let Ok(bytes) = std::fs::read(p) else { continue };
        let Ok(doc) = Document::parse_with(&bytes, &opts) else { continue };
        match vtdx_binary::pack(&doc) {
            Ok(packed) if packed.len() <= MAX_PACKED => sources.push((p, bytes)),
            _ => {}
        }
    }
    if let Err(e) = std::fs::create_dir_all(out_dir) {
        eprintln!("fuzz_seeds: {out_dir}: {e}");
        return ExitCode::FAILURE;
    }
    let mut written = 0usize;
    let mut write = |name: String, data: Vec<u8>| {
        let path = Path::new(out_dir).join(name);
        match std::fs::write(&path, data) {
            Ok(()) => written += 1,
            Err(e) => eprintln!("fuzz_seeds: {}: {e}", path.display()),
        }
    };
    for (i, (path, bytes)) in sources.iter().enumerate() {
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let doc = Document::parse_with(bytes, &opts).expect("parsed before");
        let one = payloads(&vtdx_binary::pack(&doc).expect("packed before"));
        write(format!("{i:03}-{stem}-one"), seed(0, &one));
        write(format!("{i:03}-{stem}-tight"), seed(2, &one));
        write(format!("{i:03}-{stem}-twice"), seed(0, &[one.clone(), one].concat()));
        let mut w = vtdx_binary::StreamWriter::new();
        w.push(&doc).expect("packs");
        write(format!("{i:03}-{stem}-stream"), seed(1, &payloads(w.bytes())));
        let Some((_, next_bytes)) = sources.get(i + 1) else { continue };
        let next = Document::parse_with(next_bytes, &opts).expect("parsed before");
        w.push(&next).expect("packs");
        write(format!("{i:03}-{stem}-stream2"), seed(1, &payloads(w.bytes())));
        w.reset();
        w.push(&doc).expect("packs");
        write(format!("{i:03}-{stem}-stream-reset"), seed(1, &payloads(w.bytes())));
    }
    eprintln!("fuzz_seeds: {written} seeds from {} documents in {out_dir}", sources.len());
    ExitCode::SUCCESS
}
