//! Canonicalization throughput beside parse throughput, on the shared
//! benchmark documents: `cargo bench -p vtdx-c14n --bench c14n`.
//!
//! For each document: vtdx parse, Exclusive C14N and C14N 1.0 of the whole
//! (already parsed) document, parse + Exclusive C14N, and for the SOAP
//! messages Exclusive C14N of the `soap:Body` subtree (throughput counted on
//! the Body's bytes) — the XML-Signature case. Output goes to a digest-like
//! sink (`std::io::sink`), as when signing.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use vtdx_c14n::{Algorithm, Canonicalizer};
use vtdx_core::{Document, Node};

fn corpus() -> PathBuf {
    let p = match std::env::var_os("VTDX_CORPUS") {
        Some(v) => PathBuf::from(v),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    p.join("bench/generated")
}

fn body<'d>(doc: &'d Document<'d>) -> Option<Node<'d>> {
    doc.root_element().element_children().find(|e| e.local_name() == "Body")
}

fn c14n(c: &mut Criterion) {
    let exc = Canonicalizer::new(Algorithm::ExcC14n10);
    let inc = Canonicalizer::new(Algorithm::C14n10);
    for name in ["po_big.xml", "po_16mb.xml", "soap_big.xml", "soap_wss_2k.xml"] {
        let p = corpus().join(name);
        let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("benchmark document {} is missing: {e} (set VTDX_CORPUS)", p.display()));
        let mut g = c.benchmark_group(format!("c14n/{name}"));
        if bytes.len() > 4_000_000 {
            g.sample_size(10);
        }
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function("parse", |b| b.iter(|| black_box(Document::parse(&bytes).unwrap().tape().len())));
        let doc = Document::parse(&bytes).unwrap();
        g.bench_function("exc-c14n/document", |b| b.iter(|| exc.canonicalize_document(&doc, &mut std::io::sink()).unwrap()));
        g.bench_function("c14n10/document", |b| b.iter(|| inc.canonicalize_document(&doc, &mut std::io::sink()).unwrap()));
        g.bench_function("parse+exc-c14n/document", |b| {
            b.iter(|| {
                let d = Document::parse(&bytes).unwrap();
                exc.canonicalize_document(&d, &mut std::io::sink()).unwrap()
            })
        });
        if let Some(bd) = body(&doc) {
            g.throughput(Throughput::Bytes(bd.range().len() as u64));
            g.bench_with_input(BenchmarkId::new("exc-c14n", "Body"), &bd, |b, &bd| {
                b.iter(|| exc.canonicalize_subtree(bd, &mut std::io::sink()).unwrap())
            });
        }
        g.finish();
    }
}

criterion_group!(benches, c14n);
criterion_main!(benches);
