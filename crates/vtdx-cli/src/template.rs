//! `vtdx stats --template-cache FILE...`: parses a stream of documents with one
//! parser and a template cache (docs/template-cache.md) and reports what the
//! cache did: hits, misses, bytes matched, templates held, and the time taken.
//! Documents that are not well-formed are reported as `vtdx check` reports them.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use vtdx::core::TemplateCache;

use crate::{display, parse_input, report, ParseFlags};

/// Runs `vtdx stats` over several files (or one, with `--template-cache`). The
/// cache is on whatever the flags say: a stream's statistics are about it.
pub(crate) fn stats(files: &[PathBuf], opts: &ParseFlags, out: &mut dyn Write) -> io::Result<ExitCode> {
    let cache = Arc::new(TemplateCache::new());
    let mut parser = opts.parser();
    parser.set_template_cache(Some(Arc::clone(&cache)));
    let (mut bytes, mut ok, mut bad) = (0u64, 0u64, 0u64);
    let mut io_failed = false;
    let t0 = Instant::now();
    for f in files {
        match parse_input(&mut parser, f) {
            Ok(Ok(doc)) => {
                ok += 1;
                bytes += doc.source().len() as u64;
                parser.recycle(doc);
            }
            Ok(Err(e)) => {
                bad += 1;
                report(&display(f), "", &e);
            }
            Err(e) => {
                eprintln!("{}: cannot read: {e}", display(f));
                io_failed = true;
            }
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    let s = cache.stats();
    let parsed = s.hits + s.misses;
    writeln!(out, "files:           {}", files.len())?;
    writeln!(out, "well-formed:     {ok} ({bytes} bytes)")?;
    writeln!(out, "not well-formed: {bad}")?;
    writeln!(out, "hits:            {}", s.hits)?;
    writeln!(out, "misses:          {}", s.misses)?;
    writeln!(out, "hit rate:        {:.1}%", 100.0 * s.hits as f64 / parsed.max(1) as f64)?;
    writeln!(out, "bytes matched:   {}", s.bytes_matched)?;
    writeln!(out, "templates:       {} learned, {} held, {} evicted", s.learned, s.templates, s.evicted)?;
    writeln!(out, "template bytes:  {} (bound {})", s.bytes, s.max_bytes)?;
    writeln!(out, "time:            {:.3} ms ({:.0} documents/s, reading included)", secs * 1e3, parsed as f64 / secs.max(1e-9))?;
    out.flush()?;
    Ok(if io_failed {
        ExitCode::from(2)
    } else if bad > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
