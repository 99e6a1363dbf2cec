"""The zeep WS-Security plugin (vtdx.dsig.zeep) with a real ``zeep.Client`` calling a
SOAP service on loopback, in both directions: the client signs each request
(Timestamp, BinarySecurityToken, Signature over Body and Timestamp) and the service
verifies it with vtdx; the service signs each response and the plugin verifies it.

The service is a small WSGI application on ``wsgiref`` (127.0.0.1, a free port), with
the WSDL written by the test; nothing leaves the machine. The keys are the xmlsec test
keys of the shared corpus: the client signs with RSA-2048, the service with EC P-256."""

import threading
import wsgiref.simple_server

import pytest

import vtdx.dsig as ds
from conftest import corpus_path

zeep = pytest.importorskip("zeep")
requests = pytest.importorskip("requests")
etree = pytest.importorskip("lxml.etree")
wz = pytest.importorskip("vtdx.dsig.zeep")

SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/"
PAY = "urn:pay"

WSDL = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
    xmlns:tns="urn:pay" xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:pay" name="PayService">
  <types>
    <xsd:schema targetNamespace="urn:pay" elementFormDefault="qualified">
      <xsd:element name="Pay"><xsd:complexType><xsd:sequence>
        <xsd:element name="amount" type="xsd:int"/><xsd:element name="payee" type="xsd:string"/>
      </xsd:sequence></xsd:complexType></xsd:element>
      <xsd:element name="PayResponse"><xsd:complexType><xsd:sequence>
        <xsd:element name="result" type="xsd:string"/>
      </xsd:sequence></xsd:complexType></xsd:element>
    </xsd:schema>
  </types>
  <message name="PayIn"><part name="parameters" element="tns:Pay"/></message>
  <message name="PayOut"><part name="parameters" element="tns:PayResponse"/></message>
  <portType name="PayPort">
    <operation name="Pay"><input message="tns:PayIn"/><output message="tns:PayOut"/></operation>
  </portType>
  <binding name="PayBinding" type="tns:PayPort">
    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <operation name="Pay">
      <soap:operation soapAction="urn:pay#Pay"/>
      <input><soap:body use="literal"/></input>
      <output><soap:body use="literal"/></output>
    </operation>
  </binding>
  <service name="PayService">
    <port name="PayPort" binding="tns:PayBinding"><soap:address location="http://127.0.0.1:{port}/soap"/></port>
  </service>
</definitions>
"""


def key(name):
    return corpus_path("dsig", "xmlsec", "keys", *name.split("/")).read_bytes()


CLIENT = (key("rsa/rsa-2048-key.pem"), key("rsa/rsa-2048-cert.pem"))
SERVER = (key("ec/ec-prime256v1-key.pem"), key("ec/ec-prime256v1-cert.pem"))
STRANGER = (key("ec/ec-prime256v1-second-key.pem"), key("ec/ec-prime256v1-second-cert.pem"))


def fault(reason):
    body = (
        f'<s:Envelope xmlns:s="{SOAP11}"><s:Body><s:Fault><faultcode>s:Client</faultcode>'
        f"<faultstring>{reason}</faultstring></s:Fault></s:Body></s:Envelope>"
    )
    return body.encode()


class PayService:
    """The service: verifies the request with the client's certificate, reads the
    operation from the Body located by position, answers with a signed response."""

    def __init__(self):
        self.seen = []  # (kind or "ok", amount, payee, result) per request
        self.response_key = SERVER  # the key the responses are signed with
        self.tamper = False  # change the response after signing it
        self.sign_response = True

    def __call__(self, environ, start_response):
        size = int(environ.get("CONTENT_LENGTH") or 0)
        request = environ["wsgi.input"].read(size)
        try:
            r = ds.verify(
                request,
                x509_cert=CLIENT[1],
                expect_config=ds.SignatureConfiguration(require_timestamp=True, require_payload=True),
            )
        except ds.InvalidSignature as e:
            self.seen.append((e.kind, None, None, None))
            start_response("500 Internal Server Error", [("Content-Type", "text/xml; charset=utf-8")])
            return [fault(f"refused: {e.kind}")]
        pay = r.soap_body.find(f"{{{PAY}}}Pay")
        amount, payee = pay.find(f"{{{PAY}}}amount"), pay.find(f"{{{PAY}}}payee")
        assert r.covers(amount) and r.covers(payee)  # what is read is what was signed
        self.seen.append(("ok", int(amount.text), payee.text, r))
        response = (
            f'<soapenv:Envelope xmlns:soapenv="{SOAP11}"><soapenv:Body>'
            f'<p:PayResponse xmlns:p="{PAY}"><p:result>paid {int(amount.text)} to {payee.text}</p:result>'
            f"</p:PayResponse></soapenv:Body></soapenv:Envelope>"
        ).encode()
        if self.sign_response:
            response = ds.sign(response, self.response_key[0], cert=self.response_key[1], method="wss")
        if self.tamper:
            response = response.replace(b"paid ", b"refunded ")
        start_response("200 OK", [("Content-Type", "text/xml; charset=utf-8")])
        return [response]


class QuietHandler(wsgiref.simple_server.WSGIRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def service(tmp_path):
    app = PayService()
    server = wsgiref.simple_server.make_server("127.0.0.1", 0, app, handler_class=QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    wsdl = tmp_path / "pay.wsdl"
    wsdl.write_text(WSDL.format(port=server.server_port))
    try:
        yield app, str(wsdl)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def client(wsdl, wsse):
    session = requests.Session()
    session.trust_env = False  # loopback only: no proxy from the environment
    return zeep.Client(wsdl, wsse=wsse, transport=zeep.transports.Transport(session=session, timeout=10))


def test_signed_request_and_signed_response(service):
    app, wsdl = service
    plugin = wz.WsseSignature(CLIENT[0], CLIENT[1], verify_cert=SERVER[1])
    result = client(wsdl, plugin).service.Pay(amount=10, payee="Bob")
    assert result == "paid 10 to Bob"
    # the service verified the request: Body and Timestamp signed with the client's key
    [(state, amount, payee, r)] = app.seen
    assert (state, amount, payee) == ("ok", 10, "Bob")
    assert r.covers_payload and r.timestamp_signed
    assert {ref.element.tag for ref in r.references} == {
        f"{{{SOAP11}}}Body",
        "{http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd}Timestamp",
    }
    assert r.references[0].signature_method == ds.SignatureMethod.RSA_SHA256.value
    # the plugin verified the response with the service's (EC) certificate
    last = plugin.last_result
    assert last.covers_payload and last.timestamp_signed
    assert last.references[0].signature_method == ds.SignatureMethod.ECDSA_SHA256.value
    assert last.soap_body.find(f"{{{PAY}}}PayResponse/{{{PAY}}}result").text == "paid 10 to Bob"


def test_several_calls_with_one_client(service):
    app, wsdl = service
    c = client(wsdl, wz.WsseSignature(CLIENT[0], CLIENT[1], verify_cert=SERVER[1], ttl=30))
    assert [c.service.Pay(amount=n, payee="Eve") for n in (1, 2, 3)] == [f"paid {n} to Eve" for n in (1, 2, 3)]
    assert [s[1] for s in app.seen] == [1, 2, 3]


def test_response_signed_by_another_key_is_refused(service):
    app, wsdl = service
    app.response_key = STRANGER
    with pytest.raises(zeep.exceptions.SignatureVerificationFailed) as e:
        client(wsdl, wz.WsseSignature(CLIENT[0], CLIENT[1], verify_cert=SERVER[1])).service.Pay(amount=5, payee="Bob")
    assert isinstance(e.value, ds.InvalidSignature) and e.value.kind == "untrusted_key"


def test_tampered_response_is_refused(service):
    app, wsdl = service
    app.tamper = True
    with pytest.raises(wz.SignatureVerificationFailed) as e:
        client(wsdl, wz.WsseSignature(CLIENT[0], CLIENT[1], verify_cert=SERVER[1])).service.Pay(amount=5, payee="Bob")
    assert e.value.kind == "digest_mismatch"


def test_unsigned_response_is_refused(service):
    app, wsdl = service
    app.sign_response = False
    with pytest.raises(wz.SignatureVerificationFailed) as e:
        client(wsdl, wz.WsseSignature(CLIENT[0], CLIENT[1], verify_cert=SERVER[1])).service.Pay(amount=5, payee="Bob")
    assert e.value.kind == "timestamp_required"  # the plugin's default: a signed Timestamp, checked first
    with pytest.raises(wz.SignatureVerificationFailed) as e:
        plugin = wz.WsseSignature(CLIENT[0], CLIENT[1], verify_cert=SERVER[1], require_timestamp=False)
        client(wsdl, plugin).service.Pay(amount=5, payee="Bob")
    assert e.value.kind == "no_signature"


def test_unsigned_request_is_refused_by_the_service(service):
    app, wsdl = service
    with pytest.raises(zeep.exceptions.Fault) as e:
        client(wsdl, None).service.Pay(amount=5, payee="Bob")
    # the service requires a signed Timestamp: an unsigned request has none
    assert e.value.message == "refused: timestamp_required"
    assert app.seen == [("timestamp_required", None, None, None)]


def test_request_signed_by_a_stranger_is_refused_by_the_service(service):
    app, wsdl = service
    # the service answers with an unsigned Fault, which the plugin refuses in turn
    with pytest.raises(wz.SignatureVerificationFailed):
        client(wsdl, wz.WsseSignature(STRANGER[0], STRANGER[1], verify_cert=SERVER[1])).service.Pay(amount=5, payee="Bob")
    assert app.seen == [("untrusted_key", None, None, None)]


def test_apply_and_verify_directly():
    """The plugin's two calls on lxml elements, as zeep makes them."""
    envelope = etree.fromstring(
        f'<soap-env:Envelope xmlns:soap-env="{SOAP11}"><soap-env:Body><p:Pay xmlns:p="{PAY}">'
        f"<p:amount>7</p:amount><p:payee>Ann</p:payee></p:Pay></soap-env:Body></soap-env:Envelope>".encode()
    )
    plugin = wz.MemorySignature(CLIENT[0], CLIENT[1])  # verifies with its own certificate, as zeep's does
    signed, headers = plugin.apply(envelope, {"SOAPAction": "urn:pay#Pay"})
    assert headers == {"SOAPAction": "urn:pay#Pay"}
    assert isinstance(signed, etree._Element) and signed.find(f"{{{SOAP11}}}Header") is not None
    r = plugin.verify(signed)
    assert r is plugin.last_result and r.covers_payload and r.timestamp_signed
    # the same message with the amount changed after signing
    signed.find(f".//{{{PAY}}}amount").text = "700"
    with pytest.raises(wz.SignatureVerificationFailed) as e:
        plugin.verify(signed)
    assert e.value.kind == "digest_mismatch"


def test_file_signature(tmp_path):
    kf, cf = tmp_path / "k.pem", tmp_path / "c.pem"
    kf.write_bytes(CLIENT[0])
    cf.write_bytes(CLIENT[1])
    plugin = wz.Signature(str(kf), str(cf), signature_method="rsa-pss-sha256")
    envelope = etree.fromstring(f'<e:Envelope xmlns:e="{SOAP11}"><e:Body><x/></e:Body></e:Envelope>'.encode())
    signed, _ = plugin.apply(envelope, {})
    assert plugin.verify(signed).references[0].signature_method == ds.SignatureMethod.SHA256_RSA_MGF1.value
    assert wz.BinarySignature is wz.Signature
