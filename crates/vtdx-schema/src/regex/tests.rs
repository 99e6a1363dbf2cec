//! Each construct of XSD 1.0 Part 2 Appendix F, with examples from the spec's text.

use super::*;

fn m(p: &str, v: &str) -> bool {
    XsdRegex::new(p).unwrap_or_else(|e| panic!("{p}: {e}")).is_match(v)
}

fn bad(p: &str) {
    assert!(XsdRegex::new(p).is_err(), "pattern {p:?} must be rejected");
}

#[test]
fn whole_value_anchoring() {
    // §4.3.4: the pattern must match the entire literal
    assert!(m("a", "a"));
    assert!(!m("a", "ba"));
    assert!(!m("a", "ab"));
    assert!(!m("a", "a\n"));
    assert!(m("", ""));
    assert!(!m("", "a"));
    assert!(m("a|", ""));
    assert!(m("ab|cd", "cd"));
    assert!(!m("ab|cd", "abcd"));
}

#[test]
fn caret_and_dollar_are_ordinary() {
    // F.1: ^ and $ are normal characters in XSD 1.0
    assert!(m("^a$", "^a$"));
    assert!(!m("^a$", "a"));
    assert!(m("[a^]", "^"));
    assert!(m("\\^", "^"));
}

#[test]
fn quantifiers() {
    assert!(m("a?", "") && m("a?", "a") && !m("a?", "aa"));
    assert!(m("a*", "") && m("a*", "aaaa"));
    assert!(!m("a+", "") && m("a+", "aaa"));
    assert!(m("a{2}", "aa") && !m("a{2}", "a") && !m("a{2}", "aaa"));
    assert!(m("a{2,}", "aaaaa") && !m("a{2,}", "a"));
    assert!(m("a{0,2}", "") && m("a{1,2}", "aa") && !m("a{1,2}", "aaa"));
    assert!(m("(ab){2}", "abab"));
    assert!(m("a{0}", ""));
    for p in ["a{,2}", "a{2,1}", "a**", "a*?", "a+?", "a??", "a{1}{2}", "*a", "+", "a{", "a{1", "a{1,2", "a{a}", "a{1,a}", "{1}"] {
        bad(p);
    }
}

#[test]
fn rejects_perl_syntax() {
    for p in [
        "(?:a)",
        "(?i)a",
        "(a)\\1",
        "\\b",
        "\\B",
        "\\A",
        "\\z",
        "\\x41",
        "\\u0041",
        "\\$",
        "\\/",
        "a)",
        "(a",
        "[a",
        "a]",
        "}",
        "\\",
        "\\p{Foo}",
        "\\p{IsFoo}",
        "\\p{Cs}",
        "\\pL",
        "\\p{L",
    ] {
        bad(p);
    }
}

#[test]
fn escapes() {
    assert!(m("\\n\\r\\t", "\n\r\t"));
    assert!(m("\\\\\\|\\.\\?\\*\\+\\(\\)\\{\\}\\-\\[\\]\\^", "\\|.?*+(){}-[]^"));
    assert!(m("a.c", "abc") && !m("a.c", "a\nc") && !m("a.c", "a\rc") && m("a.c", "a\u{10000}c"));
    // \s: space, tab, newline, return
    assert!(m("\\s", " ") && m("\\s", "\t") && !m("\\s", "\u{a0}") && m("\\S", "\u{a0}"));
    // \d = \p{Nd}, including non-ASCII digits
    assert!(m("\\d", "7") && m("\\d", "\u{0663}") && !m("\\d", "x") && m("\\D", "x"));
    // \w: everything but P, Z and C (so '_' (Pc) and '-' are not \w; '$' (Sc) is)
    assert!(m("\\w", "a") && m("\\w", "$") && m("\\w", "+"));
    assert!(!m("\\w", "_") && !m("\\w", "-") && !m("\\w", " ") && !m("\\w", "\u{0}"));
    assert!(m("\\W", "_") && !m("\\W", "a"));
    // \i initial name chars, \c name chars
    assert!(m("\\i\\c*", "_a-b.c:d") && !m("\\i", "-") && !m("\\i", "1") && m("\\c", "1"));
    assert!(m("\\I", "1") && !m("\\I", "a") && m("\\C", " ") && !m("\\C", "."));
}

#[test]
fn categories_and_blocks() {
    assert!(m("\\p{Lu}", "A") && !m("\\p{Lu}", "a") && m("\\P{Lu}", "a"));
    assert!(m("\\p{L}+", "abcÄ") && m("\\p{N}", "5") && m("\\p{Sc}", "$") && m("\\p{Zs}", " "));
    assert!(m("\\p{IsBasicLatin}+", "abc~") && !m("\\p{IsBasicLatin}", "é"));
    assert!(m("\\P{IsBasicLatin}", "é"));
    assert!(m("\\p{IsGreek}", "\u{3b1}") && m("\\p{IsLatin-1Supplement}", "é"));
    assert!(m("\\p{IsPrivateUse}", "\u{E000}") && m("\\p{IsPrivateUse}", "\u{F0000}"));
    // surrogate blocks hold no character a string can have
    assert!(!m("\\p{IsHighSurrogates}", "a") && m("\\P{IsHighSurrogates}", "a"));
    assert!(m("[\\p{IsArrows}a]", "\u{2190}"));
}

#[test]
fn character_classes() {
    assert!(m("[abc]", "b") && !m("[abc]", "d"));
    assert!(m("[a-c]", "b") && !m("[^a-c]", "b") && m("[^a-c]", "d"));
    assert!(m("[-a]", "-") && m("[a-]", "-") && m("[^-a]", "b") && !m("[^-a]", "-"));
    assert!(m("[\\-a]", "-") && m("[a\\-z]", "-") && !m("[a\\-z]", "b"));
    assert!(m("[\\d\\s]", " ") && m("[\\p{Lu}\\d]", "3") && !m("[\\p{Lu}\\d]", "a"));
    assert!(m("[\\n-\\r]", "\u{b}"));
    assert!(m("[.]", ".") && !m("[.]", "a") && m("[*+?(){}|]", "|"));
    assert!(m("[$^]", "$"));
    for p in ["[]", "[^]", "[a-z-q]", "[z-a]", "[a-\\d]", "[[a]]", "[a-[b]", "[--a]", "[a--]"] {
        bad(p);
    }
}

#[test]
fn subtraction() {
    // F.1.1 example: [a-z-[aeiou]] is the consonants
    assert!(m("[a-z-[aeiou]]+", "bcdfg") && !m("[a-z-[aeiou]]", "e"));
    // nested subtraction
    assert!(m("[a-z-[a-f-[c]]]", "c") && !m("[a-z-[a-f-[c]]]", "b") && m("[a-z-[a-f-[c]]]", "z"));
    // negative group with subtraction: (not a-c) minus digits
    assert!(m("[^a-c-[0-9]]", "x") && !m("[^a-c-[0-9]]", "5") && !m("[^a-c-[0-9]]", "a"));
    assert!(m("[\\p{L}-[\\p{Lu}]]", "a") && !m("[\\p{L}-[\\p{Lu}]]", "A"));
}

#[test]
fn literal_special_rust_chars() {
    // characters with meaning in Rust regex syntax but not in XSD
    assert!(m("a#b", "a#b") && m("a&&b", "a&&b") && m("a~b", "a~b") && m("[&~#]+", "&~#"));
    assert!(m(" x ", " x ") && m("\u{10000}", "\u{10000}"));
    assert!(m("[a&&b]", "&") && !m("[a&&b]", "c"));
    // XSD 1.0 charOrEsc excludes `-`: a range cannot end with an unescaped `-`
    bad("[a--b]");
}

#[test]
fn size_limit() {
    let opts = RegexOptions { size_limit: 10_000, ..RegexOptions::default() };
    let e = XsdRegex::with_options("(a{1,1000}){1,1000}", &opts).unwrap_err();
    assert!(e.message.contains("size limit"), "{e}");
    // with default limits a pathological pattern is still refused, not built
    assert!(XsdRegex::new("((a{1,100}){1,100}){1,100}").is_err());
    let deep = "(".repeat(200) + &")".repeat(200);
    assert!(XsdRegex::new(&deep).unwrap_err().message.contains("nested deeper"));
}

#[test]
fn error_positions() {
    let e = XsdRegex::new("ab\\bc").unwrap_err();
    assert_eq!(e.offset, 3);
    assert!(e.to_string().starts_with("invalid pattern at character 3: expected one of the XSD escapes"), "{e}");
}

#[test]
fn counted_single_atom_beyond_the_size_limit() {
    // one class with a count too large to unroll: matched as the class repeated, the
    // count checked on the length (the same language)
    let opts = RegexOptions { size_limit: 10_000, ..RegexOptions::default() };
    let r = XsdRegex::with_options(r"\d{2,500}", &opts).unwrap();
    assert!(r.is_match(&"1".repeat(2)) && r.is_match(&"\u{0663}".repeat(500)));
    assert!(!r.is_match("1") && !r.is_match(&"1".repeat(501)) && !r.is_match(&format!("{}x", "1".repeat(10))));
    // a group, an alternation or a second piece keeps the limit
    for p in [r"(\d){2,500}", r"\d{2,500}|a", r"a\d{2,500}", "(a{1,1000}){1,1000}"] {
        assert!(XsdRegex::with_options(p, &opts).unwrap_err().message.contains("size limit"), "{p}");
    }
    // the default limits: large counts of a Unicode class load quickly
    let t = std::time::Instant::now();
    for p in [r"\p{L}{1,65535}", r"\w{0,100000}", r"[^<]{0,65535}", r".{1,4000}"] {
        assert!(XsdRegex::new(p).is_ok(), "{p}");
    }
    assert!(t.elapsed().as_secs_f64() < 2.0, "{:?}", t.elapsed());
}
