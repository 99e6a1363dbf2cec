"""A WS-Security signature plugin for zeep, on vtdx (no python-xmlsec, no libxmlsec1).

Pass it as zeep's ``wsse``::

    import zeep
    from vtdx.dsig.zeep import WsseSignature

    client = zeep.Client(wsdl, wsse=WsseSignature(key_pem, cert_pem, verify_cert=server_cert_pem))

``apply(envelope, headers)`` (called by zeep on each request) adds the WS-Security
1.1 header: a ``wsu:Timestamp``, the certificate as a BinarySecurityToken, and a
Signature over the Body and the Timestamp referenced through a
SecurityTokenReference. ``verify(envelope)`` (called on each response) verifies
every signature with ``verify_cert`` (the caller's copy of the peer's
certificate: the certificate a message carries only selects among the caller's
keys), checks the Timestamp's freshness, and requires the SOAP Body zeep will read,
located by position, to be covered by a verified Reference.

zeep hands over lxml elements: the plugin serializes them with ``lxml.etree.tostring``,
signs or verifies the bytes with vtdx, and returns an lxml element parsed from the
signed bytes. The names ``MemorySignature``, ``Signature`` and ``BinarySignature``
stand in for zeep's own classes of those names.

**Encryption** (XML Encryption, :mod:`vtdx.xmlenc`): give ``WsseSignature`` the
peer's certificate as ``encrypt_cert`` and each request's Body content (and the
``encrypt_xpaths`` header blocks) is encrypted to it, with an ``xenc:EncryptedKey``
in the Security header; responses are then decrypted with ``decrypt_key`` (default:
``key``). ``encrypt_before_signing`` chooses the order (WS-SecurityPolicy's
``EncryptBeforeSigning``; default: sign, then encrypt, as ``SignBeforeEncrypting``)
for requests and responses alike: sign-then-encrypt responses are decrypted and then
verified, encrypt-then-sign responses verified (the Signature covers the
``EncryptedData``) and then decrypted. :class:`WsseEncryption` encrypts and decrypts
without signatures. zeep reads the response envelope it handed to ``verify``, so
decryption replaces that envelope's children in place.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from collections.abc import Sequence
from typing import Any, Optional, Union

from lxml import etree  # type: ignore[import-untyped, unused-ignore]
from zeep.exceptions import SignatureVerificationFailed as _ZeepVerificationFailed  # type: ignore[import-untyped, unused-ignore]

from ..xmlenc import XMLDecryptor, XMLEncryptor
from ..xmlenc import _AlgArg as _EncAlgArg
from . import (
    InvalidSignature,
    SignatureConfiguration,
    VerifyResult,
    _AlgArg,
    _make_signer,
    _trust,
    _verify_keys,
)

__all__ = [
    "BinarySignature",
    "MemorySignature",
    "Signature",
    "SignatureVerificationFailed",
    "WsseEncryption",
    "WsseSignature",
]


class SignatureVerificationFailed(_ZeepVerificationFailed, InvalidSignature):  # type: ignore[misc]
    """A response's signature was refused: zeep's ``SignatureVerificationFailed`` and
    :class:`vtdx.dsig.InvalidSignature` at once, with the latter's ``kind``,
    ``byte_offset`` and ``position``."""


def _failed(e: InvalidSignature) -> SignatureVerificationFailed:
    f = SignatureVerificationFailed(str(e))
    for a in ("kind", "msg", "byte_offset", "position", "lineno"):
        setattr(f, a, getattr(e, a, None))
    return f


_PARSER_OPTS = {"resolve_entities": False, "no_network": True, "remove_blank_text": False}


def _lxml(data: bytes) -> Any:
    return etree.fromstring(data, parser=etree.XMLParser(**_PARSER_OPTS))


def _replace_envelope(envelope: Any, data: bytes) -> None:
    """Puts the children of the envelope in ``data`` in place of ``envelope``'s (zeep
    goes on reading the element it gave to ``verify``). The Envelope's own start tag is
    never encrypted, so it stays as it is."""
    new = _lxml(data)
    if new.tag != envelope.tag:
        raise ValueError(f"the decrypted message's document element is {new.tag}, not {envelope.tag}")
    envelope.text = new.text
    for c in list(envelope):
        envelope.remove(c)
    for c in list(new):
        envelope.append(c)


_XENC = "http://www.w3.org/2001/04/xmlenc#"


class WsseEncryption:
    """zeep's ``wsse`` plugin for XML Encryption alone: encrypts each request to
    ``encrypt_cert``, decrypts each response with ``decrypt_key``.

    * ``encrypt_cert``: the peer's certificate (PEM or DER, ``bytes`` or ``str``, or a
      ``cryptography`` object; ``None``: requests are sent as they are). The request's
      Body content (``encrypt_body``) and the header blocks ``encrypt_xpaths`` select
      are encrypted under one session key, transported with RSA-OAEP
      (``key_transport``, ``'rsa-oaep-mgf1p'`` by default) in an ``xenc:EncryptedKey``
      at the top of the ``wsse:Security`` header; ``algorithm`` defaults to AES-256-GCM;
    * ``decrypt_key``: the private key responses are encrypted to (``password``
      decrypts an encrypted PEM); ``None``: responses are read as they are. With
      ``require_encryption`` (default True) a response holding nothing encrypted is
      refused (:class:`vtdx.xmlenc.XMLEncryptionError`, ``kind``
      ``'nothing_encrypted'``); ``allow_legacy`` accepts AES-CBC and RSA PKCS#1 v1.5.

    Every cryptographic failure of a response is :class:`vtdx.xmlenc.DecryptionError`
    (``decryption failed``). The header's ``EncryptedKey`` entries are removed with
    what they decrypted.
    """

    def __init__(
        self,
        encrypt_cert: Any = None,
        decrypt_key: Any = None,
        password: Union[bytes, str, None] = None,
        *,
        algorithm: _EncAlgArg = None,
        key_transport: _EncAlgArg = None,
        encrypt_body: bool = True,
        encrypt_xpaths: Sequence[str] = (),
        must_understand: bool = True,
        require_encryption: bool = True,
        allow_legacy: bool = False,
    ) -> None:
        self._encryptor = (
            XMLEncryptor(encrypt_cert, algorithm=algorithm, key_transport=key_transport) if encrypt_cert is not None else None
        )
        self._decryptor = (
            XMLDecryptor(decrypt_key, passphrase=password, allow_legacy=allow_legacy, remove_key_entries=True)
            if decrypt_key is not None
            else None
        )
        self.encrypt_body = encrypt_body
        self.encrypt_xpaths = list(encrypt_xpaths)
        self.must_understand = must_understand
        self.require_encryption = require_encryption

    def encrypt(self, data: bytes) -> bytes:
        """The WS-Security encryption of a serialized envelope (``data`` unchanged when
        there is no ``encrypt_cert``)."""
        if self._encryptor is None:
            return data
        return self._encryptor.encrypt(
            data, wss=True, body=self.encrypt_body, xpath=self.encrypt_xpaths, must_understand=self.must_understand
        )

    def decrypt(self, data: bytes) -> bytes:
        """The decryption of a serialized envelope (``data`` unchanged when there is no
        ``decrypt_key``, or nothing encrypted and ``require_encryption`` is off)."""
        if self._decryptor is None:
            return data
        if not self.require_encryption and f"{{{_XENC}}}EncryptedData" not in {e.tag for e in _lxml(data).iter()}:
            return data
        return self._decryptor.decrypt(data)

    def apply(self, envelope: Any, headers: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Encrypts the request: returns the envelope (a new lxml element) and the HTTP headers unchanged."""
        if self._encryptor is None:
            return envelope, headers
        return _lxml(self.encrypt(etree.tostring(envelope))), headers

    def verify(self, envelope: Any) -> None:
        """Decrypts a response envelope (an lxml element) in place."""
        if self._decryptor is None:
            return
        _replace_envelope(envelope, self.decrypt(etree.tostring(envelope)))


class WsseSignature:
    """zeep's ``wsse`` plugin: signs requests with ``key`` and ``cert``, verifies
    responses with ``verify_cert``.

    * ``key``, ``cert``: the private key (PEM or DER, bytes or str; ``password``
      decrypts an encrypted PEM with ``cryptography``) and its certificate;
    * ``verify_cert``: the certificate(s) the responses must be signed with
      (default: ``cert``, as zeep's plugins do); ``None`` and ``verify_response=False``
      leave responses unchecked;
    * ``ca_pem_file`` / ``ca_certs`` (with ``intermediates``, ``crls``): trust
      anchors, as in :func:`vtdx.dsig.verify`: a response signed with the
      certificate its BinarySecurityToken carries is accepted once that
      certificate's chain to an anchor validates (``verify_cert`` then defaults to
      none, and may still name certificates trusted as they are);
    * ``signature_method``, ``digest_method``: algorithms (see
      :func:`vtdx.dsig.sign`; defaults: the key's method, SHA-256);
    * ``sign_xpaths``: further elements of the request to sign (XPath 1.0);
    * ``ttl``: the Timestamp's lifetime in seconds (default 300);
    * ``expect_config``: the verification policy (default: the secure defaults,
      the SOAP Body covered, and ``require_timestamp``, default True: a response
      must carry a signed, fresh Timestamp);
    * encryption (see the module documentation): ``encrypt_cert`` (the peer's
      certificate: requests are encrypted to it), ``decrypt_key`` (responses are
      decrypted with it; default ``key`` when ``encrypt_cert`` is given),
      ``encrypt_xpaths`` (header blocks to encrypt besides the Body's content),
      ``encrypt_signature`` (sign-then-encrypt only: encrypt the ``ds:Signature``
      too), ``encrypt_before_signing`` (the order, for requests and responses),
      ``encryption_algorithm``, ``key_transport``, ``require_encrypted_response``
      (default True when decrypting), ``allow_legacy``.

    ``last_result`` is the :class:`vtdx.dsig.VerifyResult` of the last response
    verified (per plugin object, so not meaningful when one client is shared
    between threads); ``verify`` returns it as well.
    """

    def __init__(
        self,
        key: Any,
        cert: Any = None,
        password: Union[bytes, str, None] = None,
        signature_method: _AlgArg = None,
        digest_method: _AlgArg = None,
        *,
        verify_cert: Any = None,
        verify_response: bool = True,
        ca_pem_file: Any = None,
        ca_certs: Any = None,
        intermediates: Any = None,
        crls: Any = None,
        sign_xpaths: Sequence[str] = (),
        ttl: Union[float, _dt.timedelta, None] = 300.0,
        require_timestamp: bool = True,
        expect_config: Optional[SignatureConfiguration] = None,
        encrypt_cert: Any = None,
        decrypt_key: Any = None,
        encrypt_xpaths: Sequence[str] = (),
        encrypt_signature: bool = False,
        encrypt_before_signing: bool = False,
        encryption_algorithm: _EncAlgArg = None,
        key_transport: _EncAlgArg = None,
        require_encrypted_response: bool = True,
        allow_legacy: bool = False,
    ) -> None:
        if decrypt_key is None and encrypt_cert is not None:
            decrypt_key = key
        if encrypt_signature and encrypt_before_signing:
            raise ValueError("encrypt_signature applies to sign-then-encrypt: it cannot be combined with encrypt_before_signing")
        xpaths = list(encrypt_xpaths) + (["//ds:Signature"] if encrypt_signature else [])
        self.encryption: Optional[WsseEncryption] = (
            WsseEncryption(
                encrypt_cert,
                decrypt_key,
                password,
                algorithm=encryption_algorithm,
                key_transport=key_transport,
                encrypt_xpaths=xpaths,
                require_encryption=require_encrypted_response,
                allow_legacy=allow_legacy,
            )
            if encrypt_cert is not None or decrypt_key is not None
            else None
        )
        self.encrypt_before_signing = encrypt_before_signing
        self._signer = _make_signer(
            key,
            cert,
            None,
            password,
            None,
            signature_method,
            digest_method if digest_method is not None else "sha256",
            "exc-c14n",
            "exc-c14n",
            True,
        )
        self.sign_xpaths = list(sign_xpaths)
        self.ttl = None if ttl is None else (ttl.total_seconds() if isinstance(ttl, _dt.timedelta) else float(ttl))
        if expect_config is None:
            expect_config = SignatureConfiguration(require_payload=True, require_timestamp=require_timestamp)
        self.expect_config = expect_config
        trust = _trust(ca_pem_file, ca_certs, intermediates, crls)
        peer = verify_cert if verify_cert is not None else (cert if trust is None else None)
        if self.encryption is not None and encrypt_before_signing:
            # encrypt-then-sign: the Security header's EncryptedKey is processed here, right after verification
            expect_config = dataclasses.replace(expect_config, decrypts_after=True)
        self._verifier = (
            expect_config.verifier(_verify_keys(peer, None, None, None), trust)
            if verify_response and (peer is not None or trust is not None)
            else None
        )
        self.last_result: Optional[VerifyResult] = None

    def apply(self, envelope: Any, headers: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Signs (and encrypts) the request: returns the envelope with the WS-Security
        header (a new lxml element) and the HTTP headers unchanged."""
        data = etree.tostring(envelope)
        enc = self.encryption
        if enc is not None and self.encrypt_before_signing:
            data = enc.encrypt(data)
        data = self._signer.sign_wss(data, self.sign_xpaths, ttl=self.ttl)
        if enc is not None and not self.encrypt_before_signing:
            data = enc.encrypt(data)
        return _lxml(data), headers

    def verify(self, envelope: Any) -> Optional[VerifyResult]:
        """Verifies (and decrypts, in place) a response envelope (an lxml element);
        raises :class:`SignatureVerificationFailed` when the signature is refused,
        :class:`vtdx.xmlenc.DecryptionError` when decryption fails."""
        data = etree.tostring(envelope)
        enc = self.encryption
        if enc is not None and not self.encrypt_before_signing:
            data = enc.decrypt(data)  # sign-then-encrypt: decrypt first
        result = None
        if self._verifier is not None:
            try:
                result = self.expect_config.check(self._verifier.verify(data))
            except InvalidSignature as e:
                raise _failed(e) from e
            self.last_result = result
        if enc is not None and self.encrypt_before_signing:
            data = enc.decrypt(data)  # encrypt-then-sign: the signature covered the ciphertext
        if enc is not None:
            _replace_envelope(envelope, data)
        return result


#: zeep's ``MemorySignature(key_data, cert_data, password=None, signature_method=None, digest_method=None)``.
MemorySignature = WsseSignature


class Signature(WsseSignature):
    """zeep's ``Signature(key_file, certfile, ...)``: the key and certificate read from files."""

    def __init__(self, key_file: str, certfile: str, password: Union[bytes, str, None] = None, *args: Any, **kwargs: Any) -> None:
        with open(key_file, "rb") as f:
            key = f.read()
        with open(certfile, "rb") as f:
            cert = f.read()
        super().__init__(key, cert, password, *args, **kwargs)


#: zeep's ``BinarySignature`` (the certificate as a BinarySecurityToken): what
#: :class:`Signature` always does.
BinarySignature = Signature
