//! The built-in simple types of XSD 1.0 Part 2 §3 and their derivation tree.

use super::WhiteSpace;

/// The primitive types (XSD 1.0 Part 2 §3.2), plus `anySimpleType` at the root.
///
/// The value spaces of two different primitives are disjoint: values of different
/// primitives are never equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Primitive {
    /// `anySimpleType`: every string (§3.4.1 of Part 1 / §2.5.1.1 of Part 2).
    AnySimpleType,
    /// `string` (§3.2.1).
    String,
    /// `boolean` (§3.2.2).
    Boolean,
    /// `decimal` (§3.2.3).
    Decimal,
    /// `float` (§3.2.4).
    Float,
    /// `double` (§3.2.5).
    Double,
    /// `duration` (§3.2.6).
    Duration,
    /// `dateTime` (§3.2.7).
    DateTime,
    /// `time` (§3.2.8).
    Time,
    /// `date` (§3.2.9).
    Date,
    /// `gYearMonth` (§3.2.10).
    GYearMonth,
    /// `gYear` (§3.2.11).
    GYear,
    /// `gMonthDay` (§3.2.12).
    GMonthDay,
    /// `gDay` (§3.2.13).
    GDay,
    /// `gMonth` (§3.2.14).
    GMonth,
    /// `hexBinary` (§3.2.15).
    HexBinary,
    /// `base64Binary` (§3.2.16).
    Base64Binary,
    /// `anyURI` (§3.2.17).
    AnyUri,
    /// `QName` (§3.2.18).
    QName,
    /// `NOTATION` (§3.2.19).
    Notation,
}

macro_rules! builtins {
    ($( $(#[$doc:meta])* $var:ident = $name:literal, base $base:ident, prim $prim:ident; )*) => {
        /// Every built-in simple type of XSD 1.0 Part 2 §3, by its local name in the
        /// namespace [`XSD_NAMESPACE`](super::XSD_NAMESPACE).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Builtin {
            $( $(#[$doc])* $var, )*
        }

        impl Builtin {
            /// Every built-in type, base types before the types derived from them.
            pub const ALL: &'static [Builtin] = &[$(Builtin::$var,)*];

            /// The built-in type with this local name (`"decimal"`, `"NMTOKENS"`, ...).
            pub fn from_local_name(name: &str) -> Option<Builtin> {
                match name {
                    $( $name => Some(Builtin::$var), )*
                    _ => None,
                }
            }

            /// The type's local name in the XML Schema namespace.
            pub fn local_name(self) -> &'static str {
                match self {
                    $( Builtin::$var => $name, )*
                }
            }

            /// The base type of the definition (`None` for `anySimpleType`; the list types
            /// `IDREFS`, `ENTITIES` and `NMTOKENS` have `anySimpleType` as their base).
            pub fn base(self) -> Option<Builtin> {
                match self {
                    $( Builtin::$var => builtins!(@base $base), )*
                }
            }

            /// The primitive type this built-in type is derived from; for the three list
            /// types, the primitive of their item type (`string`).
            pub fn primitive(self) -> Primitive {
                match self {
                    $( Builtin::$var => Primitive::$prim, )*
                }
            }
        }
    };
    (@base None) => { None };
    (@base $b:ident) => { Some(Builtin::$b) };
}

builtins! {
    /// `anySimpleType`.
    AnySimpleType = "anySimpleType", base None, prim AnySimpleType;
    /// `string`.
    String = "string", base AnySimpleType, prim String;
    /// `boolean`.
    Boolean = "boolean", base AnySimpleType, prim Boolean;
    /// `decimal`.
    Decimal = "decimal", base AnySimpleType, prim Decimal;
    /// `float`.
    Float = "float", base AnySimpleType, prim Float;
    /// `double`.
    Double = "double", base AnySimpleType, prim Double;
    /// `duration`.
    Duration = "duration", base AnySimpleType, prim Duration;
    /// `dateTime`.
    DateTime = "dateTime", base AnySimpleType, prim DateTime;
    /// `time`.
    Time = "time", base AnySimpleType, prim Time;
    /// `date`.
    Date = "date", base AnySimpleType, prim Date;
    /// `gYearMonth`.
    GYearMonth = "gYearMonth", base AnySimpleType, prim GYearMonth;
    /// `gYear`.
    GYear = "gYear", base AnySimpleType, prim GYear;
    /// `gMonthDay`.
    GMonthDay = "gMonthDay", base AnySimpleType, prim GMonthDay;
    /// `gDay`.
    GDay = "gDay", base AnySimpleType, prim GDay;
    /// `gMonth`.
    GMonth = "gMonth", base AnySimpleType, prim GMonth;
    /// `hexBinary`.
    HexBinary = "hexBinary", base AnySimpleType, prim HexBinary;
    /// `base64Binary`.
    Base64Binary = "base64Binary", base AnySimpleType, prim Base64Binary;
    /// `anyURI`.
    AnyUri = "anyURI", base AnySimpleType, prim AnyUri;
    /// `QName`.
    QName = "QName", base AnySimpleType, prim QName;
    /// `NOTATION`.
    Notation = "NOTATION", base AnySimpleType, prim Notation;
    /// `normalizedString`.
    NormalizedString = "normalizedString", base String, prim String;
    /// `token`.
    Token = "token", base NormalizedString, prim String;
    /// `language`.
    Language = "language", base Token, prim String;
    /// `NMTOKEN`.
    NmToken = "NMTOKEN", base Token, prim String;
    /// `NMTOKENS` (list of `NMTOKEN`).
    NmTokens = "NMTOKENS", base AnySimpleType, prim String;
    /// `Name`.
    Name = "Name", base Token, prim String;
    /// `NCName`.
    NCName = "NCName", base Name, prim String;
    /// `ID`.
    Id = "ID", base NCName, prim String;
    /// `IDREF`.
    IdRef = "IDREF", base NCName, prim String;
    /// `IDREFS` (list of `IDREF`).
    IdRefs = "IDREFS", base AnySimpleType, prim String;
    /// `ENTITY`.
    Entity = "ENTITY", base NCName, prim String;
    /// `ENTITIES` (list of `ENTITY`).
    Entities = "ENTITIES", base AnySimpleType, prim String;
    /// `integer`.
    Integer = "integer", base Decimal, prim Decimal;
    /// `nonPositiveInteger`.
    NonPositiveInteger = "nonPositiveInteger", base Integer, prim Decimal;
    /// `negativeInteger`.
    NegativeInteger = "negativeInteger", base NonPositiveInteger, prim Decimal;
    /// `long`.
    Long = "long", base Integer, prim Decimal;
    /// `int`.
    Int = "int", base Long, prim Decimal;
    /// `short`.
    Short = "short", base Int, prim Decimal;
    /// `byte`.
    Byte = "byte", base Short, prim Decimal;
    /// `nonNegativeInteger`.
    NonNegativeInteger = "nonNegativeInteger", base Integer, prim Decimal;
    /// `unsignedLong`.
    UnsignedLong = "unsignedLong", base NonNegativeInteger, prim Decimal;
    /// `unsignedInt`.
    UnsignedInt = "unsignedInt", base UnsignedLong, prim Decimal;
    /// `unsignedShort`.
    UnsignedShort = "unsignedShort", base UnsignedInt, prim Decimal;
    /// `unsignedByte`.
    UnsignedByte = "unsignedByte", base UnsignedShort, prim Decimal;
    /// `positiveInteger`.
    PositiveInteger = "positiveInteger", base NonNegativeInteger, prim Decimal;
}

impl Builtin {
    /// Whether this is one of the primitive types (or `anySimpleType`).
    pub fn is_primitive(self) -> bool {
        matches!(self.base(), None | Some(Builtin::AnySimpleType)) && !self.is_list()
    }

    /// Whether this is one of the built-in list types (`NMTOKENS`, `IDREFS`, `ENTITIES`).
    pub fn is_list(self) -> bool {
        matches!(self, Builtin::NmTokens | Builtin::IdRefs | Builtin::Entities)
    }

    /// Whether this is `integer` or one of the types derived from it (Part 2
    /// §3.3.13-3.3.25): lexically an optional sign and digits.
    pub fn is_integer(self) -> bool {
        let mut b = self;
        loop {
            if b == Builtin::Integer {
                return true;
            }
            match b.base() {
                Some(x) => b = x,
                None => return false,
            }
        }
    }

    /// The item type of a built-in list type.
    pub fn list_item(self) -> Option<Builtin> {
        match self {
            Builtin::NmTokens => Some(Builtin::NmToken),
            Builtin::IdRefs => Some(Builtin::IdRef),
            Builtin::Entities => Some(Builtin::Entity),
            _ => None,
        }
    }

    /// Whether `self` is `other` or derived from it by restriction through built-in types.
    pub fn derives_from(self, other: Builtin) -> bool {
        let mut t = Some(self);
        while let Some(b) = t {
            if b == other {
                return true;
            }
            t = b.base();
        }
        false
    }

    /// The `whiteSpace` facet of the built-in type (§4.3.6): `preserve` for `string` and
    /// `anySimpleType`, `replace` for `normalizedString`, `collapse` for everything else.
    pub fn whitespace(self) -> WhiteSpace {
        match self {
            Builtin::String | Builtin::AnySimpleType => WhiteSpace::Preserve,
            Builtin::NormalizedString => WhiteSpace::Replace,
            _ => WhiteSpace::Collapse,
        }
    }
}

impl Primitive {
    /// The built-in type of this primitive.
    pub fn builtin(self) -> Builtin {
        match self {
            Primitive::AnySimpleType => Builtin::AnySimpleType,
            Primitive::String => Builtin::String,
            Primitive::Boolean => Builtin::Boolean,
            Primitive::Decimal => Builtin::Decimal,
            Primitive::Float => Builtin::Float,
            Primitive::Double => Builtin::Double,
            Primitive::Duration => Builtin::Duration,
            Primitive::DateTime => Builtin::DateTime,
            Primitive::Time => Builtin::Time,
            Primitive::Date => Builtin::Date,
            Primitive::GYearMonth => Builtin::GYearMonth,
            Primitive::GYear => Builtin::GYear,
            Primitive::GMonthDay => Builtin::GMonthDay,
            Primitive::GDay => Builtin::GDay,
            Primitive::GMonth => Builtin::GMonth,
            Primitive::HexBinary => Builtin::HexBinary,
            Primitive::Base64Binary => Builtin::Base64Binary,
            Primitive::AnyUri => Builtin::AnyUri,
            Primitive::QName => Builtin::QName,
            Primitive::Notation => Builtin::Notation,
        }
    }

    /// The primitive's local name.
    pub fn local_name(self) -> &'static str {
        self.builtin().local_name()
    }

    /// Whether the primitive's values are ordered (the bounds facets apply).
    pub fn is_ordered(self) -> bool {
        matches!(
            self,
            Primitive::Decimal
                | Primitive::Float
                | Primitive::Double
                | Primitive::Duration
                | Primitive::DateTime
                | Primitive::Time
                | Primitive::Date
                | Primitive::GYearMonth
                | Primitive::GYear
                | Primitive::GMonthDay
                | Primitive::GDay
                | Primitive::GMonth
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(Builtin::ALL.len(), 45);
        for &b in Builtin::ALL {
            assert_eq!(Builtin::from_local_name(b.local_name()), Some(b));
        }
        assert_eq!(Builtin::from_local_name("Decimal"), None);
    }

    #[test]
    fn derivation_tree() {
        assert!(Builtin::UnsignedByte.derives_from(Builtin::Integer));
        assert!(Builtin::Id.derives_from(Builtin::String));
        assert!(!Builtin::Id.derives_from(Builtin::Integer));
        assert!(!Builtin::Integer.derives_from(Builtin::String));
        assert_eq!(Builtin::Language.primitive(), Primitive::String);
        assert!(Builtin::Date.is_primitive());
        assert!(!Builtin::NmTokens.is_primitive());
    }

    #[test]
    fn the_integer_family() {
        // Part 2 §3.3.13-3.3.25: integer and the 12 types derived from it
        let family = [
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
        ];
        for n in family {
            assert!(Builtin::from_local_name(n).unwrap().is_integer(), "{n}");
        }
        for n in ["decimal", "double", "string", "token", "boolean", "dateTime", "NMTOKENS", "anySimpleType"] {
            assert!(!Builtin::from_local_name(n).unwrap().is_integer(), "{n}");
        }
    }
}
