//! Simple types: cases from the XSD 1.0 Part 2 text, and a differential run against
//! Python `xmlschema` (an independent implementation) on generated (type, facets, value)
//! cases, including the corners of every lexical space.
//!
//! The python is `$VTDX_PYTHON`, else `target/py/bin/python`, else `python3` (the first
//! that can import xmlschema). Without one the differential test fails when
//! `VTDX_REQUIRE_XMLSCHEMA=1` (set by scripts/test.sh) and otherwise prints a loud note.
//! Known departures of xmlschema from XSD 1.0 are listed, each with the spec clause, in
//! `testdata/schema/datatypes/xmlschema-exclusions.txt`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use vtdx_schema::datatypes::{
    list, restrict, union, Builtin, DatatypeErrorKind, FacetKind, FacetSpec, NoNamespaces, NsMap, SimpleType, Value,
};

pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn b(name: &str) -> SimpleType {
    SimpleType::builtin(Builtin::from_local_name(name).unwrap_or_else(|| panic!("no built-in {name}")))
}

/// A type as the generator describes it; turned both into our `SimpleType` and into the
/// XSD text xmlschema reads.
#[derive(Clone, Debug)]
enum Spec {
    B(&'static str),
    R(Box<Spec>, Vec<(FacetKind, &'static str, bool)>),
    List(Box<Spec>),
    Union(Vec<Spec>),
}

fn r(base: Spec, facets: &[(FacetKind, &'static str)]) -> Spec {
    Spec::R(Box::new(base), facets.iter().map(|&(k, v)| (k, v, false)).collect())
}

fn esc(s: &str) -> String {
    let mut o = String::new();
    for c in s.chars() {
        match c {
            '<' => o.push_str("&lt;"),
            '&' => o.push_str("&amp;"),
            '"' => o.push_str("&quot;"),
            '\t' => o.push_str("&#9;"),
            '\n' => o.push_str("&#10;"),
            '\r' => o.push_str("&#13;"),
            c => o.push(c),
        }
    }
    o
}

impl Spec {
    fn label(&self) -> String {
        match self {
            Spec::B(n) => n.to_string(),
            Spec::R(base, f) => {
                let fs: Vec<String> = f.iter().map(|(k, v, fx)| format!("{k}={v}{}", if *fx { "!" } else { "" })).collect();
                format!("{}[{}]", base.label(), fs.join(","))
            }
            Spec::List(i) => format!("list({})", i.label()),
            Spec::Union(m) => format!("union({})", m.iter().map(Spec::label).collect::<Vec<_>>().join("|")),
        }
    }

    fn build(&self) -> Result<SimpleType, String> {
        let ns = NsMap(vec![("p".into(), "urn:p".into()), ("t".into(), "urn:t".into())]);
        match self {
            Spec::B(n) => Ok(b(n)),
            Spec::R(base, f) => {
                let base = base.build()?;
                let specs: Vec<FacetSpec> =
                    f.iter().map(|&(k, v, fx)| if fx { FacetSpec::new(k, v).fixed() } else { FacetSpec::new(k, v) }).collect();
                restrict(&base, &specs, &ns).map_err(|e| e.to_string())
            }
            Spec::List(i) => list(&i.build()?).map_err(|e| e.to_string()),
            Spec::Union(m) => union(&m.iter().map(Spec::build).collect::<Result<Vec<_>, _>>()?).map_err(|e| e.to_string()),
        }
    }

    /// The content of an `<xs:simpleType>`.
    fn body(&self) -> String {
        match self {
            Spec::B(n) => format!("<xs:restriction base=\"xs:{n}\"/>"),
            Spec::R(base, f) => {
                let facets: String = f
                    .iter()
                    .map(|(k, v, fx)| format!("<xs:{k} value=\"{}\"{}/>", esc(v), if *fx { " fixed=\"true\"" } else { "" }))
                    .collect();
                match &**base {
                    Spec::B(n) => format!("<xs:restriction base=\"xs:{n}\">{facets}</xs:restriction>"),
                    other => format!("<xs:restriction><xs:simpleType>{}</xs:simpleType>{facets}</xs:restriction>", other.body()),
                }
            }
            Spec::List(i) => match &**i {
                Spec::B(n) => format!("<xs:list itemType=\"xs:{n}\"/>"),
                other => format!("<xs:list><xs:simpleType>{}</xs:simpleType></xs:list>", other.body()),
            },
            Spec::Union(m) => {
                let inner: String = m.iter().map(|s| format!("<xs:simpleType>{}</xs:simpleType>", s.body())).collect();
                format!("<xs:union>{inner}</xs:union>")
            }
        }
    }
}

// ---------------------------------------------------------------------------------
// Cases from the text of XSD 1.0 Part 2 (expected verdicts from the spec)

#[test]
fn spec_examples() {
    let ok = |t: &str, v: &str| b(t).check(v, &NoNamespaces).is_ok();
    // §3.2.3.1 decimal: "-1.23, 12678967.543233, +100000.00, 210"
    for v in ["-1.23", "12678967.543233", "+100000.00", "210"] {
        assert!(ok("decimal", v), "{v}");
    }
    // §3.2.4.1 float: "-1E4, 1267.43233E12, 12.78e-2, 12 , -0, 0 and INF"
    for v in ["-1E4", "1267.43233E12", "12.78e-2", "12", "-0", "0", "INF"] {
        assert!(ok("float", v), "{v}");
    }
    // §3.2.6.1 duration: P1Y2M3DT10H30M and -P120D are legal; P-1347M and P1Y2MT are not
    assert!(ok("duration", "P1Y2M3DT10H30M") && ok("duration", "-P120D") && ok("duration", "P1347Y"));
    assert!(ok("duration", "P1347M") && ok("duration", "P0Y1347M0D"));
    assert!(!ok("duration", "P-1347M") && !ok("duration", "P1Y2MT"));
    // §3.2.7.1: 2002-10-10T12:00:00-05:00 is 2002-10-10T17:00:00Z
    let v1 = b("dateTime").validate("2002-10-10T12:00:00-05:00", &NoNamespaces).unwrap();
    let v2 = b("dateTime").validate("2002-10-10T17:00:00Z", &NoNamespaces).unwrap();
    assert_eq!(v1, v2);
    // §3.2.7: "0000" is not a valid year in XSD 1.0; -0001 is 1 BCE
    assert!(!ok("gYear", "0000") && ok("gYear", "-0001"));
    // §3.2.15 hexBinary "0FB7" is one encoding of 4023
    assert_eq!(b("hexBinary").validate("0FB7", &NoNamespaces).unwrap().as_bytes(), Some(&[0x0f, 0xb7][..]));
    // §3.3.13 integer: "-1, 0, 12678967543233, +100000"
    for v in ["-1", "0", "12678967543233", "+100000"] {
        assert!(ok("integer", v), "{v}");
    }
    // §3.2.2.1 boolean: {true, false, 1, 0}
    assert!(ok("boolean", "1") && !ok("boolean", "True"));
    // §4.3.1 length counts octets for binary types
    let hex2 = restrict(&b("hexBinary"), &[FacetSpec::new(FacetKind::Length, "2")], &NoNamespaces).unwrap();
    assert!(hex2.check("0FB7", &NoNamespaces).is_ok() && hex2.check("0F", &NoNamespaces).is_err());
    // §4.3.12 fractionDigits is the number of digits after the point of the value
    let fd = restrict(&b("decimal"), &[FacetSpec::new(FacetKind::FractionDigits, "1")], &NoNamespaces).unwrap();
    assert!(fd.check("1.50", &NoNamespaces).is_ok());
}

#[test]
fn error_messages() {
    let e = b("decimal").check("12a", &NoNamespaces).unwrap_err();
    assert_eq!(e.to_string(), "\"12a\" is not a valid value of type decimal");
    assert_eq!(e.kind(), DatatypeErrorKind::Lexical);
    let t = restrict(&b("integer"), &[FacetSpec::new(FacetKind::MaxInclusive, "100")], &NoNamespaces).unwrap();
    assert_eq!(t.check("120", &NoNamespaces).unwrap_err().to_string(), "value 120 is greater than maxInclusive 100");
    let t =
        restrict(&b("token"), &[FacetSpec::new(FacetKind::Enumeration, "a"), FacetSpec::new(FacetKind::Enumeration, "b")], &NoNamespaces)
            .unwrap();
    assert_eq!(t.check("c", &NoNamespaces).unwrap_err().to_string(), "value \"c\" is not one of the enumeration: \"a\", \"b\"");
    let t = restrict(&b("string"), &[FacetSpec::new(FacetKind::Pattern, "\\d{3}")], &NoNamespaces).unwrap();
    assert_eq!(t.check("12", &NoNamespaces).unwrap_err().to_string(), "value \"12\" does not match pattern \\d{3}");
    let e = restrict(&b("string"), &[FacetSpec::new(FacetKind::MaxInclusive, "1")], &NoNamespaces).unwrap_err();
    assert_eq!(e.to_string(), "facet maxInclusive is not applicable to type string");
    assert_eq!(e.facet(), Some(FacetKind::MaxInclusive));
    assert!(b("int").check_bytes(b"\xff", &NoNamespaces).unwrap_err().to_string().starts_with("expected UTF-8"));
    assert_eq!(b("int").validate_bytes(b" 42 ", &NoNamespaces).unwrap().as_i128(), Some(42));
}

#[test]
fn typed_values() {
    let v = b("dateTime").validate("2001-02-03T04:05:06.70-01:30", &NoNamespaces).unwrap();
    let d = v.as_date_time().unwrap();
    assert_eq!((d.year(), d.month(), d.day(), d.hour(), d.minute(), d.second()), (2001, 2, 3, 4, 5, 6));
    assert_eq!((d.fraction_digits(), d.timezone_minutes()), ("7", Some(-90)));
    let v = b("decimal").validate("-0012.3400", &NoNamespaces).unwrap();
    let dec = v.as_decimal().unwrap();
    assert_eq!((dec.digits(), dec.scale(), dec.to_string()), ((true, "1234".to_string()), 2, "-12.34".to_string()));
    let big = "123456789012345678901234567890123456789012345678901234567890";
    let v = b("integer").validate(big, &NoNamespaces).unwrap();
    assert_eq!(v.as_i128(), None);
    assert_eq!(v.to_string(), big);
    assert_eq!(b("base64Binary").validate("Zm9v", &NoNamespaces).unwrap().as_bytes(), Some(&b"foo"[..]));
    assert_eq!(b("boolean").validate("1", &NoNamespaces).unwrap().as_bool(), Some(true));
    let v = b("duration").validate("P1DT1.5S", &NoNamespaces).unwrap();
    match v {
        Value::Duration(d) => assert_eq!((d.months(), d.seconds().to_string()), (0, "86401.5".to_string())),
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------
// Differential cases against xmlschema

const DECIMALS: &[&str] = &[
    "0",
    "-0",
    "+0",
    "1.",
    ".5",
    " .5 ",
    "5.",
    "1e",
    "1e5",
    "1.0",
    "001.2300",
    "-.0",
    "+.",
    "",
    " ",
    "12a",
    "1 2",
    "1,5",
    "INF",
    "\u{0661}",
    "99.995",
    "100",
    "100.0",
    "100.00001",
    "-100.5",
    "-1.5",
    "-1.50001",
    "+-1",
    "0.001",
    "0.0001",
    "123",
    "1234",
    "12.3",
    "1.23",
    "0012.300",
    "123456789012345678901234567890123456789012345678901234567890",
    "-123456789012345678901234567890123456789012345678901234567890.5",
    "0.000000000000000000000000000000000000000000000000000000000001",
];
const INTEGERS: &[&str] = &[
    "0",
    "-0",
    "+5",
    "1.0",
    "1.",
    "0x10",
    "127",
    "128",
    "-128",
    "-129",
    "255",
    "256",
    "32767",
    "32768",
    "-32769",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "-1",
    "1",
    " 42 ",
    "4 2",
    "10",
    "19",
    "20",
    "99999999999999999999999999999999999999999999",
];
const FLOATS: &[&str] = &[
    "INF",
    "-INF",
    "+INF",
    "inf",
    "NaN",
    "nan",
    "-NaN",
    "1e",
    "1E5",
    "1e+5",
    "1e-5",
    "+1.5e-3",
    ".5e1",
    "5.e1",
    "e5",
    "1.5E",
    "3.4028235e38",
    "-0",
    "0",
    "1e400",
    "4.9e-325",
    " 1.0 ",
    "1 .0",
    "0x1p3",
    "1_000",
    "1.0d",
    "1e5.5",
    "-1E4",
    "12.78e-2",
    "100",
    "-1",
    "0.1",
];
const BOOLEANS: &[&str] = &["true", "false", "1", "0", "TRUE", "yes", "", " true ", "2", "01"];
const DATETIMES: &[&str] = &[
    "2000-01-01T00:00:00",
    "2000-01-01T24:00:00",
    "2000-01-01T24:00:01",
    "0000-01-01T00:00:00",
    "-0001-01-01T00:00:00",
    "2000-02-29T00:00:00",
    "1900-02-29T00:00:00",
    "2000-01-01T00:00:00Z",
    "2000-01-01T00:00:00+14:00",
    "2000-01-01T00:00:00+14:01",
    "2000-01-01T00:00:00-14:00",
    "2000-01-01T00:00:00+15:00",
    "2000-01-01T00:00:00.123456789012",
    "2000-01-01T00:00:00.",
    "2000-01-01 00:00:00",
    "12000-01-01T00:00:00",
    "02000-01-01T00:00:00",
    "2000-1-01T00:00:00",
    "2000-01-01T00:00:60",
    "2000-01-01T00:60:00",
    "-0000-01-01T00:00:00",
    " 2000-01-01T00:00:00Z ",
    "1999-12-31T23:59:59.999Z",
    "2000-01-01T12:00:00",
    "1999-12-31T23:00:00-02:00",
    "2000-01-01T00:00:00z",
    "2000-01-01T00:00:00+0100",
    "2000-01-01T00:00",
    "2000-04-31T00:00:00",
    "2000-01-01T00:00:00+00:60",
];
const DATES: &[&str] = &[
    "2000-01-01",
    "2000-02-29",
    "2001-02-29",
    "1900-02-29",
    "2400-02-29",
    "0000-01-01",
    "-0001-12-31",
    "2000-01-01Z",
    "2000-01-01+14:00",
    "2000-01-01-14:01",
    "2000-13-01",
    "2000-00-10",
    "2000-01-00",
    "2000-01-32",
    "20000-01-01",
    "2000-01",
    "1999-12-31Z",
    "2000-01-02",
    " 2000-01-01 ",
    "2000/01/01",
];
const TIMES: &[&str] = &[
    "00:00:00",
    "24:00:00",
    "23:59:59",
    "12:00:00",
    "11:59:59.9999",
    "12:00:00Z",
    "12:00:00+14:00",
    "12:00:00-05:00",
    "25:00:00",
    "12:60:00",
    "12:00",
    "12:00:00.",
    "1:00:00",
    "12:00:00.5Z",
    "24:00:00Z",
];
const GS: &[(&str, &[&str])] = &[
    ("gYearMonth", &["2000-01", "2000-13", "0000-01", "-0001-12", "2000-01Z", "2000", "20000-01", "2000-1"]),
    ("gYear", &["2000", "-0001", "0000", "-0000", "200", "02000", "20000", "2000Z", "2000+14:00", "+2000"]),
    ("gMonthDay", &["--01-01", "--02-29", "--02-30", "--04-31", "--13-01", "--01-01Z", "-01-01", "--1-01"]),
    ("gDay", &["---01", "---31", "---32", "---00", "---01Z", "--01", "---1"]),
    ("gMonth", &["--01", "--12", "--13", "--00", "--01Z", "--01--", "-01", "--1"]),
];
const DURATIONS: &[&str] = &[
    "P1Y",
    "P1Y2M3DT4H5M6.7S",
    "-P1D",
    "P",
    "PT",
    "P1DT",
    "PT1.5S",
    "P1.5D",
    "PT1H1M",
    "P1M1Y",
    "P-1D",
    "+P1D",
    "PT0S",
    "P0Y",
    " P1D ",
    "P1D2H",
    "P1M",
    "P27D",
    "P28D",
    "P31D",
    "P32D",
    "P30D",
    "PT36H",
    "P1DT12H",
    "PT.5S",
    "PT5.S",
    "p1d",
    "P1Y1Y",
];
const HEX: &[&str] = &["", "0f", "0F", "0G", "f", "  0f0F  ", "0f 0f", "0F0F0F", "0x0f"];
const B64: &[&str] = &[
    "",
    "Zm9v",
    "Zm9",
    "Zm8=",
    "Zg==",
    "Zg= =",
    "Z g = =",
    "Zm9v ",
    "Zh==",
    "Zm9v====",
    "Zm 9v",
    "Zm\n9v",
    "Zm  9v",
    "====",
    "Zm9vYmFy",
    "Zm9vYg==",
    "Zm9vYmE=",
    "Zm9=",
    "Zg=",
    "Z===",
    "Zm9v\tYmFy",
];
const URIS: &[&str] = &[
    "http://a/b",
    "a b",
    "%zz",
    "%20",
    "#a#b",
    "http://h:80/",
    "http://h:x/",
    ":a",
    "",
    "urn:x",
    "\u{fc}",
    "a#b",
    "../x?y#z",
    "1a:b",
    "%",
    "%2",
];
const QNAMES: &[&str] = &["a", "p:a", "a:b:c", ":a", "1a", "xml:lang", "a:", " p:a ", "q:a"];
const NAMES: &[&str] = &[
    "a",
    "a:b",
    ":a",
    "-1",
    "1a",
    "_a",
    "a b",
    "",
    " a ",
    "a.b-c",
    "\u{e9}t\u{e9}",
    "a\u{b7}",
    "\u{b7}a",
    "en",
    "en-US",
    "x-klingon",
    "en_US",
    "123",
    "abcdefghi",
    "a-abcdefghi",
    "i-a1",
];
const STRINGS: &[&str] = &[
    "",
    "a",
    "abc",
    "ab",
    "abcd",
    " abc ",
    "a  b",
    "a\tb",
    "AB1",
    "AB12",
    "ab1",
    "b c",
    "b  c",
    " b c ",
    "x",
    "\u{e4}\u{f6}\u{fc}",
    "a\nb\nc",
];

fn families() -> Vec<(Spec, &'static [&'static str])> {
    use FacetKind as F;
    use Spec::B;
    let mut v: Vec<(Spec, &'static [&'static str])> = vec![
        (B("decimal"), DECIMALS),
        (B("float"), FLOATS),
        (B("double"), FLOATS),
        (B("boolean"), BOOLEANS),
        (B("dateTime"), DATETIMES),
        (B("date"), DATES),
        (B("time"), TIMES),
        (B("duration"), DURATIONS),
        (B("hexBinary"), HEX),
        (B("base64Binary"), B64),
        (B("anyURI"), URIS),
        (B("QName"), QNAMES),
        (B("string"), STRINGS),
        (B("normalizedString"), STRINGS),
        (B("token"), STRINGS),
        (B("NMTOKENS"), NAMES),
        (B("IDREFS"), NAMES),
        (r(B("decimal"), &[(F::MaxInclusive, "100")]), DECIMALS),
        (r(B("decimal"), &[(F::MinExclusive, "-1.5")]), DECIMALS),
        (r(B("decimal"), &[(F::TotalDigits, "3")]), DECIMALS),
        (r(B("decimal"), &[(F::FractionDigits, "2")]), DECIMALS),
        (r(B("decimal"), &[(F::TotalDigits, "3"), (F::FractionDigits, "1")]), DECIMALS),
        (r(B("decimal"), &[(F::Enumeration, "1.0"), (F::Enumeration, "2.50"), (F::Enumeration, "-0")]), DECIMALS),
        (r(B("decimal"), &[(F::Pattern, "\\d+\\.\\d{2}")]), DECIMALS),
        (r(B("integer"), &[(F::MinInclusive, "10"), (F::MaxExclusive, "20")]), INTEGERS),
        (r(B("integer"), &[(F::TotalDigits, "2")]), INTEGERS),
        (r(B("string"), &[(F::Length, "3")]), STRINGS),
        (r(B("string"), &[(F::MinLength, "2"), (F::MaxLength, "3")]), STRINGS),
        (r(B("string"), &[(F::Pattern, "[A-Z]{2}\\d")]), STRINGS),
        (r(B("string"), &[(F::Enumeration, "a"), (F::Enumeration, "b c")]), STRINGS),
        (r(B("string"), &[(F::WhiteSpace, "collapse"), (F::Length, "3")]), STRINGS),
        (r(B("token"), &[(F::Enumeration, "a"), (F::Enumeration, "b c")]), STRINGS),
        (r(B("hexBinary"), &[(F::Length, "2")]), HEX),
        (r(B("base64Binary"), &[(F::MinLength, "2"), (F::MaxLength, "3")]), B64),
        (r(B("date"), &[(F::MinInclusive, "2000-01-01")]), DATES),
        (r(B("date"), &[(F::MaxExclusive, "2000-01-01Z")]), DATES),
        (r(B("dateTime"), &[(F::MaxExclusive, "2000-01-01T00:00:00Z")]), DATETIMES),
        (r(B("dateTime"), &[(F::MinInclusive, "2000-01-01T00:00:00")]), DATETIMES),
        (r(B("time"), &[(F::MinInclusive, "12:00:00")]), TIMES),
        (r(B("duration"), &[(F::MinInclusive, "P1M")]), DURATIONS),
        (r(B("duration"), &[(F::MaxExclusive, "P1D")]), DURATIONS),
        (r(B("float"), &[(F::MinInclusive, "0")]), FLOATS),
        (r(B("double"), &[(F::MaxExclusive, "100")]), FLOATS),
        (r(B("double"), &[(F::Enumeration, "1"), (F::Enumeration, "INF"), (F::Enumeration, "-0")]), FLOATS),
        (r(B("gYear"), &[(F::Enumeration, "2000"), (F::Enumeration, "-0001")]), GS[1].1),
        (r(B("QName"), &[(F::Enumeration, "p:a")]), QNAMES),
        (r(B("QName"), &[(F::MaxLength, "1")]), QNAMES),
        (r(B("anyURI"), &[(F::MaxLength, "3")]), URIS),
        (r(B("string"), &[(F::Pattern, "\\p{Lu}\\w*"), (F::Pattern, "\\i\\c*")]), NAMES),
        (Spec::List(Box::new(B("int"))), INTEGERS),
        (r(Spec::List(Box::new(B("int"))), &[(F::Length, "2")]), STRINGS),
        (r(Spec::List(Box::new(B("token"))), &[(F::MaxLength, "2")]), STRINGS),
        (r(Spec::List(Box::new(B("decimal"))), &[(F::Enumeration, "1 2.0"), (F::Enumeration, "3")]), STRINGS),
        (Spec::Union(vec![B("int"), B("date")]), INTEGERS),
        (Spec::Union(vec![B("int"), B("date")]), DATES),
        (r(Spec::Union(vec![B("int"), B("boolean")]), &[(F::Enumeration, "12"), (F::Enumeration, "true")]), BOOLEANS),
        (r(Spec::Union(vec![B("int"), B("boolean")]), &[(F::Pattern, "\\d")]), INTEGERS),
        (Spec::List(Box::new(Spec::Union(vec![B("int"), B("boolean")]))), BOOLEANS),
    ];
    for name in [
        "integer",
        "nonPositiveInteger",
        "negativeInteger",
        "long",
        "int",
        "short",
        "byte",
        "nonNegativeInteger",
        "unsignedLong",
        "unsignedInt",
        "unsignedShort",
        "unsignedByte",
        "positiveInteger",
    ] {
        v.push((B(name), INTEGERS));
    }
    for name in ["language", "Name", "NCName", "ID", "IDREF", "ENTITY", "NMTOKEN"] {
        v.push((B(name), NAMES));
    }
    for (name, vals) in GS {
        v.push((B(name), vals));
    }
    v
}

/// Types that must fail to build (or be accepted), checked against xmlschema's schema
/// verdict; the values list is empty.
fn derivations() -> Vec<Spec> {
    use FacetKind as F;
    use Spec::B;
    let fx = |base: Spec, k: FacetKind, v: &'static str| Spec::R(Box::new(base), vec![(k, v, true)]);
    vec![
        r(B("decimal"), &[(F::MinInclusive, "5"), (F::MaxInclusive, "4")]),
        r(B("decimal"), &[(F::MinInclusive, "5"), (F::MaxInclusive, "5")]),
        r(B("decimal"), &[(F::MinExclusive, "5"), (F::MaxInclusive, "5")]),
        r(B("decimal"), &[(F::MinInclusive, "5"), (F::MinExclusive, "4")]),
        r(fx(B("decimal"), F::MaxInclusive, "10"), &[(F::MaxInclusive, "9")]),
        r(fx(B("decimal"), F::MaxInclusive, "10"), &[(F::MaxInclusive, "10")]),
        r(r(B("decimal"), &[(F::MaxInclusive, "10")]), &[(F::MaxInclusive, "11")]),
        r(r(B("decimal"), &[(F::MaxInclusive, "10")]), &[(F::MaxExclusive, "10")]),
        r(r(B("decimal"), &[(F::MaxExclusive, "10")]), &[(F::MaxInclusive, "10")]),
        r(r(B("decimal"), &[(F::MinInclusive, "10")]), &[(F::MinExclusive, "9")]),
        r(B("int"), &[(F::MaxInclusive, "3000000000")]),
        r(B("integer"), &[(F::FractionDigits, "1")]),
        r(B("integer"), &[(F::FractionDigits, "0")]),
        r(B("token"), &[(F::WhiteSpace, "preserve")]),
        r(B("string"), &[(F::WhiteSpace, "replace")]),
        r(B("decimal"), &[(F::WhiteSpace, "replace")]),
        r(B("boolean"), &[(F::MinInclusive, "0")]),
        r(B("boolean"), &[(F::Enumeration, "true")]),
        r(B("string"), &[(F::MaxInclusive, "a")]),
        r(B("string"), &[(F::TotalDigits, "2")]),
        r(B("date"), &[(F::Length, "2")]),
        r(B("string"), &[(F::Pattern, "[a")]),
        r(B("string"), &[(F::Pattern, "a{2,1}")]),
        r(B("string"), &[(F::Pattern, "(?:a)")]),
        r(B("decimal"), &[(F::TotalDigits, "0")]),
        r(B("decimal"), &[(F::FractionDigits, "3"), (F::TotalDigits, "2")]),
        r(r(B("decimal"), &[(F::TotalDigits, "3")]), &[(F::TotalDigits, "4")]),
        r(B("decimal"), &[(F::Enumeration, "abc")]),
        r(B("string"), &[(F::Length, "-1")]),
        r(B("string"), &[(F::MinLength, "3"), (F::MaxLength, "2")]),
        r(r(B("string"), &[(F::MaxLength, "3")]), &[(F::MaxLength, "4")]),
        r(r(B("string"), &[(F::MinLength, "3")]), &[(F::MinLength, "2")]),
        r(r(B("string"), &[(F::Length, "3")]), &[(F::Length, "4")]),
        r(r(B("string"), &[(F::MaxLength, "3")]), &[(F::Length, "2")]),
        // length beside minLength/maxLength (Part 2 §4.3.1.4 length-minLength-maxLength)
        r(B("IDREFS"), &[(F::Length, "5"), (F::MinLength, "1")]),
        r(B("NMTOKENS"), &[(F::Length, "1"), (F::MinLength, "1")]),
        r(B("string"), &[(F::Length, "5"), (F::MinLength, "1")]),
        r(r(B("string"), &[(F::MaxLength, "9")]), &[(F::Length, "5"), (F::MaxLength, "9")]),
        r(r(B("string"), &[(F::MaxLength, "4")]), &[(F::Length, "5"), (F::MaxLength, "4")]),
        r(B("duration"), &[(F::MinInclusive, "P1M"), (F::MaxInclusive, "P30D")]),
        r(B("date"), &[(F::MinInclusive, "2000-01-02"), (F::MaxInclusive, "2000-01-01Z")]),
        r(Spec::List(Box::new(B("int"))), &[(F::MaxInclusive, "3")]),
        r(Spec::Union(vec![B("int"), B("date")]), &[(F::Length, "1")]),
        Spec::List(Box::new(B("NMTOKENS"))),
        r(B("decimal"), &[(F::Enumeration, "1"), (F::Enumeration, "2")]),
        r(r(B("decimal"), &[(F::Enumeration, "1"), (F::Enumeration, "2")]), &[(F::Enumeration, "3")]),
        r(B("string"), &[(F::MaxLength, "99999999999999999999999")]),
        r(B("gYear"), &[(F::MinInclusive, "2000"), (F::MaxInclusive, "1999")]),
        r(B("float"), &[(F::MinInclusive, "NaN")]),
    ]
}

/// A python with `xmlschema` (`VTDX_PYTHON`, `target/py/bin/python`, `python3`) for the
/// test `test`. Without one: a panic under `VTDX_REQUIRE_XMLSCHEMA=1` (as scripts/test.sh
/// sets it), else a loud note and `None` (the caller returns).
pub(crate) fn xmlschema_python(test: &str) -> Option<PathBuf> {
    let candidates: Vec<PathBuf> = match std::env::var_os("VTDX_PYTHON") {
        Some(p) => vec![PathBuf::from(p)],
        None => vec![repo().join("target/py/bin/python"), PathBuf::from("python3")],
    };
    let found = candidates.into_iter().find(|p| {
        Command::new(p).args(["-c", "import xmlschema"]).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
    });
    if found.is_none() {
        if std::env::var("VTDX_REQUIRE_XMLSCHEMA").as_deref() == Ok("1") {
            panic!("python with xmlschema not found (VTDX_PYTHON, target/py/bin/python, python3) and VTDX_REQUIRE_XMLSCHEMA=1");
        }
        eprintln!("\n*** NOTE: {test} NOT RUN: no python with xmlschema (pip install xmlschema) ***\n");
    }
    found
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn exclusions() -> BTreeMap<String, String> {
    let p = repo().join("testdata/schema/datatypes/xmlschema-exclusions.txt");
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut parts = l.splitn(2, "\t#");
            let key = parts.next().unwrap().to_string();
            let reason = parts.next().unwrap_or("").trim().to_string();
            assert!(!reason.is_empty(), "exclusion {key:?} has no reason (write KEY<TAB>#reason)");
            (key, reason)
        })
        .collect()
}

#[test]
fn differential_xmlschema() {
    let Some(py) = xmlschema_python("datatypes::differential_xmlschema") else { return };
    let ns = NsMap(vec![("p".into(), "urn:p".into()), ("t".into(), "urn:t".into())]);
    let mut types = Vec::new(); // (name, spec, our build result)
    let mut values = Vec::new(); // (type index, value)
    for (spec, vals) in families() {
        let i = types.len();
        types.push((format!("t{i}"), spec.clone(), spec.build()));
        for v in vals {
            values.push((i, *v));
        }
    }
    for spec in derivations() {
        let i = types.len();
        types.push((format!("t{i}"), spec.clone(), spec.build()));
    }
    let mut req = String::from("{\"types\": [");
    for (k, (name, spec, _)) in types.iter().enumerate() {
        if k > 0 {
            req.push(',');
        }
        let xsd = format!("<xs:simpleType name=\"{name}\">{}</xs:simpleType>", spec.body());
        req.push_str(&format!("{{\"name\": {}, \"xsd\": {}}}", json_str(name), json_str(&xsd)));
    }
    req.push_str("], \"values\": [");
    for (k, (i, v)) in values.iter().enumerate() {
        if k > 0 {
            req.push(',');
        }
        req.push_str(&format!("[{}, {}]", json_str(&types[*i].0), json_str(v)));
    }
    req.push_str("]}");
    let script = repo().join("testdata/schema/datatypes/xmlschema_oracle.py");
    let mut child =
        Command::new(&py).arg(&script).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("python starts");
    child.stdin.take().unwrap().write_all(req.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "oracle failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut their_types: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut their_values = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "T" => {
                their_types.insert(f[1].to_string(), if f[2] == "ok" { None } else { Some(f.get(3).unwrap_or(&"").to_string()) });
            }
            "V" => their_values.push(match f[1] {
                "1" => Some(true),
                "0" => Some(false),
                _ => None,
            }),
            _ => panic!("unexpected oracle line {line:?}"),
        }
    }
    assert_eq!(their_values.len(), values.len(), "oracle answered a different number of values");
    let excl = exclusions();
    let mut used = Vec::new();
    let mut diffs = Vec::new();
    let (mut type_cases, mut value_cases) = (0, 0);
    for (name, spec, ours) in &types {
        type_cases += 1;
        let theirs = their_types.get(name).expect("oracle answered each type");
        if ours.is_ok() != theirs.is_none() {
            let key = format!("type {}", spec.label());
            if excl.contains_key(&key) {
                used.push(key);
            } else {
                diffs.push(format!(
                    "{key}\t# ours: {}; xmlschema: {}",
                    ours.as_ref().map_or_else(|e| format!("error ({e})"), |_| "ok".into()),
                    theirs.as_deref().map_or("ok".to_string(), |e| format!("error ({e})"))
                ));
            }
        }
    }
    for ((i, v), theirs) in values.iter().zip(&their_values) {
        let (_, spec, ours) = &types[*i];
        let (Ok(ty), Some(theirs)) = (ours, theirs) else { continue };
        value_cases += 1;
        let got = ty.validate(v, &ns);
        // check and validate must agree
        assert_eq!(got.is_ok(), ty.check(v, &ns).is_ok(), "check/validate disagree on {} {v:?}", spec.label());
        if got.is_ok() != *theirs {
            let key = format!("value {} {}", spec.label(), json_str(v));
            if excl.contains_key(&key) {
                used.push(key);
            } else {
                diffs.push(format!(
                    "{key}\t# ours: {}; xmlschema: {}",
                    got.as_ref().map_or_else(|e| format!("invalid ({e})"), |_| "valid".into()),
                    if *theirs { "valid" } else { "invalid" }
                ));
            }
        }
    }
    let stale: Vec<&String> = excl.keys().filter(|k| !used.contains(k)).collect();
    println!(
        "xmlschema differential: {type_cases} types, {value_cases} values, {} listed departures, {} new disagreements",
        used.len(),
        diffs.len()
    );
    assert!(type_cases > 100 && value_cases > 1500, "too few cases: {type_cases} types, {value_cases} values");
    assert!(diffs.is_empty(), "{} disagreements with xmlschema:\n{}", diffs.len(), diffs.join("\n"));
    assert!(stale.is_empty(), "listed departures that no longer occur (remove them): {stale:?}");
}

/// Random text against every built-in type: never a panic, and `check` agrees with
/// `validate`.
#[test]
fn random_values_never_panic() {
    let pieces = [
        "0",
        "1",
        "9",
        "-",
        "+",
        ".",
        "e",
        "E",
        "T",
        "Z",
        ":",
        "P",
        "Y",
        "M",
        "D",
        "H",
        "S",
        " ",
        "\t",
        "=",
        "a",
        "A",
        "f",
        "INF",
        "NaN",
        "24",
        "00",
        "14",
        "#",
        "%",
        "/",
        "\u{e9}",
        "\u{10000}",
        "--",
        "-0",
        "12",
        "31",
        "02",
        "29",
    ];
    let mut x: u64 = 0x1234_5678_9ABC_DEF1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let types: Vec<SimpleType> = Builtin::ALL.iter().map(|&t| SimpleType::builtin(t)).collect();
    let ns = NsMap(vec![("p".into(), "urn:p".into())]);
    let mut accepted = 0;
    for _ in 0..20_000 {
        let n = next() % 10;
        let s: String = (0..n).map(|_| pieces[(next() % pieces.len() as u64) as usize]).collect();
        for t in &types {
            let v = t.validate(&s, &ns);
            assert_eq!(v.is_ok(), t.check(&s, &ns).is_ok(), "{} on {s:?}", t.display_name());
            if v.is_ok() {
                accepted += 1;
            }
        }
    }
    assert!(accepted > 10_000, "generator lost its spread: {accepted} accepted");
}
