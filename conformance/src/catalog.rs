//! Reading the test catalog (`xmlconf-flattened.xml`) with vtdx itself.

use std::path::Path;

use vtdx_core::{Document, ExternalPolicy, Node, NodeKind, ParseOptions};

/// The expected outcome a TEST element states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestType {
    Valid,
    Invalid,
    NotWf,
    Error,
}

impl TestType {
    pub fn as_str(self) -> &'static str {
        match self {
            TestType::Valid => "valid",
            TestType::Invalid => "invalid",
            TestType::NotWf => "not-wf",
            TestType::Error => "error",
        }
    }
}

/// One TEST element with its URIs resolved.
#[derive(Debug, Clone)]
pub struct TestCase {
    pub id: String,
    pub ty: TestType,
    /// The test document, relative to the xmlconf folder.
    pub uri: String,
    /// The expected canonical form, relative to the xmlconf folder.
    pub output: Option<String>,
    /// `none`, `general`, `parameter` or `both` (absent means `none`).
    pub entities: String,
    pub version: Option<String>,
    pub edition: Option<String>,
    pub recommendation: String,
    /// False for `NAMESPACE="no"`.
    pub namespaces: bool,
    pub sections: String,
    /// The element's text, white space collapsed.
    pub description: String,
    /// The sub-catalog: the resolved `xml:base` of the innermost enclosing
    /// TESTCASES element that has one, without the trailing slash.
    pub suite: String,
}

/// Parses the catalog and returns its TEST elements in document order.
pub fn load(catalog: &Path) -> Result<Vec<TestCase>, String> {
    let bytes = std::fs::read(catalog).map_err(|e| format!("cannot read {}: {e}", catalog.display()))?;
    // The catalog names its DTD (`SYSTEM "testcases.dtd"`), which only declares the
    // attributes; their defaults are applied below when an attribute is absent.
    let doc = Document::parse_with(&bytes, &ParseOptions::new().external(ExternalPolicy::Ignore))
        .map_err(|e| format!("vtdx cannot parse the catalog {}: {e}", catalog.display()))?;
    let root = doc.root_element();
    if root.name() != "TESTSUITE" {
        return Err(format!("catalog root element is <{}>, expected <TESTSUITE>", root.name()));
    }
    let mut tests = Vec::new();
    walk(root, "", "", &mut tests)?;
    Ok(tests)
}

fn walk(parent: Node<'_>, base: &str, suite: &str, out: &mut Vec<TestCase>) -> Result<(), String> {
    for child in parent.children() {
        if child.kind() != NodeKind::Element {
            continue;
        }
        match child.name() {
            "TESTCASES" => match child.attribute("xml:base") {
                Some(b) => {
                    let nb = resolve(base, &b);
                    let suite = nb.trim_end_matches('/').to_string();
                    walk(child, &nb, &suite, out)?;
                }
                None => walk(child, base, suite, out)?,
            },
            "TEST" => out.push(test_case(child, base, suite)?),
            other => return Err(format!("unexpected element <{other}> in the catalog")),
        }
    }
    Ok(())
}

fn test_case(t: Node<'_>, base: &str, suite: &str) -> Result<TestCase, String> {
    let get = |n: &str| t.attribute(n).map(|v| v.into_owned());
    let id = get("ID").ok_or("TEST without ID")?;
    let ty = match get("TYPE").as_deref() {
        Some("valid") => TestType::Valid,
        Some("invalid") => TestType::Invalid,
        Some("not-wf") => TestType::NotWf,
        Some("error") => TestType::Error,
        other => return Err(format!("test {id}: unknown TYPE {other:?}")),
    };
    let uri = get("URI").ok_or_else(|| format!("test {id}: no URI"))?;
    // A TEST may carry its own xml:base (none does in this release).
    let base = match t.attribute("xml:base") {
        Some(b) => resolve(base, &b),
        None => base.to_string(),
    };
    let description = t.value().split_whitespace().collect::<Vec<_>>().join(" ");
    Ok(TestCase {
        uri: resolve(&base, &uri),
        output: get("OUTPUT").map(|o| resolve(&base, &o)),
        entities: get("ENTITIES").unwrap_or_else(|| "none".to_string()),
        version: get("VERSION"),
        edition: get("EDITION"),
        recommendation: get("RECOMMENDATION").unwrap_or_else(|| "XML1.0".to_string()),
        namespaces: get("NAMESPACE").as_deref() != Some("no"),
        sections: get("SECTIONS").unwrap_or_default(),
        description,
        suite: if suite.is_empty() { "(top)".to_string() } else { suite.to_string() },
        ty,
        id,
    })
}

/// Resolves a relative reference against a base (RFC 3986 §5.2 for the
/// relative-path case; every URI in the catalog is relative to the xmlconf folder).
pub fn resolve(base: &str, reference: &str) -> String {
    if reference.contains("://") || reference.starts_with('/') {
        return reference.to_string();
    }
    let dir = match base.rfind('/') {
        Some(i) => &base[..=i],
        None => "",
    };
    let joined = format!("{dir}{reference}");
    let trailing = joined.ends_with('/');
    let mut segs: Vec<&str> = Vec::new();
    for s in joined.split('/') {
        match s {
            "" | "." => {}
            ".." => {
                segs.pop();
            }
            s => segs.push(s),
        }
    }
    let mut r = segs.join("/");
    if trailing && !r.is_empty() {
        r.push('/');
    }
    r
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn resolves() {
        assert_eq!(resolve("", "xmltest/"), "xmltest/");
        assert_eq!(resolve("xmltest/", "valid/sa/001.xml"), "xmltest/valid/sa/001.xml");
        assert_eq!(resolve("ibm/", "xml-1.1/"), "ibm/xml-1.1/");
        assert_eq!(resolve("a/b/", "../c.xml"), "a/c.xml");
        assert_eq!(resolve("a/b/", "./c.xml"), "a/b/c.xml");
    }
}
