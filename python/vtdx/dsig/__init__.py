"""XML Signature with the caller's keys: ``verify``, ``sign`` and signxml-style classes.

Verification returns the *verified view*: which elements each ``ds:Reference``
covered, as :class:`vtdx.Element` objects of the verified document, and
:meth:`VerifyResult.covers` to ask whether the element your application reads,
located by position, is among them::

    import vtdx.dsig

    signed = vtdx.dsig.sign(b"<order><qty>3</qty></order>", key_pem, cert=cert_pem)
    result = vtdx.dsig.verify(signed, x509_cert=cert_pem)
    assert result.covers(result.document.root.find("qty"))

The names follow signxml where the concept is the same (``XMLSigner``,
``XMLVerifier``, ``SignatureConfiguration``, ``SignatureMethod``,
``DigestAlgorithm``, ``CanonicalizationMethod``, ``methods``, ``InvalidInput``,
``InvalidSignature``, ``VerifyResult.signed_xml``); keys are PEM or DER as ``bytes``
or ``str`` (or ``cryptography`` key and certificate objects). The verifying key
always comes from the caller: a certificate or key in the message only selects
among the caller's. No libxmlsec1: the work is done by ``vtdx-dsig`` (Rust,
aws-lc), with the interpreter released.

The zeep WS-Security plugin is :mod:`vtdx.dsig.zeep`.
"""

from __future__ import annotations

import datetime as _dt
import enum as _enum
import os
import re as _re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

from .._vtdx import (
    Document,
    Element,
    InvalidInput,
    InvalidSignature,
    Signer,
    VerifiedReference,
    Verifier,
    VerifyResult,
)

__all__ = [
    "CanonicalizationMethod",
    "DigestAlgorithm",
    "InvalidInput",
    "InvalidSignature",
    "SignatureConfiguration",
    "SignatureConstructionMethod",
    "SignatureMethod",
    "Signer",
    "VerifiedReference",
    "Verifier",
    "VerifyResult",
    "XMLSigner",
    "XMLVerifier",
    "methods",
    "sign",
    "verify",
]

_MORE = "http://www.w3.org/2001/04/xmldsig-more#"
_MORE07 = "http://www.w3.org/2007/05/xmldsig-more#"
_DS = "http://www.w3.org/2000/09/xmldsig#"


class _Uri(str, _enum.Enum):
    """An algorithm URI: a ``str`` (equal to the URI) and an enum member."""

    def __new__(cls, value: str) -> "_Uri":
        member = str.__new__(cls, value)
        member._value_ = value
        return member


class SignatureMethod(_Uri):
    """SignatureMethod URIs (signxml's names). SHA-1 methods verify only with ``allow_sha1=True``
    and are never used to sign."""

    RSA_SHA1 = _DS + "rsa-sha1"
    RSA_SHA224 = _MORE + "rsa-sha224"
    RSA_SHA256 = _MORE + "rsa-sha256"
    RSA_SHA384 = _MORE + "rsa-sha384"
    RSA_SHA512 = _MORE + "rsa-sha512"
    SHA256_RSA_MGF1 = _MORE07 + "sha256-rsa-MGF1"
    SHA384_RSA_MGF1 = _MORE07 + "sha384-rsa-MGF1"
    SHA512_RSA_MGF1 = _MORE07 + "sha512-rsa-MGF1"
    ECDSA_SHA1 = _MORE + "ecdsa-sha1"
    ECDSA_SHA224 = _MORE + "ecdsa-sha224"
    ECDSA_SHA256 = _MORE + "ecdsa-sha256"
    ECDSA_SHA384 = _MORE + "ecdsa-sha384"
    ECDSA_SHA512 = _MORE + "ecdsa-sha512"
    EDDSA_ED25519 = "http://www.w3.org/2021/04/xmldsig-more#eddsa-ed25519"
    HMAC_SHA1 = _DS + "hmac-sha1"
    HMAC_SHA224 = _MORE + "hmac-sha224"
    HMAC_SHA256 = _MORE + "hmac-sha256"
    HMAC_SHA384 = _MORE + "hmac-sha384"
    HMAC_SHA512 = _MORE + "hmac-sha512"


class DigestAlgorithm(_Uri):
    """DigestMethod URIs (signxml's names)."""

    SHA1 = _DS + "sha1"
    SHA224 = _MORE + "sha224"
    SHA256 = "http://www.w3.org/2001/04/xmlenc#sha256"
    SHA384 = _MORE + "sha384"
    SHA512 = "http://www.w3.org/2001/04/xmlenc#sha512"
    SHA3_256 = _MORE07 + "sha3-256"
    SHA3_384 = _MORE07 + "sha3-384"
    SHA3_512 = _MORE07 + "sha3-512"


class CanonicalizationMethod(_Uri):
    """Canonicalization URIs (signxml's names). Signing uses the forms without comments."""

    CANONICAL_XML_1_0 = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315"
    CANONICAL_XML_1_0_WITH_COMMENTS = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments"
    CANONICAL_XML_1_1 = "http://www.w3.org/2006/12/xml-c14n11"
    CANONICAL_XML_1_1_WITH_COMMENTS = "http://www.w3.org/2006/12/xml-c14n11#WithComments"
    EXCLUSIVE_XML_CANONICALIZATION_1_0 = "http://www.w3.org/2001/10/xml-exc-c14n#"
    EXCLUSIVE_XML_CANONICALIZATION_1_0_WITH_COMMENTS = "http://www.w3.org/2001/10/xml-exc-c14n#WithComments"


class SignatureConstructionMethod(_enum.Enum):
    """Where the signature goes (signxml's ``methods``).

    * ``enveloped``: a ``ds:Signature`` inside the document, as the document element's
      last child, over the whole document (``URI=""``) or, with ``reference_uri``,
      over the elements named;
    * ``detached``: the same with References to elements of the document chosen by
      ``reference_uri`` or ``xpath`` (vtdx only makes same-document signatures: the
      Signature is inserted into the document, never returned on its own);
    * ``wss``: the WS-Security 1.1 header of a SOAP message (Timestamp,
      BinarySecurityToken, a Signature over Body and Timestamp);
    * ``enveloping`` (the signed data inside ``ds:Object``) is not offered.
    """

    enveloped = "enveloped"
    enveloping = "enveloping"
    detached = "detached"
    wss = "wss"


#: signxml's name for :class:`SignatureConstructionMethod`.
methods = SignatureConstructionMethod

# short names (those of `vtdx sign --alg`), besides the URIs and the enum members
_SIG_NAMES = {
    "rsa-sha256": SignatureMethod.RSA_SHA256,
    "rsa-sha384": SignatureMethod.RSA_SHA384,
    "rsa-sha512": SignatureMethod.RSA_SHA512,
    "rsa-pss-sha256": SignatureMethod.SHA256_RSA_MGF1,
    "rsa-pss-sha384": SignatureMethod.SHA384_RSA_MGF1,
    "rsa-pss-sha512": SignatureMethod.SHA512_RSA_MGF1,
    "ecdsa-sha256": SignatureMethod.ECDSA_SHA256,
    "ecdsa-sha384": SignatureMethod.ECDSA_SHA384,
    "ecdsa-sha512": SignatureMethod.ECDSA_SHA512,
    "ed25519": SignatureMethod.EDDSA_ED25519,
    "eddsa-ed25519": SignatureMethod.EDDSA_ED25519,
    "hmac-sha256": SignatureMethod.HMAC_SHA256,
    "hmac-sha384": SignatureMethod.HMAC_SHA384,
    "hmac-sha512": SignatureMethod.HMAC_SHA512,
}
_DIGEST_NAMES = {
    "sha224": DigestAlgorithm.SHA224,
    "sha256": DigestAlgorithm.SHA256,
    "sha384": DigestAlgorithm.SHA384,
    "sha512": DigestAlgorithm.SHA512,
    "sha3-256": DigestAlgorithm.SHA3_256,
    "sha3-384": DigestAlgorithm.SHA3_384,
    "sha3-512": DigestAlgorithm.SHA3_512,
}
_C14N_NAMES = {
    "c14n": CanonicalizationMethod.CANONICAL_XML_1_0,
    "c14n11": CanonicalizationMethod.CANONICAL_XML_1_1,
    "exc-c14n": CanonicalizationMethod.EXCLUSIVE_XML_CANONICALIZATION_1_0,
}

_AlgArg = Union[str, _enum.Enum, None]


def _uri(value: _AlgArg, names: dict[str, Any], what: str) -> Optional[str]:
    """An algorithm URI from an enum member, a URI or a short name."""
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
    raise _invalid("unsupported_algorithm", f"unknown {what} {value!r}: use a URI, an enum member or one of {sorted(names)}", InvalidInput)


# ---- keys --------------------------------------------------------------------------------

_PEM_BLOCK = _re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----.*?-----END \1-----", _re.S)

_KeyArg = Union[bytes, bytearray, memoryview, str, Any]


def _key_bytes(k: _KeyArg, passphrase: Optional[bytes] = None) -> bytes:
    """PEM or DER bytes of a key or certificate given as bytes, str, or a ``cryptography`` object."""
    if isinstance(k, str):
        return k.encode("ascii")
    if isinstance(k, (bytes, bytearray, memoryview)):
        data = bytes(k)
        if passphrase is not None and b"ENCRYPTED" in data:
            return _decrypt(data, passphrase)
        return data
    # cryptography objects: serialize with their own API
    try:
        from cryptography.hazmat.primitives import serialization as ser
    except ImportError:  # pragma: no cover - only reached with foreign objects
        raise TypeError(f"a key or certificate must be PEM or DER bytes or str, not {type(k).__name__}") from None
    if hasattr(k, "private_bytes"):
        return bytes(k.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.PKCS8, ser.NoEncryption()))
    if hasattr(k, "public_bytes"):
        try:
            return bytes(k.public_bytes(ser.Encoding.PEM))  # a certificate
        except TypeError:
            return bytes(k.public_bytes(ser.Encoding.PEM, ser.PublicFormat.SubjectPublicKeyInfo))
    raise TypeError(f"a key or certificate must be PEM or DER bytes or str, not {type(k).__name__}")


def _decrypt(data: bytes, passphrase: bytes) -> bytes:
    """An encrypted PEM private key, decrypted with ``cryptography`` (when installed)."""
    try:
        from cryptography.hazmat.primitives import serialization as ser
    except ImportError:
        raise _invalid("key", "an encrypted private key needs the `cryptography` package to be decrypted", InvalidInput) from None
    try:
        key = ser.load_pem_private_key(data, password=passphrase)
    except (ValueError, TypeError) as e:
        raise _invalid("key", f"cannot decrypt the private key: {e}", InvalidInput) from None
    return bytes(key.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.PKCS8, ser.NoEncryption()))


def _many(k: Any) -> list[Any]:
    if k is None:
        return []
    if isinstance(k, (list, tuple)):
        return list(k)
    return [k]


def _verify_keys(x509_cert: Any, key: Any, hmac_key: Any, key_name: Optional[str]) -> list[tuple[str, bytes, Optional[str]]]:
    # a bundle of certificates: each one is a key the caller trusts
    keys: list[tuple[str, bytes, Optional[str]]] = [("key", b, key_name) for b in _blocks(_many(x509_cert) + _many(key))]
    for h in _many(hmac_key):
        keys.append(("hmac", h.encode() if isinstance(h, str) else bytes(h), key_name))
    return keys


def _blocks(k: Any) -> list[bytes]:
    """Certificates or CRLs given as bytes, str, ``cryptography`` objects or a list of
    them: one PEM block or DER value each (a PEM bundle is split)."""
    out: list[bytes] = []
    for c in _many(k):
        data = _key_bytes(c)
        blocks = [m.group(0) for m in _PEM_BLOCK.finditer(data)]
        out.extend(blocks or [data])
    return out


def _crl_bytes(k: Any) -> Any:
    """A ``cryptography`` CRL object as PEM; anything else as it is."""
    if hasattr(k, "public_bytes") and hasattr(k, "get_revoked_certificate_by_serial_number"):
        from cryptography.hazmat.primitives import serialization as ser

        return bytes(k.public_bytes(ser.Encoding.PEM))
    return k


@dataclass(frozen=True)
class _Trust:
    """Trust anchors, intermediates and CRLs, as the engine takes them."""

    ca_certs: list[bytes]
    intermediates: list[bytes]
    crls: list[bytes]


def _trust(ca_pem_file: Any, ca_certs: Any, intermediates: Any, crls: Any) -> Optional[_Trust]:
    anchors: list[bytes] = []
    for f in _many(ca_pem_file):
        with open(f, "rb") as fh:
            anchors.extend(_blocks(fh.read()))
    anchors.extend(_blocks(ca_certs))
    more = _blocks(intermediates)
    revoked = _blocks([_crl_bytes(c) for c in _many(crls)])
    if not anchors:
        if more or revoked:
            raise ValueError("intermediates= and crls= need trust anchors (ca_pem_file= or ca_certs=)")
        return None
    return _Trust(anchors, more, revoked)


# ---- data ---------------------------------------------------------------------------------

_Data = Union[bytes, bytearray, memoryview, str, Document, Element, Any]


def _source(data: _Data) -> Union[bytes, bytearray, memoryview, str, Document, Element]:
    """What the engine takes: vtdx objects and XML text as they are; lxml trees serialized."""
    if isinstance(data, (bytes, bytearray, memoryview, str, Document, Element)):
        return data
    if type(data).__module__.startswith("lxml"):
        from lxml import etree  # type: ignore[import-untyped, unused-ignore]

        return bytes(etree.tostring(data))
    raise TypeError(f"expected XML as bytes or str, a vtdx or lxml element or tree, not {type(data).__name__}")


def _seconds(t: Union[None, float, int, _dt.datetime]) -> Optional[float]:
    if t is None:
        return None
    if isinstance(t, _dt.datetime):
        if t.tzinfo is None:
            raise ValueError("a datetime for `now` must be timezone-aware")
        return t.timestamp()
    return float(t)


def _duration(t: Union[float, int, _dt.timedelta]) -> float:
    return t.total_seconds() if isinstance(t, _dt.timedelta) else float(t)


# ---- verification ------------------------------------------------------------------------


@dataclass(frozen=True)
class SignatureConfiguration:
    """What a verification expects (signxml's ``SignatureConfiguration``) and the
    policy of ``vtdx_dsig::VerifyConfig``; every default is the secure one.

    * ``expect_references``: the number of References the document's signatures
      must have in all (``None``: any number);
    * ``signature_methods`` / ``digest_algorithms``: the algorithms accepted
      (``None``: every one the policy allows);
    * ``require_payload``: the payload (the SOAP Body, or the document element)
      must be covered by a verified Reference. ``None`` (the default) requires it
      of SOAP messages only, where what the application reads is the Body;
    * ``require_timestamp``: a SOAP message must carry a signed ``wsu:Timestamp``
      (one that is present is always checked for freshness);
    * ``decrypts_after``: the application decrypts the message after verifying it
      (encrypt-then-sign, :mod:`vtdx.xmlenc`), so a ``mustUnderstand`` Security header
      may also hold ``xenc:EncryptedKey`` and ``xenc:ReferenceList`` entries (off: such
      a header is refused, since nothing would process them);
    * ``max_clock_skew`` (seconds or ``timedelta``), ``now`` (judge Timestamps at
      this instant: an aware ``datetime`` or seconds since the epoch);
    * ``allow_sha1``, ``min_rsa_bits``, ``max_transforms``, ``max_references``,
      ``max_signatures``, ``allow_xpath_transform``, ``allow_xpath_filter2``,
      ``reject_comment_split_text``, ``soap_checks``: as ``VerifyConfig``
      (``docs/dsig.md``);
    * with trust anchors (``ca_pem_file=`` / ``ca_certs=`` of :func:`verify`):
      ``max_chain_len`` (certificates in a chain, leaf and anchor included) and
      ``validate_caller_keys`` (the caller's own certificates must chain too, as
      xmlsec1's ``--verify-keys``), as ``TrustStore``.
    """

    expect_references: Optional[int] = None
    signature_methods: Optional[frozenset[Union[str, SignatureMethod]]] = None
    digest_algorithms: Optional[frozenset[Union[str, DigestAlgorithm]]] = None
    require_payload: Optional[bool] = None
    require_timestamp: bool = False
    decrypts_after: bool = False
    max_clock_skew: Union[float, _dt.timedelta] = 300.0
    now: Union[None, float, _dt.datetime] = None
    allow_sha1: bool = False
    min_rsa_bits: int = 2048
    max_transforms: int = 5
    max_references: int = 30
    max_signatures: int = 10
    allow_xpath_transform: bool = False
    allow_xpath_filter2: bool = False
    reject_comment_split_text: bool = True
    soap_checks: bool = True
    max_chain_len: int = 8
    validate_caller_keys: bool = False

    def verifier(self, keys: list[tuple[str, bytes, Optional[str]]], trust: Optional[_Trust] = None) -> Verifier:
        """A :class:`Verifier` with these settings, ``keys`` (``(kind, data, name)``
        triples) and the trust anchors, intermediates and CRLs of ``trust``."""
        t = trust or _Trust([], [], [])
        return Verifier(
            keys,
            allow_sha1=self.allow_sha1,
            min_rsa_bits=self.min_rsa_bits,
            max_transforms=self.max_transforms,
            max_references=self.max_references,
            max_signatures=self.max_signatures,
            allow_xpath_transform=self.allow_xpath_transform,
            allow_xpath_filter2=self.allow_xpath_filter2,
            reject_comment_split_text=self.reject_comment_split_text,
            soap_checks=self.soap_checks,
            max_clock_skew=_duration(self.max_clock_skew),
            now=_seconds(self.now),
            require_timestamp=self.require_timestamp,
            decrypts_after=self.decrypts_after,
            ca_certs=t.ca_certs,
            intermediates=t.intermediates,
            crls=t.crls,
            max_chain_len=self.max_chain_len,
            validate_caller_keys=self.validate_caller_keys and trust is not None,
        )

    def check(self, result: VerifyResult) -> VerifyResult:
        """Applies the expectations a :class:`Verifier` does not: reference count,
        accepted algorithms, payload coverage. Raises :class:`InvalidSignature`."""
        refs = result.references
        if self.expect_references is not None and len(refs) != self.expect_references:
            raise _invalid(
                "reference_count", f"expected {self.expect_references} references, the signatures have {len(refs)}"
            )
        if self.signature_methods is not None:
            ok = {_uri(m, _SIG_NAMES, "signature method") for m in self.signature_methods}
            for r in refs:
                if r.signature_method not in ok:
                    raise _invalid("disallowed_algorithm", f"signature method `{r.signature_method}` is not expected")
        if self.digest_algorithms is not None:
            ok = {_uri(d, _DIGEST_NAMES, "digest algorithm") for d in self.digest_algorithms}
            for r in refs:
                if r.digest_algorithm not in ok:
                    raise _invalid("disallowed_algorithm", f"digest algorithm `{r.digest_algorithm}` is not expected")
        need = result.is_soap if self.require_payload is None else self.require_payload
        if need and not result.covers_payload:
            what = "SOAP Body" if result.is_soap else "document element"
            raise _invalid("payload_not_covered", f"no verified reference covers the {what}")
        return result


def _invalid(kind: str, msg: str, cls: type[InvalidInput] = InvalidSignature) -> Any:
    """An exception of ``cls`` with the attributes the engine's exceptions carry."""
    e = cls(msg)
    e.kind = kind
    e.msg = msg
    e.byte_offset = None
    e.position = None
    e.lineno = None
    return e


def verify(
    data: _Data,
    *,
    x509_cert: Any = None,
    key: Any = None,
    hmac_key: Union[bytes, str, Sequence[Union[bytes, str]], None] = None,
    key_name: Optional[str] = None,
    ca_pem_file: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]], None] = None,
    ca_certs: Any = None,
    intermediates: Any = None,
    crls: Any = None,
    expect_config: Optional[SignatureConfiguration] = None,
) -> VerifyResult:
    """Verifies every ``ds:Signature`` of ``data`` with the caller's keys.

    ``data``: XML as bytes or str, a :class:`vtdx.Document` or :class:`vtdx.Element`
    (its whole document is verified), or an lxml element or tree (serialized first).
    Keys: ``x509_cert`` (a certificate, or a list, or a PEM bundle: each is trusted),
    ``key`` (public keys: PEM or DER ``PUBLIC KEY``, ``RSA PUBLIC KEY``, or a private
    key's public half), ``hmac_key`` (secrets); ``key_name`` names them for ``KeyName``.
    ``cryptography`` key and certificate objects are accepted too.

    Trust anchors, as signxml's ``ca_pem_file``: ``ca_pem_file`` (the path of a PEM
    file of CA certificates, or a list of paths) and ``ca_certs`` (certificates as
    above). With anchors, a certificate the message carries (``X509Data``, or the
    BinarySecurityToken a SecurityTokenReference names) may verify a signature once
    its chain to an anchor validates as of ``expect_config.now`` (else the system
    clock); ``intermediates`` help build chains and ``crls`` (PEM or DER, or
    ``cryptography`` CRL objects) revoke. The anchors only ever come from the caller.

    Returns the :class:`VerifyResult`; raises :class:`InvalidSignature` (with
    ``kind``) when any signature fails or ``expect_config`` is not met, and
    :class:`vtdx.XMLSyntaxError` when ``data`` is not well-formed.
    """
    cfg = expect_config or SignatureConfiguration()
    keys = _verify_keys(x509_cert, key, hmac_key, key_name)
    trust = _trust(ca_pem_file, ca_certs, intermediates, crls)
    return cfg.check(cfg.verifier(keys, trust).verify(_source(data)))


class XMLVerifier:
    """signxml's ``XMLVerifier``: ``XMLVerifier().verify(data, x509_cert=..., hmac_key=..., expect_config=...)``."""

    def verify(
        self,
        data: _Data,
        *,
        x509_cert: Any = None,
        key: Any = None,
        hmac_key: Union[bytes, str, Sequence[Union[bytes, str]], None] = None,
        key_name: Optional[str] = None,
        ca_pem_file: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]], None] = None,
        ca_certs: Any = None,
        intermediates: Any = None,
        crls: Any = None,
        expect_config: Optional[SignatureConfiguration] = None,
    ) -> VerifyResult:
        """Verifies ``data`` (see :func:`vtdx.dsig.verify`)."""
        return verify(
            data,
            x509_cert=x509_cert,
            key=key,
            hmac_key=hmac_key,
            key_name=key_name,
            ca_pem_file=ca_pem_file,
            ca_certs=ca_certs,
            intermediates=intermediates,
            crls=crls,
            expect_config=expect_config,
        )


# ---- signing -------------------------------------------------------------------------------


def _id_xpath(uri: str) -> str:
    """The XPath selecting the element whose ID-like attribute is the ``#id`` of ``uri``."""
    ident = uri[1:] if uri.startswith("#") else uri
    if "'" in ident and '"' in ident:
        raise _invalid("sign", f"reference_uri {uri!r}: an ID with both quote characters cannot be selected", InvalidInput)
    q = '"' if "'" in ident else "'"
    v = f"{q}{ident}{q}"
    return (
        f"//*[@Id={v} or @ID={v} or @id={v} or @wsu:Id={v} or "
        f"@*[local-name()='id' and namespace-uri()='http://www.w3.org/XML/1998/namespace']={v}]"
    )


def _targets(reference_uri: Union[str, Sequence[str], None], xpath: Union[str, Sequence[str], None]) -> list[str]:
    out: list[str] = []
    for u in [reference_uri] if isinstance(reference_uri, str) else list(reference_uri or []):
        if u in ("", "#xpointer(/)"):
            continue  # the whole document: an enveloped reference
        out.append(_id_xpath(u))
    out.extend([xpath] if isinstance(xpath, str) else list(xpath or []))
    return out


def _make_signer(
    key: Any,
    cert: Any,
    hmac_key: Any,
    passphrase: Union[bytes, str, None],
    key_name: Optional[str],
    signature_algorithm: _AlgArg,
    digest_algorithm: _AlgArg,
    c14n_algorithm: _AlgArg,
    reference_c14n: _AlgArg,
    key_info: bool,
) -> Signer:
    method = _uri(signature_algorithm, _SIG_NAMES, "signature algorithm")
    is_hmac = hmac_key is not None or (method is not None and "hmac" in method)
    if is_hmac:
        secret = hmac_key if hmac_key is not None else key
        if secret is None:
            raise _invalid("no_key", "an HMAC signature needs the secret: hmac_key=... (or key=...)", InvalidInput)
        raw = secret.encode() if isinstance(secret, str) else bytes(secret)
        if method is None:
            method = SignatureMethod.HMAC_SHA256.value
        return Signer(
            raw,
            hmac=True,
            key_name=key_name,
            signature_algorithm=method,
            digest_algorithm=_uri(digest_algorithm, _DIGEST_NAMES, "digest algorithm"),
            c14n_algorithm=_uri(c14n_algorithm, _C14N_NAMES, "canonicalization"),
            reference_c14n=_uri(reference_c14n, _C14N_NAMES, "canonicalization"),
            key_info=key_info,
        )
    if key is None:
        raise _invalid("no_key", "no signing key: key=... (a PEM or DER private key), or hmac_key=...", InvalidInput)
    pw = passphrase.encode() if isinstance(passphrase, str) else passphrase
    certs = _many(cert)
    return Signer(
        _key_bytes(key, passphrase=pw),
        cert=_key_bytes(certs[0]) if certs else None,
        key_name=key_name,
        signature_algorithm=method,
        digest_algorithm=_uri(digest_algorithm, _DIGEST_NAMES, "digest algorithm"),
        c14n_algorithm=_uri(c14n_algorithm, _C14N_NAMES, "canonicalization"),
        reference_c14n=_uri(reference_c14n, _C14N_NAMES, "canonicalization"),
        key_info=key_info,
    )


def _run(
    signer: Signer,
    data: _Data,
    method: Union[str, SignatureConstructionMethod],
    reference_uri: Union[str, Sequence[str], None],
    xpath: Union[str, Sequence[str], None],
    ttl: Union[None, float, _dt.timedelta],
    now: Union[None, float, _dt.datetime],
    must_understand: bool,
) -> bytes:
    m = SignatureConstructionMethod(method.value if isinstance(method, SignatureConstructionMethod) else method)
    src = _source(data)
    targets = _targets(reference_uri, xpath)
    if m is SignatureConstructionMethod.wss:
        return signer.sign_wss(
            src,
            targets,
            ttl=None if ttl is None else _duration(ttl),
            now=_seconds(now),
            must_understand=must_understand,
        )
    if m is SignatureConstructionMethod.enveloping:
        raise _invalid(
            "unsupported_method", "enveloping signatures are not offered: use methods.enveloped or methods.detached", InvalidInput
        )
    if targets:
        return signer.sign_detached(src, targets)
    if m is SignatureConstructionMethod.detached:
        raise _invalid("sign", "a detached signature needs reference_uri=... or xpath=... (the elements to sign)", InvalidInput)
    return signer.sign_enveloped(src)


def sign(
    data: _Data,
    key: Any = None,
    *,
    cert: Any = None,
    hmac_key: Union[bytes, str, None] = None,
    passphrase: Union[bytes, str, None] = None,
    key_name: Optional[str] = None,
    method: Union[str, SignatureConstructionMethod] = SignatureConstructionMethod.enveloped,
    reference_uri: Union[str, Sequence[str], None] = None,
    xpath: Union[str, Sequence[str], None] = None,
    signature_algorithm: _AlgArg = None,
    digest_algorithm: _AlgArg = DigestAlgorithm.SHA256,
    c14n_algorithm: _AlgArg = CanonicalizationMethod.EXCLUSIVE_XML_CANONICALIZATION_1_0,
    reference_c14n: _AlgArg = None,
    key_info: bool = True,
    ttl: Union[None, float, _dt.timedelta] = 300.0,
    now: Union[None, float, _dt.datetime] = None,
    must_understand: bool = True,
) -> bytes:
    """Signs ``data`` and returns the signed document's bytes: the input with the
    new markup inserted, every other byte unchanged.

    ``key``: an unencrypted private key, PEM or DER (RSA of 2048 bits or more, EC
    P-256/384/521, Ed25519; ``passphrase`` decrypts an encrypted PEM with the
    ``cryptography`` package), or a ``cryptography`` private key. ``cert``: its
    certificate, sent in ``KeyInfo`` (in WS-Security, as the BinarySecurityToken).
    ``hmac_key`` (or ``key`` with an HMAC ``signature_algorithm``): an HMAC secret.

    ``method`` (:data:`methods`): ``enveloped`` signs the whole document, or with
    ``reference_uri`` (``"#id"`` strings) / ``xpath`` (XPath 1.0 expressions) the
    elements named; ``detached`` needs them; ``wss`` writes the WS-Security header
    of a SOAP message (a ``ttl``-second Timestamp, the certificate, a Signature over
    Body, Timestamp and the elements named). Algorithms are enum members, URIs or
    short names (``'rsa-sha256'``, ``'rsa-pss-sha256'``, ``'ecdsa-sha256'``,
    ``'ed25519'``, ``'hmac-sha256'``; ``'sha256'``; ``'exc-c14n'``, ``'c14n'``,
    ``'c14n11'``); the signature algorithm defaults to the key's. ``reference_c14n``
    is the References' canonicalization (default: ``c14n_algorithm``).

    Raises :class:`InvalidInput` (with ``kind``) when the key or the request cannot
    be used.
    """
    signer = _make_signer(
        key,
        cert,
        hmac_key,
        passphrase,
        key_name,
        signature_algorithm,
        digest_algorithm,
        c14n_algorithm,
        reference_c14n if reference_c14n is not None else c14n_algorithm,
        key_info,
    )
    return _run(signer, data, method, reference_uri, xpath, ttl, now, must_understand)


class XMLSigner:
    """signxml's ``XMLSigner``: ``XMLSigner(method=..., signature_algorithm=...,
    digest_algorithm=..., c14n_algorithm=...).sign(data, key=..., cert=..., reference_uri=...)``.

    ``sign`` returns the root :class:`vtdx.Element` of the signed document, as
    signxml returns an lxml element; ``signed_root.getroottree().tostring()`` gives
    its bytes (every byte of the input outside the signature unchanged). See
    :func:`vtdx.dsig.sign` for the arguments.
    """

    def __init__(
        self,
        method: Union[str, SignatureConstructionMethod] = SignatureConstructionMethod.enveloped,
        signature_algorithm: _AlgArg = None,
        digest_algorithm: _AlgArg = DigestAlgorithm.SHA256,
        c14n_algorithm: _AlgArg = CanonicalizationMethod.EXCLUSIVE_XML_CANONICALIZATION_1_0,
    ) -> None:
        self.method = method
        self.signature_algorithm = signature_algorithm
        self.digest_algorithm = digest_algorithm
        self.c14n_algorithm = c14n_algorithm

    def sign(
        self,
        data: _Data,
        key: Any = None,
        passphrase: Union[bytes, str, None] = None,
        cert: Any = None,
        reference_uri: Union[str, Sequence[str], None] = None,
        key_name: Optional[str] = None,
        *,
        hmac_key: Union[bytes, str, None] = None,
        xpath: Union[str, Sequence[str], None] = None,
        key_info: bool = True,
        ttl: Union[None, float, _dt.timedelta] = 300.0,
    ) -> Element:
        """Signs ``data``; returns the root element of the signed document."""
        from .. import fromstring

        signed = sign(
            data,
            key,
            cert=cert,
            hmac_key=hmac_key,
            passphrase=passphrase,
            key_name=key_name,
            method=self.method,
            reference_uri=reference_uri,
            xpath=xpath,
            signature_algorithm=self.signature_algorithm,
            digest_algorithm=self.digest_algorithm,
            c14n_algorithm=self.c14n_algorithm,
            key_info=key_info,
            ttl=ttl,
        )
        return fromstring(signed)
