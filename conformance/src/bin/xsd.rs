//! `xsd`: runs the W3C XML Schema Test Suite (XSD 1.0 subset in
//! `$VTDX_CORPUS/xsd`, see its PROVENANCE.md) against `vtdx-schema` and
//! compares the failures with `expected-failures/xsd.txt`.
//!
//! ```text
//! cargo run --release -p vtdx-conformance --bin xsd -- [--verbose] [--filter SUBSTR] [--update-expected]
//! ```
//!
//! Catalogs: `msMeta/*_w3c.xml`, `sunMeta/*.testSet`, `boeingMeta/*.testSet`,
//! `wgMeta/{IRI,substitution-groups}.testSet`. Items marked only for XSD 1.1 are
//! skipped; of several `expected` elements the one for XSD 1.0 (or without a
//! version; for Unicode-dependent tests the Unicode 6.0.0 one) is used;
//! `indeterminate` results are skipped; tests whose review status is neither
//! `accepted`, `stable` nor absent are counted apart ("contested") and never fail
//! the run. A schema test passes when vtdx accepts exactly the schemas the suite
//! calls valid; an instance test when vtdx's verdict on the instance (validated
//! against the group's schema, or, when the group has none, against the schema its
//! document element's `xsi:schemaLocation` / `xsi:noNamespaceSchemaLocation` hints
//! name, local files only; with the built-in types only when it has no hints)
//! matches. An instance of a schema vtdx rejects counts as invalid. Each instance
//! is validated twice, with typed values (the general path) and without them (the
//! short paths `vtdx validate` takes on the bytes as written); two different
//! verdicts fail the test.

#![forbid(unsafe_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use vtdx_core::{Document, Node};
use vtdx_schema::{HintScope, Schema, SchemaBuilder, ValidateOptions};

const TS: &str = "http://www.w3.org/XML/2004/xml-schema-test-suite/";
const XLINK: &str = "http://www.w3.org/1999/xlink";

/// Test cases this runner finds in the corpus (binding and contested, schema and
/// instance). A different number means the corpus moved.
const EXPECTED_CASES: usize = 16_053;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Set {
    Ms,
    Sun,
    Boeing,
    Wg,
}

impl Set {
    fn name(self) -> &'static str {
        match self {
            Set::Ms => "ms",
            Set::Sun => "sun",
            Set::Boeing => "boeing",
            Set::Wg => "wg",
        }
    }
}

struct Case {
    id: String,
    set: Set,
    schema: bool,
    docs: Vec<PathBuf>,
    /// For instance tests: the group's schema documents (`None`: no schemaTest).
    group_schema: Option<Vec<PathBuf>>,
    valid: bool,
    binding: bool,
}

fn corpus() -> PathBuf {
    match std::env::var_os("VTDX_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
    }
}

fn versions_skip(n: Node<'_>) -> bool {
    match n.attribute("version") {
        None => false,
        Some(v) => {
            let toks: Vec<&str> = v.split_ascii_whitespace().collect();
            toks.iter().any(|t| t.starts_with("1.1")) && !toks.contains(&"1.0")
        }
    }
}

fn ts_children<'d>(n: Node<'d>, local: &'static str) -> impl Iterator<Item = Node<'d>> + 'd {
    n.element_children().filter(move |c| c.namespace_uri() == Some(TS) && c.local_name() == local)
}

/// The expected validity for XSD 1.0: `Some(true|false)`, or `None` (skip).
fn expected(n: Node<'_>) -> Option<bool> {
    let mut best: Option<(u8, String)> = None;
    for e in ts_children(n, "expected") {
        let rank = match e.attribute("version").as_deref() {
            None => 1,
            Some(v) if v.split_ascii_whitespace().any(|t| t == "1.0") => 0,
            Some(v) if v.contains("Unicode_6") => 2,
            Some(v) if v.split_ascii_whitespace().all(|t| t.starts_with("1.1")) => continue,
            Some(_) => 3,
        };
        let val = e.attribute("validity").map(|s| s.into_owned()).unwrap_or_default();
        if best.as_ref().is_none_or(|(r, _)| rank < *r) {
            best = Some((rank, val));
        }
    }
    match best?.1.as_str() {
        "valid" => Some(true),
        "invalid" => Some(false),
        _ => None,
    }
}

fn binding(n: Node<'_>) -> bool {
    match ts_children(n, "current").next() {
        None => true,
        Some(c) => matches!(c.attribute("status").as_deref(), None | Some("accepted") | Some("stable")),
    }
}

fn href(base: &Path, n: Node<'_>) -> Option<PathBuf> {
    let h = n.attribute_ns(Some(XLINK), "href")?;
    Some(base.join(h.as_ref()))
}

fn read_catalog(path: &Path, set: Set, out: &mut Vec<Case>, skipped: &mut usize) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc = Document::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let base = path.parent().unwrap_or(Path::new("."));
    let stem = path.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    for g in ts_children(doc.root_element(), "testGroup") {
        let gname = g.attribute("name").map(|s| s.into_owned()).unwrap_or_default();
        if versions_skip(g) {
            *skipped += 1 + g.element_children().count();
            continue;
        }
        let st = ts_children(g, "schemaTest").next();
        let mut schema_docs: Option<Vec<PathBuf>> = None;
        if let Some(st) = st {
            let docs: Vec<PathBuf> = ts_children(st, "schemaDocument").filter_map(|d| href(base, d)).collect();
            schema_docs = Some(docs.clone());
            if versions_skip(st) {
                *skipped += 1;
            } else if let Some(v) = expected(st) {
                let name = st.attribute("name").map(|s| s.into_owned()).unwrap_or_default();
                out.push(Case {
                    id: format!("{stem}:{gname}:{name}"),
                    set,
                    schema: true,
                    docs,
                    group_schema: None,
                    valid: v,
                    binding: binding(st),
                });
            } else {
                *skipped += 1;
            }
        }
        for it in ts_children(g, "instanceTest") {
            if versions_skip(it) {
                *skipped += 1;
                continue;
            }
            let Some(v) = expected(it) else {
                *skipped += 1;
                continue;
            };
            let Some(doc) = ts_children(it, "instanceDocument").next().and_then(|d| href(base, d)) else { continue };
            if !doc.exists() {
                // wgMeta/substitution-groups names five files missing upstream (PROVENANCE.md).
                *skipped += 1;
                continue;
            }
            let name = it.attribute("name").map(|s| s.into_owned()).unwrap_or_default();
            out.push(Case {
                id: format!("{stem}:{gname}:{name}"),
                set,
                schema: false,
                docs: vec![doc],
                group_schema: Some(schema_docs.clone().unwrap_or_default()),
                valid: v,
                binding: binding(it),
            });
        }
    }
    Ok(())
}

fn load(docs: &[PathBuf]) -> Result<Schema, String> {
    let b = docs.iter().fold(SchemaBuilder::new(), |b, p| b.file(p));
    b.build().map_err(|e| e.to_string())
}

/// vtdx's verdict and a one-line note (the first error).
fn run_case(c: &Case, cache: &mut BTreeMap<Vec<PathBuf>, Result<std::sync::Arc<Schema>, String>>) -> (bool, String) {
    if c.schema {
        return match load(&c.docs) {
            Ok(_) => (true, String::new()),
            Err(e) => (false, e),
        };
    }
    let key = c.group_schema.clone().unwrap_or_default();
    let bytes = match std::fs::read(&c.docs[0]) {
        Ok(b) => b,
        Err(e) => return (false, e.to_string()),
    };
    let doc = match Document::parse(&bytes) {
        Ok(d) => d,
        Err(e) => return (false, format!("not well-formed: {e}")),
    };
    let schema = if key.is_empty() {
        // No schema documents of its own: the instance's schema location hints (opt-in).
        let base = c.docs[0].parent().map(Path::to_path_buf).unwrap_or_default();
        let name = c.docs[0].display().to_string();
        SchemaBuilder::new()
            .schema_location_hints(&doc, &name, base, HintScope::AllElements)
            .and_then(SchemaBuilder::build)
            .map(std::sync::Arc::new)
            .map_err(|e| e.to_string())
    } else {
        cache.entry(key.clone()).or_insert_with(|| load(&key).map(std::sync::Arc::new)).clone()
    };
    let schema = match schema {
        Ok(s) => s,
        Err(e) => return (false, format!("schema rejected: {e}")),
    };
    let v = schema.validate(&doc);
    // The same instance again without typed values, as `vtdx validate` runs: that takes
    // the short paths on the bytes as written, which must reach the same verdict.
    let short = schema.validate_with(&doc, &ValidateOptions { typed_values: false, ..ValidateOptions::default() });
    if short.is_valid() != v.is_valid() {
        let e = v.errors().first().or(short.errors().first()).map_or(String::new(), |e| format!("{}: {}", e.location, e.message));
        return (
            false,
            format!("the short paths (typed values off) say {} where the full check says {}: {e}", verdict(&short), verdict(&v)),
        );
    }
    match v.errors().first() {
        None => (true, String::new()),
        Some(e) => (false, format!("{}: {}", e.location, e.message)),
    }
}

fn verdict(v: &vtdx_schema::Validation<'_>) -> &'static str {
    if v.is_valid() {
        "valid"
    } else {
        "invalid"
    }
}

fn main() -> ExitCode {
    let mut verbose = false;
    let mut update = false;
    let mut filter: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--verbose" => verbose = true,
            "--update-expected" => update = true,
            "--filter" => filter = args.next(),
            "-h" | "--help" => {
                println!("usage: xsd [--verbose] [--filter SUBSTR] [--update-expected]");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("xsd: unknown argument {other:?}");
                return ExitCode::from(2);
            }
        }
    }
    let root = corpus().join("xsd");
    if !root.join("PROVENANCE.md").exists() {
        eprintln!("xsd: the XML Schema test suite is missing at {} (set VTDX_CORPUS)", root.display());
        return ExitCode::from(2);
    }
    let mut catalogs: Vec<(PathBuf, Set)> = Vec::new();
    let list = |dir: &str, pred: &dyn Fn(&str) -> bool| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> =
            std::fs::read_dir(root.join(dir)).map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
        v.retain(|p| p.file_name().and_then(|s| s.to_str()).is_some_and(pred));
        v.sort();
        v
    };
    for p in list("msMeta", &|n| n.ends_with("_w3c.xml")) {
        catalogs.push((p, Set::Ms));
    }
    for p in list("sunMeta", &|n| n.ends_with(".testSet")) {
        catalogs.push((p, Set::Sun));
    }
    for p in list("boeingMeta", &|n| n.ends_with(".testSet")) {
        catalogs.push((p, Set::Boeing));
    }
    for p in list("wgMeta", &|n| n == "IRI.testSet" || n == "substitution-groups.testSet") {
        catalogs.push((p, Set::Wg));
    }
    let mut cases = Vec::new();
    let mut skipped = 0;
    for (p, s) in &catalogs {
        if let Err(e) = read_catalog(p, *s, &mut cases, &mut skipped) {
            eprintln!("xsd: {e}");
            return ExitCode::from(2);
        }
    }
    if filter.is_none() && cases.len() != EXPECTED_CASES {
        eprintln!("xsd: found {} test cases in {} catalogs; expected {EXPECTED_CASES} (did the corpus move?)", cases.len(), catalogs.len());
        return ExitCode::from(2);
    }
    if let Some(f) = &filter {
        cases.retain(|c| c.id.contains(f.as_str()));
    }
    // Silence panic messages: a panic is a failure with its own note.
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    let mut cache = BTreeMap::new();
    // (set, schema?) -> (pass, total); contested counted apart.
    let mut tally: BTreeMap<(Set, bool), (usize, usize)> = BTreeMap::new();
    let mut contested = (0usize, 0usize);
    let mut failures: BTreeMap<String, String> = BTreeMap::new();
    for c in &cases {
        let t0 = Instant::now();
        let r = std::panic::catch_unwind(AssertUnwindSafe(|| run_case(c, &mut cache)));
        let (verdict, note) = match r {
            Ok(x) => x,
            Err(p) => {
                let msg =
                    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_default();
                (!c.valid, format!("PANIC {msg}"))
            }
        };
        let panicked = note.starts_with("PANIC");
        let ok = verdict == c.valid && !panicked;
        let el = t0.elapsed();
        if el.as_secs() >= 5 {
            eprintln!("xsd: slow case {} ({:.1} s)", c.id, el.as_secs_f64());
        }
        if !c.binding {
            contested.1 += 1;
            contested.0 += usize::from(ok);
            continue;
        }
        let t = tally.entry((c.set, c.schema)).or_default();
        t.1 += 1;
        if ok {
            t.0 += 1;
        } else {
            let what = if c.valid { "expected valid, vtdx rejects" } else { "expected invalid, vtdx accepts" };
            let mut reason = if note.is_empty() { what.to_string() } else { format!("{what}: {note}") };
            reason = reason.replace('\n', " ");
            if reason.chars().count() > 200 {
                reason = reason.chars().take(200).collect::<String>() + "…";
            }
            if verbose {
                println!("FAIL {} ({})", c.id, reason);
            }
            failures.insert(c.id.clone(), reason);
        }
    }
    let took = start.elapsed();
    println!("W3C XML Schema Test Suite (XSD 1.0), {} cases, {skipped} skipped (XSD 1.1 only, indeterminate, missing files)", cases.len());
    println!("{:<8} {:>22} {:>22}", "set", "schema tests", "instance tests");
    let (mut tp, mut tt) = (0, 0);
    for s in [Set::Ms, Set::Sun, Set::Boeing, Set::Wg] {
        let a = tally.get(&(s, true)).copied().unwrap_or_default();
        let b = tally.get(&(s, false)).copied().unwrap_or_default();
        tp += a.0 + b.0;
        tt += a.1 + b.1;
        let pct = |x: (usize, usize)| if x.1 == 0 { 100.0 } else { 100.0 * x.0 as f64 / x.1 as f64 };
        println!("{:<8} {:>8}/{:<6} {:5.1}% {:>8}/{:<6} {:5.1}%", s.name(), a.0, a.1, pct(a), b.0, b.1, pct(b));
    }
    println!(
        "total    {tp}/{tt} ({:.1}%); contested (queried/disputed) {}/{} passed; {:.1} s",
        100.0 * tp as f64 / tt.max(1) as f64,
        contested.0,
        contested.1,
        took.as_secs_f64()
    );
    let exp_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("expected-failures/xsd.txt");
    if update {
        let mut s = String::from(
            "# Binding tests of the W3C XML Schema Test Suite (XSD 1.0 subset) that vtdx fails.\n\
             # `catalog:group:test  # reason` (the reason: which way the verdict differs and vtdx's first error).\n\
             # The runner fails when a test fails that is not listed here, or a listed test passes.\n\
             # Regenerate with `cargo run --release -p vtdx-conformance --bin xsd -- --update-expected`.\n",
        );
        for (id, r) in &failures {
            s.push_str(&format!("{id}  # {r}\n"));
        }
        if let Err(e) = std::fs::write(&exp_path, s) {
            eprintln!("xsd: cannot write {}: {e}", exp_path.display());
            return ExitCode::from(2);
        }
        println!("wrote {} ({} entries)", exp_path.display(), failures.len());
        return ExitCode::SUCCESS;
    }
    let listed: BTreeSet<String> = std::fs::read_to_string(&exp_path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split("  #").next().unwrap_or("").trim().to_string())
        .collect();
    let ran: BTreeSet<&str> = cases.iter().filter(|c| c.binding).map(|c| c.id.as_str()).collect();
    let new_fail: Vec<&String> = failures.keys().filter(|k| !listed.contains(*k)).collect();
    let new_pass: Vec<&String> = listed.iter().filter(|k| ran.contains(k.as_str()) && !failures.contains_key(*k)).collect();
    for k in &new_fail {
        println!("NEW FAILURE {k}  # {}", failures[*k]);
    }
    for k in &new_pass {
        println!("NOW PASSES  {k} (remove it from expected-failures/xsd.txt)");
    }
    if new_fail.is_empty() && new_pass.is_empty() {
        println!("failures match expected-failures/xsd.txt ({} listed)", listed.len());
        ExitCode::SUCCESS
    } else {
        println!("{} new failures, {} newly passing", new_fail.len(), new_pass.len());
        ExitCode::FAILURE
    }
}
