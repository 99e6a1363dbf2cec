//! The Rust program of the side-by-side harness's `binary` workload (`bench/run --only binary`):
//! vtdx's packed binary form (`vtdx-binary`) beside vtdx's own text parse and beside general
//! compression of the text, gzip -6 (flate2 on the system's zlib) and zstd -3 (the zstd crate).
//!
//! `binary_peers binary [--peers vtdx,gzip,zstd] [policy options] FILE...`: a FILE ending in
//! `.bin` is a stream of messages separated by NUL bytes (the driver's `message_bundle`),
//! any other FILE one XML document. Every operation is in process, warm, timed with the
//! shared loop (`vtdx_bench::harness`); `bytes` is always the size of the XML text the
//! operation stands for, so `mbps` is MB/s of text equivalent. One JSON line per
//! (peer, document, `case`):
//!
//! - `vtdx`: `parse` (the text parsed by one reused `Parser`, each `Document` recycled),
//!   `pack` (`vtdx_binary::pack` of an already parsed `Document`: `out_bytes`, and `verbatim`,
//!   how many documents were stored verbatim), `unpack` (the packed bytes into a
//!   `Document` by one reused `vtdx_binary::Unpacker`, each `Document` recycled: `in_bytes`). For a stream,
//!   `parse`, `pack` and `unpack` take each message alone (a one-document packed file each;
//!   `out_bytes` the sum) and `stream-pack` / `stream-unpack` take all of them as one packed
//!   stream (`StreamWriter` / `StreamReader`: the tables carry over from message to message).
//! - `gzip` and `zstd`: `compress` and `decompress` of the text (each message alone for a
//!   stream) and, for a stream, `stream-compress` / `stream-decompress` of all the messages one
//!   after another as one compressed stream. gzip is the gzip file format (RFC 1952) around
//!   zlib's deflate at level 6, the deflate state reused; zstd one frame at level 3, the context
//!   reused.
//!
//! Before anything is timed every result is checked: each unpacked document's bytes equal the
//! input and its element count equals the parse's (otherwise an `error` line, which fails the
//! run); each decompressed text equals the input. The lines carry what the driver cross-checks
//! on its own: `elements`, and `out_crc32` (CRC-32 of what an unpack or a decompression gave,
//! all messages one after another), which the driver compares with the CRC of the input files.

use std::hint::black_box;

use flate2::{Compress, Compression, Crc, Decompress, FlushCompress, FlushDecompress, Status};
use vtdx::{Document, Parser};
use vtdx_bench::harness::{self, emit_blank, measure, Args, Line, Stats};
use vtdx_binary::{StreamReader, StreamWriter};

const PEERS: &[&str] = &["vtdx", "gzip", "zstd"];
const WORKLOAD: &str = "binary";
/// The compression levels of the issue: `gzip -6`, `zstd -3`.
const GZIP_LEVEL: u32 = 6;
const ZSTD_LEVEL: i32 = 3;

fn fail(m: impl std::fmt::Display) -> ! {
    eprintln!("binary_peers: {m}");
    std::process::exit(2);
}

fn main() {
    let args = Args::parse(std::env::args().skip(1)).unwrap_or_else(|e| fail(e));
    if std::env::var_os("MALLOC_TRIM_THRESHOLD_").is_none() || std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_none() {
        fail("MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_ must be set (bench/run sets them)");
    }
    if args.workload != WORKLOAD {
        fail(format!("unknown workload {} (this program runs binary only)", args.workload));
    }
    for f in &args.files {
        let bytes = std::fs::read(f).unwrap_or_else(|e| fail(format!("cannot read {f}: {e}")));
        let stream = f.ends_with(".bin");
        let msgs: Vec<Vec<u8>> = if stream { harness::split_bundle(&bytes) } else { vec![bytes] };
        if msgs.is_empty() {
            fail(format!("{f}: no messages"));
        }
        for &peer in PEERS.iter().filter(|p| args.wants(p)) {
            match peer {
                "vtdx" => vtdx_cells(&args, f, &msgs, stream),
                "gzip" => codec_cells(&args, f, &msgs, stream, &mut Gzip::new()),
                "zstd" => codec_cells(&args, f, &msgs, stream, &mut Zstd::new()),
                _ => unreachable!(),
            }
        }
    }
}

/// A line for `case` of `peer` on `f` with the timing fields: `bytes` is the text the operation
/// stands for; for a stream also the message count and messages per second.
fn line(peer: &str, f: &str, case: &str, s: &Stats, text: u64, msgs: usize, stream: bool) -> Line {
    let mut l = Line::new(peer, WORKLOAD, f);
    l.str("case", case).stats(s, text);
    if stream {
        l.int("messages", msgs as u64).num("msgs_per_s", msgs as f64 * 1e9 / s.median_ns).num("ns_per_msg", s.median_ns / msgs as f64);
    }
    l
}

/// docs/binary-format.md: the payload's first byte, the transform; 07 is a document stored verbatim
/// (its text parsed on unpacking).
const TRANSFORM_VERBATIM: u8 = 7;

/// The transform of the first document of a one-document packed file: after the header (magic,
/// version, flags) come "D", the payload length (a varint) and the payload.
fn transform(packed: &[u8]) -> Option<u8> {
    let rest = packed.get(vtdx_binary::MAGIC.len() + 2..)?;
    if rest.first() != Some(&b'D') {
        return None;
    }
    let len_bytes = rest[1..].iter().position(|b| b & 0x80 == 0)? + 1;
    rest.get(1 + len_bytes).copied()
}

fn crc_of<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut c = Crc::new();
    for p in parts {
        c.update(p);
    }
    format!("{:08x}", c.sum())
}

// ---------------------------------------------------------------- vtdx

fn vtdx_cells(args: &Args, f: &str, msgs: &[Vec<u8>], stream: bool) {
    let text: u64 = msgs.iter().map(|m| m.len() as u64).sum();
    let n = msgs.len();
    let cases: &[&str] = if stream { &["parse", "pack", "unpack", "stream-pack", "stream-unpack"] } else { &["parse", "pack", "unpack"] };
    let blank_all = |status: &str, why: &str| {
        for c in cases {
            Line::new("vtdx", WORKLOAD, f).str("case", c).str("status", status).str("reason", why).emit();
        }
    };
    // parse every message once (kept: the input of pack) and pack each alone and all as one stream
    let mut docs = Vec::with_capacity(n);
    for (i, m) in msgs.iter().enumerate() {
        match Document::parse(m) {
            Ok(d) => docs.push(d),
            Err(e) => return blank_all("rejected", &format!("message {i}: {e}")),
        }
    }
    let elements: u64 = docs.iter().map(|d| d.record_counts().elements as u64).sum();
    let mut packed = Vec::with_capacity(n);
    for (i, d) in docs.iter().enumerate() {
        match vtdx_binary::pack(d) {
            Ok(p) => packed.push(p),
            Err(e) => return blank_all("error", &format!("pack of message {i} failed: {e}")),
        }
    }
    let packed_bytes: u64 = packed.iter().map(|p| p.len() as u64).sum();
    // the check: every unpack gives the input byte for byte and as many elements as the parse
    let mut back_elements = 0u64;
    for (i, (p, m)) in packed.iter().zip(msgs).enumerate() {
        match vtdx_binary::unpack(p) {
            Ok(d) if d.source() == &m[..] => back_elements += d.record_counts().elements as u64,
            Ok(_) => return blank_all("error", &format!("unpack of message {i} does not give the input bytes back")),
            Err(e) => return blank_all("error", &format!("unpack of message {i} failed: {e}")),
        }
    }
    if back_elements != elements {
        return blank_all("error", &format!("unpack gives {back_elements} elements, the parse {elements}"));
    }
    let unpack_crc = crc_of(msgs.iter().map(|m| &m[..]));
    let p = &args.policy;

    // parse: one reused parser (warm name tables, tape recycled)
    let mut parser = Parser::new();
    let s = measure(p, || {
        for m in msgs {
            let d = parser.parse(black_box(m)).unwrap();
            black_box(d.tape().len());
            parser.recycle(d);
        }
    });
    line("vtdx", f, "parse", &s, text, n, stream).int("elements", elements).emit();

    let s = measure(p, || {
        for d in &docs {
            black_box(vtdx_binary::pack(black_box(d)).unwrap().len());
        }
    });
    let verbatim = packed.iter().filter(|p| transform(p) == Some(TRANSFORM_VERBATIM)).count();
    line("vtdx", f, "pack", &s, text, n, stream)
        .int("out_bytes", packed_bytes)
        .int("elements", elements)
        .int("verbatim", verbatim as u64)
        .emit();

    // unpack: one reused unpacker (warm name tables, tape recycled), as the parse above
    let mut unpacker = vtdx_binary::Unpacker::new();
    let s = measure(p, || {
        for x in &packed {
            let d = unpacker.unpack(black_box(x)).unwrap();
            black_box(d.tape().len());
            unpacker.recycle(d);
        }
    });
    line("vtdx", f, "unpack", &s, text, n, stream)
        .int("in_bytes", packed_bytes)
        .int("elements", back_elements)
        .str("out_crc32", &unpack_crc)
        .bool("exact", true)
        .emit();

    if !stream {
        return;
    }
    let pack_stream = |docs: &[Document<'_>]| -> Result<Vec<u8>, vtdx_binary::Error> {
        let mut w = StreamWriter::new();
        for d in docs {
            w.push(d)?;
        }
        Ok(w.finish())
    };
    let whole = match pack_stream(&docs) {
        Ok(w) => w,
        Err(e) => {
            for c in ["stream-pack", "stream-unpack"] {
                Line::new("vtdx", WORKLOAD, f)
                    .str("case", c)
                    .str("status", "error")
                    .str("reason", &format!("stream pack failed: {e}"))
                    .emit();
            }
            return;
        }
    };
    // the check of the stream: every message back byte for byte, in order
    let mut got = 0usize;
    let mut stream_elements = 0u64;
    let mut bad = None;
    match StreamReader::new(&whole) {
        Ok(r) => {
            for (i, d) in r.enumerate() {
                match d {
                    Ok(d) if i < n && d.source() == &msgs[i][..] => stream_elements += d.record_counts().elements as u64,
                    Ok(_) => bad = Some(format!("stream message {i} does not give the input bytes back")),
                    Err(e) => bad = Some(format!("stream unpack of message {i} failed: {e}")),
                }
                got += 1;
                if bad.is_some() {
                    break;
                }
            }
        }
        Err(e) => bad = Some(format!("stream header refused: {e}")),
    }
    if bad.is_none() && got != n {
        bad = Some(format!("the stream gives {got} messages back, expected {n}"));
    }
    if let Some(why) = bad {
        for c in ["stream-pack", "stream-unpack"] {
            Line::new("vtdx", WORKLOAD, f).str("case", c).str("status", "error").str("reason", &why).emit();
        }
        return;
    }
    let s = measure(p, || {
        black_box(pack_stream(black_box(&docs)).unwrap().len());
    });
    line("vtdx", f, "stream-pack", &s, text, n, stream).int("out_bytes", whole.len() as u64).int("elements", elements).emit();
    let s = measure(p, || {
        for d in StreamReader::new(black_box(&whole)).unwrap() {
            black_box(d.unwrap().tape().len());
        }
    });
    line("vtdx", f, "stream-unpack", &s, text, n, stream)
        .int("in_bytes", whole.len() as u64)
        .int("elements", stream_elements)
        .str("out_crc32", &unpack_crc)
        .bool("exact", true)
        .emit();
}

// ---------------------------------------------------------------- gzip and zstd

/// A general compressor of bytes, its state reused from one call to the next.
trait Codec {
    fn name(&self) -> &'static str;
    fn compress(&mut self, x: &[u8]) -> Vec<u8>;
    /// `len`: the size of the original (a capacity hint; the result must still be checked).
    fn decompress(&mut self, z: &[u8], len: usize) -> Result<Vec<u8>, String>;
}

/// The gzip file format (RFC 1952: a 10-byte header, raw deflate, CRC-32 and size) around
/// zlib's deflate at level 6, what `gzip -6` writes (without the file name).
struct Gzip {
    c: Compress,
    d: Decompress,
}

impl Gzip {
    fn new() -> Self {
        Gzip { c: Compress::new(Compression::new(GZIP_LEVEL), false), d: Decompress::new(false) }
    }
}

/// gzip header: magic, deflate, no flags, no time, extra flags 0, OS 255 (unknown).
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];

impl Codec for Gzip {
    fn name(&self) -> &'static str {
        "gzip"
    }
    fn compress(&mut self, x: &[u8]) -> Vec<u8> {
        self.c.reset();
        let mut out = Vec::with_capacity(x.len() / 3 + 64);
        out.extend_from_slice(&GZIP_HEADER);
        loop {
            let before = self.c.total_in() as usize;
            let st = self.c.compress_vec(&x[before..], &mut out, FlushCompress::Finish).expect("deflate cannot fail on a finished stream");
            if st == Status::StreamEnd {
                break;
            }
            out.reserve(out.capacity().max(4096));
        }
        let mut crc = Crc::new();
        crc.update(x);
        out.extend_from_slice(&crc.sum().to_le_bytes());
        out.extend_from_slice(&(x.len() as u32).to_le_bytes());
        out
    }
    fn decompress(&mut self, z: &[u8], len: usize) -> Result<Vec<u8>, String> {
        if z.len() < 18 || z[..3] != GZIP_HEADER[..3] || z[3] != 0 {
            return Err("not a gzip member without optional header fields".into());
        }
        let body = &z[10..z.len() - 8];
        self.d.reset(false);
        let mut out = Vec::with_capacity(len);
        loop {
            let before = self.d.total_in() as usize;
            let st = self.d.decompress_vec(&body[before..], &mut out, FlushDecompress::Finish).map_err(|e| e.to_string())?;
            if st == Status::StreamEnd {
                break;
            }
            if out.len() < out.capacity() && self.d.total_in() as usize == before {
                return Err("the deflate stream ends early".into());
            }
            out.reserve(out.capacity().max(4096));
        }
        let tail = &z[z.len() - 8..];
        let mut crc = Crc::new();
        crc.update(&out);
        if tail[..4] != crc.sum().to_le_bytes() || tail[4..] != (out.len() as u32).to_le_bytes() {
            return Err("gzip trailer mismatch".into());
        }
        Ok(out)
    }
}

/// One zstd frame at level 3 (`zstd -3`), the compression and decompression contexts reused.
struct Zstd {
    c: zstd::bulk::Compressor<'static>,
    d: zstd::bulk::Decompressor<'static>,
}

impl Zstd {
    fn new() -> Self {
        Zstd {
            c: zstd::bulk::Compressor::new(ZSTD_LEVEL).unwrap_or_else(|e| fail(format!("zstd: {e}"))),
            d: zstd::bulk::Decompressor::new().unwrap_or_else(|e| fail(format!("zstd: {e}"))),
        }
    }
}

impl Codec for Zstd {
    fn name(&self) -> &'static str {
        "zstd"
    }
    fn compress(&mut self, x: &[u8]) -> Vec<u8> {
        self.c.compress(x).expect("zstd compression into a buffer of the bound's size cannot fail")
    }
    fn decompress(&mut self, z: &[u8], len: usize) -> Result<Vec<u8>, String> {
        self.d.decompress(z, len).map_err(|e| e.to_string())
    }
}

fn codec_cells(args: &Args, f: &str, msgs: &[Vec<u8>], stream: bool, codec: &mut dyn Codec) {
    let name = codec.name();
    let text: u64 = msgs.iter().map(|m| m.len() as u64).sum();
    let n = msgs.len();
    let p = &args.policy;
    let each: Vec<Vec<u8>> = msgs.iter().map(|m| codec.compress(m)).collect();
    for (i, (z, m)) in each.iter().zip(msgs).enumerate() {
        match codec.decompress(z, m.len()) {
            Ok(back) if back == *m => {}
            Ok(_) => return emit_blank(name, WORKLOAD, f, "error", &format!("{name}: message {i} decompresses to other bytes")),
            Err(e) => return emit_blank(name, WORKLOAD, f, "error", &format!("{name}: message {i}: {e}")),
        }
    }
    let zbytes: u64 = each.iter().map(|z| z.len() as u64).sum();
    let crc = crc_of(msgs.iter().map(|m| &m[..]));
    let s = measure(p, || {
        for m in msgs {
            black_box(codec.compress(black_box(m)).len());
        }
    });
    line(name, f, "compress", &s, text, n, stream).int("out_bytes", zbytes).emit();
    let s = measure(p, || {
        for (z, m) in each.iter().zip(msgs) {
            black_box(codec.decompress(black_box(z), m.len()).unwrap().len());
        }
    });
    line(name, f, "decompress", &s, text, n, stream).int("in_bytes", zbytes).str("out_crc32", &crc).emit();
    if !stream {
        return;
    }
    // all the messages one after another as one compressed stream (the text stream, without the NULs)
    let all: Vec<u8> = msgs.concat();
    let z = codec.compress(&all);
    match codec.decompress(&z, all.len()) {
        Ok(back) if back == all => {}
        _ => return emit_blank(name, WORKLOAD, f, "error", &format!("{name}: the whole stream does not decompress to its input")),
    }
    let s = measure(p, || {
        black_box(codec.compress(black_box(&all)).len());
    });
    line(name, f, "stream-compress", &s, text, n, stream).int("out_bytes", z.len() as u64).emit();
    let s = measure(p, || {
        black_box(codec.decompress(black_box(&z), all.len()).unwrap().len());
    });
    line(name, f, "stream-decompress", &s, text, n, stream).int("in_bytes", z.len() as u64).str("out_crc32", &crc).emit();
}
