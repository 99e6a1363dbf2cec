//! Unit tests of the DTD module: the DOCTYPE parser, its errors and limits,
//! and attribute-value normalization.

use std::borrow::Cow;

use super::*;
use crate::error::{Error, ErrorKind, LimitKind};
use crate::options::{ExternalPolicy, ParseOptions};

/// These tests read external identifiers: the policy that keeps them.
fn opts() -> ParseOptions {
    ParseOptions::default().external(ExternalPolicy::Ignore)
}

#[test]
fn external_identifiers_refused_by_default() {
    let o = ParseOptions::default();
    let cases: [(&str, &str, &str); 5] = [
        ("<!DOCTYPE r SYSTEM 'r.dtd'><r/>", "the external DTD subset", "SYSTEM 'r.dtd'"),
        ("<!DOCTYPE r PUBLIC '-//x//y' \"r.dtd\"><r/>", "the external DTD subset", "PUBLIC '-//x//y' \"r.dtd\""),
        ("<!DOCTYPE r [<!ENTITY e SYSTEM 'e.xml'>]><r/>", "the external general entity `e`", "SYSTEM 'e.xml'"),
        ("<!DOCTYPE r [<!ENTITY % p SYSTEM 'p.ent'>]><r/>", "the external parameter entity `%p`", "SYSTEM 'p.ent'"),
        ("<!DOCTYPE r [<!NOTATION n SYSTEM 'n'><!ENTITY u SYSTEM 'u.gif' NDATA n>]><r/>", "the unparsed entity `u`", "SYSTEM 'u.gif'"),
    ];
    for (doc, what, id) in cases {
        let e = parse_with(doc, false, &o).unwrap_err();
        match e.kind() {
            ErrorKind::ExternalReference { what: w, identifier } => {
                assert_eq!((w.as_str(), identifier.as_str()), (what, id), "{doc}");
            }
            k => panic!("{doc}: {k:?}"),
        }
        assert_eq!(e.offset() as usize, doc.find(id).unwrap(), "{doc}");
        assert!(e.to_string().contains("ExternalPolicy::Ignore"), "{e}");
        assert!(parse_with(doc, false, &opts()).is_ok(), "{doc}");
    }
    // a notation names a format, not content: accepted
    assert!(parse_with("<!DOCTYPE r [<!NOTATION n SYSTEM 'viewer'>]><r/>", false, &o).is_ok());
    assert!(parse_with("<!DOCTYPE r [<!NOTATION n PUBLIC 'x'>]><r/>", false, &o).is_ok());
}

fn parse_with(doc: &str, standalone: bool, o: &ParseOptions) -> Result<(Dtd, usize), Error> {
    let start = doc.find("<!DOCTYPE").expect("test document has a doctype");
    let mut budget = ExpansionBudget::new(o, doc.len());
    parse_doctype(doc.as_bytes(), start, standalone, o, &mut budget)
}

fn parse(doc: &str) -> Result<Dtd, Error> {
    parse_with(doc, false, &opts()).map(|(d, _)| d)
}

fn parse_sa(doc: &str) -> Result<Dtd, Error> {
    parse_with(doc, true, &opts()).map(|(d, _)| d)
}

fn internal(d: &Dtd, name: &str) -> String {
    match &d.entity(name).expect("entity declared").value {
        EntityValue::Internal(t) => t.clone(),
        v => panic!("not internal: {v:?}"),
    }
}

fn norm(raw: &str, dtd: Option<&Dtd>, cdata: bool) -> Result<String, Error> {
    let o = opts();
    let mut budget = ExpansionBudget::new(&o, raw.len().max(1000));
    normalize_attribute_value(raw, raw.as_bytes(), 0, dtd, cdata, &mut budget, 0).map(|c| c.into_owned())
}

#[track_caller]
fn assert_dtd_err(doc: &str) -> Error {
    match parse(doc) {
        Ok(d) => panic!("accepted malformed doctype {doc:?}: {d:?}"),
        Err(e) => e,
    }
}

// ---- valid subsets

#[test]
fn full_internal_subset() {
    let doc = "<?xml version='1.0'?>\n<!DOCTYPE doc PUBLIC \" -//Test//DTD  x//EN \" 'http://x/doc.dtd' [\n\
        <!-- a comment -->\n\
        <?pi some data?>\n\
        <?other?>\n\
        <!ELEMENT doc (head, (p | list)*, foot?)>\n\
        <!ELEMENT head (#PCDATA)>\n\
        <!ELEMENT p (#PCDATA | em | b)*>\n\
        <!ELEMENT list ( item+ )>\n\
        <!ELEMENT item ANY>\n\
        <!ELEMENT foot EMPTY>\n\
        <!ELEMENT em ( #PCDATA ) >\n\
        <!ELEMENT b (#PCDATA)*>\n\
        <!ATTLIST doc\n  id ID #REQUIRED\n  ref IDREF #IMPLIED\n  refs IDREFS #IMPLIED\n  ver CDATA #FIXED \"1.0\"\n  kind (a|b| c ) 'a'\n  pic ENTITY #IMPLIED\n  pics ENTITIES #IMPLIED\n  tok NMTOKEN \"x\"\n  toks NMTOKENS '  x   y '\n  fmt NOTATION ( gif | png ) #IMPLIED>\n\
        <!ATTLIST doc id CDATA 'ignored' extra CDATA 'e&amp;&#65;'>\n\
        <!ENTITY copy \"&#169; &amp; &other; <b>x</b>\">\n\
        <!ENTITY copy 'second binding ignored'>\n\
        <!ENTITY ext SYSTEM \"ext.xml\">\n\
        <!ENTITY pubext PUBLIC \"-//X//EN\" \"pub.xml\">\n\
        <!ENTITY pic SYSTEM 'pic.gif' NDATA gif>\n\
        <!ENTITY % pe \"<!ENTITY fromPe 'yes'>\">\n\
        <!NOTATION gif SYSTEM \"image/gif\">\n\
        <!NOTATION png PUBLIC \"-//PNG//EN\">\n\
        <!NOTATION jpg PUBLIC '-//JPG//EN' 'jpg.exe'>\n\
        ]>\n<doc id='x'/>";
    let start = doc.find("<!DOCTYPE").unwrap();
    let o = opts();
    let mut budget = ExpansionBudget::new(&o, doc.len());
    let (d, end) = parse_doctype(doc.as_bytes(), start, false, &o, &mut budget).unwrap();
    assert_eq!(&doc[end..], "\n<doc id='x'/>");
    assert_eq!(d.span, start..end);
    let sub = d.internal_subset.clone().unwrap();
    assert!(doc[sub.clone()].starts_with("\n<!-- a comment"));
    assert!(doc[sub].ends_with("'jpg.exe'>\n"));
    assert_eq!(d.name, "doc");
    assert_eq!(d.public_id.as_deref(), Some("-//Test//DTD x//EN"));
    assert_eq!(d.system_id.as_deref(), Some("http://x/doc.dtd"));
    // an external subset exists, so WFC Entity Declared does not apply
    assert!(!d.entities_complete);
    assert!(!d.undeclared_is_error());
    assert!(!d.skipped_declarations);

    assert_eq!(internal(&d, "copy"), "\u{a9} &amp; &other; <b>x</b>");
    assert_eq!(d.entities.iter().filter(|e| e.name == "copy").count(), 1);
    match &d.entity("ext").unwrap().value {
        EntityValue::External { public_id: None, system_id, notation: None } => {
            assert_eq!(system_id, "ext.xml")
        }
        v => panic!("{v:?}"),
    }
    match &d.entity("pubext").unwrap().value {
        EntityValue::External { public_id: Some(p), system_id, notation: None } => {
            assert_eq!(p, "-//X//EN");
            assert_eq!(system_id, "pub.xml");
        }
        v => panic!("{v:?}"),
    }
    match &d.entity("pic").unwrap().value {
        EntityValue::External { notation: Some(n), .. } => assert_eq!(n, "gif"),
        v => panic!("{v:?}"),
    }
    // declared but never referenced: not expanded
    assert!(d.entity("fromPe").is_none());
    match &d.parameter_entity("pe").unwrap().value {
        EntityValue::Internal(t) => assert_eq!(t, "<!ENTITY fromPe 'yes'>"),
        v => panic!("{v:?}"),
    }
    assert!(d.entity("pe").is_none());
    let names: Vec<&str> = d.entities.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["copy", "ext", "pubext", "pic"]);
    let decl = d.entity("copy").unwrap().decl_offset;
    assert!(doc[decl..].starts_with("<!ENTITY copy \""));

    let att = |n: &str| d.attribute("doc", n).unwrap_or_else(|| panic!("attribute {n}"));
    assert_eq!(att("id").ty, AttType::Id);
    assert_eq!(att("id").default, AttDefault::Required);
    assert_eq!(att("ref").ty, AttType::IdRef);
    assert_eq!(att("refs").ty, AttType::IdRefs);
    assert_eq!(att("ver").default, AttDefault::Fixed("1.0".into()));
    assert_eq!(att("kind").ty, AttType::Enumeration(vec!["a".into(), "b".into(), "c".into()]));
    assert_eq!(att("kind").default, AttDefault::Default("a".into()));
    assert_eq!(att("pic").ty, AttType::Entity);
    assert_eq!(att("pics").ty, AttType::Entities);
    assert_eq!(att("tok").ty, AttType::NmToken);
    assert_eq!(att("toks").ty, AttType::NmTokens);
    assert_eq!(att("toks").default, AttDefault::Default("  x   y ".into()));
    assert_eq!(att("fmt").ty, AttType::Notation(vec!["gif".into(), "png".into()]));
    assert_eq!(att("extra").default, AttDefault::Default("e&amp;&#65;".into()));
    assert!(d.attribute("doc", "nope").is_none());
    assert!(d.attribute("item", "id").is_none());
    let all: Vec<&str> = d.attributes_of("doc").map(|a| a.name.as_str()).collect();
    assert_eq!(all, ["id", "ref", "refs", "ver", "kind", "pic", "pics", "tok", "toks", "fmt", "extra"]);
    assert_eq!(d.attributes.len(), 11);

    let n: Vec<(&str, Option<&str>, Option<&str>)> =
        d.notations.iter().map(|n| (n.name.as_str(), n.public_id.as_deref(), n.system_id.as_deref())).collect();
    assert_eq!(n, [("gif", None, Some("image/gif")), ("png", Some("-//PNG//EN"), None), ("jpg", Some("-//JPG//EN"), Some("jpg.exe"))]);
}

#[test]
fn minimal_forms() {
    let d = parse("<!DOCTYPE doc>").unwrap();
    assert_eq!(d.name, "doc");
    assert!(d.internal_subset.is_none());
    assert!(d.entities_complete);
    assert!(d.undeclared_is_error());
    let d = parse("<!DOCTYPE doc[]>").unwrap();
    assert_eq!(d.internal_subset, Some(14..14));
    let d = parse("<!DOCTYPE\r\ndoc\tSYSTEM\r'a.dtd'[\r\n]\n>").unwrap();
    assert_eq!(d.system_id.as_deref(), Some("a.dtd"));
    assert!(!d.entities_complete);
    let d = parse("<!DOCTYPE doc SYSTEM \"\">").unwrap();
    assert_eq!(d.system_id.as_deref(), Some(""));
    let d = parse("<!DOCTYPE doc PUBLIC \"\" ''>").unwrap();
    assert_eq!(d.public_id.as_deref(), Some(""));
    // an apostrophe in a double-quoted public id, all PubidChars
    let d = parse("<!DOCTYPE doc PUBLIC \"a'b -()+,./:=?;!*#@$_%\r\n09AZ\" 'x'>").unwrap();
    assert_eq!(d.public_id.as_deref(), Some("a'b -()+,./:=?;!*#@$_% 09AZ"));
    // whitespace/comment-only and PI-only subsets
    assert!(parse("<!DOCTYPE d [ <!----> <?p?> <?q\r\n?> ]>").is_ok());
    // standalone documents with an external subset: WFC applies
    let d = parse_sa("<!DOCTYPE doc SYSTEM 'x'>").unwrap();
    assert!(d.entities_complete);
    // non-ASCII names
    let d = parse("<!DOCTYPE élan [<!ELEMENT élan EMPTY><!ENTITY café 'x'>]>").unwrap();
    assert_eq!(d.name, "élan");
    assert!(d.entity("café").is_some());
    // xml-stylesheet and other targets starting with xml are fine
    assert!(parse("<!DOCTYPE d [<?xml-stylesheet href='a'?><?xmlfoo?>]>").is_ok());
    // predefined entities may be declared
    assert!(parse("<!DOCTYPE d [<!ENTITY lt '&#38;#60;'><!ENTITY gt '>'><!ENTITY amp '&#38;#38;'>]>").is_ok());
}

#[test]
fn content_models() {
    for m in [
        "EMPTY",
        "ANY",
        "(a)",
        "(a)*",
        "(a?)",
        "(a,b,c)",
        "(a|b|c)+",
        "((a|b),c*)?",
        "( ( a , b ) | ( c , d ) )",
        "(a,(b|(c,(d|e)+)?)*)",
        "(#PCDATA)",
        "(#PCDATA)*",
        "( #PCDATA | a | b )*",
        "(#PCDATA|a)*",
        "(x:y|z)",
    ] {
        let doc = format!("<!DOCTYPE d [<!ELEMENT e {m}>]>");
        assert!(parse(&doc).is_ok(), "rejected valid content model {m}: {:?}", parse(&doc));
    }
    for m in [
        "",
        "empty",
        "EMPTY?",
        "()",
        "(a|b,c)",
        "(a,b|c)",
        "(a|)",
        "(,a)",
        "(a b)",
        "(a) *",
        "(a",
        "((a)",
        "(a))",
        "(#PCDATA|a)",
        "(#PCDATA,a)*",
        "(a|#PCDATA)*",
        "((#PCDATA))",
        "(#pcdata)",
        "(#PCDATA)+",
        "(#PCDATA|a)+",
        "(a|b)**",
        "(a|b) EMPTY",
        "#PCDATA",
        "(%e;)",
    ] {
        let doc = format!("<!DOCTYPE d [<!ELEMENT e {m}>]>");
        assert!(parse(&doc).is_err(), "accepted invalid content model {m:?}");
    }
    // deep nesting does not use the call stack
    let deep = format!("<!DOCTYPE d [<!ELEMENT e {}a{}>]>", "(".repeat(100_000), ")".repeat(100_000));
    assert!(parse(&deep).is_ok());
}

#[test]
fn malformed_doctype() {
    for doc in [
        "<!DOCTYPE>",
        "<!DOCTYPEdoc>",
        "<!DOCTYPE 1doc>",
        "<!DOCTYPE doc",
        "<!DOCTYPE doc [",
        "<!DOCTYPE doc []",
        "<!DOCTYPE doc ] >",
        "<!DOCTYPE doc SYSTEM>",
        "<!DOCTYPE doc SYSTEM'a'>",
        "<!DOCTYPE doc system 'a'>",
        "<!DOCTYPE doc SYSTEM a>",
        "<!DOCTYPE doc SYSTEM 'a>",
        "<!DOCTYPE doc PUBLIC 'a'>",
        "<!DOCTYPE doc PUBLIC 'a''b'>",
        "<!DOCTYPE doc PUBLIC 'a' >",
        "<!DOCTYPE doc PUBLIC 'a{' 'b'>",
        "<!DOCTYPE doc PUBLIC 'a\tb' 'b'>",
        "<!DOCTYPE doc PUBLIC 'é' 'b'>",
        "<!DOCTYPE doc PUBLIC \"a\"b\" 'b'>",
        "<!DOCTYPE doc FOO 'a'>",
        "<!DOCTYPE doc [] [] >",
        "<!DOCTYPE doc [] x>",
        "<!DOCTYPE doc SYSTEM 'a' 'b'>",
        "<!DOCTYPE doc [ junk ]>",
        "<!DOCTYPE doc [ <!-- c --> <!-- no end ]>",
        "<!DOCTYPE doc [ <!-- a -- b --> ]>",
        "<!DOCTYPE doc [ <!-- a ---> ]>",
        "<!DOCTYPE doc [ <!- c -> ]>",
        "<!DOCTYPE doc [ <?xml version='1.0'?> ]>",
        "<!DOCTYPE doc [ <?XmL a?> ]>",
        "<!DOCTYPE doc [ <?pidata?> <? nopi?> ]>",
        "<!DOCTYPE doc [ <?pi?data ?> ]>",
        "<!DOCTYPE doc [ <?pi data ]>",
        "<!DOCTYPE doc [ <![INCLUDE[ <!ELEMENT doc EMPTY> ]]> ]>",
        "<!DOCTYPE doc [ <![IGNORE[ ]]> ]>",
        "<!DOCTYPE doc [ <!element doc EMPTY> ]>",
        "<!DOCTYPE doc [ <!ELEMENTdoc EMPTY> ]>",
        "<!DOCTYPE doc [ <!ELEMENT doc EMPTY ]>",
        "<!DOCTYPE doc [ <!ELEMENT doc> ]>",
        "<!DOCTYPE doc [ <!ELEMENT doc(a)> ]>",
        "<!DOCTYPE doc [ <!ELEMENT doc EMPTY x> ]>",
        "<!DOCTYPE doc [ <!FOO doc> ]>",
        "<!DOCTYPE doc [ <doc/> ]>",
        "<!DOCTYPE doc [ <!ELEMENT doc EMPTY>> ]>",
    ] {
        assert_dtd_err(doc);
    }
}

#[test]
fn malformed_attlist() {
    for decl in [
        "<!ATTLIST>",
        "<!ATTLIST doc a>",
        "<!ATTLIST doc a CDATA>",
        "<!ATTLIST doc a CDATA #REQUIRED",
        "<!ATTLIST doc a cdata #IMPLIED>",
        "<!ATTLIST doc a STRING #IMPLIED>",
        "<!ATTLIST doc a CDATA #required>",
        "<!ATTLIST doc a CDATA #DEFAULT 'x'>",
        "<!ATTLIST doc a CDATA #FIXED>",
        "<!ATTLIST doc a CDATA #FIXED'x'>",
        "<!ATTLIST doc a CDATA 'x'b CDATA #IMPLIED>",
        "<!ATTLIST doc a CDATA #IMPLIEDb CDATA #IMPLIED>",
        "<!ATTLIST doc a CDATA x>",
        "<!ATTLIST doc a CDATA \"x>",
        "<!ATTLIST doc a CDATA #IMPLIED b>",
        "<!ATTLIST doc a CDATA \"a<b\">",
        "<!ATTLIST doc a CDATA '&undeclared;'>",
        "<!ATTLIST doc a CDATA '&#0;'>",
        "<!ATTLIST doc a CDATA '&#xFFFE;'>",
        "<!ATTLIST doc a CDATA '&#x;'>",
        "<!ATTLIST doc a CDATA '&;'>",
        "<!ATTLIST doc a CDATA '& amp;'>",
        "<!ATTLIST doc a CDATA '&amp'>",
        "<!ATTLIST doc a CDATA 'a&b'>",
        "<!ATTLIST doc a (x|) #IMPLIED>",
        "<!ATTLIST doc a () #IMPLIED>",
        "<!ATTLIST doc a (x y) #IMPLIED>",
        "<!ATTLIST doc a (x|y #IMPLIED>",
        "<!ATTLIST doc a (x,y) #IMPLIED>",
        "<!ATTLIST doc a NOTATION(x) #IMPLIED>",
        "<!ATTLIST doc a NOTATION (1x) #IMPLIED>",
        "<!ATTLIST doc a NOTATION #IMPLIED>",
        "<!ATTLIST doc a CDATA%e; #IMPLIED>",
        "<!ATTLIST %e; a CDATA #IMPLIED>",
        "<!ATTLISTdoc a CDATA #IMPLIED>",
    ] {
        assert_dtd_err(&format!("<!DOCTYPE doc [{decl}]>"));
    }
    // entity-related WFCs in defaults
    for subset in [
        // WFC: No < in Attribute Values (through an entity)
        "<!ENTITY e '&#60;'><!ATTLIST doc a CDATA '&e;'>",
        "<!ENTITY e 'a<b'><!ATTLIST doc a CDATA '&e;'>",
        "<!ENTITY f 'x<'><!ENTITY e '&f;'><!ATTLIST doc a CDATA 'y&e;'>",
        // WFC: No External Entity References
        "<!ENTITY e SYSTEM 'e.xml'><!ATTLIST doc a CDATA '&e;'>",
        // unparsed
        "<!NOTATION n SYSTEM 'n'><!ENTITY e SYSTEM 'e' NDATA n><!ATTLIST doc a CDATA '&e;'>",
        // declared after use (WFC: Entity Declared)
        "<!ATTLIST doc a CDATA '&e;'><!ENTITY e 'x'>",
        // recursion
        "<!ENTITY e '&f;'><!ENTITY f '&e;'><!ATTLIST doc a CDATA '&e;'>",
        // malformed reference in replacement text
        "<!ENTITY e '&#38;x'><!ATTLIST doc a CDATA '&e;'>",
    ] {
        assert_dtd_err(&format!("<!DOCTYPE doc [{subset}]>"));
    }
    // valid: char-ref-escaped < is fine; undeclared entity with an external subset
    assert!(parse("<!DOCTYPE doc [<!ENTITY e '&#38;#60;'><!ATTLIST doc a CDATA '&e;&#60;&lt;'>]>").is_ok());
    assert!(parse("<!DOCTYPE doc SYSTEM 'x' [<!ATTLIST doc a CDATA '&undeclared;'>]>").is_ok());
    // but not when standalone
    assert!(parse_sa("<!DOCTYPE doc SYSTEM 'x' [<!ATTLIST doc a CDATA '&undeclared;'>]>").is_err());
    // first definition of a pair wins, across declarations
    let d = parse("<!DOCTYPE doc [<!ATTLIST doc a CDATA 'one'><!ATTLIST doc a CDATA 'two' b ID #IMPLIED>]>").unwrap();
    assert_eq!(d.attribute("doc", "a").unwrap().default, AttDefault::Default("one".into()));
    assert_eq!(d.attributes.len(), 2);
    assert_eq!(d.attributes_of("doc").count(), 2);
}

#[test]
fn malformed_entity_and_notation() {
    for decl in [
        "<!ENTITY>",
        "<!ENTITY e>",
        "<!ENTITY e 'x'",
        "<!ENTITY e 'x>",
        "<!ENTITY e x>",
        "<!ENTITY e'x'>",
        "<!ENTITY e 'x' 'y'>",
        "<!ENTITY e SYSTEM>",
        "<!ENTITY e SYSTEM 'x'NDATA n>",
        "<!ENTITY e SYSTEM 'x' NDATA>",
        "<!ENTITY e SYSTEM 'x' ndata n>",
        "<!ENTITY e PUBLIC 'x'>",
        "<!ENTITY e 'x' NDATA n>",
        "<!ENTITY % e SYSTEM 'x' NDATA n>",
        "<!ENTITY %e 'x'>",
        "<!ENTITY % 'x'>",
        "<!ENTITY entity 'x'>x",
        "<!ENTITY e '&'>",
        "<!ENTITY e '& x;'>",
        "<!ENTITY e '&x'>",
        "<!ENTITY e '&#;'>",
        "<!ENTITY e '&#12a;'>",
        "<!ENTITY e '&#x12'>",
        "<!ENTITY e '&#X41;'>",
        "<!ENTITY e '&#0;'>",
        "<!ENTITY e '&#8;'>",
        "<!ENTITY e '&#xD800;'>",
        "<!ENTITY e '&#xFFFF;'>",
        "<!ENTITY e '&#x110000;'>",
        "<!ENTITY e '&#99999999999999999999;'>",
        // WFC: PEs in Internal Subset
        "<!ENTITY % p 'x'><!ENTITY e '%p;'>",
        "<!ENTITY e '100%'>",
        "<!ENTITY e:x 'x'>",
        "<!ENTITY % p:x 'x'>",
        "<!NOTATION>",
        "<!NOTATION n>",
        "<!NOTATION n SYSTEM>",
        "<!NOTATION n PUBLIC>",
        "<!NOTATION n PUBLIC 'a''b'>",
        "<!NOTATION n 'a'>",
        "<!NOTATION n:x SYSTEM 'a'>",
        "<!NOTATION n SYSTEM 'a'",
        "<?a:b data?>",
    ] {
        assert_dtd_err(&format!("<!DOCTYPE doc [{decl}]>"));
    }
    // specific kinds
    let e = assert_dtd_err("<!DOCTYPE doc [<!ENTITY e '&#0;'>]>");
    assert_eq!(e.kind(), &ErrorKind::InvalidCharRef { text: "&#0;".into() });
    assert_eq!(e.offset(), 27);
    let e = assert_dtd_err("<!DOCTYPE doc [<!ENTITY a:b 'x'>]>");
    assert_eq!(e.kind(), &ErrorKind::InvalidName { name: "a:b".into() });
    // without namespaces colons are ordinary name characters
    let no_ns = opts().namespaces(false);
    assert!(parse_with("<!DOCTYPE doc [<!ENTITY a:b 'x'><!NOTATION n:x SYSTEM 'a'><?a:b?>]>", false, &no_ns).is_ok());
}

#[test]
fn entity_values() {
    let d = parse(
        "<!DOCTYPE d [<!ENTITY a \"x&#60;y&#x3E;&amp;&b;'&#13;&#10;\">\
         <!ENTITY b 'l1\r\nl2\rl3\nl4'>\
         <!ENTITY c ''>\
         <!ENTITY % p \"&#37;q;<!ENTITY z '&#38;'>\">]>",
    )
    .unwrap();
    assert_eq!(internal(&d, "a"), "x<y>&amp;&b;'\r\n");
    assert_eq!(internal(&d, "b"), "l1\nl2\nl3\nl4");
    assert_eq!(internal(&d, "c"), "");
    match &d.parameter_entity("p").unwrap().value {
        EntityValue::Internal(t) => assert_eq!(t, "%q;<!ENTITY z '&'>"),
        v => panic!("{v:?}"),
    }
}

// ---- parameter entities

#[test]
fn pe_references_expand_to_declarations() {
    let d = parse(
        "<!DOCTYPE doc [\n\
         <!ENTITY % decls \"<!ELEMENT doc (#PCDATA)><!ENTITY x 'from pe'>\n\
           <!ATTLIST doc a CDATA 'v&#38;#38;'> <!-- c --> <?pi?>\">\n\
         <!ENTITY % outer '%decls;'>\n\
         <!ENTITY % nested \"&#37;decls2;\">\n\
         <!ENTITY % decls2 \"<!ENTITY y 'nested'>\">\n\
         %decls;\n\
         %nested;\n\
         <!ENTITY x 'later, ignored'>\n\
         ]>",
    );
    // `%decls;` inside a literal in the internal subset is not allowed
    assert!(d.is_err());
    let d = parse(
        "<!DOCTYPE doc [\n\
         <!ENTITY % decls \"<!ELEMENT doc (#PCDATA)><!ENTITY x 'from pe'>\n\
           <!ATTLIST doc a CDATA 'v&#38;#38;'> <!-- c --> <?pi?>\">\n\
         <!ENTITY % nested \"&#37;decls2;\">\n\
         <!ENTITY % decls2 \"<!ENTITY y 'nested'>\">\n\
         %decls;\n\
         %nested;\n\
         <!ENTITY x 'later, ignored'>\n\
         ]>",
    )
    .unwrap();
    assert_eq!(internal(&d, "x"), "from pe");
    assert_eq!(internal(&d, "y"), "nested");
    assert_eq!(d.attribute("doc", "a").unwrap().default, AttDefault::Default("v&#38;".into()));
    // a PE reference was seen: the WFC no longer applies, nothing skipped
    assert!(!d.entities_complete);
    assert!(!d.skipped_declarations);
    // but a standalone document keeps it
    let d = parse_sa("<!DOCTYPE doc [<!ENTITY % p ''>%p;]>").unwrap();
    assert!(d.entities_complete);
}

#[test]
fn pe_reference_errors() {
    for subset in [
        // syntax
        "% p;",
        "%p ;",
        "%p",
        "<!ENTITY % p ''>%p",
        // recursion
        "<!ENTITY % p '&#37;p;'>%p;",
        "<!ENTITY % p '&#37;q;'><!ENTITY % q '&#37;p;'>%p;",
        // replacement text must be whole declarations
        "<!ENTITY % p '&#60;!ELEMENT'>%p;",
        "<!ENTITY % p '&#60;!ELEMENT doc EMPTY'>%p;>",
        "<!ENTITY % p 'junk'>%p;",
        "<!ENTITY % p ']'>%p;",
        "<!ENTITY % p '&#60;![INCLUDE[]]>'>%p;",
        // PE references inside declarations
        "<!ENTITY % p 'EMPTY'><!ELEMENT doc %p;>",
        "<!ENTITY % p 'doc'><!ATTLIST %p; a CDATA #IMPLIED>",
        "<!ENTITY % p '&#60;!ENTITY e \"&#37;q;\">'><!ENTITY % q ''>%p;",
        // errors inside PE replacement text
        "<!ENTITY % p '&#60;!ATTLIST doc a CDATA \"&#38;#60;\" b CDATA \"&#60;\">'>%p;",
        "<!ENTITY % p '&#60;?xml x?>'>%p;",
    ] {
        assert_dtd_err(&format!("<!DOCTYPE doc [{subset}]>"));
    }
    // errors in replacement text are reported at the reference
    let doc = "<!DOCTYPE doc [<!ENTITY % p '&#60;!ELEMENT'> %p;]>";
    let e = assert_dtd_err(doc);
    assert_eq!(e.offset() as usize, doc.find("%p;").unwrap());
    assert!(matches!(e.kind(), ErrorKind::Dtd { .. }), "{e}");
    let e = assert_dtd_err("<!DOCTYPE doc [<!ENTITY % p '&#37;p;'>%p;]>");
    assert!(matches!(e.kind(), ErrorKind::RecursiveEntity { name } if name == "p"), "{e}");
    // an undeclared PE is only a validity error (production [69] has VC:
    // Entity Declared, no WFC); it cannot be read, so later declarations
    // are skipped
    let d = parse("<!DOCTYPE doc SYSTEM 'x' [%undeclared;<!ENTITY e 'x'>]>").unwrap();
    assert!(d.skipped_declarations);
    assert!(d.entity("e").is_none());
    let d = parse("<!DOCTYPE doc [%p;<!ENTITY % p ''><!ENTITY e 'x'>]>").unwrap();
    assert!(d.skipped_declarations);
    assert!(!d.entities_complete);
    assert!(d.parameter_entity("p").is_none());
    assert!(d.entity("e").is_none());
    // standalone: nothing is skipped and the WFC keeps applying
    let d = parse_sa("<!DOCTYPE doc SYSTEM 'x' [%undeclared;<!ENTITY e 'x'>]>").unwrap();
    assert!(d.entities_complete);
    assert!(!d.skipped_declarations);
    assert!(d.entity("e").is_some());
}

#[test]
fn unread_external_pe_skips_later_declarations() {
    let subset = "<!DOCTYPE doc [\
        <!ENTITY before 'b'>\
        <!ATTLIST doc x CDATA 'bx'>\
        <!ENTITY % ext SYSTEM 'ext.ent'>\
        <!ENTITY % int '<!ENTITY viaInt \"i\">'>\
        %ext;\
        <!ENTITY after 'a'>\
        <!ATTLIST doc y CDATA 'ay'>\
        <!ENTITY % late '<!-- -->'>\
        <!NOTATION n SYSTEM 'n'>\
        %int;\
        %late;";
    let doc = format!("{subset}<!ATTLIST doc z CDATA '&maybeFromExt;'>]>");
    let d = parse(&doc).unwrap();
    assert!(d.entity("before").is_some());
    assert!(d.attribute("doc", "x").is_some());
    assert!(d.entity("after").is_none());
    assert!(d.entity("viaInt").is_none());
    assert!(d.attribute("doc", "y").is_none());
    assert!(d.attribute("doc", "z").is_none());
    assert!(d.parameter_entity("late").is_none());
    assert_eq!(d.notations.len(), 1);
    assert!(d.skipped_declarations);
    assert!(!d.entities_complete);
    // syntax is still checked after the skip
    assert!(parse("<!DOCTYPE doc [<!ENTITY % ext SYSTEM 'e'>%ext;<!ENTITY after>]>").is_err());
    assert!(parse("<!DOCTYPE doc [<!ENTITY % ext SYSTEM 'e'>%ext;<!ATTLIST doc a CDATA '<'>]>").is_err());
    // standalone: declarations are still processed, so the WFC applies
    assert!(parse_sa(&doc).is_err());
    let d = parse_sa(&format!("{subset}]>")).unwrap();
    assert!(d.entities_complete);
    assert!(!d.skipped_declarations);
    assert!(d.entity("after").is_some());
    assert!(d.entity("viaInt").is_some());
}

#[test]
fn pe_depth_and_budget() {
    // a chain of 40 PEs exceeds the default depth of 32
    let mut subset = String::from("<!ENTITY % p0 ''>");
    for i in 1..40 {
        subset.push_str(&format!("<!ENTITY % p{i} '&#37;p{};'>", i - 1));
    }
    subset.push_str("%p39;");
    let e = assert_dtd_err(&format!("<!DOCTYPE d [{subset}]>"));
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { limit: LimitKind::EntityDepth, .. }), "{e}");
    // exponential PE expansion runs out of budget
    let mut subset = String::from("<!ENTITY % l0 '<!-- xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx -->'>");
    for i in 1..20 {
        let prev = format!("&#37;l{};", i - 1);
        subset.push_str(&format!("<!ENTITY % l{i} '{}'>", prev.repeat(10)));
    }
    subset.push_str("%l19;");
    let e = assert_dtd_err(&format!("<!DOCTYPE d [{subset}]>"));
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
}

// ---- attribute-value normalization

#[test]
fn normalization_spec_table() {
    // XML 1.0 §3.3.3
    let d = parse("<!DOCTYPE d [<!ENTITY d '&#xD;'><!ENTITY a '&#xA;'><!ENTITY da '&#xD;&#xA;'>]>").unwrap();
    let d = Some(&d);
    assert_eq!(norm("\n\nxyz", d, false).unwrap(), "xyz");
    assert_eq!(norm("\n\nxyz", d, true).unwrap(), "  xyz");
    assert_eq!(norm("&d;&d;A&a;&#x20;&a;B&da;", d, false).unwrap(), "A B");
    assert_eq!(norm("&d;&d;A&a;&#x20;&a;B&da;", d, true).unwrap(), "  A   B  ");
    assert_eq!(norm("&#xd;&#xd;A&#xa;&#xa;B&#xd;&#xa;", d, false).unwrap(), "\r\rA\n\nB\r\n");
    assert_eq!(norm("&#xd;&#xd;A&#xa;&#xa;B&#xd;&#xa;", d, true).unwrap(), "\r\rA\n\nB\r\n");
    // the same with unnormalized line ends in the raw text
    assert_eq!(norm("\r\n\r\nxyz", d, true).unwrap(), "  xyz");
    assert_eq!(norm("\r\rxyz\r", d, true).unwrap(), "  xyz ");
    assert_eq!(norm("a\tb", d, true).unwrap(), "a b");
}

#[test]
fn normalization_basics() {
    let o = opts();
    let mut budget = ExpansionBudget::new(&o, 100);
    let r = normalize_attribute_value("plain value", b"", 0, None, true, &mut budget, 0).unwrap();
    assert!(matches!(r, Cow::Borrowed("plain value")));
    let r = normalize_attribute_value("a b", b"", 0, None, false, &mut budget, 0).unwrap();
    assert!(matches!(r, Cow::Borrowed("a b")));
    assert_eq!(norm("  a   b  ", None, false).unwrap(), "a b");
    assert_eq!(norm("  a   b  ", None, true).unwrap(), "  a   b  ");
    assert_eq!(norm(" &#32; a&#32;&#32;b ", None, false).unwrap(), "a b");
    assert_eq!(norm("", None, false).unwrap(), "");
    assert_eq!(norm("   ", None, false).unwrap(), "");
    // predefined entities work without a DTD
    assert_eq!(norm("&lt;&gt;&amp;&apos;&quot;", None, true).unwrap(), "<>&'\"");
    assert_eq!(norm("&#x10FFFF;&#233;", None, true).unwrap(), "\u{10FFFF}é");
    // without a DTD every other entity is undeclared
    let e = norm("a&e;", None, true).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::UndeclaredEntity { name: "e".into() });
    assert_eq!(e.offset(), 1);
    // literal <
    let e = norm("ab<", None, true).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Unexpected { .. }));
    assert_eq!(e.offset(), 2);
    for bad in ["&", "&;", "&#;", "&#x;", "&#12", "&#xG;", "&a", "&a b;", "&#0;", "&#xFFFE;", "&.a;"] {
        assert!(norm(bad, None, true).is_err(), "{bad}");
    }
    let e = norm("&#xFFFE;", None, true).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::InvalidCharRef { text: "&#xFFFE;".into() });
    // raw_offset positions errors in the document
    let text = b"<a x='  &nope;'/>";
    let mut budget = ExpansionBudget::new(&o, text.len());
    let e = normalize_attribute_value("  &nope;", text, 6, None, true, &mut budget, 0).unwrap_err();
    assert_eq!(e.offset(), 8);
}

#[test]
fn normalization_with_entities() {
    let d = parse(
        "<!DOCTYPE d [\
         <!ENTITY e 'x&f;y'>\
         <!ENTITY f ' in  f '>\
         <!ENTITY lf 'a\r\nb'>\
         <!ENTITY amp2 '&#38;#38;'>\
         <!ENTITY lt2 '&#38;#60;'>\
         <!ENTITY ext SYSTEM 'x'>\
         <!NOTATION n SYSTEM 'n'>\
         <!ENTITY un SYSTEM 'x' NDATA n>\
         <!ENTITY self '&self;'>\
         <!ENTITY bad '&#60;'>\
         ]>",
    )
    .unwrap();
    let dd = Some(&d);
    assert_eq!(norm("[&e;]", dd, true).unwrap(), "[x in  f y]");
    assert_eq!(norm("[&e;]", dd, false).unwrap(), "[x in f y]");
    // replacement text line ends were normalized at declaration: one space
    assert_eq!(norm("&lf;", dd, true).unwrap(), "a b");
    assert_eq!(norm("&amp2;&lt2;", dd, true).unwrap(), "&<");
    let e = norm("a &ext;", dd, true).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::ForbiddenEntityReference { name, .. } if name == "ext"));
    assert_eq!(e.offset(), 2);
    let e = norm("&un;", dd, true).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::ForbiddenEntityReference { name, .. } if name == "un"));
    let e = norm("&self;", dd, true).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::RecursiveEntity { name: "self".into() });
    let e = norm("xx&bad;", dd, true).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::ForbiddenEntityReference { name, .. } if name == "bad"));
    assert_eq!(e.offset(), 2);
    assert!(norm("&undeclared;", dd, true).is_err());
    // when the DTD is incomplete an undeclared reference is dropped
    let d2 = parse("<!DOCTYPE d SYSTEM 'x' [<!ENTITY e 'E'>]>").unwrap();
    assert_eq!(norm("a&undeclared;b&e;", Some(&d2), true).unwrap(), "abE");
}

#[test]
fn entity_depth_in_attribute_values() {
    let mut subset = String::from("<!ENTITY e0 'x'>");
    for i in 1..40 {
        subset.push_str(&format!("<!ENTITY e{i} '&e{};'>", i - 1));
    }
    let d = parse(&format!("<!DOCTYPE d [{subset}]>")).unwrap();
    assert_eq!(norm("&e31;", Some(&d), true).unwrap(), "x");
    let e = norm("&e32;", Some(&d), true).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { limit: LimitKind::EntityDepth, value: 33, max: 32 }), "{e}");
    // the caller's depth counts too
    let o = opts();
    let mut budget = ExpansionBudget::new(&o, 100);
    assert!(normalize_attribute_value("&e2;", b"", 0, Some(&d), true, &mut budget, 30).is_err());
}

#[test]
fn billion_laughs() {
    let mut subset = String::from("<!ENTITY lol0 'lol'>");
    for i in 1..10 {
        let prev = format!("&lol{};", i - 1);
        subset.push_str(&format!("<!ENTITY lol{i} '{}'>", prev.repeat(10)));
    }
    let doc = format!("<!DOCTYPE d [{subset}]><d a='&lol9;'/>");
    // declaring is cheap
    let d = parse(&doc).unwrap();
    let o = opts();
    let mut budget = ExpansionBudget::new(&o, doc.len());
    let e = normalize_attribute_value("&lol9;", doc.as_bytes(), doc.len() - 10, Some(&d), true, &mut budget, 0).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { limit: LimitKind::EntityAmplification, .. }), "{e}");
    assert!(budget.used < 200_000);
    // with amplification out of the way the byte limit stops it
    let o = opts().max_entity_amplification(u32::MAX);
    let mut budget = ExpansionBudget::new(&o, doc.len());
    let e = normalize_attribute_value("&lol9;", doc.as_bytes(), 0, Some(&d), true, &mut budget, 0).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { limit: LimitKind::EntityExpansionBytes, .. }), "{e}");
    // and a default value using it is refused while parsing the DTD
    let doc = format!("<!DOCTYPE d [{subset}<!ATTLIST d a CDATA '&lol9;'>]>");
    let e = assert_dtd_err(&doc);
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
}

#[test]
fn budget_charge() {
    let o = opts().max_entity_expansion_bytes(100_000).max_entity_amplification(2);
    let mut b = ExpansionBudget::new(&o, 10);
    // amplification is not checked below 64 KiB
    b.charge(65_536, b"", 0).unwrap();
    let e = b.charge(1, b"", 0).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { limit: LimitKind::EntityAmplification, max: 2, .. }));
    let mut b = ExpansionBudget::new(&o, 1_000_000);
    b.charge(100_000, b"", 0).unwrap();
    let e = b.charge(1, b"", 0).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::LimitExceeded { limit: LimitKind::EntityExpansionBytes, value: 100_001, max: 100_000 });
    // empty documents do not divide by zero
    let mut b = ExpansionBudget::new(&opts(), 0);
    assert!(b.charge(70_000, b"", 0).is_err());
}

#[test]
fn limits_on_names() {
    let o = opts().max_name_len(5);
    assert!(parse_with("<!DOCTYPE abcde>", false, &o).is_ok());
    let e = parse_with("<!DOCTYPE abcdef>", false, &o).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { limit: LimitKind::NameLength, .. }));
    assert!(parse_with("<!DOCTYPE a [<!ENTITY abcdef 'x'>]>", false, &o).is_err());
    assert!(parse_with("<!DOCTYPE a [<!ATTLIST a b (abcdef) #IMPLIED>]>", false, &o).is_err());
}

#[test]
fn truncation_never_panics() {
    let doc = "<!DOCTYPE doc PUBLIC '-//A//EN' 'a.dtd' [\r\n\
        <!-- c --><?pi x?>\
        <!ELEMENT doc (a,(b|c)*)><!ELEMENT a (#PCDATA|b)*>\
        <!ATTLIST doc x CDATA #FIXED 'v&#65;&e;' y (a|b) 'a' z NOTATION (n) #IMPLIED>\
        <!ENTITY e 'v&#x41;&f;'><!ENTITY % p \"<!ENTITY q 'é'>\">%p;\
        <!ENTITY u SYSTEM 'u' NDATA n><!NOTATION n PUBLIC 'n' 'n'>\
        ]>";
    assert!(parse(doc).is_ok());
    for cut in 0..doc.len() {
        if !doc.is_char_boundary(cut) {
            continue;
        }
        let t = &doc[..cut];
        let o = opts();
        let mut budget = ExpansionBudget::new(&o, t.len());
        let r = parse_doctype(t.as_bytes(), 0, false, &o, &mut budget);
        match r {
            Ok(_) => panic!("accepted truncated doctype {t:?}"),
            Err(e) => assert!(matches!(e.kind(), ErrorKind::UnexpectedEof { .. } | ErrorKind::Dtd { .. }), "{t:?}: {e}"),
        }
    }
    // start out of range or not at a doctype
    let o = opts();
    let mut budget = ExpansionBudget::new(&o, 0);
    assert!(parse_doctype(b"<!DOC", 0, false, &o, &mut budget).is_err());
    assert!(parse_doctype(b"", 5, false, &o, &mut budget).is_err());
}

#[test]
fn error_positions() {
    let doc = "<!DOCTYPE doc [\n<!ELEMENT doc (a|b,c)>]>";
    let e = assert_dtd_err(doc);
    assert_eq!(e.offset() as usize, doc.find(',').unwrap());
    assert_eq!((e.line(), e.column()), (2, 19));
    let doc = "<!DOCTYPE doc [<!-- a -- b -->]>";
    let e = assert_dtd_err(doc);
    assert_eq!(e.offset() as usize, doc.find("--").unwrap() + 5);
    let doc = "<!DOCTYPE doc [<!ATTLIST doc a CDATA 'x<y'>]>";
    let e = assert_dtd_err(doc);
    assert_eq!(e.offset() as usize, doc.find("<y").unwrap());
    let doc = "<!DOCTYPE doc [<!ENTITY e '%x;'>]>";
    let e = assert_dtd_err(doc);
    assert_eq!(e.offset() as usize, doc.find("%x").unwrap());
    match e.kind() {
        ErrorKind::Dtd { detail } => assert!(detail.contains("`%x;`"), "{detail}"),
        k => panic!("{k:?}"),
    }
    let e = assert_dtd_err("<!DOCTYPE doc [<!ENTITYe 'x'>]>");
    assert!(e.to_string().contains("expected whitespace after `<!ENTITY`, found `e`"), "{e}");
    assert_eq!(e.offset(), 23);
    let e = assert_dtd_err("<!DOCTYPE doc [<!NOTATION n public 'x'>]>");
    assert!(e.to_string().contains("found `public`"), "{e}");
    let doc = "<!DOCTYPE doc [<!ELEMENT doc %e;>]>";
    let e = assert_dtd_err(doc);
    assert_eq!(e.offset() as usize, doc.find('%').unwrap());
    assert!(e.to_string().contains("pes in internal subset"), "{e}");
}

#[test]
fn lookups_survive_manual_edits() {
    let mut d = parse("<!DOCTYPE d [<!ENTITY a 'A'><!ATTLIST d x CDATA 'X'>]>").unwrap();
    d.entities.push(EntityDecl { name: "b".into(), value: EntityValue::Internal("B".into()), decl_offset: 0 });
    d.attributes.push(AttDecl {
        element: "d".into(),
        name: "y".into(),
        ty: AttType::Cdata,
        default: AttDefault::Implied,
        decl_offset: 0,
        value: None,
        value_expansion: 0,
    });
    assert!(d.entity("a").is_some());
    assert!(d.entity("b").is_some());
    assert_eq!(d.attributes_of("d").count(), 2);
    d.reindex();
    assert!(d.entity("b").is_some());
    assert!(d.attribute("d", "y").is_some());
    let mut fresh = Dtd::default();
    fresh.entities.push(EntityDecl { name: "c".into(), value: EntityValue::Internal("C".into()), decl_offset: 0 });
    assert!(fresh.entity("c").is_some());
    assert!(fresh.entity("d").is_none());
}
