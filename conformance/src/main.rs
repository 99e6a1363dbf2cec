//! `vtdx-conformance`: runs the W3C XML Conformance Test Suite (xmlconf) against
//! vtdx and compares the failures with `expected-failures/xmlconf.txt`.
//!
//! ```text
//! cargo run --release -p vtdx-conformance -- [--verbose] [--filter SUBSTR] [--update-expected]
//! ```
//!
//! See README.md for how applicability is decided.

#![forbid(unsafe_code)]

mod canon;
mod catalog;
mod expected;
mod runner;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use catalog::{TestCase, TestType};
use runner::ExecOutcome;

/// TEST elements in `xmlconf-flattened.xml` (PROVENANCE.md: 812 valid, 242
/// invalid, 1498 not-wf, 33 error). A different number means the corpus moved.
const EXPECTED_TEST_COUNT: usize = 2585;
/// No test document should take longer than this to parse.
const SLOW_PARSE: Duration = Duration::from_secs(1);
/// Past this, a test is abandoned as hung.
const HARD_LIMIT: Duration = Duration::from_secs(20);

const SKIP_VERSION: &str = "XML 1.1 only (VERSION)";
const SKIP_RECOMMENDATION: &str = "XML 1.1 / Namespaces 1.1 (RECOMMENDATION)";
const SKIP_EDITION: &str = "editions 1-4 only (EDITION)";
const SKIP_EXTERNAL: &str = "not-wf needs external entities (either outcome)";

struct Args {
    verbose: bool,
    update_expected: bool,
    filter: Option<String>,
}

fn usage() -> &'static str {
    "usage: vtdx-conformance [--verbose] [--filter SUBSTR] [--update-expected]\n\
     \n\
     Runs the W3C XML Conformance Test Suite (xmlconf) against vtdx.\n\
     \n\
       --verbose          print every failure with its description and the parser's error\n\
       --filter SUBSTR    run only tests whose ID or URI contains SUBSTR\n\
       --update-expected  rewrite expected-failures/xmlconf.txt from this run\n\
     \n\
     The corpus is $VTDX_CORPUS, else ../shared/corpus beside the repository."
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args { verbose: false, update_expected: false, filter: None };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--verbose" | "-v" => a.verbose = true,
            "--update-expected" => a.update_expected = true,
            "--filter" => a.filter = Some(it.next().ok_or("--filter needs a value")?),
            s if s.starts_with("--filter=") => a.filter = Some(s["--filter=".len()..].to_string()),
            "--help" | "-h" => {
                println!("{}", usage());
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}`\n\n{}", usage())),
        }
    }
    Ok(a)
}

/// The conformance crate's folder (for the expected-failures file).
fn crate_dir() -> PathBuf {
    let compiled = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if compiled.is_dir() {
        return compiled;
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    if cwd.join("conformance").is_dir() {
        cwd.join("conformance")
    } else {
        cwd
    }
}

/// The corpus root: `$VTDX_CORPUS`, else `../shared/corpus` from the repository root.
fn corpus_root() -> Result<PathBuf, String> {
    if let Some(v) = std::env::var_os("VTDX_CORPUS") {
        let p = PathBuf::from(v);
        return if p.is_dir() { Ok(p) } else { Err(format!("VTDX_CORPUS is set to {} but that is not a directory", p.display())) };
    }
    let mut candidates = Vec::new();
    if let Some(repo) = Path::new(env!("CARGO_MANIFEST_DIR")).parent() {
        candidates.push(repo.join("../shared/corpus"));
    }
    if let Ok(cwd) = std::env::current_dir() {
        candidates.push(cwd.join("../shared/corpus"));
        candidates.push(cwd.join("../../shared/corpus"));
    }
    for c in &candidates {
        if c.join("xmlconf").is_dir() {
            return Ok(std::fs::canonicalize(c).unwrap_or_else(|_| c.clone()));
        }
    }
    Err(format!(
        "no corpus found; looked for xmlconf/ in:\n{}\nSet VTDX_CORPUS to the corpus root (the folder holding xmlconf/).",
        candidates.iter().map(|c| format!("  {}", c.display())).collect::<Vec<_>>().join("\n")
    ))
}

fn loud(msg: &str) {
    eprintln!("\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!");
    for line in msg.lines() {
        eprintln!("!!! {line}");
    }
    eprintln!("!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n");
}

/// Why a test does not apply to an XML 1.0 Fifth Edition, Namespaces 1.0 parser.
fn skip_reason(t: &TestCase) -> Option<&'static str> {
    if let Some(v) = &t.version {
        if !v.split_whitespace().any(|x| x == "1.0") {
            return Some(SKIP_VERSION);
        }
    }
    if matches!(t.recommendation.as_str(), "XML1.1" | "NS1.1") {
        return Some(SKIP_RECOMMENDATION);
    }
    if let Some(e) = &t.edition {
        if !e.split_whitespace().any(|x| x == "5") {
            return Some(SKIP_EDITION);
        }
    }
    None
}

enum Verdict {
    Pass,
    Fail(String),
    Skip(&'static str),
}

struct Record {
    verdict: Verdict,
    /// The parser's answer, for reports: Ok or the error message.
    parse: Option<Result<(), String>>,
    parse_time: Option<Duration>,
    /// Error tests: true when the document was accepted.
    error_accepted: Option<bool>,
    output_compared: bool,
    output_skipped_external: bool,
    /// ENTITIES="none", but the default policy refused an external identifier: the
    /// message (the verdict comes from the second parse, with `ExternalPolicy::Ignore`).
    refused_external: Option<String>,
}

fn run_test(runner: &mut runner::Runner, xmlconf: &Path, t: &TestCase) -> Record {
    let mut rec = Record {
        verdict: Verdict::Skip(""),
        parse: None,
        parse_time: None,
        error_accepted: None,
        output_compared: false,
        output_skipped_external: false,
        refused_external: None,
    };
    // Tests that do not apply are still parsed: a panic or a hang is a bug whatever
    // the expected outcome.
    let not_applicable = skip_reason(t);
    let external = t.entities != "none";
    let accept_expected = not_applicable.is_none() && matches!(t.ty, TestType::Valid | TestType::Invalid);
    let want_output = accept_expected && t.output.is_some() && !external;
    rec.output_skipped_external = accept_expected && t.output.is_some() && external;

    let job = runner::job(&xmlconf.join(&t.uri), t.namespaces, &t.entities, want_output);
    let exec = match runner.execute(job, HARD_LIMIT) {
        ExecOutcome::Done(e) => e,
        ExecOutcome::Io(e) => {
            rec.verdict = Verdict::Fail(format!("test harness: {e}"));
            return rec;
        }
        ExecOutcome::Panicked(m) => {
            rec.verdict = Verdict::Fail(format!("PANIC: {m}"));
            return rec;
        }
        ExecOutcome::TimedOut(d) => {
            rec.parse_time = Some(d);
            rec.verdict = Verdict::Fail(format!("HANG: no answer after {} s", d.as_secs()));
            return rec;
        }
    };
    rec.parse_time = Some(exec.parse_time);
    rec.parse = Some(exec.parse.clone());
    rec.refused_external = exec.refused_external.clone();
    let accepted = exec.parse.is_ok();
    if let Some(why) = not_applicable {
        rec.verdict = Verdict::Skip(why);
        return rec;
    }
    rec.verdict = match t.ty {
        TestType::NotWf if external => Verdict::Skip(SKIP_EXTERNAL),
        TestType::NotWf => {
            if accepted {
                Verdict::Fail("accepted a document that is not well-formed".to_string())
            } else {
                Verdict::Pass
            }
        }
        TestType::Error => {
            rec.error_accepted = Some(accepted);
            Verdict::Pass
        }
        TestType::Valid | TestType::Invalid => match (&exec.parse, exec.canonical) {
            (Err(e), _) => Verdict::Fail(format!("rejected a well-formed document: {e}")),
            (Ok(()), None) => Verdict::Pass,
            (Ok(()), Some(Err(e))) => Verdict::Fail(format!("canonical writer: {e}")),
            (Ok(()), Some(Ok(actual))) => {
                let out_path = xmlconf.join(t.output.as_deref().unwrap_or_default());
                rec.output_compared = true;
                match std::fs::read(&out_path) {
                    Err(e) => Verdict::Fail(format!("test harness: cannot read OUTPUT {}: {e}", out_path.display())),
                    Ok(expected) if expected == actual => Verdict::Pass,
                    Ok(expected) => Verdict::Fail(describe_difference(&expected, &actual)),
                }
            }
        },
    };
    rec
}

/// One line saying where two canonical forms first differ.
fn describe_difference(expected: &[u8], actual: &[u8]) -> String {
    let p = expected.iter().zip(actual).take_while(|(a, b)| a == b).count();
    let from = p.saturating_sub(30);
    let show = |b: &[u8]| {
        let end = (p + 50).min(b.len());
        format!("{:?}", String::from_utf8_lossy(&b[from.min(end)..end]))
    };
    format!(
        "canonical form differs at byte {p} (expected {} bytes, got {}): expected …{}… got …{}…",
        expected.len(),
        actual.len(),
        show(expected),
        show(actual)
    )
}

#[derive(Default)]
struct SuiteStats {
    passed: usize,
    applicable: usize,
    skipped: BTreeMap<&'static str, usize>,
}

fn main() -> ExitCode {
    match real_main() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(msg) => {
            loud(&msg);
            ExitCode::from(2)
        }
    }
}

fn real_main() -> Result<bool, String> {
    let args = parse_args()?;
    let corpus = corpus_root()?;
    let xmlconf = corpus.join("xmlconf");
    let catalog_path = xmlconf.join("xmlconf-flattened.xml");
    if !catalog_path.is_file() {
        return Err(format!("the xmlconf catalog is missing: {}", catalog_path.display()));
    }
    let expected_path = crate_dir().join("expected-failures").join("xmlconf.txt");
    let expected = expected::ExpectedFailures::read(&expected_path)?;

    let all = catalog::load(&catalog_path)?;
    let mut ok = true;
    if all.len() != EXPECTED_TEST_COUNT {
        return Err(format!(
            "the catalog {} has {} TEST elements, expected {EXPECTED_TEST_COUNT}: the corpus changed or the catalog walk is broken",
            catalog_path.display(),
            all.len()
        ));
    }
    let mut ids = HashSet::new();
    for t in &all {
        if !ids.insert(t.id.as_str()) {
            return Err(format!("duplicate test ID {} in the catalog", t.id));
        }
    }

    println!("xmlconf: {} ({} TEST elements)", xmlconf.display(), all.len());
    runner::install_panic_hook();
    let started = Instant::now();
    let selected: Vec<(usize, &TestCase)> =
        all.iter().enumerate().filter(|(_, t)| args.filter.as_deref().is_none_or(|f| t.id.contains(f) || t.uri.contains(f))).collect();
    if selected.is_empty() {
        return Err(format!("--filter {:?} matches no test", args.filter.unwrap_or_default()));
    }

    let mut records: Vec<(usize, &TestCase, Record)> = Vec::with_capacity(selected.len());
    let mut runner = runner::Runner::new();
    for &(i, t) in &selected {
        records.push((i, t, run_test(&mut runner, &xmlconf, t)));
    }
    let elapsed = started.elapsed();

    // ---- per-suite table ---------------------------------------------------------
    let mut suites: Vec<(String, SuiteStats)> = Vec::new();
    let mut total = SuiteStats::default();
    for (_, t, r) in &records {
        let idx = match suites.iter().position(|(s, _)| *s == t.suite) {
            Some(i) => i,
            None => {
                suites.push((t.suite.clone(), SuiteStats::default()));
                suites.len() - 1
            }
        };
        for st in [&mut suites[idx].1, &mut total] {
            match &r.verdict {
                Verdict::Pass => {
                    st.passed += 1;
                    st.applicable += 1;
                }
                Verdict::Fail(_) => st.applicable += 1,
                Verdict::Skip(why) => *st.skipped.entry(why).or_insert(0) += 1,
            }
        }
    }
    let pct = |p: usize, a: usize| if a == 0 { 100.0 } else { 100.0 * p as f64 / a as f64 };
    let skipped_text = |s: &SuiteStats| {
        if s.skipped.is_empty() {
            String::new()
        } else {
            let n: usize = s.skipped.values().sum();
            let parts: Vec<String> = s.skipped.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            format!("skipped {n} ({})", parts.join("; "))
        }
    };
    let width = suites.iter().map(|(s, _)| s.len()).max().unwrap_or(0).max(7);
    println!();
    println!("{:<width$}  {:>11}  {:>6}  skipped", "suite", "passed", "%");
    for (name, s) in &suites {
        let frac = format!("{}/{}", s.passed, s.applicable);
        println!("{name:<width$}  {frac:>11}  {:>5.1}%  {}", pct(s.passed, s.applicable), skipped_text(s));
    }
    let frac = format!("{}/{}", total.passed, total.applicable);
    println!("{:<width$}  {frac:>11}  {:>5.1}%  {}", "overall", pct(total.passed, total.applicable), skipped_text(&total));

    let compared = records.iter().filter(|(_, _, r)| r.output_compared).count();
    let compared_ok = records.iter().filter(|(_, _, r)| r.output_compared && matches!(r.verdict, Verdict::Pass)).count();
    let out_external = records.iter().filter(|(_, _, r)| r.output_skipped_external).count();
    let err_acc = records.iter().filter(|(_, _, r)| r.error_accepted == Some(true)).count();
    let err_rej = records.iter().filter(|(_, _, r)| r.error_accepted == Some(false)).count();
    println!();
    println!("canonical output: {compared_ok}/{compared} match; {out_external} OUTPUT files not compared (test needs external entities)");
    println!("TYPE=error tests (either outcome passes): {err_acc} accepted, {err_rej} rejected");
    let ignore = records.iter().filter(|(_, t, _)| t.entities != "none").count();
    let refused: Vec<_> = records.iter().filter(|(_, _, r)| r.refused_external.is_some()).collect();
    println!(
        "external identifiers: {ignore} tests with ENTITIES other than none parsed with ExternalPolicy::Ignore; \
         {} with ENTITIES=none refused by the default policy (ExternalPolicy::Forbid) and parsed again with Ignore",
        refused.len()
    );
    if args.verbose {
        for (_, t, r) in &refused {
            println!("  {} [{}] {}: {}", t.id, t.ty.as_str(), t.uri, r.refused_external.as_deref().unwrap_or_default());
        }
    }
    println!(
        "parsed on {} worker thread(s), through the per-thread parser (default options) and one reused parser per other option set",
        runner.workers
    );
    let either: Vec<_> = records.iter().filter(|(_, _, r)| matches!(r.verdict, Verdict::Skip(SKIP_EXTERNAL))).collect();
    if !either.is_empty() {
        let rejected = either.iter().filter(|(_, _, r)| matches!(r.parse, Some(Err(_)))).count();
        println!(
            "not-wf tests needing external entities (parsed, either outcome allowed): {rejected} rejected, {} accepted",
            either.len() - rejected
        );
    }
    if let Some((_, t, r)) = records.iter().filter(|(_, _, r)| r.parse_time.is_some()).max_by_key(|(_, _, r)| r.parse_time) {
        println!(
            "slowest parse: {:.3} ms ({}); time guard {} s",
            r.parse_time.unwrap_or_default().as_secs_f64() * 1000.0,
            t.id,
            SLOW_PARSE.as_secs()
        );
    }
    println!("ran {} of {} tests in {:.2} s", records.len(), all.len(), elapsed.as_secs_f64());

    // ---- time guard --------------------------------------------------------------
    let slow: Vec<_> = records.iter().filter(|(_, _, r)| r.parse_time.is_some_and(|d| d > SLOW_PARSE)).collect();
    if !slow.is_empty() {
        ok = false;
        let lines: Vec<String> =
            slow.iter().map(|(_, t, r)| format!("{}: {:.3} s ({})", t.id, r.parse_time.unwrap_or_default().as_secs_f64(), t.uri)).collect();
        loud(&format!("{} test documents took over {} s to parse:\n{}", slow.len(), SLOW_PARSE.as_secs(), lines.join("\n")));
    }

    // ---- failures ------------------------------------------------------------------
    let reasons = expected.reasons();
    let failing: Vec<&(usize, &TestCase, Record)> = records.iter().filter(|(_, _, r)| matches!(r.verdict, Verdict::Fail(_))).collect();
    if args.verbose {
        if !failing.is_empty() {
            println!("\nfailures:");
        }
        for (_, t, r) in &failing {
            print_failure(t, r, reasons.get(t.id.as_str()).copied());
        }
        let errs: Vec<_> = records.iter().filter(|(_, _, r)| r.error_accepted.is_some()).collect();
        if !errs.is_empty() {
            println!("\nTYPE=error tests:");
            for (_, t, r) in errs {
                let how = match &r.parse {
                    Some(Err(e)) => format!("rejected: {e}"),
                    _ => "accepted".to_string(),
                };
                println!("  {} ({}): {how}", t.id, t.uri);
            }
        }
    }

    // ---- compare with the expected-failures list -----------------------------------
    let ran: HashMap<&str, &Record> = records.iter().map(|(_, t, r)| (t.id.as_str(), r)).collect();
    let catalog_ids: HashMap<&str, (usize, &TestCase)> = all.iter().enumerate().map(|(i, t)| (t.id.as_str(), (i, t))).collect();
    let unexpected: Vec<_> = failing.iter().filter(|(_, t, _)| !reasons.contains_key(t.id.as_str())).collect();
    let mut newly_passing = Vec::new();
    let mut listed_skipped = Vec::new();
    let mut listed_unknown = Vec::new();
    for (id, _) in &expected.entries {
        match ran.get(id.as_str()) {
            Some(r) => match r.verdict {
                Verdict::Pass => newly_passing.push(id.as_str()),
                Verdict::Skip(why) => listed_skipped.push((id.as_str(), why)),
                Verdict::Fail(_) => {}
            },
            None if !catalog_ids.contains_key(id.as_str()) => listed_unknown.push(id.as_str()),
            None => {} // filtered out
        }
    }

    if args.update_expected {
        // (catalog index, test, reason) of every ID the new list holds.
        let mut keep: Vec<(usize, &TestCase, String)> = Vec::new();
        // Listed tests that were not run this time (--filter) stay listed.
        for (id, reason) in &expected.entries {
            if !ran.contains_key(id.as_str()) {
                if let Some(&(i, t)) = catalog_ids.get(id.as_str()) {
                    keep.push((i, t, reason.clone()));
                }
            }
        }
        for (i, t, _) in &failing {
            keep.push((*i, t, reasons.get(t.id.as_str()).copied().unwrap_or("").to_string()));
        }
        keep.sort_by_key(|(i, _, _)| *i);
        // Grouped by suite, suites in catalog order (keyed by the suite's first test).
        let mut groups: BTreeMap<usize, expected::Group> = BTreeMap::new();
        for (i, t, reason) in keep {
            let key = all.iter().position(|x| x.suite == t.suite).unwrap_or(i);
            groups.entry(key).or_insert_with(|| (t.suite.clone(), Vec::new())).1.push((t.id.clone(), reason));
        }
        let groups: Vec<expected::Group> = groups.into_values().collect();
        expected::write(&expected_path, &groups)?;
        let n: usize = groups.iter().map(|(_, v)| v.len()).sum();
        println!(
            "\nwrote {} ({n} IDs: {} new, {} removed as passing, {} removed as not applicable, {} removed as unknown)",
            expected_path.display(),
            unexpected.len(),
            newly_passing.len(),
            listed_skipped.len(),
            listed_unknown.len()
        );
        return Ok(ok);
    }

    println!("\nexpected failures ({}): {} listed; {} failing now", expected_path.display(), expected.entries.len(), failing.len());
    if !unexpected.is_empty() {
        ok = false;
        println!("\nUNEXPECTED FAILURES ({}), not in the expected-failures list:", unexpected.len());
        for (_, t, r) in &unexpected {
            if let Verdict::Fail(d) = &r.verdict {
                println!("  {} [{}] {}: {d}", t.id, t.ty.as_str(), t.uri);
            }
        }
    }
    if !newly_passing.is_empty() {
        ok = false;
        println!("\nNEWLY PASSING ({}): remove from the expected-failures list:", newly_passing.len());
        for id in &newly_passing {
            println!("  {id}");
        }
    }
    if !listed_skipped.is_empty() {
        ok = false;
        println!("\nLISTED BUT NOT APPLICABLE ({}): remove from the expected-failures list:", listed_skipped.len());
        for (id, why) in &listed_skipped {
            println!("  {id} ({why})");
        }
    }
    if !listed_unknown.is_empty() {
        ok = false;
        println!("\nLISTED BUT NOT IN THE CATALOG ({}): remove from the expected-failures list:", listed_unknown.len());
        for id in &listed_unknown {
            println!("  {id}");
        }
    }
    if ok {
        println!("\nOK: the failures are exactly the expected ones.");
    } else {
        println!("\nFAILED (run with --verbose for details; --update-expected rewrites the list)");
    }
    Ok(ok)
}

fn print_failure(t: &TestCase, r: &Record, listed: Option<&str>) {
    println!("\nFAIL {} [{}{}] {}", t.id, t.ty.as_str(), if t.namespaces { "" } else { ", NAMESPACE=no" }, t.uri);
    if !t.sections.is_empty() {
        println!("  sections: {}", t.sections);
    }
    println!("  description: {}", t.description);
    if let Verdict::Fail(d) = &r.verdict {
        println!("  problem: {d}");
    }
    if let Some(Err(e)) = &r.parse {
        if !matches!(&r.verdict, Verdict::Fail(d) if d.contains(e.as_str())) {
            println!("  parser error: {e}");
        }
    }
    match listed {
        Some(reason) => println!("  expected failure: {reason}"),
        None => println!("  NOT in the expected-failures list"),
    }
}
