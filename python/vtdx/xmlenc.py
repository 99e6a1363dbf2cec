"""XML Encryption 1.1 and WS-Security encryption with the caller's keys: ``encrypt``, ``decrypt``.

Encryption replaces an element, or its content, by an ``xenc:EncryptedData``
(AES-GCM; the session key sent to a certificate's RSA key with RSA-OAEP, wrapped
under an AES key-encryption key with AES-KW, or an AES key used directly), and
for SOAP the Body's content and chosen header blocks with an ``xenc:EncryptedKey``
in the ``wsse:Security`` header. Decryption replaces every ``EncryptedData`` by its
plaintext, parsed where it lands. Both leave every other byte of the document as it
was, and return bytes::

    import vtdx.xmlenc

    enc = vtdx.xmlenc.encrypt(b"<order><card>4111</card></order>", cert_pem, xpath="//card")
    assert vtdx.xmlenc.decrypt(enc, key_pem) == b"<order><card>4111</card></order>"

Every cryptographic failure (wrong key, bad tag, bad padding, an algorithm refused
or not offered, a ``CipherReference``, a plaintext not well-formed in place) is the
one :class:`DecryptionError`, message ``decryption failed``: decryption is no
padding or Bleichenbacher oracle. The legacy algorithms (AES-CBC, RSA PKCS#1 v1.5)
decrypt only with ``allow_legacy=True`` and are never used to encrypt. Usage errors
(a key that cannot be read, an unknown algorithm, an XPath selecting nothing) are
:class:`InvalidInput`; messages whose structure is wrong, or that exceed a limit,
:class:`XMLEncryptionError`. Keys come from the caller only: a message selects among
them (``KeyName``, key size), never supplies one, and nothing is ever fetched.

Names follow python-xmlsec where the concept is the same (``EncryptionType.ELEMENT``
/ ``CONTENT`` for its ``TypeEncElement`` / ``TypeEncContent``, the algorithm names of
its ``Transform``). No libxmlsec1: the work is done by ``vtdx-dsig`` (Rust, aws-lc),
with the interpreter released. The zeep WS-Security plugin encrypts and decrypts too
(:class:`vtdx.dsig.zeep.WsseSignature`, :class:`vtdx.dsig.zeep.WsseEncryption`).
"""

from __future__ import annotations

import enum as _enum
from collections.abc import Sequence
from typing import Any, Optional, Union

from ._vtdx import Decryptor, DecryptionError, Element, Encryptor, XMLEncryptionError
from ._vtdx import InvalidEncryptionInput as InvalidInput
from .dsig import _Data, _key_bytes, _source, _Uri

__all__ = [
    "BlockAlgorithm",
    "DecryptionError",
    "Decryptor",
    "EncryptionType",
    "Encryptor",
    "InvalidInput",
    "KeyTransport",
    "XMLDecryptor",
    "XMLEncryptionError",
    "XMLEncryptor",
    "decrypt",
    "encrypt",
]

_XENC = "http://www.w3.org/2001/04/xmlenc#"
_XENC11 = "http://www.w3.org/2009/xmlenc11#"


class BlockAlgorithm(_Uri):
    """Block encryption URIs (python-xmlsec's ``Transform`` names). Encryption uses the
    AES-GCM ones; the CBC ones decrypt only with ``allow_legacy=True``."""

    AES128_GCM = _XENC11 + "aes128-gcm"
    AES192_GCM = _XENC11 + "aes192-gcm"
    AES256_GCM = _XENC11 + "aes256-gcm"
    AES128_CBC = _XENC + "aes128-cbc"
    AES192_CBC = _XENC + "aes192-cbc"
    AES256_CBC = _XENC + "aes256-cbc"


class KeyTransport(_Uri):
    """RSA key transport URIs. ``RSA_OAEP_MGF1P`` (SHA-1, the WS-Security Basic Security
    Profile's) is the default for encryption, ``RSA_OAEP`` writes XML Encryption 1.1's
    with SHA-256 and MGF1-SHA-256; ``RSA_1_5`` decrypts only with ``allow_legacy=True``."""

    RSA_OAEP_MGF1P = _XENC + "rsa-oaep-mgf1p"
    RSA_OAEP = _XENC11 + "rsa-oaep"
    RSA_1_5 = _XENC + "rsa-1_5"


class EncryptionType(_Uri):
    """The ``Type`` of an ``EncryptedData`` (python-xmlsec's ``TypeEncElement`` and
    ``TypeEncContent``): the element itself, or its content."""

    ELEMENT = _XENC + "Element"
    CONTENT = _XENC + "Content"


_BLOCK_NAMES = {m.value.rsplit("#", 1)[1]: m for m in BlockAlgorithm}
_TRANSPORT_NAMES = {m.value.rsplit("#", 1)[1]: m for m in KeyTransport}
_TYPE_NAMES = {"element": EncryptionType.ELEMENT, "content": EncryptionType.CONTENT}

_AlgArg = Union[str, _enum.Enum, None]
_KeyArg = Union[bytes, bytearray, memoryview, str, Any]


def _invalid(kind: str, msg: str) -> Any:
    """An :class:`InvalidInput` with the attributes the engine's exceptions carry."""
    e = InvalidInput(msg)
    e.kind = kind
    e.msg = msg
    e.byte_offset = None
    e.position = None
    e.lineno = None
    return e


def _uri(value: _AlgArg, names: dict[str, Any], what: str) -> Optional[str]:
    """An algorithm URI from an enum member, a URI or a short name (``'aes256-gcm'``)."""
    if value is None:
        return None
    if isinstance(value, _enum.Enum):
        return str(value.value)
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str or an enum member, not {type(value).__name__}")
    if value.lower() in names:
        return str(names[value.lower()].value)
    if ":" in value:
        return value
    raise _invalid("algorithm", f"unknown {what} {value!r}: use a URI, an enum member or one of {sorted(names)}")


def _content(type: Union[str, EncryptionType]) -> bool:
    uri = type.value if isinstance(type, _enum.Enum) else _TYPE_NAMES.get(str(type).lower(), type)
    if uri == EncryptionType.CONTENT.value:
        return True
    if uri == EncryptionType.ELEMENT.value:
        return False
    raise _invalid("encrypt", f"type must be EncryptionType.ELEMENT or CONTENT ('element', 'content'), not {type!r}")


def _secret(k: Any, what: str) -> bytes:
    """A raw AES key: bytes of 16, 24 or 32, or as many bytes in hexadecimal (a ``str``)."""
    if isinstance(k, str):
        try:
            raw = bytes.fromhex(k.strip())
        except ValueError:
            raise _invalid("key", f"{what} given as str must be hexadecimal") from None
    elif isinstance(k, (bytes, bytearray, memoryview)):
        raw = bytes(k)
    else:
        raise TypeError(f"{what} must be bytes (or a hexadecimal str), not {type(k).__name__}")
    if len(raw) not in (16, 24, 32):
        raise _invalid("key", f"{what} has 16, 24 or 32 bytes, this one has {len(raw)}")
    return raw


def _many(k: Any) -> list[Any]:
    if k is None:
        return []
    if isinstance(k, (list, tuple)):
        return list(k)
    return [k]


def _targets(xpath: Union[str, Sequence[str], None], element: Union[Element, Sequence[Element], None]) -> Optional[list[Any]]:
    out: list[Any] = []
    out.extend([xpath] if isinstance(xpath, str) else list(xpath or []))
    out.extend([element] if isinstance(element, Element) else list(element or []))
    return out if (xpath is not None or element is not None) else None


# ---- encryption ----------------------------------------------------------------------------


class XMLEncryptor:
    """The recipient's key and how to encrypt, read once (an :class:`Encryptor` inside);
    :meth:`encrypt` then encrypts any number of documents. Thread-safe.

    The key, one of:

    * ``cert``: the recipient's certificate or RSA public key (PEM or DER, ``bytes`` or
      ``str``, or a ``cryptography`` object): each session key is transported with
      RSA-OAEP (``key_transport``: :class:`KeyTransport`, ``'rsa-oaep-mgf1p'`` by
      default, or ``'rsa-oaep'``), and the certificate identifies the recipient;
    * ``kek``: an AES key-encryption key (16, 24 or 32 bytes, or hex): each session
      key is wrapped with AES-KW;
    * ``aes_key``: an AES key used directly as the data key (no ``EncryptedKey``).

    ``key_name`` is written as ``ds:KeyName``; ``algorithm`` (:class:`BlockAlgorithm`,
    a URI or ``'aes128-gcm'``, ``'aes192-gcm'``, ``'aes256-gcm'``) defaults to
    AES-256-GCM (for ``aes_key``, the AES-GCM of its size); ``recipient_info=False``
    leaves out the certificate or key name.
    """

    def __init__(
        self,
        cert: _KeyArg = None,
        *,
        kek: Union[bytes, str, None] = None,
        aes_key: Union[bytes, str, None] = None,
        key_name: Optional[str] = None,
        algorithm: _AlgArg = None,
        key_transport: _AlgArg = None,
        recipient_info: bool = True,
    ) -> None:
        given = [n for n, v in (("cert", cert), ("kek", kek), ("aes_key", aes_key)) if v is not None]
        if len(given) != 1:
            raise _invalid(
                "key",
                "encryption needs exactly one key: cert=... (RSA-OAEP), kek=... (AES key wrap) or aes_key=... (direct)"
                + (f", not {' and '.join(given)}" if given else ""),
            )
        if cert is not None:
            kind, data = "rsa", _key_bytes(cert)
        elif kek is not None:
            kind, data = "key_wrap", _secret(kek, "the key-encryption key")
        else:
            kind, data = "direct", _secret(aes_key, "the AES key")
        self._engine = Encryptor(
            data,
            kind=kind,
            key_name=key_name,
            algorithm=_uri(algorithm, _BLOCK_NAMES, "block algorithm"),
            key_transport=_uri(key_transport, _TRANSPORT_NAMES, "key transport"),
            recipient_info=recipient_info,
        )

    @property
    def algorithm(self) -> BlockAlgorithm:
        """The block algorithm this encryptor writes."""
        return BlockAlgorithm(self._engine.algorithm)

    def encrypt(
        self,
        data: _Data,
        *,
        xpath: Union[str, Sequence[str], None] = None,
        element: Union[Element, Sequence[Element], None] = None,
        type: Union[str, EncryptionType] = EncryptionType.ELEMENT,
        wss: bool = False,
        body: bool = True,
        must_understand: bool = True,
    ) -> bytes:
        """Encrypts ``data``; see :func:`vtdx.xmlenc.encrypt`."""
        targets = _targets(xpath, element)
        src = _source(data)
        if wss:
            return self._engine.encrypt_wss(src, targets, body=body, must_understand=must_understand)
        if targets == []:
            raise _invalid("encrypt", "nothing to encrypt: xpath=... and element=... name no element")
        return self._engine.encrypt(src, targets, content=_content(type))


def encrypt(
    data: _Data,
    cert: _KeyArg = None,
    *,
    kek: Union[bytes, str, None] = None,
    aes_key: Union[bytes, str, None] = None,
    key_name: Optional[str] = None,
    xpath: Union[str, Sequence[str], None] = None,
    element: Union[Element, Sequence[Element], None] = None,
    type: Union[str, EncryptionType] = EncryptionType.ELEMENT,
    wss: bool = False,
    body: bool = True,
    must_understand: bool = True,
    algorithm: _AlgArg = None,
    key_transport: _AlgArg = None,
    recipient_info: bool = True,
) -> bytes:
    """Encrypts parts of ``data`` and returns the encrypted document's bytes: the input
    with each part replaced by an ``xenc:EncryptedData``, every other byte unchanged.

    ``data``: XML as bytes or str, a :class:`vtdx.Document` or :class:`vtdx.Element`
    (its whole document), or an lxml element or tree (serialized first).

    The key (exactly one): ``cert``, the recipient's certificate or RSA public key
    (RSA-OAEP key transport); ``kek``, an AES key-encryption key (AES-KW); ``aes_key``,
    an AES data key used directly. See :class:`XMLEncryptor` for ``key_name``,
    ``algorithm`` (default AES-256-GCM), ``key_transport`` and ``recipient_info``.

    What: the elements ``xpath`` (XPath 1.0 expressions; prefixes of the document, and
    ``soap``, ``soap12``, ``wsse``, ``wsu``, ``ds``) and ``element`` (elements of ``data``
    when it is a vtdx Document) select, by default the document element; each as a
    whole (``type=EncryptionType.ELEMENT``) or its content (``EncryptionType.CONTENT``),
    each with its own session key in its ``KeyInfo``.

    ``wss=True``: WS-Security encryption of a SOAP 1.1 or 1.2 message: the Body's
    content (unless ``body=False``) and the elements named (header blocks, a
    ``ds:Signature``: as ``Type`` Element) under one session key, sent in an
    ``xenc:EncryptedKey`` prepended to the ``wsse:Security`` header (made when missing,
    with ``mustUnderstand`` unless ``must_understand=False``). Sign first with
    :func:`vtdx.dsig.sign` (``method='wss'``) for sign-then-encrypt, or afterwards for
    encrypt-then-sign.

    Raises :class:`InvalidInput` when the key, the algorithm or the targets cannot be
    used, :class:`vtdx.XMLSyntaxError` when ``data`` is not well-formed.
    """
    return XMLEncryptor(
        cert,
        kek=kek,
        aes_key=aes_key,
        key_name=key_name,
        algorithm=algorithm,
        key_transport=key_transport,
        recipient_info=recipient_info,
    ).encrypt(data, xpath=xpath, element=element, type=type, wss=wss, body=body, must_understand=must_understand)


# ---- decryption ----------------------------------------------------------------------------


def _decrypt_keys(
    key: Any, aes_key: Any, key_name: Optional[str], passphrase: Union[bytes, str, None]
) -> list[tuple[str, bytes, Optional[str]]]:
    pw = passphrase.encode() if isinstance(passphrase, str) else passphrase
    keys: list[tuple[str, bytes, Optional[str]]] = []
    for k in _many(key):
        if isinstance(k, (bytes, bytearray, memoryview)) and len(k) in (16, 24, 32):
            keys.append(("aes", bytes(k), key_name))  # a raw AES key (no RSA key is that short)
        else:
            keys.append(("rsa", _key_bytes(k, passphrase=pw), key_name))
    for a in _many(aes_key):
        keys.append(("aes", _secret(a, "an AES key"), key_name))
    return keys


class XMLDecryptor:
    """The caller's keys and the decryption policy, read once (a :class:`Decryptor`
    inside); :meth:`decrypt` then decrypts any number of documents. Thread-safe.

    ``key``: an RSA private key (PEM or DER, PKCS#8 or PKCS#1, ``bytes`` or ``str``, or a
    ``cryptography`` object; ``passphrase`` decrypts an encrypted PEM with the
    ``cryptography`` package), a raw AES key (``bytes`` of 16, 24 or 32), or a list of
    them; ``aes_key``: AES keys (``bytes``, or hex ``str``), one or a list; ``key_name``
    names them all (a ``ds:KeyName`` of the message then selects them).

    Policy: ``allow_legacy`` accepts AES-CBC and RSA PKCS#1 v1.5 (padding and
    Bleichenbacher oracles wherever the failure can be observed; off by default);
    ``max_parts`` ``EncryptedData`` per pass (256), ``max_cipher_bytes`` characters of
    ``CipherValue`` (256 MiB) and ``max_depth`` passes of nested encryption (4) are
    the limits; ``remove_key_entries`` also removes the WS-Security header's
    ``EncryptedKey`` / ``ReferenceList`` entries once their parts are decrypted (a
    message signed then encrypted then comes back exactly as it was signed).
    """

    def __init__(
        self,
        key: _KeyArg = None,
        *,
        aes_key: Union[bytes, str, Sequence[Union[bytes, str]], None] = None,
        key_name: Optional[str] = None,
        passphrase: Union[bytes, str, None] = None,
        allow_legacy: bool = False,
        max_parts: int = 256,
        max_cipher_bytes: int = 256 << 20,
        max_depth: int = 4,
        remove_key_entries: bool = False,
    ) -> None:
        keys = _decrypt_keys(key, aes_key, key_name, passphrase)
        if not keys:
            raise _invalid("key", "no decryption key: key=... (an RSA private key or a raw AES key) or aes_key=...")
        self._engine = Decryptor(
            keys,
            allow_legacy=allow_legacy,
            max_parts=max_parts,
            max_cipher_bytes=max_cipher_bytes,
            max_depth=max_depth,
            remove_key_entries=remove_key_entries,
        )

    @property
    def allow_legacy(self) -> bool:
        """Whether AES-CBC and RSA PKCS#1 v1.5 are accepted."""
        return self._engine.allow_legacy

    def decrypt(self, data: _Data) -> bytes:
        """Decrypts ``data``; see :func:`vtdx.xmlenc.decrypt`."""
        return self._engine.decrypt(_source(data))


def decrypt(
    data: _Data,
    key: _KeyArg = None,
    *,
    aes_key: Union[bytes, str, Sequence[Union[bytes, str]], None] = None,
    key_name: Optional[str] = None,
    passphrase: Union[bytes, str, None] = None,
    allow_legacy: bool = False,
    max_parts: int = 256,
    max_cipher_bytes: int = 256 << 20,
    max_depth: int = 4,
    remove_key_entries: bool = False,
) -> bytes:
    """Decrypts every ``xenc:EncryptedData`` of ``data`` and returns the decrypted
    document's bytes: each replaced by its plaintext, parsed where it lands (the
    namespaces in scope, ``xml:*`` attributes, the internal subset's entities), every
    other byte unchanged. A document element that encrypts data other than XML
    decrypts to the plaintext itself.

    ``data``: XML as bytes or str, a :class:`vtdx.Document` or :class:`vtdx.Element`,
    or an lxml element or tree. Keys and policy: see :class:`XMLDecryptor`. Session keys
    come from the WS-Security header's ``EncryptedKey`` entries (in header order), then
    from each ``EncryptedData``'s ``KeyInfo`` (an inline ``EncryptedKey``, a
    same-document ``RetrievalMethod`` or ``SecurityTokenReference``, a ``KeyName``, or a
    caller AES key of the right size).

    Raises :class:`DecryptionError` (message ``decryption failed``, no position) for
    every cryptographic failure; :class:`XMLEncryptionError` (with ``kind`` and
    position) when the message holds nothing encrypted or is malformed, or a limit is
    reached; :class:`InvalidInput` when a key cannot be read; :class:`vtdx.XMLSyntaxError`
    when ``data`` is not well-formed.
    """
    return XMLDecryptor(
        key,
        aes_key=aes_key,
        key_name=key_name,
        passphrase=passphrase,
        allow_legacy=allow_legacy,
        max_parts=max_parts,
        max_cipher_bytes=max_cipher_bytes,
        max_depth=max_depth,
        remove_key_entries=remove_key_entries,
    ).decrypt(data)
