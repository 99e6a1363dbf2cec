//! Facets and derivation, with the rules of XSD 1.0 Part 2 §4.3 and §4.1.

use super::*;
use crate::datatypes::{NoNamespaces, NsMap};

fn t(b: Builtin) -> SimpleType {
    SimpleType::builtin(b)
}

fn r(base: &SimpleType, specs: &[(FacetKind, &str)]) -> Result<SimpleType, FacetError> {
    let specs: Vec<FacetSpec> = specs.iter().map(|(k, v)| FacetSpec::new(*k, *v)).collect();
    restrict(base, &specs, &NoNamespaces)
}

fn ok(ty: &SimpleType, v: &str) -> bool {
    let a = ty.check(v, &NoNamespaces).is_ok();
    assert_eq!(a, ty.validate(v, &NoNamespaces).is_ok(), "check and validate disagree on {v:?}");
    a
}

#[test]
fn integer_family_ranges() {
    assert!(ok(&t(Builtin::Byte), "-128") && ok(&t(Builtin::Byte), "+127") && !ok(&t(Builtin::Byte), "128"));
    assert!(ok(&t(Builtin::UnsignedLong), "18446744073709551615"));
    assert!(!ok(&t(Builtin::UnsignedLong), "18446744073709551616"));
    assert!(!ok(&t(Builtin::UnsignedInt), "-1") && ok(&t(Builtin::UnsignedInt), "-0"));
    assert!(ok(&t(Builtin::Long), "-9223372036854775808") && !ok(&t(Builtin::Long), "9223372036854775808"));
    assert!(!ok(&t(Builtin::PositiveInteger), "0") && ok(&t(Builtin::NegativeInteger), "-1"));
    assert!(!ok(&t(Builtin::Integer), "1.0") && !ok(&t(Builtin::Integer), "1.") && ok(&t(Builtin::Integer), " 007 "));
    assert!(ok(&t(Builtin::Integer), "123456789012345678901234567890123456789012345678901234567890"));
    let e = t(Builtin::UnsignedByte).check("300", &NoNamespaces).unwrap_err();
    assert_eq!(e.to_string(), "value 300 is greater than maxInclusive 255");
    assert_eq!(e.facet(), Some(FacetKind::MaxInclusive));
}

#[test]
fn string_family() {
    assert!(ok(&t(Builtin::Token), "  a   b  "));
    assert_eq!(t(Builtin::Token).validate(" a \t b ", &NoNamespaces).unwrap().as_str(), Some("a b"));
    assert_eq!(t(Builtin::NormalizedString).validate("a\tb", &NoNamespaces).unwrap().as_str(), Some("a b"));
    assert!(ok(&t(Builtin::Language), "en-US") && ok(&t(Builtin::Language), "i-klingon"));
    assert!(!ok(&t(Builtin::Language), "en_US") && !ok(&t(Builtin::Language), "toolongtag") && !ok(&t(Builtin::Language), "1en"));
    assert!(ok(&t(Builtin::Name), "a:b") && !ok(&t(Builtin::NCName), "a:b") && !ok(&t(Builtin::Name), "1a"));
    assert!(ok(&t(Builtin::NmToken), "1a") && !ok(&t(Builtin::NmToken), "a b") && !ok(&t(Builtin::NmToken), ""));
    assert!(ok(&t(Builtin::NmTokens), " a  b ") && !ok(&t(Builtin::NmTokens), "  "));
    assert!(ok(&t(Builtin::IdRefs), "a b") && !ok(&t(Builtin::IdRefs), "a 1b"));
    assert!(t(Builtin::IdRefs).is_idrefs() && t(Builtin::Id).is_id() && t(Builtin::Entities).is_entities());
}

#[test]
fn other_primitives() {
    assert!(ok(&t(Builtin::Boolean), " true ") && ok(&t(Builtin::Boolean), "0") && !ok(&t(Builtin::Boolean), "TRUE"));
    for v in ["1e5", "-1E-5", ".5", "5.", "INF", "-INF", "NaN", "1e400", "+1.5e+3"] {
        assert!(ok(&t(Builtin::Double), v), "{v}");
    }
    for v in ["+INF", "inf", "nan", "1e", "e5", "1.5f", "0x1p3", "infinity", "1e+", "."] {
        assert!(!ok(&t(Builtin::Float), v), "{v}");
    }
    assert!(ok(&t(Builtin::HexBinary), "0fB7") && !ok(&t(Builtin::HexBinary), "0fB"));
    assert!(ok(&t(Builtin::Base64Binary), " Zm9v YmFy ") && !ok(&t(Builtin::Base64Binary), "Zm9="));
    assert!(ok(&t(Builtin::AnyUri), "http://example.com/a b") && !ok(&t(Builtin::AnyUri), "a#b#c"));
    assert!(!ok(&t(Builtin::AnyUri), "%zz") && !ok(&t(Builtin::AnyUri), "http://h:port/"));
    let ns = NsMap(vec![("p".into(), "urn:p".into())]);
    let q = t(Builtin::QName).validate(" p:x ", &ns).unwrap();
    assert_eq!(q, Value::QName(Some(Arc::from("urn:p")), Arc::from("x")));
    let e = t(Builtin::QName).validate("z:x", &ns).unwrap_err();
    assert_eq!(e.kind(), DatatypeErrorKind::UndeclaredPrefix);
    assert!(t(Builtin::QName).check(":x", &ns).is_err() && t(Builtin::QName).check("a:b:c", &ns).is_err());
    assert_eq!(
        t(Builtin::QName).validate("xml:lang", &NoNamespaces).unwrap(),
        Value::QName(Some(Arc::from(crate::datatypes::XML_NAMESPACE)), Arc::from("lang"))
    );
}

#[test]
fn value_equality_across_lexical_forms() {
    let v = |b: Builtin, s: &str| t(b).validate(s, &NoNamespaces).unwrap();
    assert_eq!(v(Builtin::Decimal, "1.0"), v(Builtin::Integer, "1"));
    assert_ne!(v(Builtin::Decimal, "1"), v(Builtin::Double, "1"));
    assert_eq!(v(Builtin::Double, "NaN"), v(Builtin::Double, "NaN"));
    // XSD 1.0 Second Edition: -0 is a lexical form of zero; NaN is incomparable
    assert_eq!(v(Builtin::Double, "0"), v(Builtin::Double, "-0"));
    assert_eq!(v(Builtin::Double, "NaN").partial_cmp_xsd(&v(Builtin::Double, "INF")), None);
    assert_eq!(v(Builtin::Float, "-INF").partial_cmp_xsd(&v(Builtin::Float, "-0")), Some(Ordering::Less));
    assert_eq!(v(Builtin::Double, "1e0"), v(Builtin::Double, "1.0"));
    assert_eq!(v(Builtin::HexBinary, "0f"), v(Builtin::HexBinary, "0F"));
    assert_ne!(v(Builtin::HexBinary, "0f"), v(Builtin::Base64Binary, "Dw=="));
    assert_eq!(v(Builtin::String, "a"), v(Builtin::Token, " a "));
    use std::collections::HashSet;
    let set: HashSet<Value> = ["1", "1.0", "01", "+1.000"].iter().map(|s| v(Builtin::Decimal, s)).collect();
    assert_eq!(set.len(), 1);
}

#[test]
fn restriction_facets() {
    let dec = t(Builtin::Decimal);
    let price = r(&dec, &[(FacetKind::MaxInclusive, "100"), (FacetKind::FractionDigits, "2")]).unwrap();
    assert!(ok(&price, "99.99") && ok(&price, "100.00") && !ok(&price, "100.01") && !ok(&price, "1.234"));
    assert_eq!(
        price.check("1.234", &NoNamespaces).unwrap_err().to_string(),
        "value 1.234 has 3 fraction digits; expected at most fractionDigits 2"
    );
    let td = r(&dec, &[(FacetKind::TotalDigits, "3")]).unwrap();
    assert!(ok(&td, "123") && ok(&td, "0012.300") && ok(&td, "0.001") && !ok(&td, "1234") && !ok(&td, "0.0001"));
    let s = r(&t(Builtin::String), &[(FacetKind::MinLength, "2"), (FacetKind::MaxLength, "3")]).unwrap();
    assert!(!ok(&s, "a") && ok(&s, "ab") && ok(&s, "äöü") && !ok(&s, "abcd"));
    let hex = r(&t(Builtin::HexBinary), &[(FacetKind::Length, "2")]).unwrap();
    assert!(ok(&hex, "0A0B") && !ok(&hex, "0A"));
    let en = r(&dec, &[(FacetKind::Enumeration, "1.0"), (FacetKind::Enumeration, "2.50")]).unwrap();
    assert!(ok(&en, "1") && ok(&en, "2.5") && !ok(&en, "3"));
    let p = r(&t(Builtin::String), &[(FacetKind::Pattern, "[a-z]+"), (FacetKind::Pattern, "[0-9]+")]).unwrap();
    assert!(ok(&p, "abc") && ok(&p, "123") && !ok(&p, "a1"));
    // patterns of successive steps are all required
    let p2 = r(&p, &[(FacetKind::Pattern, "...")]).unwrap();
    assert!(ok(&p2, "abc") && !ok(&p2, "ab") && !ok(&p2, "a1b"));
    let d = r(&t(Builtin::Date), &[(FacetKind::MinExclusive, "2000-01-01Z")]).unwrap();
    assert!(ok(&d, "2000-01-02Z") && !ok(&d, "2000-01-01Z") && !ok(&d, "2000-01-01"));
    let dur = r(&t(Builtin::Duration), &[(FacetKind::MaxInclusive, "P1M")]).unwrap();
    assert!(ok(&dur, "P27D") && !ok(&dur, "P30D") && !ok(&dur, "P32D"));
    let ws = r(&t(Builtin::String), &[(FacetKind::WhiteSpace, "collapse"), (FacetKind::Length, "3")]).unwrap();
    assert!(ok(&ws, "  a b  "));
}

#[test]
fn facet_validity_in_derivation() {
    use FacetKind as F;
    let dec = t(Builtin::Decimal);
    let err = |b: &SimpleType, s: &[(FacetKind, &str)]| r(b, s).unwrap_err();
    assert_eq!(err(&t(Builtin::String), &[(F::MaxInclusive, "1")]).facet(), Some(F::MaxInclusive));
    assert_eq!(err(&dec, &[(F::Length, "1")]).facet(), Some(F::Length));
    assert_eq!(err(&t(Builtin::Boolean), &[(F::Enumeration, "true")]).facet(), Some(F::Enumeration));
    assert!(err(&dec, &[(F::MinInclusive, "5"), (F::MaxInclusive, "4")]).to_string().contains("minInclusive 5"));
    assert!(r(&dec, &[(F::MinInclusive, "5"), (F::MaxInclusive, "5")]).is_ok());
    assert!(r(&dec, &[(F::MinExclusive, "5"), (F::MaxExclusive, "5")]).is_ok());
    assert!(r(&dec, &[(F::MinInclusive, "5"), (F::MaxExclusive, "5")]).is_err());
    assert!(r(&dec, &[(F::MaxInclusive, "5"), (F::MaxExclusive, "6")]).is_err());
    assert!(r(&t(Builtin::String), &[(F::MinLength, "3"), (F::MaxLength, "2")]).is_err());
    assert!(r(&t(Builtin::String), &[(F::Length, "3"), (F::MinLength, "2")]).is_err());
    let l3 = r(&t(Builtin::String), &[(F::MaxLength, "3")]).unwrap();
    assert!(r(&l3, &[(F::MaxLength, "4")]).is_err() && r(&l3, &[(F::MaxLength, "2")]).is_ok());
    assert!(r(&l3, &[(F::Length, "2")]).is_ok() && r(&l3, &[(F::Length, "4")]).is_err());
    let m = r(&dec, &[(F::MaxInclusive, "100")]).unwrap();
    assert!(r(&m, &[(F::MaxInclusive, "101")]).is_err() && r(&m, &[(F::MaxExclusive, "100")]).is_ok());
    assert!(r(&m, &[(F::MaxExclusive, "101")]).is_err() && r(&m, &[(F::MinInclusive, "101")]).is_err());
    assert!(r(&t(Builtin::Byte), &[(F::MaxInclusive, "200")]).is_err());
    assert!(r(&dec, &[(F::FractionDigits, "3"), (F::TotalDigits, "2")]).is_err());
    assert!(r(&t(Builtin::Integer), &[(F::FractionDigits, "1")]).is_err());
    assert!(r(&t(Builtin::Integer), &[(F::FractionDigits, "0")]).is_ok());
    assert!(r(&t(Builtin::Token), &[(F::WhiteSpace, "preserve")]).is_err());
    assert!(r(&t(Builtin::Decimal), &[(F::WhiteSpace, "replace")]).is_err());
    assert!(r(&t(Builtin::Decimal), &[(F::WhiteSpace, "collapse")]).is_ok());
    assert!(r(&dec, &[(F::Enumeration, "abc")]).unwrap_err().to_string().contains("\"abc\" is not a valid value of type decimal"));
    assert!(r(&dec, &[(F::Pattern, "a{2,1}")]).is_err());
    assert!(r(&dec, &[(F::TotalDigits, "0")]).is_err());
    assert!(r(&dec, &[(F::TotalDigits, "2"), (F::TotalDigits, "3")]).is_err());
    // fixed facets cannot change
    let fx = restrict(&dec, &[FacetSpec::new(F::MaxInclusive, "10").fixed()], &NoNamespaces).unwrap();
    assert!(r(&fx, &[(F::MaxInclusive, "9")]).unwrap_err().to_string().contains("fixed"));
    assert!(r(&fx, &[(F::MaxInclusive, "10.0")]).is_ok());
    assert!(r(&SimpleType::any_simple_type(), &[(F::Pattern, "a")]).is_err());
}

#[test]
fn lists_and_unions() {
    use FacetKind as F;
    let ints = list(&t(Builtin::Int)).unwrap();
    assert!(ok(&ints, " 1  2\t3 ") && ok(&ints, "") && !ok(&ints, "1 x 3"));
    assert_eq!(ints.validate("1 2", &NoNamespaces).unwrap().as_list().unwrap().len(), 2);
    let e = ints.check("1 x", &NoNamespaces).unwrap_err();
    assert_eq!(e.kind(), DatatypeErrorKind::ListItem);
    let two = r(&ints, &[(F::Length, "2")]).unwrap();
    assert!(ok(&two, "1 2") && !ok(&two, "1 2 3"));
    assert!(list(&ints).is_err());
    assert!(r(&ints, &[(F::MaxInclusive, "3")]).is_err());
    let u = union(&[t(Builtin::Int), t(Builtin::Date)]).unwrap();
    let (v, m) = u.validate_member("2001-01-01", &NoNamespaces).unwrap();
    assert!(m.same_type(&t(Builtin::Date)) && v.as_date_time().is_some());
    let (_, m) = u.validate_member(" 12 ", &NoNamespaces).unwrap();
    assert!(m.same_type(&t(Builtin::Int)));
    assert_eq!(u.check("x", &NoNamespaces).unwrap_err().kind(), DatatypeErrorKind::NoUnionMember);
    let ue = r(&u, &[(F::Enumeration, "12"), (F::Enumeration, "2001-01-01")]).unwrap();
    assert!(ok(&ue, "012") && !ok(&ue, "13"));
    assert!(r(&u, &[(F::Length, "1")]).is_err());
    let lu = list(&u).unwrap();
    assert!(ok(&lu, "1 2001-01-01") && !ok(&lu, "1 x"));
    assert!(u.derives_from(&SimpleType::any_simple_type()));
    assert!(t(Builtin::Int).derives_from(&u) && !t(Builtin::String).derives_from(&u));
    assert!(t(Builtin::Byte).derives_from(&t(Builtin::Integer)) && !t(Builtin::Integer).derives_from(&t(Builtin::Byte)));
    let named = two.with_name(Some("urn:x"), "twoInts");
    assert_eq!(named.display_name(), "twoInts");
    assert!(named.derives_from(&ints));
}

#[test]
fn send_sync_and_cheap() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<SimpleType>();
    assert_send_sync::<Value>();
    assert!(t(Builtin::Decimal).same_type(&t(Builtin::Decimal)));
    assert_eq!(t(Builtin::Decimal).whitespace(), WhiteSpace::Collapse);
    assert_eq!(t(Builtin::Byte).nearest_builtin(), Builtin::Byte);
    assert_eq!(r(&t(Builtin::Byte), &[]).unwrap().nearest_builtin(), Builtin::Byte);
    assert_eq!(t(Builtin::Byte).primitive(), Some(Primitive::Decimal));
}
