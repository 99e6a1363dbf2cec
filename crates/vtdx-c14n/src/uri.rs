//! URI helpers of Canonical XML: the relative-URI test (C14N 1.0 rejects
//! relative namespace URIs) and C14N 1.1's `xml:base` fix-up
//! (join-URI-References, §2.4, with the modified dot-segment removal of
//! Appendix A).

/// Does `uri` start with a scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`, RFC 3986 §3.1)?
/// (The parser records this for every namespace URI: [`vtdx_core::Names::ns_has_scheme`].)
pub fn has_scheme(uri: &str) -> bool {
    vtdx_core::has_uri_scheme(uri.as_bytes())
}

/// The five components of a URI reference (RFC 3986 Appendix B); `None` for
/// absent components, which differ from empty ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Parts<'a> {
    scheme: Option<&'a str>,
    authority: Option<&'a str>,
    path: &'a str,
    query: Option<&'a str>,
}

fn split(s: &str) -> Parts<'_> {
    // fragment: dropped (C14N 1.1 joins xml:base values, whose fragments do not
    // contribute to a base URI)
    let s = match s.find('#') {
        Some(i) => &s[..i],
        None => s,
    };
    let (s, query) = match s.find('?') {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let scheme_end = s.find([':', '/', '?', '#']).filter(|&i| i > 0 && s.as_bytes()[i] == b':');
    let (scheme, rest) = match scheme_end {
        Some(i) => (Some(&s[..i]), &s[i + 1..]),
        None => (None, s),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(r) => {
            let e = r.find('/').unwrap_or(r.len());
            (Some(&r[..e]), &r[e..])
        }
        None => (None, rest),
    };
    Parts { scheme, authority, path, query }
}

/// The dot-segment removal of C14N 1.1 Appendix A: RFC 3986 §5.2.4 modified so
/// that relative paths keep their leading `..` segments, runs of `/` collapse,
/// and a path ending in `.` or `..` keeps a trailing `/`.
pub fn remove_dot_segments(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut segs: Vec<&str> = Vec::new();
    let mut last = "";
    for seg in path.split('/') {
        last = seg;
        match seg {
            "" | "." => {}
            ".." => match segs.last() {
                Some(&s) if s != ".." => {
                    segs.pop();
                }
                _ => {
                    if !absolute {
                        segs.push("..");
                    }
                }
            },
            s => segs.push(s),
        }
    }
    let trailing = matches!(last, "" | "." | "..");
    let mut out = String::with_capacity(path.len() + 1);
    if absolute {
        out.push('/');
    }
    out.push_str(&segs.join("/"));
    if trailing && !segs.is_empty() {
        out.push('/');
    }
    out
}

/// join-URI-References of C14N 1.1 §2.4: resolves `reference` against `base` as
/// RFC 3986 §5.2.2 does, except that `base` need not be absolute (two relative
/// values combine into a relative value), a base path ending in `..` is read as
/// `../`, and dot segments are removed with [`remove_dot_segments`].
pub fn join_uri_references(base: &str, reference: &str) -> String {
    let b = split(base);
    let r = split(reference);
    let (scheme, authority, path, query);
    if r.scheme.is_some() {
        scheme = r.scheme;
        authority = r.authority;
        path = remove_dot_segments(r.path);
        query = r.query;
    } else if r.authority.is_some() {
        scheme = b.scheme;
        authority = r.authority;
        path = remove_dot_segments(r.path);
        query = r.query;
    } else {
        scheme = b.scheme;
        authority = b.authority;
        if r.path.is_empty() {
            path = b.path.to_string();
            query = r.query.or(b.query);
        } else {
            query = r.query;
            if r.path.starts_with('/') {
                path = remove_dot_segments(r.path);
            } else {
                let mut bp = b.path.to_string();
                if bp == ".." || bp.ends_with("/..") {
                    bp.push('/');
                }
                let merged = if b.authority.is_some() && bp.is_empty() {
                    format!("/{}", r.path)
                } else {
                    match bp.rfind('/') {
                        Some(i) => format!("{}{}", &bp[..=i], r.path),
                        None => r.path.to_string(),
                    }
                };
                path = remove_dot_segments(&merged);
            }
        }
    }
    let mut out = String::new();
    if let Some(s) = scheme {
        out.push_str(s);
        out.push(':');
    }
    if let Some(a) = authority {
        out.push_str("//");
        out.push_str(a);
    }
    out.push_str(&path);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes() {
        assert!(has_scheme("http://x"));
        assert!(has_scheme("urn:a"));
        assert!(has_scheme("a+b-c.d:"));
        assert!(!has_scheme("../x:y"));
        assert!(!has_scheme(""));
        assert!(!has_scheme("1a:b"));
        assert!(!has_scheme("noscheme"));
    }

    #[test]
    fn spec_join_examples() {
        // C14N 1.1 §2.4
        assert_eq!(join_uri_references("abc/", "../"), "");
        assert_eq!(join_uri_references("../", "../"), "../../");
        assert_eq!(join_uri_references("..", ".."), "../../");
        assert_eq!(join_uri_references("bar/", "foo"), "bar/foo");
        assert_eq!(join_uri_references("http://xmlbase.example.org/xmlbase0/", "/xmlbase1/"), "http://xmlbase.example.org/xmlbase1/");
        assert_eq!(join_uri_references("http://a/b/c/d;p?q", "g?y"), "http://a/b/c/g?y");
        assert_eq!(join_uri_references("http://a/b/c/d;p?q", ""), "http://a/b/c/d;p?q");
        assert_eq!(join_uri_references("http://a/b/c/d;p?q", "//g"), "http://g");
    }
}
