//! Tokens of XPath 1.0 (§3.7), with the spec's disambiguation rules applied
//! while lexing:
//!
//! * after a token other than `@`, `::`, `(`, `[`, `,` or an operator, `*` is the
//!   multiply operator and an NCName is an operator name (`and`, `or`, `mod`, `div`);
//! * an NCName followed by `(` is a node type or a function name;
//! * an NCName followed by `::` is an axis name;
//! * otherwise a name is a name test.

use crate::error::{ErrorKind, XPathError};

/// A node type name (§3.7 `NodeType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeType {
    Comment,
    Text,
    ProcessingInstruction,
    Node,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    LParen,
    RParen,
    LBracket,
    RBracket,
    Dot,
    DotDot,
    At,
    Comma,
    ColonColon,
    /// `*` as a name test.
    Star,
    /// `prefix:*`.
    NsStar(String),
    /// A QName name test: (prefix, local).
    Name(Option<String>, String),
    NodeType(NodeType),
    /// A function name: (prefix, local).
    Function(Option<String>, String),
    Axis(String),
    And,
    Or,
    Mod,
    Div,
    Mul,
    Slash,
    SlashSlash,
    Pipe,
    Plus,
    Minus,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Literal(String),
    Number(f64),
    /// `$prefix:local`.
    Var(Option<String>, String),
    Eof,
}

impl Tok {
    /// How the token reads in an error message.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::Dot => "`.`".into(),
            Tok::DotDot => "`..`".into(),
            Tok::At => "`@`".into(),
            Tok::Comma => "`,`".into(),
            Tok::ColonColon => "`::`".into(),
            Tok::Star | Tok::Mul => "`*`".into(),
            Tok::NsStar(p) => format!("`{p}:*`"),
            Tok::Name(p, l) | Tok::Function(p, l) => match p {
                Some(p) => format!("`{p}:{l}`"),
                None => format!("`{l}`"),
            },
            Tok::NodeType(t) => format!(
                "`{}`",
                match t {
                    NodeType::Comment => "comment",
                    NodeType::Text => "text",
                    NodeType::ProcessingInstruction => "processing-instruction",
                    NodeType::Node => "node",
                }
            ),
            Tok::Axis(a) => format!("`{a}`"),
            Tok::And => "`and`".into(),
            Tok::Or => "`or`".into(),
            Tok::Mod => "`mod`".into(),
            Tok::Div => "`div`".into(),
            Tok::Slash => "`/`".into(),
            Tok::SlashSlash => "`//`".into(),
            Tok::Pipe => "`|`".into(),
            Tok::Plus => "`+`".into(),
            Tok::Minus => "`-`".into(),
            Tok::Eq => "`=`".into(),
            Tok::Ne => "`!=`".into(),
            Tok::Lt => "`<`".into(),
            Tok::Le => "`<=`".into(),
            Tok::Gt => "`>`".into(),
            Tok::Ge => "`>=`".into(),
            Tok::Literal(_) => "a string literal".into(),
            Tok::Number(_) => "a number".into(),
            Tok::Var(p, l) => match p {
                Some(p) => format!("`${p}:{l}`"),
                None => format!("`${l}`"),
            },
            Tok::Eof => "end of expression".into(),
        }
    }

    /// Is this an operator (§3.7 `Operator`)?
    fn is_operator(&self) -> bool {
        matches!(
            self,
            Tok::And
                | Tok::Or
                | Tok::Mod
                | Tok::Div
                | Tok::Mul
                | Tok::Slash
                | Tok::SlashSlash
                | Tok::Pipe
                | Tok::Plus
                | Tok::Minus
                | Tok::Eq
                | Tok::Ne
                | Tok::Lt
                | Tok::Le
                | Tok::Gt
                | Tok::Ge
        )
    }
}

/// A token and the byte offset where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub pos: usize,
}

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_ncname_start(c: char) -> bool {
    c != ':' && vtdx_core::is_name_start_char(c)
}

fn is_ncname_char(c: char) -> bool {
    c != ':' && vtdx_core::is_name_char(c)
}

/// Splits `expr` into tokens, ending with [`Tok::Eof`].
pub(crate) fn tokenize(expr: &str) -> Result<Vec<Token>, XPathError> {
    let b = expr.as_bytes();
    let mut out: Vec<Token> = Vec::new();
    let mut i = 0;
    let err = |kind, at| Err(XPathError::new(kind, at, expr));
    loop {
        while i < b.len() && is_ws(b[i]) {
            i += 1;
        }
        if i >= b.len() {
            out.push(Token { tok: Tok::Eof, pos: b.len() });
            return Ok(out);
        }
        let start = i;
        // §3.7: is there a preceding token that makes `*` and NCNames operators?
        let operator_position = match out.last() {
            None => false,
            Some(t) => !matches!(t.tok, Tok::At | Tok::ColonColon | Tok::LParen | Tok::LBracket | Tok::Comma) && !t.tok.is_operator(),
        };
        let c = b[i];
        let tok = match c {
            b'(' => {
                i += 1;
                Tok::LParen
            }
            b')' => {
                i += 1;
                Tok::RParen
            }
            b'[' => {
                i += 1;
                Tok::LBracket
            }
            b']' => {
                i += 1;
                Tok::RBracket
            }
            b'@' => {
                i += 1;
                Tok::At
            }
            b',' => {
                i += 1;
                Tok::Comma
            }
            b'|' => {
                i += 1;
                Tok::Pipe
            }
            b'+' => {
                i += 1;
                Tok::Plus
            }
            b'-' => {
                i += 1;
                Tok::Minus
            }
            b'=' => {
                i += 1;
                Tok::Eq
            }
            b'!' => {
                if b.get(i + 1) == Some(&b'=') {
                    i += 2;
                    Tok::Ne
                } else {
                    return err(ErrorKind::UnexpectedChar('!'), i);
                }
            }
            b'<' => {
                if b.get(i + 1) == Some(&b'=') {
                    i += 2;
                    Tok::Le
                } else {
                    i += 1;
                    Tok::Lt
                }
            }
            b'>' => {
                if b.get(i + 1) == Some(&b'=') {
                    i += 2;
                    Tok::Ge
                } else {
                    i += 1;
                    Tok::Gt
                }
            }
            b'/' => {
                if b.get(i + 1) == Some(&b'/') {
                    i += 2;
                    Tok::SlashSlash
                } else {
                    i += 1;
                    Tok::Slash
                }
            }
            b':' => {
                if b.get(i + 1) == Some(&b':') {
                    i += 2;
                    Tok::ColonColon
                } else {
                    return err(ErrorKind::UnexpectedChar(':'), i);
                }
            }
            b'*' => {
                i += 1;
                if operator_position {
                    Tok::Mul
                } else {
                    Tok::Star
                }
            }
            b'"' | b'\'' => match memchr_byte(c, &b[i + 1..]) {
                Some(p) => {
                    let s = expr[i + 1..i + 1 + p].to_string();
                    i += p + 2;
                    Tok::Literal(s)
                }
                None => return err(ErrorKind::UnterminatedLiteral, i),
            },
            b'.' => {
                if b.get(i + 1) == Some(&b'.') {
                    i += 2;
                    Tok::DotDot
                } else if b.get(i + 1).is_some_and(|d| d.is_ascii_digit()) {
                    let e = i + 1 + b[i + 1..].iter().take_while(|d| d.is_ascii_digit()).count();
                    let v = expr[i..e].parse::<f64>().unwrap_or(f64::NAN);
                    i = e;
                    Tok::Number(v)
                } else {
                    i += 1;
                    Tok::Dot
                }
            }
            b'0'..=b'9' => {
                let mut e = i + b[i..].iter().take_while(|d| d.is_ascii_digit()).count();
                if b.get(e) == Some(&b'.') {
                    e += 1;
                    e += b[e..].iter().take_while(|d| d.is_ascii_digit()).count();
                }
                let v = expr[i..e].parse::<f64>().unwrap_or(f64::NAN);
                i = e;
                Tok::Number(v)
            }
            b'$' => {
                i += 1;
                match scan_qname(expr, i) {
                    Some((prefix, local, e)) => {
                        i = e;
                        Tok::Var(prefix, local)
                    }
                    None => {
                        return err(ErrorKind::Unexpected { expected: "a variable name after `$`".into(), found: describe_at(expr, i) }, i)
                    }
                }
            }
            _ => {
                let ch = expr[i..].chars().next().unwrap_or('\u{FFFD}');
                if !is_ncname_start(ch) {
                    return err(ErrorKind::UnexpectedChar(ch), i);
                }
                let ncname_end = scan_ncname(expr, i);
                let first = &expr[i..ncname_end];
                if operator_position {
                    i = ncname_end;
                    match first {
                        "and" => Tok::And,
                        "or" => Tok::Or,
                        "mod" => Tok::Mod,
                        "div" => Tok::Div,
                        _ => {
                            return err(
                                ErrorKind::Unexpected {
                                    expected: "an operator (`and`, `or`, `mod`, `div`, `|`, `/`, ...) or the end of the expression".into(),
                                    found: format!("`{first}`"),
                                },
                                start,
                            )
                        }
                    }
                } else if b.get(ncname_end) == Some(&b':') && b.get(ncname_end + 1) == Some(&b'*') {
                    i = ncname_end + 2;
                    Tok::NsStar(first.to_string())
                } else {
                    let (prefix, local, e) = match scan_qname(expr, i) {
                        Some(q) => q,
                        None => (None, first.to_string(), ncname_end),
                    };
                    i = e;
                    let mut j = e;
                    while j < b.len() && is_ws(b[j]) {
                        j += 1;
                    }
                    if b.get(j) == Some(&b'(') {
                        match (prefix.is_none(), local.as_str()) {
                            (true, "comment") => Tok::NodeType(NodeType::Comment),
                            (true, "text") => Tok::NodeType(NodeType::Text),
                            (true, "processing-instruction") => Tok::NodeType(NodeType::ProcessingInstruction),
                            (true, "node") => Tok::NodeType(NodeType::Node),
                            _ => Tok::Function(prefix, local),
                        }
                    } else if b.get(j) == Some(&b':') && b.get(j + 1) == Some(&b':') {
                        if let Some(p) = prefix {
                            return err(ErrorKind::UnknownAxis(format!("{p}:{local}")), start);
                        }
                        Tok::Axis(local)
                    } else {
                        Tok::Name(prefix, local)
                    }
                }
            }
        };
        out.push(Token { tok, pos: start });
    }
}

fn memchr_byte(c: u8, s: &[u8]) -> Option<usize> {
    s.iter().position(|&x| x == c)
}

/// End of the NCName starting at `i` (which must start one).
fn scan_ncname(expr: &str, i: usize) -> usize {
    let mut e = i;
    for (k, ch) in expr[i..].char_indices() {
        if k == 0 {
            if !is_ncname_start(ch) {
                return i;
            }
        } else if !is_ncname_char(ch) {
            return i + k;
        }
        e = i + k + ch.len_utf8();
    }
    e
}

/// A QName at `i`: (prefix, local, end). `None` if no NCName starts at `i`.
fn scan_qname(expr: &str, i: usize) -> Option<(Option<String>, String, usize)> {
    let e1 = scan_ncname(expr, i);
    if e1 == i {
        return None;
    }
    let b = expr.as_bytes();
    if b.get(e1) == Some(&b':') {
        let e2 = scan_ncname(expr, e1 + 1);
        if e2 > e1 + 1 {
            return Some((Some(expr[i..e1].to_string()), expr[e1 + 1..e2].to_string(), e2));
        }
    }
    Some((None, expr[i..e1].to_string(), e1))
}

fn describe_at(expr: &str, i: usize) -> String {
    match expr[i..].chars().next() {
        None => "end of expression".into(),
        Some(c) => format!("{c:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        tokenize(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn disambiguation() {
        use Tok::*;
        assert_eq!(toks("* * *"), vec![Star, Mul, Star, Eof]);
        assert_eq!(toks("div div div"), vec![Name(None, "div".into()), Div, Name(None, "div".into()), Eof]);
        assert_eq!(toks("child :: text ( )"), vec![Axis("child".into()), ColonColon, NodeType(super::NodeType::Text), LParen, RParen, Eof]);
        assert_eq!(toks("p:*"), vec![NsStar("p".into()), Eof]);
        assert_eq!(toks("p:f(1)"), vec![Function(Some("p".into()), "f".into()), LParen, Number(1.0), RParen, Eof]);
        assert_eq!(toks("$a:b"), vec![Var(Some("a".into()), "b".into()), Eof]);
        assert_eq!(toks("..//.5"), vec![DotDot, SlashSlash, Number(0.5), Eof]);
        assert_eq!(toks("4."), vec![Number(4.0), Eof]);
        assert_eq!(toks("a-b"), vec![Name(None, "a-b".into()), Eof]);
        assert_eq!(toks("a -b"), vec![Name(None, "a".into()), Minus, Name(None, "b".into()), Eof]);
        assert_eq!(toks("@*"), vec![At, Star, Eof]);
        assert_eq!(toks("'x\"y'"), vec![Literal("x\"y".into()), Eof]);
    }

    #[test]
    fn errors() {
        assert!(matches!(tokenize("/numbers numbers").unwrap_err().kind(), ErrorKind::Unexpected { .. }));
        assert_eq!(tokenize("string-length('a").unwrap_err().kind(), &ErrorKind::UnterminatedLiteral);
        assert_eq!(tokenize("a # b").unwrap_err().offset(), 2);
        assert_eq!(tokenize("1e3").unwrap_err().offset(), 1);
    }
}
