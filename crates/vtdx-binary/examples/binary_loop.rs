//! `binary_loop FILE [N] [MODE]`: parse, pack and unpack `FILE` N times each and
//! print the median times and the packed size (`MODE`: `all`, or one of `parse`,
//! `pack`, `unpack` to repeat only that step, for callgrind). Parsing reuses one
//! `Parser`, unpacking one `Unpacker`, each given its documents back.
//!
//! `binary_loop --messages FILE [N] [MODE]`: FILE holds messages separated by NUL
//! bytes (the benchmark's 10,000 SOAP messages); each round parses every message,
//! packs them all into one stream (`StreamWriter`) and unpacks that stream
//! (`StreamReader`), and the times are per message.

use std::time::Instant;

use vtdx_core::{Document, Parser};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--messages") {
        return messages(&args[2..]);
    }
    let path = args.get(1).expect("usage: binary_loop FILE [N] [all|parse|pack|unpack]");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(50);
    let mode = args.get(3).map(String::as_str).unwrap_or("all");
    let bytes = std::fs::read(path).expect("read");
    let doc = Document::parse(&bytes).expect("parse");
    let packed = vtdx_binary::pack(&doc).expect("pack");
    assert_eq!(vtdx_binary::unpack(&packed).expect("unpack").source(), &bytes[..]);
    let mut parser = Parser::new();
    let mut unpacker = vtdx_binary::Unpacker::new();
    let (mut tp, mut tk, mut tu) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..n {
        if mode == "all" || mode == "parse" {
            let t = Instant::now();
            let d = parser.parse(&bytes).expect("parse");
            std::hint::black_box(&d);
            tp.push(t.elapsed().as_secs_f64());
            parser.recycle(d);
        }
        if mode == "all" || mode == "pack" {
            let t = Instant::now();
            let p = vtdx_binary::pack(&doc).expect("pack");
            std::hint::black_box(&p);
            tk.push(t.elapsed().as_secs_f64());
        }
        if mode == "all" || mode == "unpack" {
            let t = Instant::now();
            let d = unpacker.unpack(&packed).expect("unpack");
            std::hint::black_box(&d);
            tu.push(t.elapsed().as_secs_f64());
            unpacker.recycle(d);
        }
    }
    let mb = bytes.len() as f64 / 1e6;
    let show = |name: &str, v: Vec<f64>| {
        if !v.is_empty() {
            let m = median(v);
            println!("{name:>7}: {:10.1} us  {:8.0} MB/s", m * 1e6, mb / m);
        }
    };
    println!("{path}: {} bytes, packed {} ({:.1}%)", bytes.len(), packed.len(), 100.0 * packed.len() as f64 / bytes.len() as f64);
    show("parse", tp);
    show("pack", tk);
    show("unpack", tu);
}

fn messages(args: &[String]) {
    let path = args.first().expect("usage: binary_loop --messages FILE [N] [all|parse|pack|unpack]");
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let mode = args.get(2).map(String::as_str).unwrap_or("all");
    let bytes = std::fs::read(path).expect("read");
    let msgs: Vec<&[u8]> = bytes.split(|&b| b == 0).filter(|m| !m.is_empty()).collect();
    let docs: Vec<Document<'_>> = msgs.iter().map(|m| Document::parse(m).expect("parse")).collect();
    let pack_all = |docs: &[Document<'_>]| {
        let mut w = vtdx_binary::StreamWriter::new();
        for d in docs {
            w.push(d).expect("pack");
        }
        w.finish()
    };
    let packed = pack_all(&docs);
    let mut count = 0;
    for (d, m) in vtdx_binary::StreamReader::new(&packed).expect("stream").zip(&msgs) {
        assert_eq!(d.expect("unpack").source(), *m);
        count += 1;
    }
    assert_eq!(count, msgs.len());
    let mut parser = Parser::new();
    let (mut tp, mut tk, mut tu) = (Vec::new(), Vec::new(), Vec::new());
    let k = msgs.len() as f64;
    for _ in 0..n {
        if mode == "all" || mode == "parse" {
            let t = Instant::now();
            for m in &msgs {
                let d = parser.parse(m).expect("parse");
                std::hint::black_box(&d);
                parser.recycle(d);
            }
            tp.push(t.elapsed().as_secs_f64() / k);
        }
        if mode == "all" || mode == "pack" {
            let t = Instant::now();
            std::hint::black_box(pack_all(&docs));
            tk.push(t.elapsed().as_secs_f64() / k);
        }
        if mode == "all" || mode == "unpack" {
            let t = Instant::now();
            let mut r = vtdx_binary::StreamReader::new(&packed).expect("stream");
            while let Some(d) = r.next() {
                let d = d.expect("unpack");
                std::hint::black_box(&d);
                r.recycle(d);
            }
            tu.push(t.elapsed().as_secs_f64() / k);
        }
    }
    let total: usize = msgs.iter().map(|m| m.len()).sum();
    println!(
        "{path}: {} messages, {total} bytes, packed stream {} ({:.1}%)",
        msgs.len(),
        packed.len(),
        100.0 * packed.len() as f64 / total as f64
    );
    let show = |name: &str, v: Vec<f64>| {
        if !v.is_empty() {
            println!("{name:>7}: {:10.2} us per message", median(v) * 1e6);
        }
    };
    show("parse", tp);
    show("pack", tk);
    show("unpack", tu);
}
