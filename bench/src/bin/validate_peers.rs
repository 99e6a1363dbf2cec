//! The `validate` workload's vtdx peers (bench/workloads/validate.py): XML Schema
//! validation of a document from its bytes, with the shared loop (`vtdx_bench::harness`).
//!
//! `validate_peers validate [--peers a,b] [policy options] SCHEMA.xsd FILE...`: the
//! first FILE ending in `.xsd` is the schema, compiled once before anything is timed.
//!
//! Peers:
//!
//! - `vtdx-validate`: `Document::parse` (the per-thread parser, warm) + `Schema::validate_with`,
//!   typed values off (as `vtdx validate` runs);
//! - `vtdx-parse`: `Document::parse` alone, the non-validating parse the target compares with.
//!
//! Every document is validated once, untimed: the line says `valid` and `errors` (for
//! `vtdx-parse`, whether it is well-formed). A FILE whose name contains `.invalid` is a
//! verdict-only document (the workload's invalid variants): one line with the verdict,
//! `"timed": false`, no timing.

use std::hint::black_box;

use vtdx_bench::harness::{emit_blank, measure, Args, Line};
use vtdx_schema::{Schema, ValidateOptions};

const PEERS: &[&str] = &["vtdx-validate", "vtdx-parse"];
const WORKLOAD: &str = "validate";

fn main() {
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("validate_peers: {e}");
            std::process::exit(2);
        }
    };
    if args.workload != WORKLOAD {
        eprintln!("validate_peers: the workload is `validate`, found `{}`", args.workload);
        std::process::exit(2);
    }
    let Some(xsd) = args.files.iter().find(|f| f.ends_with(".xsd")) else {
        eprintln!("validate_peers: no schema (a FILE ending in .xsd) among the files");
        std::process::exit(2);
    };
    let schema = Schema::from_file(xsd).unwrap_or_else(|e| {
        eprintln!("validate_peers: the schema {xsd} does not load: {e}");
        std::process::exit(2)
    });
    let opts = ValidateOptions { typed_values: false, ..Default::default() };
    for f in args.files.iter().filter(|f| !f.ends_with(".xsd")) {
        let x = std::fs::read(f).unwrap_or_else(|e| {
            eprintln!("validate_peers: cannot read {f}: {e}");
            std::process::exit(2)
        });
        let timed = !f.contains(".invalid");
        for peer in PEERS.iter().copied().filter(|p| args.wants(p)) {
            let doc = match vtdx::Document::parse(&x) {
                Ok(d) => d,
                Err(e) => {
                    emit_blank(peer, WORKLOAD, f, "rejected", &format!("not well-formed: {e}"));
                    continue;
                }
            };
            let elements = doc.record_counts().elements as u64;
            let (valid, errors, first) = if peer == "vtdx-validate" {
                let v = schema.validate_with(&doc, &opts);
                (v.is_valid(), v.errors().len() as u64, v.errors().first().map(|e| e.to_string()))
            } else {
                (true, 0, None)
            };
            drop(doc);
            let mut l = Line::new(peer, WORKLOAD, f);
            if timed {
                let s = match peer {
                    "vtdx-validate" => measure(&args.policy, || {
                        let d = vtdx::Document::parse(&x).unwrap();
                        black_box(schema.validate_with(&d, &opts).is_valid());
                    }),
                    _ => measure(&args.policy, || {
                        black_box(vtdx::Document::parse(&x).unwrap().tape().len());
                    }),
                };
                l.stats(&s, x.len() as u64);
            } else {
                l.str("status", "ok").int("bytes", x.len() as u64);
            }
            l.bool("timed", timed).bool("valid", valid).int("errors", errors).int("elements", elements);
            if let Some(e) = first {
                l.str("first_error", &e);
            }
            l.emit();
        }
    }
}
