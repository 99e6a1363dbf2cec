"""vtdx: fast non-extractive XML with an lxml-familiar API.

The document stays as bytes with a compact index over them; elements are small
handles made on demand. Parsing, XPath 1.0, ElementPath (``find``/``findall``),
byte-level editing and canonical XML all run on that index::

    import vtdx

    doc = vtdx.parse(b"<order><item qty='2'>Can</item><item qty='1'>Rake</item></order>")
    for item in doc.root:
        print(item.text, item.get("qty"))
    print(doc.xpath("sum(//item/@qty)"))          # 3.0

Names follow lxml and ElementTree where the concept is the same: ``parse``,
``fromstring``/``XML``, ``tostring``, ``Element.tag`` (Clark notation),
``attrib``, ``text``, ``tail``, ``iter``, ``find``, ``xpath``, ``XPath``,
``XMLSyntaxError``. Trees are read-only; change documents with :class:`Editor`.
XML Signature (verification with the verified view, signing, a zeep WS-Security
plugin) is :mod:`vtdx.dsig`; XML Encryption is :mod:`vtdx.xmlenc`.
"""

from collections.abc import Mapping as _Mapping

from ._vtdx import (
    Attrib,
    C14NError,
    Comment,
    Document,
    Editor,
    EditError,
    Element,
    NodeIterator,
    ProcessingInstruction,
    ResourceLimitError,
    SmartString,
    VtdxError,
    XML,
    XMLParser,
    XMLSchema,
    XMLSchemaParseError,
    DocumentInvalid,
    SchemaError,
    XMLSyntaxError,
    XPath,
    XPathError,
    XPathEvalError,
    XPathSyntaxError,
    __version__,
    canonicalize,
    fromstring,
    iselement,
    pack,
    parse,
    tostring,
    unpack,
)

from . import dsig  # XML Signature: vtdx.dsig.verify, vtdx.dsig.sign (zeep plugin: vtdx.dsig.zeep)
from . import xmlenc  # XML Encryption: vtdx.xmlenc.encrypt, vtdx.xmlenc.decrypt

# `el.attrib` is a read-only mapping: let isinstance(..., Mapping) say so.
_Mapping.register(Attrib)

#: lxml spells the tree class ``ElementTree``; here it is :class:`Document`.
ElementTree = Document

#: ElementTree's name for the parse error.
ParseError = XMLSyntaxError

__all__ = [
    "Attrib",
    "C14NError",
    "Comment",
    "Document",
    "EditError",
    "Editor",
    "Element",
    "ElementTree",
    "NodeIterator",
    "ParseError",
    "ProcessingInstruction",
    "ResourceLimitError",
    "SmartString",
    "VtdxError",
    "XML",
    "XMLParser",
    "XMLSchema",
    "XMLSchemaParseError",
    "DocumentInvalid",
    "SchemaError",
    "XMLSyntaxError",
    "XPath",
    "XPathError",
    "XPathEvalError",
    "XPathSyntaxError",
    "__version__",
    "canonicalize",
    "dsig",
    "fromstring",
    "iselement",
    "pack",
    "parse",
    "tostring",
    "unpack",
    "xmlenc",
]
