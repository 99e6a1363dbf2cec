//! XSD regular expressions against the W3C XML Schema Test Suite's regex tests
//! (`msMeta/Regex_w3c.xml` over `msData/regex`): the expected verdicts are the suite's.
//!
//! A test group is used when its schema has one `<restriction base="xs:string">` whose
//! only facets are patterns; the schema test says whether the patterns compile, and each
//! instance test whether every value (the `value` attribute of the root, or the text of
//! each `elem`) matches. Disagreements must be listed, with a reason, in
//! `testdata/schema/datatypes/regex-w3c-exclusions.txt`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use vtdx_core::Document;
use vtdx_schema::regex::XsdRegex;

fn corpus() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::env::var_os("VTDX_CORPUS").map(PathBuf::from).unwrap_or_else(|| root.join("../shared/corpus"))
}

fn exclusions() -> BTreeMap<String, String> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/schema/datatypes/regex-w3c-exclusions.txt");
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, reason) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            assert!(!reason.trim().is_empty(), "exclusion {name} has no reason");
            (name.to_string(), reason.trim().to_string())
        })
        .collect()
}

/// The pattern values of a schema whose single restriction of xs:string has only
/// pattern facets, and the name of the attribute it types (`None`: element content).
fn patterns(xsd: &[u8]) -> Option<(Vec<String>, Option<String>)> {
    let doc = Document::parse(xsd).ok()?;
    let mut restrictions = doc.root_element().descendant_elements().filter(|e| e.local_name() == "restriction");
    let r = restrictions.next()?;
    if restrictions.next().is_some() {
        return None;
    }
    let base = r.attribute("base")?;
    if base.rsplit(':').next() != Some("string") {
        return None;
    }
    let mut out = Vec::new();
    for f in r.element_children() {
        match f.local_name() {
            "pattern" => out.push(f.attribute("value")?.into_owned()),
            "annotation" => {}
            _ => return None,
        }
    }
    let attr =
        r.ancestors().find(|a| a.is_element() && a.local_name() == "attribute").and_then(|a| a.attribute("name").map(|n| n.into_owned()));
    (!out.is_empty()).then_some((out, attr))
}

/// The values the restriction applies to: the attribute `attr` wherever it stands, or
/// the content of each `elem`.
fn values(xml: &[u8], attr: Option<&str>) -> Option<Vec<String>> {
    let doc = Document::parse(xml).ok()?;
    let root = doc.root_element();
    let v: Vec<String> = match attr {
        Some(a) => std::iter::once(root).chain(root.descendant_elements()).filter_map(|e| e.attribute(a).map(|v| v.into_owned())).collect(),
        None => root
            .descendant_elements()
            .filter(|e| e.local_name() == "elem")
            .map(|e| e.text().map(|t| t.into_owned()).unwrap_or_default())
            .collect(),
    };
    (!v.is_empty()).then_some(v)
}

#[test]
fn w3c_regex_suite() {
    let meta = corpus().join("xsd/msMeta/Regex_w3c.xml");
    let catalog = std::fs::read(&meta).unwrap_or_else(|e| panic!("the W3C XSD suite is missing at {}: {e}", meta.display()));
    let doc = Document::parse(&catalog).expect("catalog parses");
    let excl = exclusions();
    let (mut groups, mut used, mut schema_cases, mut instance_cases) = (0, 0, 0, 0);
    let mut mismatches: Vec<String> = Vec::new();
    let mut seen_excluded = Vec::new();
    for g in doc.root_element().element_children().filter(|e| e.local_name() == "testGroup") {
        groups += 1;
        let st = match g.element_children().find(|e| e.local_name() == "schemaTest") {
            Some(s) => s,
            None => continue,
        };
        let href = |n: vtdx_core::Node<'_>, child: &str| -> Option<PathBuf> {
            let d = n.element_children().find(|e| e.local_name() == child)?;
            let h = d.attribute_ns(Some("http://www.w3.org/1999/xlink"), "href")?;
            Some(meta.parent().unwrap().join(&*h))
        };
        let expected = |n: vtdx_core::Node<'_>| -> Option<bool> {
            let e = n.element_children().find(|e| e.local_name() == "expected")?;
            Some(e.attribute("validity")?.as_ref() == "valid")
        };
        let Some(xsd_path) = href(st, "schemaDocument") else { continue };
        let Ok(xsd) = std::fs::read(&xsd_path) else { continue };
        let Some((pats, attr)) = patterns(&xsd) else { continue };
        used += 1;
        let name = st.attribute("name").map(|s| s.into_owned()).unwrap_or_default();
        let compiled: Result<Vec<XsdRegex>, _> = pats.iter().map(|p| XsdRegex::new(p)).collect();
        schema_cases += 1;
        let want = expected(st).unwrap_or(true);
        if compiled.is_ok() != want {
            let msg = match &compiled {
                Err(e) => format!("{name}: pattern {pats:?} rejected ({e}) but the suite says valid"),
                Ok(_) => format!("{name}: pattern {pats:?} accepted but the suite says invalid"),
            };
            if excl.contains_key(&name) {
                seen_excluded.push(name.clone());
            } else {
                mismatches.push(msg);
            }
        }
        let Ok(res) = compiled else { continue };
        for it in g.element_children().filter(|e| e.local_name() == "instanceTest") {
            let iname = it.attribute("name").map(|s| s.into_owned()).unwrap_or_default();
            let Some(p) = href(it, "instanceDocument") else { continue };
            let Ok(xml) = std::fs::read(&p) else { continue };
            let Some(vals) = values(&xml, attr.as_deref()) else { continue };
            instance_cases += 1;
            let got = vals.iter().all(|v| res.iter().any(|r| r.is_match(v)));
            let want = expected(it).unwrap_or(true);
            if got != want {
                if excl.contains_key(&iname) {
                    seen_excluded.push(iname.clone());
                } else {
                    mismatches.push(format!(
                        "{iname}: pattern {pats:?} on {vals:?}: got {} but the suite says {}",
                        if got { "valid" } else { "invalid" },
                        if want { "valid" } else { "invalid" }
                    ));
                }
            }
        }
    }
    let stale: Vec<&String> = excl.keys().filter(|k| !seen_excluded.contains(k)).collect();
    println!(
        "W3C regex suite: {groups} groups, {used} used, {schema_cases} schema cases, {instance_cases} instance cases, {} excluded, {} mismatches",
        seen_excluded.len(),
        mismatches.len()
    );
    // the suite has 2590 groups; a moved corpus must not pass silently
    assert_eq!(groups, 2590, "unexpected number of test groups in Regex_w3c.xml");
    assert!(used > 2400 && instance_cases > 1300, "too few cases used: {used} schemas, {instance_cases} instances");
    assert!(mismatches.is_empty(), "{} disagreements with the suite:\n{}", mismatches.len(), mismatches.join("\n"));
    assert!(stale.is_empty(), "exclusions that now pass (remove them): {stale:?}");
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

/// Random patterns built from XSD and Perl syntax fragments never panic, and compile
/// within the limits or fail with an error; when a pattern compiles, matching random
/// values terminates (the `regex` crate is linear-time).
#[test]
fn random_patterns_never_panic() {
    let atoms = [
        "a",
        "b",
        ".",
        "\\d",
        "\\w",
        "\\i",
        "\\c",
        "\\p{Lu}",
        "\\P{IsBasicLatin}",
        "[a-z]",
        "[^a]",
        "[a-z-[aeiou]]",
        "(",
        ")",
        "|",
        "*",
        "+",
        "?",
        "{2}",
        "{1,3}",
        "{2,}",
        "{,2}",
        "[",
        "]",
        "-",
        "^",
        "$",
        "\\",
        "\\b",
        "(?:",
        "[a-",
        "\\p{",
        "}",
        "{",
        "&&",
        "--",
        "~~",
        "#",
        " ",
        "\u{e9}",
        "\u{10000}",
        "{0,1000}",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut ok, mut err) = (0, 0);
    for _ in 0..20_000 {
        let n = 1 + rng.next() % 8;
        let p: String = (0..n).map(|_| rng.pick(&atoms)).collect();
        match XsdRegex::new(&p) {
            Ok(re) => {
                ok += 1;
                for v in ["", "a", "ab", "\u{e9}", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"] {
                    let _ = re.is_match(v);
                }
            }
            Err(e) => {
                err += 1;
                assert!(!e.message.is_empty());
            }
        }
    }
    assert!(ok > 1000 && err > 1000, "generator lost its spread: {ok} compiled, {err} rejected");
}
