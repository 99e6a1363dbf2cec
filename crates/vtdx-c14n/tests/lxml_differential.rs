//! Differential test against lxml (libxml2): generated documents full of
//! namespace and attribute edge cases (see `common/gen.rs`) are
//! canonicalized by vtdx and by lxml's `etree.tostring(..., method="c14n")`
//! in Canonical XML 1.0 and Exclusive XML Canonicalization 1.0, with and
//! without comments, with InclusiveNamespaces prefix lists, over the whole
//! document and over subtrees, and must agree byte for byte — with the fast
//! path on and off.
//!
//! Subtrees. lxml's `tostring(element, method="c14n")` is not the XML-DSig
//! document subset: in inclusive mode it does not give the apex the `xml:*`
//! attributes it inherits (C14N 1.0 §2.4), and it keeps some redundant
//! namespace redeclarations below the apex (seen: `xmlns:p` redeclared with
//! the URI it has above the apex, on an element that also declares another
//! prefix for that URI). The Python side therefore builds the reference the
//! way the specs define it: it copies the nearest `xml:*` attribute of each
//! name from the apex's ancestors onto the apex (inclusive mode only),
//! serializes the subtree (lxml declares every in-scope namespace on it),
//! re-parses that as a document and canonicalizes the whole document, for
//! which libxml2 follows the specs.
//!
//! The prefix lists never hold `#default`: libxml2 (2.14) ignores it, while
//! the specification treats the default namespace as inclusive then, as the
//! W3C interop vectors (merlin Y1, Y4, Y5, in `merlin_interop.rs`) check.
//!
//! Namespace URIs in the generated documents contain no character that needs
//! escaping: libxml2 writes namespace URIs unescaped (`xmlns:p="a&b"`, not
//! well-formed), where the specs process them like attribute values; vtdx
//! escapes them (unit-tested in `api.rs`).
//!
//! lxml must be installed (`scripts/test.sh` does it); the test fails if it
//! is not. Canonical XML 1.1 is not compared: lxml does not offer it.

mod common;

use common::gen::{Gen, Rng};
use std::fmt::Write as _;
use std::process::Command;
use vtdx_c14n::{Algorithm, Canonicalizer};
use vtdx_core::{Document, Node};

/// Documents generated: fewer in unoptimized builds, to stay within ~30 s.
const DOCS: u64 = if cfg!(debug_assertions) { 600 } else { 2500 };

const SCRIPT: &str = r#"
import sys, json
from lxml import etree
XML = "{http://www.w3.org/XML/1998/namespace}"
parser = etree.XMLParser(attribute_defaults=True, resolve_entities=True, huge_tree=True)
trees = {}
for line in open(sys.argv[1], encoding="utf-8"):
    c = json.loads(line)
    f = c["file"]
    if f not in trees:
        trees[f] = etree.parse(f, parser)
    tree = trees[f]
    try:
        kw = dict(method="c14n", exclusive=c["exclusive"], with_comments=c["comments"])
        if c["prefixes"] is not None:
            kw["inclusive_ns_prefixes"] = c["prefixes"]
        if c["subtree"] < 0:
            out = etree.tostring(tree, **kw)
        else:
            node = list(tree.getroot().iter(etree.Element))[c["subtree"]]
            added = []
            if not c["exclusive"]:
                anc = node.getparent()
                while anc is not None:
                    for k, v in anc.attrib.items():
                        if k.startswith(XML) and k not in node.attrib and all(k != a for a, _ in added):
                            added.append((k, v))
                    anc = anc.getparent()
                for k, v in added:
                    node.set(k, v)
            # the subtree as a document of its own: lxml serializes it with every
            # namespace in scope declared on the apex; then whole-document c14n
            text = etree.tostring(node, with_tail=False)
            for k, _ in added:
                del node.attrib[k]
            sub = etree.fromstring(text, etree.XMLParser(huge_tree=True))
            out = etree.tostring(sub.getroottree(), **kw)
        open(c["out"], "wb").write(out)
    except Exception as e:
        open(c["out"] + ".err", "w").write(repr(e))
"#;

struct Case {
    doc: usize,
    subtree: Option<usize>,
    exclusive: bool,
    comments: bool,
    prefixes: Option<Vec<&'static str>>,
    out: std::path::PathBuf,
}

fn elements<'d>(doc: &'d Document<'d>) -> Vec<Node<'d>> {
    doc.root().descendants().filter(|n| n.is_element()).collect()
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

#[test]
fn differential_against_lxml() {
    let ok = Command::new("python3").args(["-c", "import lxml.etree"]).status().map(|s| s.success()).unwrap_or(false);
    assert!(ok, "python3 with lxml is required for this test: `python3 -m pip install lxml` (scripts/test.sh installs it)");
    let dir = std::env::temp_dir().join(format!("vtdx-c14n-lxml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut sources: Vec<String> = Vec::new();
    let mut cases: Vec<Case> = Vec::new();
    let mut manifest = String::new();
    let mut features = [0usize; 6]; // dtd, xmlns="", CR, CDATA, xml:*, subtrees
    for seed in 0..DOCS {
        let xml = Gen::new(seed).document();
        let doc =
            Document::parse(xml.as_bytes()).unwrap_or_else(|e| panic!("generator made a malformed document (seed {seed}): {e}\n{xml}"));
        let n = elements(&doc).len();
        features[0] += xml.contains("<!DOCTYPE") as usize;
        features[1] += xml.contains("xmlns=\"\"") as usize | xml.contains("xmlns=''") as usize;
        features[2] += xml.contains('\r') as usize;
        features[3] += xml.contains("CDATA") as usize;
        features[4] += xml.contains("xml:") as usize;
        let file = dir.join(format!("doc-{seed}.xml"));
        std::fs::write(&file, &xml).unwrap();
        let mut rng = Rng::new(seed ^ 0xC14);
        let mut subtrees = vec![None];
        for _ in 0..2 {
            if n > 1 {
                subtrees.push(Some(1 + rng.below(n - 1)));
            }
        }
        subtrees.dedup();
        features[5] += subtrees.len() - 1;
        for &subtree in &subtrees {
            let mut list: Vec<&'static str> = ["p", "q", "ds", "soap"].into_iter().filter(|_| rng.chance(40)).collect();
            if list.is_empty() {
                list.push("p");
            }
            let modes =
                [(false, false, None), (false, true, None), (true, false, None), (true, true, None), (true, rng.chance(50), Some(list))];
            for (exclusive, comments, prefixes) in modes {
                let out = dir.join(format!("out-{}.bin", cases.len()));
                let pl = match &prefixes {
                    None => "null".to_string(),
                    Some(v) => format!("[{}]", v.iter().map(|p| json_str(p)).collect::<Vec<_>>().join(",")),
                };
                writeln!(
                    manifest,
                    "{{\"file\":{},\"subtree\":{},\"exclusive\":{exclusive},\"comments\":{comments},\"prefixes\":{pl},\"out\":{}}}",
                    json_str(&file.to_string_lossy()),
                    subtree.map_or(-1, |s| s as i64),
                    json_str(&out.to_string_lossy())
                )
                .unwrap();
                cases.push(Case { doc: sources.len(), subtree, exclusive, comments, prefixes, out });
            }
        }
        sources.push(xml);
    }
    let mpath = dir.join("manifest.jsonl");
    std::fs::write(&mpath, &manifest).unwrap();
    let spath = dir.join("c14n_lxml.py");
    std::fs::write(&spath, SCRIPT).unwrap();
    let st = Command::new("python3").arg(&spath).arg(&mpath).status().expect("run python3");
    assert!(st.success(), "the lxml script failed");

    let mut mismatches = Vec::new();
    let mut compared = 0;
    for c in &cases {
        let doc = Document::parse(sources[c.doc].as_bytes()).unwrap();
        let alg = if c.exclusive { Algorithm::ExcC14n10 } else { Algorithm::C14n10 };
        let err = c.out.with_extension("bin.err");
        let want = std::fs::read(&c.out).map_err(|_| std::fs::read_to_string(&err).unwrap_or_default());
        for fast in [true, false] {
            let mut k = Canonicalizer::new(alg).with_comments(c.comments).fast_path(fast);
            if let Some(p) = &c.prefixes {
                k = k.inclusive_prefixes(p);
            }
            let got = match c.subtree {
                None => k.document_to_vec(&doc),
                Some(i) => k.subtree_to_vec(elements(&doc)[i]),
            };
            compared += 1;
            let same = match (&got, &want) {
                (Ok(g), Ok(w)) => g == w,
                (Err(_), Err(_)) => true,
                _ => false,
            };
            if !same && mismatches.len() < 15 {
                let show = |r: &Result<Vec<u8>, String>| match r {
                    Ok(v) => String::from_utf8_lossy(v).into_owned(),
                    Err(e) => format!("ERROR {e}"),
                };
                let got_s = match &got {
                    Ok(v) => String::from_utf8_lossy(v).into_owned(),
                    Err(e) => format!("ERROR {e}"),
                };
                mismatches.push(format!(
                    "doc {} subtree {:?} exclusive {} comments {} prefixes {:?} fast {fast}\n--- input\n{}\n--- vtdx\n{}\n--- lxml\n{}",
                    c.doc,
                    c.subtree,
                    c.exclusive,
                    c.comments,
                    c.prefixes,
                    sources[c.doc],
                    got_s,
                    show(&want)
                ));
            } else if !same {
                mismatches.push(String::new());
            }
        }
    }
    eprintln!(
        "lxml differential: {} documents ({} with a DTD, {} with xmlns=\"\", {} with CR, {} with CDATA, {} with xml:* attributes), {} subtrees, {} cases, {} comparisons, {} mismatches",
        sources.len(), features[0], features[1], features[2], features[3], features[4], features[5], cases.len(), compared, mismatches.len()
    );
    if mismatches.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        eprintln!("inputs and lxml outputs kept in {}", dir.display());
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches; first ones:\n{}",
        mismatches.len(),
        mismatches.iter().filter(|m| !m.is_empty()).cloned().collect::<Vec<_>>().join("\n=====\n")
    );
}
