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
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from typing import Any, Optional, Union

from lxml import etree  # type: ignore[import-untyped, unused-ignore]
from zeep.exceptions import SignatureVerificationFailed as _ZeepVerificationFailed  # type: ignore[import-untyped, unused-ignore]

from . import (
    InvalidSignature,
    SignatureConfiguration,
    VerifyResult,
    _AlgArg,
    _make_signer,
    _verify_keys,
)

__all__ = ["BinarySignature", "MemorySignature", "Signature", "SignatureVerificationFailed", "WsseSignature"]


class SignatureVerificationFailed(_ZeepVerificationFailed, InvalidSignature):  # type: ignore[misc]
    """A response's signature was refused: zeep's ``SignatureVerificationFailed`` and
    :class:`vtdx.dsig.InvalidSignature` at once, with the latter's ``kind``,
    ``byte_offset`` and ``position``."""


def _failed(e: InvalidSignature) -> SignatureVerificationFailed:
    f = SignatureVerificationFailed(str(e))
    for a in ("kind", "msg", "byte_offset", "position", "lineno"):
        setattr(f, a, getattr(e, a, None))
    return f


class WsseSignature:
    """zeep's ``wsse`` plugin: signs requests with ``key`` and ``cert``, verifies
    responses with ``verify_cert``.

    * ``key``, ``cert``: the private key (PEM or DER, bytes or str; ``password``
      decrypts an encrypted PEM with ``cryptography``) and its certificate;
    * ``verify_cert``: the certificate(s) the responses must be signed with
      (default: ``cert``, as zeep's plugins do); ``None`` and ``verify_response=False``
      leave responses unchecked;
    * ``signature_method``, ``digest_method``: algorithms (see
      :func:`vtdx.dsig.sign`; defaults: the key's method, SHA-256);
    * ``sign_xpaths``: further elements of the request to sign (XPath 1.0);
    * ``ttl``: the Timestamp's lifetime in seconds (default 300);
    * ``expect_config``: the verification policy (default: the secure defaults,
      the SOAP Body covered, and ``require_timestamp``, default True: a response
      must carry a signed, fresh Timestamp).

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
        sign_xpaths: Sequence[str] = (),
        ttl: Union[float, _dt.timedelta, None] = 300.0,
        require_timestamp: bool = True,
        expect_config: Optional[SignatureConfiguration] = None,
    ) -> None:
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
        peer = verify_cert if verify_cert is not None else cert
        self._verifier = (
            expect_config.verifier(_verify_keys(peer, None, None, None)) if verify_response and peer is not None else None
        )
        self.last_result: Optional[VerifyResult] = None

    def apply(self, envelope: Any, headers: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Signs the request: returns the envelope with the WS-Security header (a new
        lxml element) and the HTTP headers unchanged."""
        signed = self._signer.sign_wss(etree.tostring(envelope), self.sign_xpaths, ttl=self.ttl)
        parser = etree.XMLParser(resolve_entities=False, no_network=True, remove_blank_text=False)
        return etree.fromstring(signed, parser=parser), headers

    def verify(self, envelope: Any) -> Optional[VerifyResult]:
        """Verifies a response envelope (an lxml element); raises
        :class:`SignatureVerificationFailed` when it is refused."""
        if self._verifier is None:
            return None
        data = etree.tostring(envelope)
        try:
            result = self.expect_config.check(self._verifier.verify(data))
        except InvalidSignature as e:
            raise _failed(e) from e
        self.last_result = result
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
