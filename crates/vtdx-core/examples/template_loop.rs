//! Instruction counts of the template cache (issue 19), for callgrind: parses a
//! NUL-separated stream of messages (bench/workloads/template.py writes them to
//! `bench/out/template/<mode>/<stream>.bin`) PASSES times with one reused parser.
//!
//! `template_loop MODE STREAM.bin PASSES [SEED.bin]`
//!
//! - `full`: no cache (the parser recycles each document, as the bench's `vtdx-full`);
//! - `hit`: one cache, warmed by one pass before the counted ones;
//! - `miss`: a new, empty cache for every pass (the bench's all-miss `vtdx-template`);
//! - `near`: a new cache for every pass holding the templates of SEED.bin (learned
//!   inside the pass, as the bench's `vtdx-template-near`);
//! - `near0`: one cache holding the templates of SEED.bin and learning nothing else
//!   (`learn_after` 0): what rejecting a near miss costs, learning left out.
//!
//! Run it under `valgrind --tool=callgrind --callgrind-out-file=/dev/null` at two
//! PASSES and divide the difference by the messages of the extra passes: what one
//! message costs, start-up and (for `hit`) warming left out.

use std::hint::black_box;
use std::sync::Arc;

use vtdx_core::{ParseOptions, Parser, TemplateCache, TemplateConfig};

fn split(b: &[u8]) -> Vec<&[u8]> {
    b.split(|&c| c == 0).filter(|m| !m.is_empty()).collect()
}

fn pass(parser: &mut Parser, msgs: &[&[u8]]) {
    for m in msgs {
        let d = parser.parse(m).expect("the stream's messages are well-formed");
        black_box(d.tape().len());
        parser.recycle(d);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: template_loop full|hit|miss|near STREAM.bin PASSES [SEED.bin]");
        std::process::exit(2);
    }
    let data = std::fs::read(&args[2]).expect("read the stream");
    let msgs = split(&data);
    let passes: usize = args[3].parse().expect("PASSES is a number");
    let seed_data = args.get(4).map(|p| std::fs::read(p).expect("read the seed"));
    let seed = seed_data.as_deref().map(split).unwrap_or_default();
    let fresh = || {
        let c = Arc::new(TemplateCache::new());
        for m in &seed {
            assert!(c.learn(m, &ParseOptions::default()), "a seed message is learned");
        }
        c
    };
    let mut parser = Parser::new();
    match args[1].as_str() {
        "full" => {
            for _ in 0..passes {
                pass(&mut parser, &msgs);
            }
        }
        "hit" => {
            let cache = fresh();
            parser.set_template_cache(Some(Arc::clone(&cache)));
            pass(&mut parser, &msgs);
            let before = cache.stats();
            for _ in 0..passes {
                pass(&mut parser, &msgs);
            }
            let after = cache.stats();
            eprintln!("hits {} misses {} templates {}", after.hits - before.hits, after.misses - before.misses, after.templates);
        }
        "miss" | "near" => {
            // the names of the stream interned once, as in the bench (its parser checked the stream first)
            pass(&mut parser, &msgs);
            let (mut hits, mut misses, mut learned) = (0, 0, 0);
            for _ in 0..passes {
                let cache = fresh();
                parser.set_template_cache(Some(Arc::clone(&cache)));
                pass(&mut parser, &msgs);
                let s = cache.stats();
                (hits, misses, learned) = (hits + s.hits, misses + s.misses, learned + s.learned);
            }
            eprintln!("hits {hits} misses {misses} learned {learned}");
        }
        "near0" => {
            let cache = Arc::new(TemplateCache::with_config(TemplateConfig { learn_after: 0, ..TemplateConfig::default() }));
            for m in &seed {
                assert!(cache.learn(m, &ParseOptions::default()), "a seed message is learned");
            }
            parser.set_template_cache(Some(Arc::clone(&cache)));
            pass(&mut parser, &msgs);
            for _ in 0..passes {
                pass(&mut parser, &msgs);
            }
            eprintln!("{:?}", cache.stats());
        }
        m => panic!("unknown mode {m}"),
    }
}
