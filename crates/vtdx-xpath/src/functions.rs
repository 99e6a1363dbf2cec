//! The core function library (§4) and caller-registered extension functions.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use vtdx_core::Document;

use crate::ast::Type;
use crate::value::{Value, XNode};

/// The 27 functions of the XPath 1.0 core library (§4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CoreFn {
    Last,
    Position,
    Count,
    Id,
    LocalName,
    NamespaceUri,
    Name,
    String,
    Concat,
    StartsWith,
    Contains,
    SubstringBefore,
    SubstringAfter,
    Substring,
    StringLength,
    NormalizeSpace,
    Translate,
    Boolean,
    Not,
    True,
    False,
    Lang,
    Number,
    Sum,
    Floor,
    Ceiling,
    Round,
}

impl CoreFn {
    pub(crate) fn from_name(s: &str) -> Option<CoreFn> {
        use CoreFn::*;
        Some(match s {
            "last" => Last,
            "position" => Position,
            "count" => Count,
            "id" => Id,
            "local-name" => LocalName,
            "namespace-uri" => NamespaceUri,
            "name" => Name,
            "string" => String,
            "concat" => Concat,
            "starts-with" => StartsWith,
            "contains" => Contains,
            "substring-before" => SubstringBefore,
            "substring-after" => SubstringAfter,
            "substring" => Substring,
            "string-length" => StringLength,
            "normalize-space" => NormalizeSpace,
            "translate" => Translate,
            "boolean" => Boolean,
            "not" => Not,
            "true" => True,
            "false" => False,
            "lang" => Lang,
            "number" => Number,
            "sum" => Sum,
            "floor" => Floor,
            "ceiling" => Ceiling,
            "round" => Round,
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        use CoreFn::*;
        match self {
            Last => "last",
            Position => "position",
            Count => "count",
            Id => "id",
            LocalName => "local-name",
            NamespaceUri => "namespace-uri",
            Name => "name",
            String => "string",
            Concat => "concat",
            StartsWith => "starts-with",
            Contains => "contains",
            SubstringBefore => "substring-before",
            SubstringAfter => "substring-after",
            Substring => "substring",
            StringLength => "string-length",
            NormalizeSpace => "normalize-space",
            Translate => "translate",
            Boolean => "boolean",
            Not => "not",
            True => "true",
            False => "false",
            Lang => "lang",
            Number => "number",
            Sum => "sum",
            Floor => "floor",
            Ceiling => "ceiling",
            Round => "round",
        }
    }

    /// (minimum, maximum) number of arguments; `usize::MAX` for "any number".
    pub(crate) fn arity(self) -> (usize, usize) {
        use CoreFn::*;
        match self {
            Last | Position | True | False => (0, 0),
            Count | Id | Boolean | Not | Lang | Sum | Floor | Ceiling | Round => (1, 1),
            LocalName | NamespaceUri | Name | String | StringLength | NormalizeSpace | Number => (0, 1),
            Concat => (2, usize::MAX),
            StartsWith | Contains | SubstringBefore | SubstringAfter => (2, 2),
            Substring => (2, 3),
            Translate => (3, 3),
        }
    }

    pub(crate) fn arity_text(self) -> String {
        match self.arity() {
            (a, b) if a == b => a.to_string(),
            (a, usize::MAX) => format!("at least {a}"),
            (a, b) => format!("{a} or {b}"),
        }
    }

    pub(crate) fn result_type(self) -> Type {
        use CoreFn::*;
        match self {
            Last | Position | Count | StringLength | Number | Sum | Floor | Ceiling | Round => Type::Number,
            Id => Type::NodeSet,
            LocalName | NamespaceUri | Name | String | Concat | SubstringBefore | SubstringAfter | Substring | NormalizeSpace
            | Translate => Type::String,
            StartsWith | Contains | Boolean | Not | True | False | Lang => Type::Boolean,
        }
    }
}

/// What an extension function sees of the evaluation.
pub struct CallContext<'c, 'd> {
    pub(crate) node: XNode<'d>,
    pub(crate) position: usize,
    pub(crate) size: usize,
    pub(crate) doc: &'d Document<'d>,
    pub(crate) _marker: std::marker::PhantomData<&'c ()>,
}

impl<'c, 'd> CallContext<'c, 'd> {
    /// The context node.
    pub fn node(&self) -> XNode<'d> {
        self.node
    }
    /// The context position (1-based).
    pub fn position(&self) -> usize {
        self.position
    }
    /// The context size.
    pub fn size(&self) -> usize {
        self.size
    }
    /// The document.
    pub fn document(&self) -> &'d Document<'d> {
        self.doc
    }
}

/// An extension function (§3.2: "function library ... may be extended").
///
/// Implemented for every `Fn(&CallContext, Vec<Value>) -> Result<Value, String>`
/// that is `Send + Sync`, so a plain `fn` or a closure registers directly:
///
/// ```
/// use vtdx_xpath::{CallContext, Functions, Namespaces, Value, XPath};
///
/// fn upper<'d>(_: &CallContext<'_, 'd>, args: Vec<Value<'d>>) -> Result<Value<'d>, String> {
///     let s = args.first().ok_or("upper() takes one argument")?.string();
///     Ok(Value::String(s.to_uppercase().into()))
/// }
/// let mut f = Functions::new();
/// f.insert_ns("urn:my", "upper", upper);
/// let ns = Namespaces::new().with("my", "urn:my");
/// let xp = XPath::compile_with("my:upper(/a)", &ns, &f).unwrap();
/// let doc = vtdx_core::Document::parse(b"<a>hi</a>").unwrap();
/// assert_eq!(xp.evaluate(doc.root()).unwrap().string(), "HI");
/// ```
pub trait Function: Send + Sync {
    /// Calls the function. Arguments are evaluated in order; an `Err` message
    /// becomes an [`crate::XPathError`] naming the function.
    fn call<'d>(&self, cx: &CallContext<'_, 'd>, args: Vec<Value<'d>>) -> Result<Value<'d>, String>;
}

impl<F> Function for F
where
    F: for<'c, 'd> Fn(&CallContext<'c, 'd>, Vec<Value<'d>>) -> Result<Value<'d>, String> + Send + Sync,
{
    fn call<'d>(&self, cx: &CallContext<'_, 'd>, args: Vec<Value<'d>>) -> Result<Value<'d>, String> {
        self(cx, args)
    }
}

/// Extension functions, by expanded name, for [`crate::XPath::compile_with`].
/// Core functions cannot be replaced.
#[derive(Clone, Default)]
pub struct Functions {
    pub(crate) map: HashMap<(String, String), Arc<dyn Function>>,
}

impl fmt::Debug for Functions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.map.keys()).finish()
    }
}

impl Functions {
    /// No functions.
    pub fn new() -> Functions {
        Functions::default()
    }

    /// Registers a function with an unprefixed name (called as `name(...)`).
    pub fn insert(&mut self, name: &str, f: impl Function + 'static) -> &mut Functions {
        self.insert_ns("", name, f)
    }

    /// Registers a function in namespace `uri` (called as `p:name(...)` with
    /// `p` bound to `uri`).
    pub fn insert_ns(&mut self, uri: &str, name: &str, f: impl Function + 'static) -> &mut Functions {
        self.map.insert((uri.to_string(), name.to_string()), Arc::new(f));
        self
    }

    pub(crate) fn get(&self, uri: &str, name: &str) -> Option<Arc<dyn Function>> {
        self.map.get(&(uri.to_string(), name.to_string())).cloned()
    }
}

// ---- string functions (§4.2), shared by the evaluator ----------------------------

/// `normalize-space()`: strip leading and trailing whitespace (#x20, #x9,
/// #xD, #xA) and collapse internal runs to one space. Borrows when unchanged.
pub(crate) fn normalize_space(s: &str) -> Cow<'_, str> {
    let is_ws = |c: char| matches!(c, ' ' | '\t' | '\r' | '\n');
    let t = s.trim_matches(is_ws);
    let b = t.as_bytes();
    let clean = !b.windows(2).any(|w| matches!(w[0], b' ' | b'\t' | b'\r' | b'\n') && matches!(w[1], b' ' | b'\t' | b'\r' | b'\n'))
        && !b.iter().any(|&c| matches!(c, b'\t' | b'\r' | b'\n'));
    if clean {
        return Cow::Borrowed(t);
    }
    let mut out = String::with_capacity(t.len());
    let mut ws = false;
    for c in t.chars() {
        if is_ws(c) {
            ws = true;
        } else {
            if ws {
                out.push(' ');
                ws = false;
            }
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `translate(s, from, to)`.
pub(crate) fn translate(s: &str, from: &str, to: &str) -> String {
    let to: Vec<char> = to.chars().collect();
    let mut map: Vec<(char, Option<char>)> = Vec::new();
    for (i, c) in from.chars().enumerate() {
        if !map.iter().any(|(k, _)| *k == c) {
            map.push((c, to.get(i).copied()));
        }
    }
    s.chars()
        .filter_map(|c| match map.iter().find(|(k, _)| *k == c) {
            Some((_, r)) => *r,
            None => Some(c),
        })
        .collect()
}

/// `substring(s, start, len?)` (§4.2): the characters at positions `p` with
/// `round(start) <= p < round(start) + round(len)`, positions counted from 1
/// in characters; comparisons with NaN are false.
pub(crate) fn substring(s: &str, start: f64, len: Option<f64>) -> &str {
    let a = crate::number::round(start);
    let b = match len {
        Some(l) => a + crate::number::round(l),
        None => f64::INFINITY,
    };
    // NaN bounds select nothing.
    if a.is_nan() || b.is_nan() || b <= a {
        return "";
    }
    let mut from = None;
    let mut to = s.len();
    for (p, (i, _)) in s.char_indices().enumerate() {
        let p = (p + 1) as f64;
        if from.is_none() && p >= a {
            if p >= b {
                return "";
            }
            from = Some(i);
        }
        if from.is_some() && p >= b {
            to = i;
            break;
        }
    }
    match from {
        Some(f) => &s[f..to],
        None => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples() {
        assert_eq!(substring("12345", 2.0, Some(3.0)), "234");
        assert_eq!(substring("12345", 2.0, None), "2345");
        assert_eq!(substring("12345", 1.5, Some(2.6)), "234");
        assert_eq!(substring("12345", 0.0, Some(3.0)), "12");
        assert_eq!(substring("12345", f64::NAN, Some(3.0)), "");
        assert_eq!(substring("12345", 1.0, Some(f64::NAN)), "");
        assert_eq!(substring("12345", -42.0, Some(f64::INFINITY)), "12345");
        assert_eq!(substring("12345", f64::NEG_INFINITY, Some(f64::INFINITY)), "");
        assert_eq!(substring("ééé", 2.0, None), "éé");
        assert_eq!(translate("bar", "abc", "ABC"), "BAr");
        assert_eq!(translate("--aaa--", "abc-", "ABC"), "AAA");
        assert_eq!(translate("aba", "aa", "xy"), "xbx");
        assert_eq!(normalize_space("  a \n b  "), "a b");
        assert!(matches!(normalize_space("a b"), Cow::Borrowed("a b")));
    }
}
