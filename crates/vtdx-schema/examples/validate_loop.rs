//! Times a parse against a parse + validation of one document, in interleaved rounds:
//! `validate_loop SCHEMA.xsd DOC.xml ROUNDS`. Each round times one parse, then one parse
//! followed by a validation (the schema is compiled once, before the rounds); the medians of
//! both and of their difference are printed. Interleaving keeps a shared machine's changing
//! load from falling on one side only. Exits 1 if the document is not valid.
//!
//! `VALIDATE_ONLY=1`: parse once, then validate ROUNDS times and nothing else (for
//! callgrind: run with N and 2N rounds and divide the difference by N).

use std::time::{Duration, Instant};

use vtdx_core::Document;
use vtdx_schema::{Schema, ValidateOptions};

fn median(v: &mut [Duration]) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let [xsd, file, rounds] = &a[..] else {
        eprintln!("usage: validate_loop SCHEMA.xsd DOC.xml ROUNDS");
        std::process::exit(2);
    };
    let schema = Schema::from_file(xsd).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let bytes = std::fs::read(file).unwrap_or_else(|e| {
        eprintln!("{file}: {e}");
        std::process::exit(2)
    });
    let rounds: usize = rounds.parse().unwrap_or_else(|_| {
        eprintln!("ROUNDS is a count, found {rounds:?}");
        std::process::exit(2)
    });
    // the timed validation keeps no typed values, as `vtdx validate` does not
    let opts = ValidateOptions { typed_values: false, ..Default::default() };
    if std::env::var_os("VALIDATE_ONLY").is_some() {
        let doc = Document::parse(&bytes).expect("not well-formed");
        for _ in 0..rounds {
            let v = schema.validate_with(&doc, &opts);
            if !v.is_valid() {
                eprintln!("{file}: invalid: {}", v.errors()[0]);
                std::process::exit(1);
            }
        }
        return;
    }
    let (mut parse, mut both) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    for _ in 0..rounds.max(1) {
        let t = Instant::now();
        let doc = Document::parse(&bytes).expect("not well-formed");
        std::hint::black_box(&doc);
        parse.push(t.elapsed());
        drop(doc);

        let t = Instant::now();
        let doc = Document::parse(&bytes).expect("not well-formed");
        let v = schema.validate_with(&doc, &opts);
        let ok = v.is_valid();
        both.push(t.elapsed());
        if !ok {
            eprintln!("{file}: invalid: {}", v.errors()[0]);
            std::process::exit(1);
        }
    }
    let (p, b) = (median(&mut parse), median(&mut both));
    let mb = bytes.len() as f64 / 1e6;
    println!(
        "{file}: {} rounds, median parse {:.2} ms ({:.0} MB/s), parse + validate {:.2} ms ({:.0} MB/s), validation {:.2} ms ({:.0}% of the parse)",
        parse.len(),
        p.as_secs_f64() * 1e3,
        mb / p.as_secs_f64(),
        b.as_secs_f64() * 1e3,
        mb / b.as_secs_f64(),
        (b.as_secs_f64() - p.as_secs_f64()) * 1e3,
        (b.as_secs_f64() / p.as_secs_f64() - 1.0) * 100.0
    );
}
