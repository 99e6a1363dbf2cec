//! Parse-to-index throughput of vtdx (fresh parser and reused buffers) beside
//! simdxml, roxmltree and quick-xml, on the shared benchmark documents.
//!
//! `cargo bench -p vtdx-bench --bench parse` (add `-- po_big` to filter).
//! Each peer does the least it can to "parse" here: simdxml builds its structural
//! index, roxmltree its DOM, quick-xml reads every event without decoding text.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// roxmltree's options are not `Copy` (they may borrow an entity resolver): built per call.
fn rox_options<'a>() -> roxmltree::ParsingOptions<'a> {
    roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() }
}

fn parse(c: &mut Criterion) {
    let docs = vtdx_bench::documents();
    for (name, bytes) in &docs {
        if let Ok(doc) = vtdx::Document::parse(bytes) {
            eprintln!(
                "{name}: {} bytes, vtdx index {} bytes ({:.3} per input byte)",
                bytes.len(),
                doc.index_bytes(),
                doc.index_bytes() as f64 / bytes.len() as f64
            );
        }
        let mut g = c.benchmark_group(format!("parse/{name}"));
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        if bytes.len() > 4_000_000 {
            g.sample_size(10);
        }
        g.bench_with_input(BenchmarkId::new("vtdx", "fresh"), bytes, |b, x| {
            b.iter(|| black_box(vtdx::Document::parse(x).unwrap().tape().len()))
        });
        let mut parser = vtdx::Parser::new();
        g.bench_with_input(BenchmarkId::new("vtdx", "reuse"), bytes, |b, x| {
            b.iter(|| {
                let d = parser.parse(x).unwrap();
                let n = d.tape().len();
                parser.recycle(d);
                black_box(n)
            })
        });
        if simdxml::parse(bytes).is_ok() {
            g.bench_with_input(BenchmarkId::new("simdxml", ""), bytes, |b, x| b.iter(|| black_box(simdxml::parse(x).unwrap())));
        }
        if let Ok(s) = std::str::from_utf8(bytes) {
            if roxmltree::Document::parse_with_options(s, rox_options()).is_ok() {
                g.bench_with_input(BenchmarkId::new("roxmltree", ""), s, |b, x| {
                    b.iter(|| black_box(roxmltree::Document::parse_with_options(x, rox_options()).unwrap().root().children().count()))
                });
            }
        }
        g.bench_with_input(BenchmarkId::new("quick-xml", "events"), bytes, |b, x| {
            b.iter(|| {
                let mut r = quick_xml::Reader::from_reader(&x[..]);
                let mut buf = Vec::new();
                let mut n = 0usize;
                loop {
                    match r.read_event_into(&mut buf) {
                        Ok(quick_xml::events::Event::Eof) | Err(_) => break,
                        Ok(_) => n += 1,
                    }
                    buf.clear();
                }
                black_box(n)
            })
        });
        g.finish();
    }
}

criterion_group!(benches, parse);
criterion_main!(benches);
