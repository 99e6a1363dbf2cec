//! The seed benchmark: parse + one precompiled XPath on the generated purchase
//! orders, vtdx beside simdxml (the other peers, lxml and pugixml, run in the
//! harness under `bench/`).
//!
//! `cargo bench -p vtdx-xpath --bench seed`; documents come from
//! `$VTDX_CORPUS/bench/generated` (default `../shared/corpus`).

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use vtdx_core::Document;
use vtdx_xpath::{Namespaces, XPath};

/// The five seed expressions (Tables 2-6).
pub const SEED_EXPRESSIONS: [&str; 5] = [
    "/*/*/*[position() mod 2 = 0]",
    "/purchaseOrder/items/item[USPrice<100]",
    "/*/*/*/quantity/text()",
    "//item/comment",
    "//item/comment/../quantity",
];

fn corpus() -> PathBuf {
    match std::env::var_os("VTDX_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

fn seed(c: &mut Criterion) {
    for file in ["po_small", "po_medium", "po_big"] {
        let path = corpus().join("bench/generated").join(format!("{file}.xml"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (i, expr) in SEED_EXPRESSIONS.iter().enumerate() {
            let mut g = c.benchmark_group(format!("seed/{file}/x{}", i + 1));
            g.throughput(Throughput::Bytes(bytes.len() as u64));
            let xp = XPath::compile(expr, &Namespaces::new()).unwrap();
            let n_vtdx = xp.select(Document::parse(&bytes).unwrap().root()).unwrap().len();
            let sx = simdxml::CompiledXPath::compile(expr).unwrap();
            let n_simd = {
                let mut ix = simdxml::parse(&bytes).unwrap();
                ix.ensure_indices();
                sx.eval(&ix).unwrap().len()
            };
            assert_eq!(n_vtdx, n_simd, "{file} {expr}: vtdx and simdxml disagree");
            g.bench_function(BenchmarkId::new("vtdx", expr), |b| {
                b.iter(|| {
                    let doc = Document::parse(black_box(&bytes)).unwrap();
                    black_box(xp.select(doc.root()).unwrap().len())
                })
            });
            g.bench_function(BenchmarkId::new("simdxml", expr), |b| {
                b.iter(|| {
                    let mut ix = simdxml::parse(black_box(&bytes)).unwrap();
                    ix.ensure_indices();
                    black_box(sx.eval(&ix).unwrap().len())
                })
            });
            g.finish();
        }
    }
}

criterion_group!(benches, seed);
criterion_main!(benches);
