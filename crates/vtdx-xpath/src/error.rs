//! `XPathError`: what went wrong, where in the expression, and what was expected.

use std::fmt;

/// What went wrong.
///
/// Syntax errors (the grammar of XPath 1.0 §2–§3, and its lexical rules §3.7)
/// are reported by [`crate::XPath::compile`]; evaluation errors (§3.1 and §4:
/// type errors, unbound variables, extension-function failures) by evaluation.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A character that starts no XPath token (§3.7 `ExprToken`).
    UnexpectedChar(char),
    /// A string literal without its closing quote (§3.7 `Literal`).
    UnterminatedLiteral,
    /// A token where the grammar wanted something else.
    Unexpected {
        /// What the grammar allowed here, in words (`` `]` ``, "a node test").
        expected: String,
        /// What was found (`` `)` ``, "end of expression").
        found: String,
    },
    /// A function that is neither an XPath 1.0 core function (§4) nor a
    /// registered extension function.
    UnknownFunction(String),
    /// A core function called with the wrong number of arguments (§4).
    Arity {
        /// The function.
        function: String,
        /// What it accepts, in words ("1", "2 or 3", "at least 2").
        expected: String,
        /// How many were given.
        found: usize,
    },
    /// A namespace prefix that the caller did not bind (§2.3: a QName in a
    /// name test or a function or variable name is expanded with the
    /// expression context's namespace declarations).
    UnboundPrefix(String),
    /// An unknown axis name (§2.2).
    UnknownAxis(String),
    /// A variable the caller did not bind (§3.1: "It is an error if the
    /// variable name is not bound to any value").
    UnboundVariable(String),
    /// An operand that is not a node-set where one is required: a path step or
    /// predicate applied to a number, string or boolean (§3.3), the operands
    /// of `|`, or arguments of `count`, `sum`, `local-name`, ... (§4).
    NotANodeSet(String),
    /// An extension function reported an error.
    Function {
        /// The function.
        function: String,
        /// Its message.
        message: String,
    },
    /// The expression nests deeper than the parser allows.
    TooDeep,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::UnexpectedChar(c) => write!(f, "unexpected character {c:?}"),
            ErrorKind::UnterminatedLiteral => f.write_str("string literal not closed: no matching quote before end of expression"),
            ErrorKind::Unexpected { expected, found } => write!(f, "expected {expected}, found {found}"),
            ErrorKind::UnknownFunction(n) => write!(f, "unknown function `{n}`"),
            ErrorKind::Arity { function, expected, found } => {
                let s = if expected == "1" { "" } else { "s" };
                write!(f, "function `{function}` takes {expected} argument{s}, {found} given")
            }
            ErrorKind::UnboundPrefix(p) => write!(f, "namespace prefix `{p}` is not bound"),
            ErrorKind::UnknownAxis(a) => write!(f, "unknown axis `{a}`"),
            ErrorKind::UnboundVariable(v) => write!(f, "variable `${v}` is not bound"),
            ErrorKind::NotANodeSet(what) => write!(f, "{what} must be a node-set"),
            ErrorKind::Function { function, message } => write!(f, "function `{function}` failed: {message}"),
            ErrorKind::TooDeep => f.write_str("expression nests too deeply"),
        }
    }
}

/// An error from compiling or evaluating an XPath expression.
///
/// `Display` prints the message, the expression, and a caret under the fault:
///
/// ```text
/// expected `]`, found end of expression at column 9
///   item[@a
///          ^
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct XPathError {
    kind: ErrorKind,
    /// Byte offset in the expression.
    offset: usize,
    expr: String,
}

impl XPathError {
    pub(crate) fn new(kind: ErrorKind, offset: usize, expr: &str) -> XPathError {
        XPathError { kind, offset: offset.min(expr.len()), expr: expr.to_string() }
    }

    /// An error without a position in an expression (extension functions use this).
    pub fn message(kind: ErrorKind) -> XPathError {
        XPathError { kind, offset: 0, expr: String::new() }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// Byte offset of the fault in the expression.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// 1-based column (in characters) of the fault in the expression.
    pub fn column(&self) -> usize {
        self.expr.get(..self.offset).map_or(self.offset, |s| s.chars().count()) + 1
    }

    /// The expression the error is about ("" when unknown).
    pub fn expression(&self) -> &str {
        &self.expr
    }

    /// True for errors found by [`crate::XPath::compile`] (the expression is malformed).
    pub fn is_syntax_error(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::UnexpectedChar(_)
                | ErrorKind::UnterminatedLiteral
                | ErrorKind::Unexpected { .. }
                | ErrorKind::UnknownFunction(_)
                | ErrorKind::Arity { .. }
                | ErrorKind::UnboundPrefix(_)
                | ErrorKind::UnknownAxis(_)
                | ErrorKind::TooDeep
        )
    }
}

impl fmt::Display for XPathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.expr.is_empty() {
            return write!(f, "{}", self.kind);
        }
        writeln!(f, "{} at column {}", self.kind, self.column())?;
        // One line of expression: newlines and tabs shown as spaces so the caret lines up.
        let shown: String = self.expr.chars().map(|c| if c.is_whitespace() { ' ' } else { c }).collect();
        writeln!(f, "  {shown}")?;
        write!(f, "  {}^", " ".repeat(self.column() - 1))
    }
}

impl std::error::Error for XPathError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caret_under_the_fault() {
        let e = XPathError::new(ErrorKind::Unexpected { expected: "`]`".into(), found: "end of expression".into() }, 7, "item[@a");
        assert_eq!(e.column(), 8);
        assert_eq!(e.to_string(), "expected `]`, found end of expression at column 8\n  item[@a\n         ^");
    }

    #[test]
    fn column_counts_characters() {
        let e = XPathError::new(ErrorKind::UnexpectedChar('#'), "'é'#".len() - 1, "'é'#");
        assert_eq!(e.column(), 4);
    }
}
