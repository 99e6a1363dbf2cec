"""Type stubs for the extension module ``vtdx._vtdx`` (checked by ``mypy.stubtest``)."""

import os
from collections.abc import Iterable, Iterator
from typing import IO, Any, Final, Optional, Union, final, overload

from typing_extensions import disjoint_base

__version__: Final[str]
__all__ = [
    "VtdxError", "XMLSyntaxError", "ResourceLimitError", "XPathError", "XPathSyntaxError", "XPathEvalError",
    "EditError", "C14NError", "Document", "Element", "Comment", "ProcessingInstruction", "Attrib",
    "NodeIterator", "XMLParser", "XPath", "Editor", "SmartString", "parse", "fromstring", "XML", "tostring",
    "canonicalize", "iselement", "pack", "unpack", "__version__",
    "XMLSchema", "XMLSchemaParseError", "DocumentInvalid", "SchemaError",
    "InvalidInput", "InvalidSignature", "Verifier", "Signer", "VerifyResult", "VerifiedReference",
    "XMLEncryptionError", "DecryptionError", "InvalidEncryptionInput", "Encryptor", "Decryptor",
]

_Source = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]", IO[bytes], IO[str]]
_Text = Union[bytes, bytearray, memoryview, str]
_TagArg = Union[str, type["Element"], None]
_Namespaces = Optional[dict[Optional[str], str]]
_XPathScalar = Union[float, bool, "SmartString", str]
_XPathItem = Union["Element", "SmartString", str, tuple[Optional[str], str], "Document"]
_XPathResult = Union[list[_XPathItem], _XPathScalar]
_Variable = Union[str, int, float, bool, "Element", "Document", list["Element"], tuple["Element", ...]]

# ---- exceptions ---------------------------------------------------------------------

class VtdxError(Exception):
    """Base class of every exception vtdx raises."""

class XMLSyntaxError(VtdxError, SyntaxError, ValueError):
    """The input is not well-formed XML (lxml's attributes, plus ``kind`` and ``byte_offset``)."""

    msg: str
    lineno: int
    offset: int
    position: tuple[int, int]
    filename: Optional[str]
    kind: str
    byte_offset: int

class ResourceLimitError(XMLSyntaxError):
    """A configured parser limit was exceeded."""

class XPathError(VtdxError, ValueError):
    """Base class of XPath errors."""

    expression: str

class XPathSyntaxError(XPathError, SyntaxError):
    """The XPath expression does not compile."""

    msg: str
    offset: int

class XPathEvalError(XPathError):
    """The XPath expression failed while being evaluated."""

class EditError(VtdxError, ValueError):
    """An edit cannot be made or the edits cannot be written together."""

class C14NError(VtdxError, ValueError):
    """Canonicalization failed."""

# ---- results ------------------------------------------------------------------------

class SmartString(str):
    """A string from an XPath result that remembers where it came from."""

    def getparent(self) -> Optional["Element"]: ...
    @property
    def attrname(self) -> Optional[str]: ...
    @property
    def is_attribute(self) -> bool: ...
    @property
    def is_text(self) -> bool: ...
    @property
    def is_tail(self) -> bool: ...

# ---- parsing ------------------------------------------------------------------------

@final
class XMLParser:
    """A reusable parser with fixed options (``parser=`` of ``parse``/``fromstring``)."""

    def __new__(
        cls,
        *,
        huge_tree: bool = ...,
        namespaces: bool = ...,
        attribute_defaults: bool = ...,
        forbid_external: bool = ...,
        external_entities: str = ...,
        max_depth: Optional[int] = ...,
        max_attributes: Optional[int] = ...,
        max_name_len: Optional[int] = ...,
        max_document_size: Optional[int] = ...,
        max_entity_expansion_bytes: Optional[int] = ...,
        max_entity_amplification: Optional[int] = ...,
        max_entity_depth: Optional[int] = ...,
        resolve_entities: bool = ...,
        no_network: bool = ...,
        template_cache: bool = ...,
    ) -> "XMLParser": ...
    def parse(self, source: _Source) -> "Document":
        """Parses a source into a Document."""
    def fromstring(self, text: _Text) -> "Element":
        """Parses XML text and returns the root element."""
    def template_stats(self) -> Optional[dict[str, int]]:
        """The template cache's counters, or None without ``template_cache=True``."""

def parse(source: _Source, parser: Optional[XMLParser] = None, **options: Any) -> "Document":
    """Parses a document (bytes, a file name, a path or a binary file object).

    A regular file of 64 KiB or more given by name is memory-mapped: do not truncate
    or rewrite it in place while the document is alive."""

def fromstring(text: _Text, parser: Optional[XMLParser] = None, **options: Any) -> "Element":
    """Parses XML text and returns the root element."""

def XML(text: _Text, parser: Optional[XMLParser] = None, **options: Any) -> "Element":
    """The same as fromstring."""

# ---- documents and elements ---------------------------------------------------------

@final
class Document:
    """A parsed document (lxml's ElementTree), owning its bytes."""

    @property
    def root(self) -> "Element": ...
    @property
    def docinfo(self) -> dict[str, Any]: ...
    @property
    def nbytes(self) -> tuple[int, int]: ...
    def getroot(self) -> "Element": ...
    def xpath(
        self, _path: str, namespaces: _Namespaces = None, smart_strings: bool = True, **variables: _Variable
    ) -> _XPathResult: ...
    def find(self, path: str, namespaces: _Namespaces = None) -> Optional["Element"]: ...
    def findall(self, path: str, namespaces: _Namespaces = None) -> list["Element"]: ...
    def iterfind(self, path: str, namespaces: _Namespaces = None) -> "NodeIterator": ...
    def findtext(self, path: str, default: Any = None, namespaces: _Namespaces = None) -> Any: ...
    def iter(self, tag: _TagArg = None, *tags: _TagArg) -> "NodeIterator": ...
    @overload
    def tostring(self, *, encoding: None = None) -> bytes: ...
    @overload
    def tostring(self, *, encoding: str) -> Union[bytes, str]: ...
    def canonicalize(
        self,
        *,
        exclusive: bool = False,
        with_comments: bool = False,
        inclusive_ns_prefixes: Optional[list[str]] = None,
        version: str = "1.0",
    ) -> bytes: ...
    def write(self, file: Union[str, "os.PathLike[str]", IO[bytes]]) -> None: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __copy__(self) -> "Document": ...
    def __deepcopy__(self, memo: Any) -> "Document": ...

@disjoint_base
class Element:
    """An element of a parsed document, with lxml's _Element API (read-only)."""

    @property
    def tag(self) -> Any: ...
    @property
    def prefix(self) -> Optional[str]: ...
    @property
    def localname(self) -> Optional[str]: ...
    @property
    def namespace(self) -> Optional[str]: ...
    @property
    def nsmap(self) -> dict[Optional[str], str]: ...
    @property
    def attrib(self) -> "Attrib": ...
    @property
    def text(self) -> Optional[str]: ...
    @property
    def tail(self) -> Optional[str]: ...
    @property
    def sourceline(self) -> int: ...
    def get(self, key: str, default: Any = None) -> Any: ...
    def keys(self) -> list[str]: ...
    def values(self) -> list[str]: ...
    def items(self) -> list[tuple[str, str]]: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> "NodeIterator": ...
    @overload
    def __getitem__(self, key: int, /) -> "Element": ...
    @overload
    def __getitem__(self, key: slice, /) -> list["Element"]: ...
    def __contains__(self, key: object, /) -> bool: ...
    def index(self, child: "Element", start: Optional[int] = None, stop: Optional[int] = None) -> int: ...
    def getchildren(self) -> list["Element"]: ...
    def getparent(self) -> Optional["Element"]: ...
    def getnext(self) -> Optional["Element"]: ...
    def getprevious(self) -> Optional["Element"]: ...
    def getroottree(self) -> Document: ...
    def iter(self, tag: _TagArg = None, *tags: _TagArg) -> "NodeIterator": ...
    def iterdescendants(self, tag: _TagArg = None, *tags: _TagArg) -> "NodeIterator": ...
    def iterchildren(self, tag: _TagArg = None, *tags: _TagArg, reversed: bool = False) -> "NodeIterator": ...
    def itersiblings(self, tag: _TagArg = None, *tags: _TagArg, preceding: bool = False) -> "NodeIterator": ...
    def iterancestors(self, tag: _TagArg = None, *tags: _TagArg) -> "NodeIterator": ...
    def itertext(self, tag: _TagArg = None, *tags: _TagArg, with_tail: bool = True) -> Iterator[str]: ...
    def xpath(
        self, _path: str, namespaces: _Namespaces = None, smart_strings: bool = True, **variables: _Variable
    ) -> _XPathResult: ...
    def find(self, path: str, namespaces: _Namespaces = None) -> Optional["Element"]: ...
    def findall(self, path: str, namespaces: _Namespaces = None) -> list["Element"]: ...
    def iterfind(self, path: str, namespaces: _Namespaces = None) -> "NodeIterator": ...
    def findtext(self, path: str, default: Any = None, namespaces: _Namespaces = None) -> Any: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __copy__(self) -> "Element": ...
    def __deepcopy__(self, memo: Any) -> "Element": ...

@final
class Comment(Element):
    """A comment: an Element subclass whose tag is the class Comment."""

@final
class ProcessingInstruction(Element):
    """A processing instruction: an Element subclass whose tag is the class ProcessingInstruction."""

    @property
    def target(self) -> str: ...

@final
class Attrib:
    """The attributes of an element: a read-only mapping in document order."""

    def __getitem__(self, key: str, /) -> str: ...
    def __len__(self) -> int: ...
    def __contains__(self, key: object, /) -> bool: ...
    def __iter__(self) -> Iterator[str]: ...
    def __bool__(self) -> bool: ...
    def __eq__(self, value: object, /) -> bool: ...
    def get(self, key: str, default: Any = None) -> Any: ...
    def keys(self) -> list[str]: ...
    def values(self) -> list[str]: ...
    def items(self) -> list[tuple[str, str]]: ...
    def copy(self) -> dict[str, str]: ...

@final
class NodeIterator:
    """An iterator over nodes of one document."""

    def __iter__(self) -> "NodeIterator": ...
    def __next__(self) -> Element: ...
    def __length_hint__(self) -> int: ...

def iselement(obj: object) -> bool:
    """Is obj a vtdx element (comments and PIs included)?"""

def pack(doc: Document) -> bytes:
    """The compact binary form of a document (docs/binary-format.md); ``unpack`` gives it back byte for byte."""

def unpack(data: bytes) -> Document:
    """A document from ``pack``'s bytes, checked as a parse would; ValueError (XMLSyntaxError) if refused."""

# ---- XPath --------------------------------------------------------------------------

@final
class XPath:
    """A compiled XPath 1.0 expression, callable on elements and documents."""

    def __new__(cls, path: str, namespaces: _Namespaces = None, *, smart_strings: bool = True) -> "XPath": ...
    def __call__(self, _etree_or_element: Union[Element, Document], **_variables: _Variable) -> _XPathResult: ...
    @property
    def path(self) -> str: ...

# ---- editing ------------------------------------------------------------------------

@final
class Editor:
    """Records byte-range edits to a document and writes the edited bytes."""

    def __new__(cls, doc: Union[Document, Element], *, check: bool = True, remove_indentation: bool = False) -> "Editor": ...
    @property
    def document(self) -> Document: ...
    def remove(self, node: Element) -> None: ...
    def remove_attribute(self, element: Element, name: str) -> None: ...
    def insert_before(self, node: Element, fragment: str) -> None: ...
    def insert_after(self, node: Element, fragment: str) -> None: ...
    def append(self, element: Element, fragment: str) -> None: ...
    def prepend(self, element: Element, fragment: str) -> None: ...
    def set_text(self, element: Element, text: str) -> None: ...
    def set(self, element: Element, name: str, value: str) -> None: ...
    def rename(self, element: Element, name: str) -> None: ...
    def replace(self, node: Element, fragment: str) -> None: ...
    def output(self) -> bytes: ...
    def to_document(self) -> Document: ...
    def clear(self) -> None: ...
    def __len__(self) -> int: ...

# ---- serializing --------------------------------------------------------------------

def tostring(
    element_or_tree: Union[Element, Document],
    *,
    encoding: Union[str, type[str], None] = None,
    method: str = "xml",
    xml_declaration: Optional[bool] = None,
    pretty_print: bool = False,
    with_tail: bool = True,
    exclusive: bool = False,
    with_comments: bool = True,
    inclusive_ns_prefixes: Optional[list[str]] = None,
) -> Any:
    """Serializes a document (its bytes as parsed) or an element (its bytes as written)."""

def canonicalize(
    doc_or_node: Union[Document, Element, bytes, str],
    exclusive: bool = False,
    with_comments: bool = False,
    inclusive_ns_prefixes: Optional[list[str]] = None,
    *,
    version: str = "1.0",
) -> bytes:
    """Canonical XML (1.0, 1.1 or Exclusive 1.0) of a document or subtree."""

# ---- XML Signature (re-exported by vtdx.dsig) ------------------------------------------

class InvalidInput(VtdxError, ValueError):
    """A key, certificate, algorithm or document that XML Signature cannot use."""

    kind: str
    msg: str
    byte_offset: Optional[int]
    position: Optional[tuple[int, int]]
    lineno: Optional[int]

class InvalidSignature(InvalidInput):
    """The message's signatures were refused; ``kind`` says why."""

_DsigSource = Union[bytes, bytearray, memoryview, str, Document, Element]

@final
class Verifier:
    """The caller's keys and a verification policy, read once."""

    def __new__(
        cls,
        keys: list[tuple[str, bytes, Optional[str]]],
        *,
        allow_sha1: bool = False,
        min_rsa_bits: int = 2048,
        max_transforms: int = 5,
        max_references: int = 30,
        max_signatures: int = 10,
        allow_xpath_transform: bool = False,
        allow_xpath_filter2: bool = False,
        reject_comment_split_text: bool = True,
        soap_checks: bool = True,
        max_clock_skew: float = 300.0,
        now: Optional[float] = None,
        require_timestamp: bool = False,
        decrypts_after: bool = False,
        ca_certs: list[bytes] = ...,
        intermediates: list[bytes] = ...,
        crls: list[bytes] = ...,
        max_chain_len: int = 8,
        validate_caller_keys: bool = False,
    ) -> "Verifier": ...
    def verify(self, data: _DsigSource) -> "VerifyResult": ...

@final
class Signer:
    """The caller's private key (or HMAC secret) and how to sign, read once."""

    def __new__(
        cls,
        key: bytes,
        *,
        hmac: bool = False,
        cert: Optional[bytes] = None,
        key_name: Optional[str] = None,
        signature_algorithm: Optional[str] = None,
        digest_algorithm: Optional[str] = None,
        c14n_algorithm: Optional[str] = None,
        reference_c14n: Optional[str] = None,
        key_info: bool = True,
    ) -> "Signer": ...
    @property
    def signature_algorithm(self) -> str: ...
    def sign_enveloped(self, data: _DsigSource) -> bytes: ...
    def sign_detached(self, data: _DsigSource, xpaths: list[str]) -> bytes: ...
    def sign_wss(
        self,
        data: _DsigSource,
        xpaths: list[str] = ...,
        *,
        ttl: Optional[float] = ...,
        now: Optional[float] = None,
        must_understand: bool = True,
    ) -> bytes: ...

@final
class VerifiedReference:
    """One verified ds:Reference: what it named and what its digest covered."""

    @property
    def uri(self) -> Optional[str]: ...
    @property
    def element(self) -> Element: ...
    @property
    def is_document(self) -> bool: ...
    @property
    def signed_data(self) -> bytes: ...
    @property
    def digest_algorithm(self) -> str: ...
    @property
    def transforms(self) -> list[str]: ...
    @property
    def excluded(self) -> list[Element]: ...
    @property
    def is_filtered(self) -> bool: ...
    @property
    def signature(self) -> Element: ...
    @property
    def signature_method(self) -> str: ...
    @property
    def key_index(self) -> int: ...
    def covers(self, element: Element) -> bool: ...

@final
class VerifyResult:
    """The verified view: every verified Signature and Reference and what they covered."""

    @property
    def document(self) -> Document: ...
    @property
    def references(self) -> list[VerifiedReference]: ...
    @property
    def signatures(self) -> list[Element]: ...
    @property
    def signed_xml(self) -> Optional[Element]: ...
    @property
    def signed_data(self) -> Optional[bytes]: ...
    @property
    def signature_xml(self) -> Optional[Element]: ...
    @property
    def signed_elements(self) -> list[Element]: ...
    def covers(self, element: Element) -> bool: ...
    def covers_all(self, elements: Iterable[Element]) -> bool: ...
    @property
    def payload(self) -> Optional[Element]: ...
    @property
    def covers_payload(self) -> bool: ...
    @property
    def is_soap(self) -> bool: ...
    @property
    def soap_body(self) -> Optional[Element]: ...
    @property
    def soap_header(self) -> Optional[Element]: ...
    @property
    def security_header(self) -> Optional[Element]: ...
    @property
    def timestamp(self) -> Optional[Element]: ...
    @property
    def timestamp_signed(self) -> bool: ...

# ---- XML Encryption (re-exported by vtdx.xmlenc) ------------------------------------------

class XMLEncryptionError(VtdxError, ValueError):
    """A message whose encryption structures are malformed, or that exceeds a limit."""

    kind: str
    msg: str
    byte_offset: Optional[int]
    position: Optional[tuple[int, int]]
    lineno: Optional[int]

class DecryptionError(XMLEncryptionError):
    """Every cryptographic failure of decryption: the message is always ``decryption failed``."""

class InvalidEncryptionInput(XMLEncryptionError):
    """A key, algorithm, XPath or target the caller gave that cannot be used (``vtdx.xmlenc.InvalidInput``)."""

@final
class Encryptor:
    """The recipient's key and how to encrypt, read once."""

    def __new__(
        cls,
        key: bytes,
        *,
        kind: str = "rsa",
        key_name: Optional[str] = None,
        algorithm: Optional[str] = None,
        key_transport: Optional[str] = None,
        recipient_info: bool = True,
    ) -> "Encryptor": ...
    @property
    def algorithm(self) -> str: ...
    def encrypt(
        self, data: _DsigSource, targets: Union[str, Element, Iterable[Union[str, Element]], None] = None, *, content: bool = False
    ) -> bytes: ...
    def encrypt_wss(
        self,
        data: _DsigSource,
        targets: Union[str, Element, Iterable[Union[str, Element]], None] = None,
        *,
        body: bool = True,
        must_understand: bool = True,
    ) -> bytes: ...

@final
class Decryptor:
    """The caller's keys and the decryption policy, read once."""

    def __new__(
        cls,
        keys: list[tuple[str, bytes, Optional[str]]],
        *,
        allow_legacy: bool = False,
        max_parts: int = 256,
        max_cipher_bytes: int = 268435456,
        max_depth: int = 4,
        remove_key_entries: bool = False,
    ) -> "Decryptor": ...
    @property
    def allow_legacy(self) -> bool: ...
    def decrypt(self, data: _DsigSource) -> bytes: ...

# ---- XML Schema ---------------------------------------------------------------------

class XMLSchemaParseError(ValueError):
    """A schema that cannot be loaded or is invalid."""

class DocumentInvalid(ValueError):
    """Raised by ``XMLSchema.assertValid`` when a document is invalid."""

@final
class SchemaError:
    """One validation error."""
    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def path(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def filename(self) -> Optional[str]: ...
    @property
    def level_name(self) -> str: ...

@final
class XMLSchema:
    """An XML Schema 1.0 schema, compiled once (lxml's ``etree.XMLSchema`` shape)."""
    def __new__(
        cls,
        etree: Union[Document, Element, None] = None,
        file: Union[str, "os.PathLike[str]", Iterable[Union[str, "os.PathLike[str]"]], None] = None,
        *,
        source: Optional[bytes] = None,
    ) -> "XMLSchema": ...
    @classmethod
    def from_schema_location(
        cls,
        doc: Union[Document, Element],
        *,
        base: Union[str, "os.PathLike[str]", None] = None,
        file: Union[str, "os.PathLike[str]", Iterable[Union[str, "os.PathLike[str]"]], None] = None,
        all_elements: bool = False,
    ) -> "XMLSchema":
        """The schema named by ``doc``'s xsi:schemaLocation / xsi:noNamespaceSchemaLocation
        (local paths relative to ``base``, default the document's directory; never a URL)."""
        ...
    def validate(self, doc: Union[Document, Element]) -> bool: ...
    def __call__(self, doc: Union[Document, Element]) -> bool: ...
    def assertValid(self, doc: Union[Document, Element]) -> None: ...
    def assert_(self, doc: Union[Document, Element]) -> None: ...
    def is_valid(self, doc: Union[Document, Element]) -> bool: ...
    def iter_errors(self, doc: Union[Document, Element]) -> list[SchemaError]: ...
    @property
    def error_log(self) -> list[SchemaError]: ...
