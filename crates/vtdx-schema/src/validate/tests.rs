use crate::schema::{Schema, ValidateOptions};
use vtdx_core::Document;

const XSD: &str = r#"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">
  <xsd:element name="order">
<xsd:complexType>
  <xsd:sequence>
    <xsd:element name="item" maxOccurs="unbounded">
      <xsd:complexType>
        <xsd:sequence>
          <xsd:element name="name" type="xsd:string"/>
          <xsd:element name="qty" type="Qty"/>
          <xsd:element name="price" type="xsd:decimal"/>
          <xsd:element name="ok" type="xsd:boolean" minOccurs="0"/>
          <xsd:element name="ship" type="xsd:date" minOccurs="0"/>
          <xsd:element name="tok" type="xsd:NMTOKEN" minOccurs="0"/>
        </xsd:sequence>
        <xsd:attribute name="sku" type="Sku" use="required"/>
      </xsd:complexType>
    </xsd:element>
  </xsd:sequence>
</xsd:complexType>
  </xsd:element>
  <xsd:simpleType name="Sku">
<xsd:restriction base="xsd:string"><xsd:pattern value="\d{3}-[A-Z]{2}"/></xsd:restriction>
  </xsd:simpleType>
  <xsd:simpleType name="Qty">
<xsd:union>
  <xsd:simpleType>
    <xsd:restriction base="xsd:positiveInteger"><xsd:maxExclusive value="100"/></xsd:restriction>
  </xsd:simpleType>
  <xsd:simpleType>
    <xsd:restriction base="xsd:string"><xsd:length value="0"/></xsd:restriction>
  </xsd:simpleType>
</xsd:union>
  </xsd:simpleType>
</xsd:schema>"#;

fn item(sku: &str, qty: &str, price: &str, rest: &str) -> String {
    format!("<item {sku}>\n  <name>n &amp; m</name>\n  <qty>{qty}</qty>\n  <price>{price}</price>{rest}\n</item>\n")
}

/// What the validator says, as (line, column, message) triples.
fn errors(schema: &Schema, doc: &str, typed: bool) -> Vec<(u32, u32, String, String)> {
    let d = Document::parse(doc.as_bytes()).unwrap();
    let opts = ValidateOptions { typed_values: typed, ..Default::default() };
    schema
        .validate_with(&d, &opts)
        .errors()
        .iter()
        .map(|e| (e.location.line, e.location.column, e.message.clone(), e.path.clone()))
        .collect()
}

/// The short paths (values checked on the bytes, typed values off) and the general
/// path (typed values on: every value decoded and built) give the same errors, at
/// the same positions, on values around each short path's edges and on markup the
/// tape walk reads itself (attribute spacing, end tags with white space, comments,
/// CDATA, references, text between elements).
#[test]
fn short_paths_say_what_the_general_path_says() {
    let schema = Schema::from_bytes("t.xsd", XSD.as_bytes()).unwrap();
    let items = [
        item("sku=\"343-ZZ\"", "12", "202.89", ""),
        item("sku='343-ZZ'", "", " 1.5 ", "<ok>true</ok><ship>2002-09-27</ship><tok> a.b </tok>"),
        item("sku = \"343-Z\"", "0", "1.5.", "<ok>yes</ok><ship>2002-13-01</ship><tok>a b</tok>"),
        item("sku=\"12-AB\"", "100", "abc", "<ship>2002-02-29</ship>"),
        item("sku=\"343-ZZ\"", "&#49;2", "<![CDATA[7]]>", "<ship>2000-02-29Z</ship>"),
        item("sku=\"343-Z&#90;\"", " 99 ", "-.5", "<ship>2002-09-27+01:00</ship><!--c--><tok>x</tok >"),
        item("sku=\"343-ZZ\"", "5", "1\r\n", "<ship >0000-01-01</ship\n>"),
        "<item sku=\"343-ZZ\"><name/><qty/><price>1</price>text</item>\n".to_string(),
        "<item sku=\"343-ZZ\"><name>a</name><qty>1</qty><price>1</price><![CDATA[x]]></item>\n".to_string(),
        "<item sku=\"343-ZZ\"><name>a</name><qty>1</qty><price>1</price><![CDATA[ ]]>&#32;</item>\n".to_string(),
        "<item><name>a</name><qty>1</qty></item>\n".to_string(),
        "<item sku=\"343-ZZ\" extra=\"1\"><name>a</name><bad/><qty>1</qty><price>1</price></item>\n".to_string(),
        // leaves as the leaf path reads them: `<x></x>` and `<x/>` (an empty
        // decimal is not one; `2.` is)
        "<item sku=\"343-ZZ\"><name></name><qty></qty><price></price></item>\n".to_string(),
        "<item sku=\"343-ZZ\"><name/><qty>7</qty><price>2.</price><ship>2002-09-27</ship></item>\n".to_string(),
        // not leaves: a child element or an attribute in a string's content; a
        // comment is allowed there
        "<item sku=\"343-ZZ\"><name>a<b/>c</name><qty>1</qty><price>1</price></item>\n".to_string(),
        "<item sku=\"343-ZZ\"><name x=\"1\">a</name><qty>1</qty><price>1</price></item>\n".to_string(),
        "<item sku=\"343-ZZ\"><name>a<!--c-->b</name><qty>1</qty><price>1</price></item>\n".to_string(),
    ];
    let mut found = 0;
    for it in &items {
        let doc = format!("<order>\n{it}</order>");
        let short = errors(&schema, &doc, false);
        let general = errors(&schema, &doc, true);
        assert_eq!(short, general, "document:\n{doc}");
        found += short.len();
    }
    // and the verdicts are those of XSD 1.0 Part 2: items 1, 2, 5 and 6 hold only
    // valid values (`&#49;2` is 12, `343-Z&#90;` is 343-ZZ, a CDATA section is
    // text); item 7's year 0000 is not one; text or a non-blank CDATA section in
    // element-only content is refused, white space (even as `&#32;`) is not
    let valid: Vec<bool> = items.iter().map(|it| errors(&schema, &format!("<order>\n{it}</order>"), false).is_empty()).collect();
    assert_eq!(valid, [true, true, false, false, true, true, false, false, false, true, false, false, false, true, false, false, true]);
    assert!(found >= 15, "only {found} errors in all");
}

/// An error the short path finds is reported where the general path reports it.
#[test]
fn short_path_errors_keep_their_positions() {
    let schema = Schema::from_bytes("t.xsd", XSD.as_bytes()).unwrap();
    let doc = format!("<order>\n{}</order>", item("sku=\"343-ZZ\"", "100", "1", ""));
    let e = errors(&schema, &doc, false);
    assert_eq!(e.len(), 1, "{e:?}");
    // `<qty>` opens at line 4, column 3; its content starts at column 8
    assert_eq!((e[0].0, e[0].1), (4, 8));
    assert_eq!(e[0].3, "/order/item/qty");
    assert!(e[0].2.starts_with("element <qty>: \"100\" is not a valid value of type anonymous union"), "{}", e[0].2);
}
