//! XSD 1.0 regular expressions (Part 2 Appendix F) translated to the `regex` crate.
//!
//! A pattern is parsed by its own grammar (XSD syntax, not Rust's), then emitted as an
//! equivalent `regex` pattern anchored at both ends (an XSD pattern matches the whole
//! value). The translation is documented in `docs/schema-regex.md`. The `regex` crate
//! guarantees linear-time matching; the compiled size is bounded by [`RegexOptions`], so a
//! pathological pattern fails to compile instead of exhausting memory.

use std::fmt;

mod blocks;
mod translate;

/// Limits on compiled patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegexOptions {
    /// The `regex` crate's `size_limit` (bytes of compiled program); default 4 MiB.
    pub size_limit: usize,
    /// The `regex` crate's `dfa_size_limit` (bytes of lazy DFA cache); default 2 MiB.
    pub dfa_size_limit: usize,
    /// The deepest nesting of groups and classes accepted; default 64.
    pub nest_limit: u32,
}

impl Default for RegexOptions {
    fn default() -> Self {
        RegexOptions { size_limit: 4 << 20, dfa_size_limit: 2 << 20, nest_limit: 64 }
    }
}

/// A pattern that is not a valid XSD 1.0 regular expression, or is too large.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegexError {
    /// Character offset in the pattern where the problem was found.
    pub offset: usize,
    /// What was expected and what was found.
    pub message: String,
}

impl fmt::Display for RegexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid pattern at character {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for RegexError {}

/// A compiled XSD pattern. Cheap to clone (the compiled program is shared).
#[derive(Clone)]
pub struct XsdRegex {
    source: std::sync::Arc<str>,
    re: regex::Regex,
    /// For a pattern that is one single-character atom with a count (`\d{1,1000}`) too
    /// large to compile unrolled: `re` matches the atom repeated any number of times and
    /// the value's length in characters must lie within these bounds.
    count: Option<translate::Count>,
}

impl fmt::Debug for XsdRegex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "XsdRegex({:?})", self.source)
    }
}

impl XsdRegex {
    /// Compiles an XSD pattern with the default limits.
    pub fn new(pattern: &str) -> Result<XsdRegex, RegexError> {
        XsdRegex::with_options(pattern, &RegexOptions::default())
    }

    /// Compiles an XSD pattern with explicit limits. A pattern that is one
    /// single-character atom with a count (`\d{1,1000}`, `[^<]{0,65535}`) and is too large
    /// to compile unrolled is matched as the atom repeated, with the count checked on the
    /// value's length: the same language, in linear time and constant size.
    pub fn with_options(pattern: &str, options: &RegexOptions) -> Result<XsdRegex, RegexError> {
        let (translated, single) = translate::Translator::new(pattern, options.nest_limit).run_counted()?;
        let build = |re: &str| {
            regex::RegexBuilder::new(re)
                .size_limit(options.size_limit)
                .dfa_size_limit(options.dfa_size_limit)
                .nest_limit(options.nest_limit.saturating_mul(2).saturating_add(4))
                .build()
        };
        let (re, count) = match (build(&translated), single) {
            (Err(regex::Error::CompiledTooBig(_)), Some((atom, count))) => (build(&format!(r"\A(?:{atom})*\z")), Some(count)),
            (r, _) => (r, None),
        };
        let re = re.map_err(|e| RegexError {
            offset: 0,
            message: match e {
                regex::Error::CompiledTooBig(limit) => {
                    format!("expected a pattern that compiles within the size limit of {limit} bytes; found a larger one")
                }
                other => format!("the translated pattern was rejected: {other}"),
            },
        })?;
        Ok(XsdRegex { source: pattern.into(), re, count })
    }

    /// Whether the whole of `value` matches.
    pub fn is_match(&self, value: &str) -> bool {
        match self.count {
            None => self.re.is_match(value),
            Some((min, max)) => {
                let n = value.chars().count();
                n >= min as usize && max.is_none_or(|m| n <= m as usize) && self.re.is_match(value)
            }
        }
    }

    /// The XSD source of the pattern.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The `regex` crate pattern it was translated to (for a counted single atom too large
    /// to unroll, the atom repeated any number of times; the count is checked apart).
    pub fn translated(&self) -> &str {
        self.re.as_str()
    }
}

/// Translates an XSD pattern into `regex` crate syntax (anchored: `^(?:...)$`).
pub fn translate(pattern: &str) -> Result<String, RegexError> {
    translate::Translator::new(pattern, RegexOptions::default().nest_limit).run()
}

#[cfg(test)]
mod tests;
