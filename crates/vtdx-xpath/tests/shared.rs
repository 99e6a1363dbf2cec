//! The engine-independent XPath cases of `testdata/xpath/*.toml`, which the
//! Python suite runs too (`python/tests/test_xpath_cases.py`). The schema is
//! described in `testdata/xpath/README.md`. Every case is run, every failure
//! reported, and the number of files and cases found is asserted.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use toml::{Table, Value as Toml};
use vtdx_core::Document;
use vtdx_xpath::{Context, Namespaces, Value, XNode, XPath};

/// Files and cases in `testdata/xpath`; change them with the files.
const FILES: usize = 10;
const CASES: usize = 323;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/xpath")
}

/// What a case expects.
#[derive(Debug)]
enum Expected {
    Nodes { paths: Option<Vec<String>>, values: Option<Vec<String>>, any_order: bool },
    Count(usize),
    Number(f64),
    String(String),
    Boolean(bool),
    CompileError,
    EvaluateError,
}

#[derive(Debug)]
struct Case {
    id: String,
    document: String,
    context: String,
    expr: String,
    variables: Vec<(String, Toml)>,
    expected: Expected,
}

/// One file: its documents, namespace bindings and cases.
struct File {
    name: String,
    documents: Vec<(String, String)>,
    namespaces: Namespaces,
    cases: Vec<Case>,
}

fn strings(v: &Toml, what: &str) -> Result<Vec<String>, String> {
    let a = v.as_array().ok_or_else(|| format!("`{what}` must be an array of strings"))?;
    a.iter().map(|s| s.as_str().map(str::to_string).ok_or_else(|| format!("`{what}` must be an array of strings"))).collect()
}

fn number(v: &Toml) -> Option<f64> {
    match v {
        Toml::Float(f) => Some(*f),
        Toml::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

fn read_case(t: &Table, documents: &[(String, String)]) -> Result<Case, String> {
    const KEYS: &[&str] = &[
        "name",
        "document",
        "context",
        "expr",
        "variables",
        "nodes",
        "values",
        "any_order",
        "count",
        "number",
        "string",
        "boolean",
        "error",
    ];
    if let Some(k) = t.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!("unknown key `{k}`"));
    }
    let text = |k: &str| -> Result<Option<String>, String> {
        match t.get(k) {
            None => Ok(None),
            Some(v) => v.as_str().map(|s| Some(s.to_string())).ok_or_else(|| format!("`{k}` must be a string")),
        }
    };
    let expr = text("expr")?.ok_or("no `expr`")?;
    let context = text("context")?.unwrap_or_else(|| "/".to_string());
    let document = match text("document")? {
        Some(d) if documents.iter().any(|(n, _)| *n == d) => d,
        Some(d) => return Err(format!("no document `{d}` in [documents]")),
        None if documents.len() == 1 => documents[0].0.clone(),
        None => return Err("`document` is needed: the file has more than one".into()),
    };
    let id = match text("name")? {
        Some(n) => n,
        None if context == "/" => expr.clone(),
        None => format!("{expr} @{context}"),
    };
    let variables = match t.get("variables") {
        None => Vec::new(),
        Some(Toml::Table(v)) => v.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        Some(_) => return Err("`variables` must be a table".into()),
    };
    let results: Vec<&str> =
        ["nodes", "count", "number", "string", "boolean", "error"].into_iter().filter(|k| t.contains_key(*k)).collect();
    let results = if results.is_empty() && t.contains_key("values") { vec!["values"] } else { results };
    let expected = match results.as_slice() {
        ["nodes"] | ["values"] => {
            let paths = t.get("nodes").map(|v| strings(v, "nodes")).transpose()?;
            let values = t.get("values").map(|v| strings(v, "values")).transpose()?;
            if let (Some(p), Some(v)) = (&paths, &values) {
                if p.len() != v.len() {
                    return Err(format!("{} `nodes` but {} `values`", p.len(), v.len()));
                }
            }
            let any_order = match t.get("any_order") {
                None => false,
                Some(v) => v.as_bool().ok_or("`any_order` must be a boolean")?,
            };
            Expected::Nodes { paths, values, any_order }
        }
        ["count"] => Expected::Count(t["count"].as_integer().and_then(|n| usize::try_from(n).ok()).ok_or("`count` must be a count")?),
        ["number"] => Expected::Number(number(&t["number"]).ok_or("`number` must be a number")?),
        ["string"] => Expected::String(t["string"].as_str().ok_or("`string` must be a string")?.to_string()),
        ["boolean"] => Expected::Boolean(t["boolean"].as_bool().ok_or("`boolean` must be a boolean")?),
        ["error"] => match t["error"].as_str() {
            Some("compile") => Expected::CompileError,
            Some("evaluate") => Expected::EvaluateError,
            _ => return Err("`error` must be \"compile\" or \"evaluate\"".into()),
        },
        [] => return Err("no expected result (nodes, values, count, number, string, boolean or error)".into()),
        more => return Err(format!("more than one expected result: {more:?}")),
    };
    if t.contains_key("values") && !matches!(expected, Expected::Nodes { .. }) {
        return Err("`values` goes with `nodes` only".into());
    }
    if t.contains_key("any_order") && !matches!(expected, Expected::Nodes { .. }) {
        return Err("`any_order` goes with `nodes` or `values` only".into());
    }
    Ok(Case { id, document, context, expr, variables, expected })
}

fn read_file(path: &Path) -> Result<File, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let t: Table = text.parse().map_err(|e| format!("{e}"))?;
    if let Some(k) = t.keys().find(|k| !["documents", "namespaces", "case"].contains(&k.as_str())) {
        return Err(format!("unknown top-level key `{k}`"));
    }
    let documents: Vec<(String, String)> = match t.get("documents") {
        Some(Toml::Table(d)) => d
            .iter()
            .map(|(k, v)| v.as_str().map(|x| (k.clone(), x.to_string())).ok_or(format!("document `{k}` must be a string")))
            .collect::<Result<_, _>>()?,
        _ => return Err("no [documents] table".into()),
    };
    let namespaces: Namespaces = match t.get("namespaces") {
        None => Namespaces::new(),
        Some(Toml::Table(n)) => n
            .iter()
            .map(|(p, u)| u.as_str().map(|u| (p.clone(), u.to_string())).ok_or(format!("namespace `{p}` must be a string")))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .collect(),
        Some(_) => return Err("[namespaces] must be a table".into()),
    };
    let cases = t.get("case").and_then(Toml::as_array).ok_or("no [[case]]")?;
    let mut out = Vec::new();
    let mut ids = BTreeSet::new();
    for (i, c) in cases.iter().enumerate() {
        let c = c.as_table().ok_or(format!("case {} is not a table", i + 1))?;
        let case = read_case(c, &documents).map_err(|e| format!("case {} ({:?}): {e}", i + 1, c.get("expr")))?;
        if !ids.insert(case.id.clone()) {
            return Err(format!("case {}: the ID `{}` is used twice (give one a `name`)", i + 1, case.id));
        }
        out.push(case);
    }
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    Ok(File { name, documents, namespaces, cases: out })
}

/// A comparable rendering of a result: node-sets as `[path="value", ...]`,
/// scalars as `type:string()` (numbers also by their sign, for -0).
fn render(v: &Value<'_>) -> String {
    match v {
        Value::NodeSet(s) => {
            format!("[{}]", s.iter().map(|n| format!("{}={:?}", n.path(), n.string_value())).collect::<Vec<_>>().join(", "))
        }
        Value::Number(n) => format!("number:{}{}", if n.is_sign_negative() { "(-)" } else { "" }, v.string()),
        v => format!("{}:{}", v.type_name(), v.string()),
    }
}

fn same_number(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a == b && a.is_sign_negative() == b.is_sign_negative())
}

fn check(got: &Value<'_>, want: &Expected) -> Result<(), String> {
    let mismatch = || Err(format!("got {}, want {want:?}", render(got)));
    match (got, want) {
        (Value::NodeSet(s), Expected::Nodes { paths, values, any_order }) => {
            let mut pairs: Vec<(String, String)> = s.iter().map(|n| (n.path(), n.string_value().into_owned())).collect();
            let mut want_pairs: Vec<(Option<&String>, Option<&String>)> = (0..paths.as_ref().or(values.as_ref()).map_or(0, Vec::len))
                .map(|i| (paths.as_ref().map(|p| &p[i]), values.as_ref().map(|v| &v[i])))
                .collect();
            if *any_order {
                pairs.sort();
                want_pairs.sort();
            }
            let same = pairs.len() == want_pairs.len()
                && pairs.iter().zip(&want_pairs).all(|((p, v), (wp, wv))| wp.is_none_or(|w| w == p) && wv.is_none_or(|w| w == v));
            if same {
                Ok(())
            } else {
                mismatch()
            }
        }
        (Value::NodeSet(s), Expected::Count(n)) if s.len() == *n => Ok(()),
        (Value::Number(a), Expected::Number(b)) if same_number(*a, *b) => Ok(()),
        (Value::String(a), Expected::String(b)) if a == b => Ok(()),
        (Value::Boolean(a), Expected::Boolean(b)) if a == b => Ok(()),
        _ => mismatch(),
    }
}

fn run_case(file: &File, doc: &Document<'_>, case: &Case) -> Result<(), String> {
    let ns = &file.namespaces;
    let context = XPath::compile(&case.context, ns).map_err(|e| format!("context {}: {e}", case.context))?;
    let found = context.select(doc.root()).map_err(|e| format!("context {}: {e}", case.context))?;
    let [node] = found.as_slice() else {
        return Err(format!("context {} selects {} nodes, not one", case.context, found.len()));
    };
    let mut ctx = Context::new(doc);
    for (name, v) in &case.variables {
        match v {
            Toml::String(s) => ctx.set_variable(name, s.clone()),
            Toml::Boolean(b) => ctx.set_variable(name, *b),
            v => ctx.set_variable(name, number(v).ok_or(format!("variable `{name}` must be a string, number or boolean"))?),
        };
    }
    let xp = match (XPath::compile(&case.expr, ns), &case.expected) {
        (Err(_), Expected::CompileError) => return Ok(()),
        (Err(e), _) => return Err(format!("does not compile: {e}")),
        (Ok(_), Expected::CompileError) => return Err("compiles; expected a compile error".into()),
        (Ok(x), _) => x,
    };
    let got = match (xp.evaluate_in(&ctx, *node), &case.expected) {
        (Err(_), Expected::EvaluateError) => return Ok(()),
        (Err(e), _) => return Err(format!("evaluation fails: {e}")),
        (Ok(v), Expected::EvaluateError) => return Err(format!("got {}; expected an evaluation error", render(&v))),
        (Ok(v), _) => v,
    };
    check(&got, &case.expected)?;
    if case.context == "/" {
        // Python evaluates these from the document element: the result must not depend on it.
        let other = xp.evaluate_in(&ctx, XNode::from_node(doc.root_element()));
        if other.as_ref().map(render).ok() != Some(render(&got)) {
            return Err(format!(
                "depends on the context node: from the document element it gives {:?} (Python evaluates context `/` from there: give the case a `context`)",
                other.map(|v| render(&v))
            ));
        }
    }
    Ok(())
}

#[test]
fn shared_xpath_cases() {
    let dir = data_dir();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    let mut failures = Vec::new();
    let (mut cases, mut passed) = (0, 0);
    for path in &paths {
        let file = read_file(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let docs: Vec<(String, Document<'_>)> = file
            .documents
            .iter()
            .map(|(n, x)| (n.clone(), Document::parse(x.as_bytes()).unwrap_or_else(|e| panic!("{}: document {n}: {e}", file.name))))
            .collect();
        for case in &file.cases {
            cases += 1;
            let doc = &docs.iter().find(|(n, _)| *n == case.document).unwrap().1;
            match run_case(&file, doc, case) {
                Ok(()) => passed += 1,
                Err(e) => failures.push(format!("{}:{}: {e}", file.name, case.id)),
            }
        }
    }
    eprintln!("shared XPath cases: {passed} of {cases} pass, in {} files", paths.len());
    assert!(failures.is_empty(), "{} of {cases} cases fail:\n{}", failures.len(), failures.join("\n"));
    assert_eq!((paths.len(), cases), (FILES, CASES), "files or cases in {} were added, moved or lost: update the counts", dir.display());
}
