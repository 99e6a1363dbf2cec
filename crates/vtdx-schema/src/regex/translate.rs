//! Parser of the XSD 1.0 regular expression grammar (Part 2 Appendix F, productions
//! [1]-[39] with the Second Edition's rule on `-` in character groups), emitting the
//! equivalent `regex` crate syntax. See `docs/schema-regex.md` for the table.

use super::{blocks, RegexError};
use std::fmt::Write;

/// XML 1.0 (Fifth Edition) NameStartChar, used for `\i` (see docs/schema-regex.md).
const NAME_START: &[(u32, u32)] = &[
    (0x3A, 0x3A),
    (0x41, 0x5A),
    (0x5F, 0x5F),
    (0x61, 0x7A),
    (0xC0, 0xD6),
    (0xD8, 0xF6),
    (0xF8, 0x2FF),
    (0x370, 0x37D),
    (0x37F, 0x1FFF),
    (0x200C, 0x200D),
    (0x2070, 0x218F),
    (0x2C00, 0x2FEF),
    (0x3001, 0xD7FF),
    (0xF900, 0xFDCF),
    (0xFDF0, 0xFFFD),
    (0x10000, 0xEFFFF),
];

/// The characters NameChar adds to NameStartChar, used for `\c`.
const NAME_EXTRA: &[(u32, u32)] = &[(0x2D, 0x2E), (0x30, 0x39), (0xB7, 0xB7), (0x300, 0x36F), (0x203F, 0x2040)];

/// The general categories XSD 1.0 §F.1.1 names (`Cs` is not among them).
const CATEGORIES: &[&str] = &[
    "L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Z",
    "Zs", "Zl", "Zp", "S", "Sm", "Sc", "Sk", "So", "C", "Cc", "Cf", "Co", "Cn",
];

pub(crate) struct Translator<'p> {
    chars: Vec<char>,
    pos: usize,
    depth: u32,
    nest_limit: u32,
    out: String,
    _src: &'p str,
    /// The top level's pieces: (translated atom, whether the atom is a group, the
    /// `{min,max}` quantifier if it has one); `None` once a top-level `|` is seen.
    top: Option<Vec<(String, bool, Option<Count>)>>,
}

/// A `{min,max}` quantifier (`max` `None`: unbounded).
pub(crate) type Count = (u32, Option<u32>);

type R<T> = Result<T, RegexError>;

fn lit(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() {
        out.push(c);
    } else {
        let _ = write!(out, "\\x{{{:X}}}", c as u32);
    }
}

fn ranges(out: &mut String, neg: bool, rs: &[(u32, u32)]) {
    let real: Vec<_> = rs
        .iter()
        .filter_map(|&(a, b)| {
            let a = char::from_u32(a)?;
            let b = char::from_u32(b)?;
            Some((a, b))
        })
        .collect();
    if real.is_empty() {
        // a class that matches nothing (or, negated, everything)
        out.push_str(if neg { r"[\x{0}-\x{10FFFF}]" } else { r"[a&&b]" });
        return;
    }
    out.push('[');
    if neg {
        out.push('^');
    }
    for (a, b) in real {
        lit(out, a);
        if a != b {
            out.push('-');
            lit(out, b);
        }
    }
    out.push(']');
}

impl<'p> Translator<'p> {
    pub(crate) fn new(src: &'p str, nest_limit: u32) -> Self {
        Translator { chars: src.chars().collect(), pos: 0, depth: 0, nest_limit, out: String::new(), _src: src, top: Some(Vec::new()) }
    }

    fn err<T>(&self, msg: impl Into<String>) -> R<T> {
        Err(RegexError { offset: self.pos, message: msg.into() })
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.chars.get(self.pos + k).copied()
    }

    fn found(&self) -> String {
        match self.peek() {
            Some(c) => format!("`{c}`"),
            None => "end of pattern".to_string(),
        }
    }

    pub(crate) fn run(self) -> R<String> {
        self.run_counted().map(|(out, _)| out)
    }

    /// The translation, and when the whole pattern is one single-character atom (not a
    /// group) with a `{min,max}` quantifier, that atom translated and the count.
    pub(crate) fn run_counted(mut self) -> R<(String, Option<(String, Count)>)> {
        self.out.push_str(r"\A(?:");
        self.reg_exp()?;
        if self.pos < self.chars.len() {
            // only an unbalanced `)` can stop the top-level expression
            return self.err(format!("expected a character, class, group or end of pattern; found {}", self.found()));
        }
        self.out.push_str(r")\z");
        let single = match self.top.take().as_deref() {
            Some([(atom, false, Some(count))]) => Some((atom.clone(), *count)),
            _ => None,
        };
        Ok((self.out, single))
    }

    // [1] regExp ::= branch ( '|' branch )*
    fn reg_exp(&mut self) -> R<()> {
        self.branch()?;
        while self.peek() == Some('|') {
            if self.depth == 0 {
                self.top = None;
            }
            self.pos += 1;
            self.out.push('|');
            self.branch()?;
        }
        Ok(())
    }

    // [2] branch ::= piece*
    fn branch(&mut self) -> R<()> {
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            self.piece()?;
        }
        Ok(())
    }

    // [3] piece ::= atom quantifier?
    fn piece(&mut self) -> R<()> {
        let (start, group) = (self.out.len(), self.peek() == Some('('));
        self.atom()?;
        let atom_end = self.out.len();
        let mut count = None;
        match self.peek() {
            Some(q @ ('?' | '*' | '+')) => {
                self.pos += 1;
                self.out.push(q);
            }
            Some('{') => count = Some(self.quantity()?),
            _ => {}
        }
        if self.depth == 0 {
            let atom = self.out[start..atom_end].to_string();
            if let Some(top) = self.top.as_mut() {
                top.push((atom, group, count));
            }
        }
        // the `regex` crate would read `a*?` as lazy and `a**` as an error; XSD allows one
        // quantifier per atom, so a second one is rejected here with an XSD message
        if let Some('?' | '*' | '+' | '{') = self.peek() {
            return self.err(format!("expected an atom before quantifier {}", self.found()));
        }
        Ok(())
    }

    // [4] quantifier ::= [?*+] | ( '{' quantity '}' )
    fn quantity(&mut self) -> R<Count> {
        self.pos += 1; // `{`
        let min = self.number()?;
        let max = if self.peek() == Some(',') {
            self.pos += 1;
            if self.peek() == Some('}') {
                None
            } else {
                Some(Some(self.number()?))
            }
        } else {
            Some(None)
        };
        if self.peek() != Some('}') {
            return self.err(format!("expected `}}` closing the quantifier; found {}", self.found()));
        }
        self.pos += 1;
        match max {
            Some(None) => {
                let _ = write!(self.out, "{{{min}}}");
                Ok((min, Some(min)))
            }
            None => {
                let _ = write!(self.out, "{{{min},}}");
                Ok((min, None))
            }
            Some(Some(max)) => {
                if max < min {
                    return self.err(format!("expected a quantifier maximum at least {min}; found {max}"));
                }
                let _ = write!(self.out, "{{{min},{max}}}");
                Ok((min, Some(max)))
            }
        }
    }

    // [8] QuantExact ::= [0-9]+
    fn number(&mut self) -> R<u32> {
        let start = self.pos;
        let mut v: u64 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            v = (v * 10 + u64::from(d)).min(u64::from(u32::MAX) + 1);
            self.pos += 1;
        }
        if self.pos == start {
            return self.err(format!("expected a number in the quantifier; found {}", self.found()));
        }
        u32::try_from(v).or_else(|_| self.err::<u32>("expected a quantifier bound below 4294967296; found a larger number".to_string()))
    }

    // [9] atom ::= Char | charClass | ( '(' regExp ')' )
    fn atom(&mut self) -> R<()> {
        let c = match self.peek() {
            Some(c) => c,
            None => return self.err("expected an atom; found end of pattern"),
        };
        match c {
            '(' => {
                self.depth += 1;
                if self.depth > self.nest_limit {
                    return self.err(format!("groups nested deeper than the limit of {}", self.nest_limit));
                }
                self.pos += 1;
                self.out.push_str("(?:");
                self.reg_exp()?;
                if self.peek() != Some(')') {
                    return self.err(format!("expected `)` closing the group; found {}", self.found()));
                }
                self.pos += 1;
                self.out.push(')');
                self.depth -= 1;
                Ok(())
            }
            '[' => self.class_expr(),
            '.' => {
                self.pos += 1;
                self.out.push_str(r"[^\n\r]");
                Ok(())
            }
            '\\' => self.escape(false),
            '?' | '*' | '+' | '{' => self.err(format!("expected an atom before quantifier `{c}`")),
            '}' | ']' => self.err(format!("expected a character; found `{c}`, which must be escaped as `\\{c}`")),
            _ => {
                self.pos += 1;
                lit(&mut self.out, c);
                Ok(())
            }
        }
    }

    /// An escape at `\`. Inside a class (`in_class`) the output is a class item; outside
    /// it is an atom. Returns through `self.out`.
    fn escape(&mut self, in_class: bool) -> R<()> {
        let _ = in_class;
        self.pos += 1; // `\`
        let c = match self.peek() {
            Some(c) => c,
            None => return self.err("expected an escape after `\\`; found end of pattern"),
        };
        self.pos += 1;
        match c {
            // [24] SingleCharEsc
            'n' => lit(&mut self.out, '\n'),
            'r' => lit(&mut self.out, '\r'),
            't' => lit(&mut self.out, '\t'),
            '\\' | '|' | '.' | '?' | '*' | '+' | '(' | ')' | '{' | '}' | '-' | '[' | ']' | '^' => lit(&mut self.out, c),
            // [37] MultiCharEsc
            's' => self.out.push_str(r"[\x{20}\t\n\r]"),
            'S' => self.out.push_str(r"[^\x{20}\t\n\r]"),
            'd' => self.out.push_str(r"\p{Nd}"),
            'D' => self.out.push_str(r"\P{Nd}"),
            'w' => self.out.push_str(r"[^\p{P}\p{Z}\p{C}]"),
            'W' => self.out.push_str(r"[\p{P}\p{Z}\p{C}]"),
            'i' => ranges(&mut self.out, false, NAME_START),
            'I' => ranges(&mut self.out, true, NAME_START),
            'c' | 'C' => {
                let mut all: Vec<(u32, u32)> = NAME_START.iter().chain(NAME_EXTRA).copied().collect();
                all.sort_unstable();
                ranges(&mut self.out, c == 'C', &all);
            }
            // [26] catEsc, [27] complEsc
            'p' | 'P' => self.property(c == 'P')?,
            _ => {
                self.pos -= 1;
                return self.err(format!(
                    "expected one of the XSD escapes \\n \\r \\t \\\\ \\| \\. \\? \\* \\+ \\( \\) \\{{ \\}} \\- \\[ \\] \\^ \\s \\S \\i \\I \\c \\C \\d \\D \\w \\W \\p{{}} \\P{{}}; found `\\{c}`"
                ));
            }
        }
        Ok(())
    }

    // [28] charProp ::= IsCategory | IsBlock
    fn property(&mut self, neg: bool) -> R<()> {
        if self.peek() != Some('{') {
            return self.err(format!("expected `{{` after `\\p`; found {}", self.found()));
        }
        self.pos += 1;
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c == '}' {
                break;
            }
            self.pos += 1;
        }
        if self.peek() != Some('}') {
            return self.err("expected `}` closing the property; found end of pattern");
        }
        let name: String = self.chars[start..self.pos].iter().collect();
        self.pos += 1;
        if CATEGORIES.contains(&name.as_str()) {
            let _ = write!(self.out, "\\{}{{{}}}", if neg { 'P' } else { 'p' }, name);
            return Ok(());
        }
        if let Some(block) = name.strip_prefix("Is").and_then(blocks::block) {
            ranges(&mut self.out, neg, block);
            return Ok(());
        }
        self.pos = start;
        self.err(format!("expected a general category (L, Lu, Nd, ...) or a block name (IsBasicLatin, ...); found `{name}`"))
    }

    // [11] charClassExpr ::= '[' charGroup ']'
    // [12] charGroup ::= posCharGroup | negCharGroup | charClassSub
    fn class_expr(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > self.nest_limit {
            return self.err(format!("character classes nested deeper than the limit of {}", self.nest_limit));
        }
        let open = self.pos;
        self.pos += 1; // `[`
        let neg = if self.peek() == Some('^') {
            self.pos += 1;
            true
        } else {
            false
        };
        let mut items = String::new();
        std::mem::swap(&mut items, &mut self.out);
        let r = self.pos_char_group();
        std::mem::swap(&mut items, &mut self.out);
        let subtract = r?;
        let mut sub = String::new();
        if subtract {
            // `-[` : [14] charClassSub
            self.pos += 1; // `-`
            std::mem::swap(&mut sub, &mut self.out);
            let r = self.class_expr();
            std::mem::swap(&mut sub, &mut self.out);
            r?;
        }
        if self.peek() != Some(']') {
            if self.peek().is_none() {
                self.pos = open;
                return self.err("expected `]` closing the character class; found end of pattern");
            }
            return self.err(format!("expected `]` closing the character class; found {}", self.found()));
        }
        self.pos += 1;
        match (neg, subtract) {
            (false, false) => {
                let _ = write!(self.out, "[{items}]");
            }
            (true, false) => {
                let _ = write!(self.out, "[^{items}]");
            }
            (false, true) => {
                let _ = write!(self.out, "[[{items}]--{sub}]");
            }
            (true, true) => {
                let _ = write!(self.out, "[[^{items}]--{sub}]");
            }
        }
        self.depth -= 1;
        Ok(())
    }

    /// [13] posCharGroup ::= ( charRange | charClassEsc )+ ; returns whether a
    /// subtraction (`-[`) follows.
    fn pos_char_group(&mut self) -> R<bool> {
        let mut count = 0usize;
        loop {
            let c = match self.peek() {
                Some(c) => c,
                None => return self.err("expected `]` closing the character class; found end of pattern"),
            };
            match c {
                ']' => {
                    if count == 0 {
                        return self.err("expected at least one character or range in the class; found `]`");
                    }
                    return Ok(false);
                }
                '-' if self.peek_at(1) == Some('[') => {
                    if count == 0 {
                        return self.err("expected a character group before the subtraction `-[`");
                    }
                    return Ok(true);
                }
                '-' => {
                    // Second Edition: `-` is a literal only first or last in a group
                    let first = count == 0;
                    // last in the group: before `]`, or before the `-[` of a subtraction
                    let last = self.peek_at(1) == Some(']') || (self.peek_at(1) == Some('-') && self.peek_at(2) == Some('['));
                    if !first && !last {
                        return self.err(
                            "expected `-` only at the start or end of a character group (escape it as `\\-`); found it in the middle",
                        );
                    }
                    self.pos += 1;
                    lit(&mut self.out, '-');
                    if first && self.peek() == Some('-') && self.peek_at(1) != Some('[') && self.peek_at(1) != Some(']') {
                        return self.err("expected a character after `-`; found `-` (a range cannot start with `-`)");
                    }
                }
                '[' => return self.err("expected a character or `]`; found `[` (escape it as `\\[`)"),
                '\\' => {
                    let save = self.pos;
                    let single = self.single_char_escape();
                    match single {
                        Some(ch) => {
                            self.pos += 2;
                            self.range_from(ch, save)?;
                        }
                        None => self.escape(true)?,
                    }
                }
                _ => {
                    let save = self.pos;
                    self.pos += 1;
                    self.range_from(c, save)?;
                }
            }
            count += 1;
        }
    }

    /// The character a single-character escape at `\` stands for, if it is one.
    fn single_char_escape(&self) -> Option<char> {
        match self.peek_at(1)? {
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            c @ ('\\' | '|' | '.' | '?' | '*' | '+' | '(' | ')' | '{' | '}' | '-' | '[' | ']' | '^') => Some(c),
            _ => None,
        }
    }

    /// After the character `start` of a class: either a range `start-end` ([17] seRange)
    /// or the single character.
    fn range_from(&mut self, start: char, at: usize) -> R<()> {
        if self.peek() == Some('-') && !matches!(self.peek_at(1), Some('[' | ']') | None) {
            self.pos += 1;
            let end = match self.peek() {
                Some('\\') => match self.single_char_escape() {
                    Some(ch) => {
                        self.pos += 2;
                        ch
                    }
                    None => return self.err("expected a character or single-character escape ending the range"),
                },
                Some('-') => return self.err("expected a character ending the range; found `-` (escape it as `\\-`)"),
                Some('[') => return self.err("expected a character ending the range; found `[`"),
                Some(c) => {
                    self.pos += 1;
                    c
                }
                None => return self.err("expected a character ending the range; found end of pattern"),
            };
            if end < start {
                self.pos = at;
                return self.err(format!(
                    "expected a range whose end is not below its start; found `{}-{}`",
                    start.escape_default(),
                    end.escape_default()
                ));
            }
            lit(&mut self.out, start);
            self.out.push('-');
            lit(&mut self.out, end);
        } else {
            lit(&mut self.out, start);
        }
        Ok(())
    }
}
