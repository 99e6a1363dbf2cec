"""Encryption in the zeep WS-Security plugin (vtdx.dsig.zeep), with a real ``zeep.Client``
calling a SOAP service on loopback: the client encrypts (and signs) each request, the
service decrypts (and verifies) it; the service encrypts (and signs) each response and
the plugin decrypts (and verifies) it, in both orders (sign-then-encrypt,
encrypt-then-sign) and with encryption alone.

The service is a small WSGI application on ``wsgiref`` (127.0.0.1, a free port), with the
WSDL of test_dsig_zeep.py; nothing leaves the machine. What travels is read with lxml:
the plaintext must not be on the wire, the Body must hold an ``xenc:EncryptedData``.
The keys are the xmlsec test keys of the shared corpus: the client's RSA-2048, the
service's RSA-4096, a stranger's RSA-2048."""

import base64
import threading
import wsgiref.simple_server

import pytest

import vtdx.dsig as ds
import vtdx.xmlenc as xe
from conftest import corpus_path

zeep = pytest.importorskip("zeep")
requests = pytest.importorskip("requests")
etree = pytest.importorskip("lxml.etree")
wz = pytest.importorskip("vtdx.dsig.zeep")

from test_dsig_zeep import WSDL, QuietHandler, fault  # noqa: E402  (the same service description)

SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/"
PAY = "urn:pay"
XENC = "http://www.w3.org/2001/04/xmlenc#"
DS = "http://www.w3.org/2000/09/xmldsig#"
WSSE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
WSU = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
NS = {"s": SOAP11, "xenc": XENC, "ds": DS, "wsse": WSSE, "wsu": WSU}


def key(name):
    return corpus_path("dsig", "xmlsec", "keys", "rsa", name).read_bytes()


CLIENT = (key("rsa-2048-key.pem"), key("rsa-2048-cert.pem"))
SERVER = (key("rsa-4096-key.pem"), key("rsa-4096-cert.pem"))
STRANGER = (key("rsa-expired-key.pem"), key("rsa-expired-cert.pem"))


def response_body(amount, payee):
    return (
        f'<soapenv:Envelope xmlns:soapenv="{SOAP11}"><soapenv:Body>'
        f'<p:PayResponse xmlns:p="{PAY}"><p:result>paid {amount} to {payee}</p:result>'
        f"</p:PayResponse></soapenv:Body></soapenv:Envelope>"
    ).encode()


def flip_body_cipher(data):
    """``data`` with one bit of the Body's CipherValue flipped (lxml and base64 of the standard library)."""
    cv = etree.fromstring(data).find("s:Body/xenc:EncryptedData/xenc:CipherData/xenc:CipherValue", NS).text
    raw = bytearray(base64.b64decode(cv))
    raw[20] ^= 0x01
    return data.replace(cv.encode(), base64.b64encode(bytes(raw)))


class EncService:
    """The service. ``mode``: ``'encrypt'`` (encryption alone), ``'sign_then_encrypt'``
    or ``'encrypt_then_sign'``, for the requests it accepts and the responses it makes."""

    def __init__(self, mode):
        self.mode = mode
        self.wire = []  # the requests as received
        self.seen = []  # ("ok", amount, payee) or (error kind,)
        self.encrypt_to = CLIENT[1]  # the certificate responses are encrypted to
        self.tamper = False  # flip a bit of the response's Body ciphertext
        self.encrypt_response = True
        self.response_mode = None  # answer in another order than the requests'
        # the service's side of encrypt-then-sign: the plugin's verify-then-decrypt
        self.plugin = wz.WsseSignature(SERVER[0], SERVER[1], verify_cert=CLIENT[1], encrypt_cert=CLIENT[1], encrypt_before_signing=True)

    def read(self, request):
        if self.mode == "encrypt":
            return xe.decrypt(request, SERVER[0], remove_key_entries=True)
        if self.mode == "sign_then_encrypt":
            plain = xe.decrypt(request, SERVER[0], remove_key_entries=True)
            r = ds.verify(plain, x509_cert=CLIENT[1], expect_config=ds.SignatureConfiguration(require_timestamp=True))
            assert r.covers_payload
            return plain
        env = etree.fromstring(request)
        r = self.plugin.verify(env)  # verifies, then decrypts env in place
        assert r.covers_payload and r.timestamp_signed
        return etree.tostring(env)

    def respond(self, amount, payee):
        body = response_body(amount, payee)
        if not self.encrypt_response:
            return ds.sign(body, SERVER[0], cert=SERVER[1], method="wss") if self.mode != "encrypt" else body
        mode = self.response_mode or self.mode
        if mode == "encrypt":
            out = xe.encrypt(body, self.encrypt_to, wss=True)
        elif mode == "sign_then_encrypt":
            signed = ds.sign(body, SERVER[0], cert=SERVER[1], method="wss")
            out = xe.encrypt(signed, self.encrypt_to, wss=True, xpath="//ds:Signature")
        else:
            out = ds.sign(xe.encrypt(body, self.encrypt_to, wss=True), SERVER[0], cert=SERVER[1], method="wss")
        return flip_body_cipher(out) if self.tamper else out

    def __call__(self, environ, start_response):
        size = int(environ.get("CONTENT_LENGTH") or 0)
        request = environ["wsgi.input"].read(size)
        self.wire.append(request)
        try:
            plain = etree.fromstring(self.read(request))
        except (xe.XMLEncryptionError, ds.InvalidSignature) as e:
            self.seen.append((e.kind,))
            start_response("500 Internal Server Error", [("Content-Type", "text/xml; charset=utf-8")])
            return [fault(f"refused: {e.kind}")]
        pay = plain.find(f"s:Body/{{{PAY}}}Pay", NS)
        amount, payee = int(pay.find(f"{{{PAY}}}amount").text), pay.find(f"{{{PAY}}}payee").text
        self.seen.append(("ok", amount, payee))
        start_response("200 OK", [("Content-Type", "text/xml; charset=utf-8")])
        return [self.respond(amount, payee)]


def serve(tmp_path, mode):
    app = EncService(mode)
    server = wsgiref.simple_server.make_server("127.0.0.1", 0, app, handler_class=QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    wsdl = tmp_path / "pay.wsdl"
    wsdl.write_text(WSDL.format(port=server.server_port))

    def stop():
        server.shutdown()
        server.server_close()
        thread.join(5)

    return app, str(wsdl), stop


@pytest.fixture
def service(tmp_path, request):
    app, wsdl, stop = serve(tmp_path, request.param)
    try:
        yield app, wsdl
    finally:
        stop()


def client(wsdl, wsse):
    session = requests.Session()
    session.trust_env = False  # loopback only: no proxy from the environment
    return zeep.Client(wsdl, wsse=wsse, transport=zeep.transports.Transport(session=session, timeout=10))


def plugin(mode, **kw):
    if mode == "encrypt":
        return wz.WsseEncryption(SERVER[1], CLIENT[0], **kw)
    return wz.WsseSignature(
        CLIENT[0], CLIENT[1], verify_cert=SERVER[1], encrypt_cert=SERVER[1], encrypt_before_signing=mode == "encrypt_then_sign", **kw
    )


def check_wire(request, mode):
    """What the client sent, read with lxml: no plaintext, the Body encrypted, the
    EncryptedKey in the Security header, and the signature where the order puts it."""
    assert b">Bob<" not in request and b"<ns0:amount" not in request and b"amount>" not in request
    env = etree.fromstring(request)
    [ed] = env.find("s:Body", NS)
    assert ed.tag == f"{{{XENC}}}EncryptedData" and ed.get("Type") == XENC + "Content"
    sec = env.find("s:Header/wsse:Security", NS)
    entries = [c.tag for c in sec]
    assert f"{{{XENC}}}EncryptedKey" in entries
    refs = [r.get("URI") for r in sec.findall("xenc:EncryptedKey/xenc:ReferenceList/xenc:DataReference", NS)]
    assert "#" + ed.get("Id") in refs
    sig = sec.find("ds:Signature", NS)
    if mode == "encrypt":
        assert sig is None
    elif mode == "sign_then_encrypt":
        assert sig is None  # the Signature itself was encrypted (encrypt_signature=True)
        assert entries[0] == f"{{{XENC}}}EncryptedKey"  # processed first: decrypt, then verify
        assert len(sec.findall("xenc:EncryptedData", NS)) == 1
    else:
        # the Signature covers the Body holding the ciphertext
        body_id = env.find("s:Body", NS).get(f"{{{WSU}}}Id")
        assert "#" + body_id in [r.get("URI") for r in sig.iter(f"{{{DS}}}Reference")]
        assert entries.index(f"{{{DS}}}Signature") > entries.index(f"{{{XENC}}}EncryptedKey")


MODES = ["encrypt", "sign_then_encrypt", "encrypt_then_sign"]


@pytest.mark.parametrize("service", MODES, indirect=True)
def test_encrypted_request_and_response(service):
    app, wsdl = service
    kw = {"encrypt_signature": True} if app.mode == "sign_then_encrypt" else {}
    p = plugin(app.mode, **kw)
    c = client(wsdl, p)
    assert c.service.Pay(amount=10, payee="Bob") == "paid 10 to Bob"
    assert c.service.Pay(amount=11, payee="Eve") == "paid 11 to Eve"
    assert app.seen == [("ok", 10, "Bob"), ("ok", 11, "Eve")]
    for request in app.wire:
        check_wire(request, app.mode)
    if app.mode != "encrypt":
        last = p.last_result
        assert last.covers_payload and last.timestamp_signed
        assert last.references[0].signature_method == ds.SignatureMethod.RSA_SHA256.value


@pytest.mark.parametrize("service", ["encrypt", "sign_then_encrypt"], indirect=True)
def test_tampered_response_ciphertext_is_the_uniform_error(service):
    app, wsdl = service
    app.tamper = True
    with pytest.raises(xe.DecryptionError) as e:
        client(wsdl, plugin(app.mode)).service.Pay(amount=5, payee="Bob")
    assert str(e.value) == "decryption failed" and e.value.position is None


@pytest.mark.parametrize("service", ["encrypt_then_sign"], indirect=True)
def test_encrypt_then_sign_refuses_a_changed_ciphertext_before_decrypting(service):
    app, wsdl = service
    app.tamper = True
    with pytest.raises(wz.SignatureVerificationFailed) as e:
        client(wsdl, plugin(app.mode)).service.Pay(amount=5, payee="Bob")
    assert e.value.kind == "digest_mismatch"


@pytest.mark.parametrize("service", MODES, indirect=True)
def test_response_encrypted_to_another_key_is_the_uniform_error(service):
    app, wsdl = service
    app.encrypt_to = STRANGER[1]
    with pytest.raises(xe.DecryptionError) as e:
        client(wsdl, plugin(app.mode)).service.Pay(amount=5, payee="Bob")
    assert str(e.value) == "decryption failed"


@pytest.mark.parametrize("service", MODES, indirect=True)
def test_unencrypted_response_is_refused(service):
    app, wsdl = service
    app.encrypt_response = False
    with pytest.raises(xe.XMLEncryptionError) as e:
        client(wsdl, plugin(app.mode)).service.Pay(amount=5, payee="Bob")
    assert e.value.kind == "nothing_encrypted"
    # accepted when the plugin does not require it
    assert client(wsdl, plugin(app.mode, require_encrypted_response=False) if app.mode != "encrypt" else wz.WsseEncryption(
        SERVER[1], CLIENT[0], require_encryption=False
    )).service.Pay(amount=6, payee="Ann") == "paid 6 to Ann"


@pytest.mark.parametrize("service", ["sign_then_encrypt"], indirect=True)
def test_the_order_is_enforced(service):
    """A plugin expecting encrypt-then-sign verifies before decrypting: a response whose
    Signature is inside the encryption has no signature to verify."""
    app, wsdl = service
    app.response_mode = "sign_then_encrypt"
    p = wz.WsseSignature(CLIENT[0], CLIENT[1], verify_cert=SERVER[1], encrypt_cert=SERVER[1])
    assert client(wsdl, p).service.Pay(amount=1, payee="Bob") == "paid 1 to Bob"
    # the same service answering encrypt-then-sign to a sign-then-encrypt client
    app.response_mode = "encrypt_then_sign"
    with pytest.raises(wz.SignatureVerificationFailed) as e:
        client(wsdl, p).service.Pay(amount=2, payee="Bob")
    assert e.value.kind == "digest_mismatch"  # decrypted first, the signature over the ciphertext fails


@pytest.mark.parametrize("service", ["sign_then_encrypt"], indirect=True)
def test_request_to_the_wrong_service_key_is_refused_by_the_service(service):
    app, wsdl = service
    p = wz.WsseSignature(CLIENT[0], CLIENT[1], verify_cert=SERVER[1], encrypt_cert=STRANGER[1])
    # the service answers with an unencrypted Fault, which the plugin refuses in turn
    with pytest.raises(xe.XMLEncryptionError) as e:
        client(wsdl, p).service.Pay(amount=5, payee="Bob")
    assert e.value.kind == "nothing_encrypted"
    assert app.seen == [("decryption_failed",)]
    # without requiring encrypted responses, zeep reads the Fault
    p = wz.WsseSignature(CLIENT[0], CLIENT[1], encrypt_cert=STRANGER[1], require_encrypted_response=False, verify_response=False)
    with pytest.raises(zeep.exceptions.Fault) as e:
        client(wsdl, p).service.Pay(amount=5, payee="Bob")
    assert e.value.message == "refused: decryption_failed"


def test_apply_and_verify_directly_replace_the_envelope_in_place():
    """The plugin's two calls on lxml elements, as zeep makes them: ``verify`` changes the
    element it is given, since zeep goes on reading that one."""
    envelope = etree.fromstring(
        f'<soap-env:Envelope xmlns:soap-env="{SOAP11}"><soap-env:Body><p:Pay xmlns:p="{PAY}">'
        f"<p:amount>7</p:amount><p:payee>Ann</p:payee></p:Pay></soap-env:Body></soap-env:Envelope>".encode()
    )
    want = etree.tostring(envelope.find("s:Body", NS)[0], method="c14n", exclusive=True)
    # the client encrypts to itself here, so that one plugin does both halves
    p = wz.WsseEncryption(CLIENT[1], CLIENT[0], encrypt_xpaths=())
    encrypted, headers = p.apply(envelope, {"SOAPAction": "urn:pay#Pay"})
    assert headers == {"SOAPAction": "urn:pay#Pay"}
    assert isinstance(encrypted, etree._Element) and encrypted is not envelope
    assert encrypted.find("s:Body/xenc:EncryptedData", NS) is not None
    assert p.verify(encrypted) is None
    body = encrypted.find("s:Body", NS)
    assert etree.tostring(body[0], method="c14n", exclusive=True) == want
    assert encrypted.find("s:Header/wsse:Security/xenc:EncryptedKey", NS) is None  # removed with what it decrypted
    # signature and encryption in one plugin, both orders, on itself
    for before in (False, True):
        both = wz.WsseSignature(CLIENT[0], CLIENT[1], encrypt_cert=CLIENT[1], encrypt_before_signing=before)
        out, _ = both.apply(envelope, {})
        assert out.find("s:Body/xenc:EncryptedData", NS) is not None
        r = both.verify(out)
        assert r.covers_payload
        assert etree.tostring(out.find("s:Body", NS)[0], method="c14n", exclusive=True) == want
    with pytest.raises(ValueError):
        wz.WsseSignature(CLIENT[0], CLIENT[1], encrypt_cert=CLIENT[1], encrypt_before_signing=True, encrypt_signature=True)
