package vtdxbench;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;

import org.apache.xml.security.c14n.Canonicalizer;
import org.apache.xml.security.signature.XMLSignature;
import org.apache.xml.security.transforms.Transforms;
import org.apache.xml.security.algorithms.MessageDigestAlgorithm;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.ls.DOMImplementationLS;
import org.w3c.dom.ls.LSOutput;
import org.w3c.dom.ls.LSSerializer;

/**
 * The dsig workload's JVM peer: Apache Santuario (XML Security for Java) on a namespace-aware DOM,
 * doing what a WS-Security stack (WSS4J) does with it, bytes in and bytes out.
 *
 * <p>sign: parse the unsigned message; in the wsse:Security header (made when missing) add a
 * wsu:Timestamp, a BinarySecurityToken and an {@link XMLSignature} (RSA-SHA256, Exclusive C14N,
 * SHA-256) over the Body and the Timestamp, their wsu:Id registered as IDs, with a
 * SecurityTokenReference to the token as KeyInfo; serialize with LSSerializer. verify: parse the
 * signed message; find the Body and the Timestamp by position and register their wsu:Id; {@code
 * checkSignatureValue} with the caller's certificate (secure validation on); check that the
 * References name the Body and the Timestamp.
 *
 * <p>Files as in bench/src/bin/dsig_peers.rs (the reference for this workload): $VTDX_BENCH_DSIG_DIR
 * holds S.unsigned.xml, S.signed.xml, key.pem and cert.pem for each FILE with stem S.
 */
final class Dsig {
    static final String SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
    static final String SOAP12 = "http://www.w3.org/2003/05/soap-envelope";
    static final String WSSE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
    static final String WSU = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";
    static final String DS = "http://www.w3.org/2000/09/xmldsig#";
    static final String XMLNS = "http://www.w3.org/2000/xmlns/";
    static final String B64BIN = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary";
    static final String X509V3 = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3";
    static final String PEER = "santuario";

    final PrivateKey key;
    final X509Certificate cert;
    final String certB64;
    final DocumentBuilderFactory dbf;
    final SecureRandom rnd = new SecureRandom();

    Dsig(Path dir) throws Exception {
        org.apache.xml.security.Init.init();
        String pem = Files.readString(dir.resolve("key.pem"));
        byte[] der = Base64.getMimeDecoder().decode(pem.replaceAll("-----[^-]+-----", ""));
        key = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
        cert = (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(Files.readAllBytes(dir.resolve("cert.pem"))));
        certB64 = Base64.getEncoder().encodeToString(cert.getEncoded());
        dbf = DocumentBuilderFactory.newInstance();
        dbf.setNamespaceAware(true);
        dbf.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    }

    DocumentBuilder db;

    /** Parses with one DocumentBuilder, reset before each use (as WSS4J keeps them in a pool). */
    Document parse(byte[] x) throws Exception {
        if (db == null) db = dbf.newDocumentBuilder();
        else db.reset();
        return db.parse(new ByteArrayInputStream(x));
    }

    static Element child(Element parent, String ns, String local) {
        for (Node c = parent.getFirstChild(); c != null; c = c.getNextSibling())
            if (c instanceof Element && ns.equals(c.getNamespaceURI()) && local.equals(c.getLocalName())) return (Element) c;
        return null;
    }

    /** [Header or null, Body] of a SOAP 1.1 or 1.2 Envelope. */
    static Element[] soap(Document doc) {
        Element env = doc.getDocumentElement();
        String ns = env.getNamespaceURI();
        if (!(SOAP11.equals(ns) || SOAP12.equals(ns)) || !"Envelope".equals(env.getLocalName()))
            throw new IllegalArgumentException("not a SOAP Envelope");
        Element body = child(env, ns, "Body");
        if (body == null) throw new IllegalArgumentException("no Body");
        return new Element[] {child(env, ns, "Header"), body};
    }

    String hex() {
        byte[] b = new byte[16];
        rnd.nextBytes(b);
        StringBuilder s = new StringBuilder();
        for (byte x : b) s.append(String.format("%02x", x));
        return s.toString();
    }

    byte[] sign(byte[] x, ByteArrayOutputStream out) throws Exception {
        Document doc = parse(x);
        Element env = doc.getDocumentElement();
        String sns = env.getNamespaceURI();
        String sp = env.getPrefix() == null ? "soapenv" : env.getPrefix();
        Element[] hb = soap(doc);
        Element header = hb[0], body = hb[1];
        if (header == null) {
            header = doc.createElementNS(sns, sp + ":Header");
            env.insertBefore(header, body);
        }
        Element sec = child(header, WSSE, "Security");
        if (sec == null) {
            sec = doc.createElementNS(WSSE, "wsse:Security");
            sec.setAttributeNS(XMLNS, "xmlns:wsse", WSSE);
            sec.setAttributeNS(sns, sp + ":mustUnderstand", "1");
            header.insertBefore(sec, header.getFirstChild());
        }
        String bodyId = body.getAttributeNS(WSU, "Id");
        if (bodyId.isEmpty()) {
            bodyId = "id-" + hex();
            body.setAttributeNS(XMLNS, "xmlns:wsu", WSU);
            body.setAttributeNS(WSU, "wsu:Id", bodyId);
        }
        body.setIdAttributeNS(WSU, "Id", true);
        String tsId = "TS-" + hex(), bstId = "X509-" + hex();
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        Element ts = doc.createElementNS(WSU, "wsu:Timestamp");
        ts.setAttributeNS(XMLNS, "xmlns:wsu", WSU);
        ts.setAttributeNS(WSU, "wsu:Id", tsId);
        ts.setIdAttributeNS(WSU, "Id", true);
        Element created = doc.createElementNS(WSU, "wsu:Created");
        created.setTextContent(now.toString());
        Element expires = doc.createElementNS(WSU, "wsu:Expires");
        expires.setTextContent(now.plusSeconds(300).toString());
        ts.appendChild(created);
        ts.appendChild(expires);
        sec.appendChild(ts);
        Element bst = doc.createElementNS(WSSE, "wsse:BinarySecurityToken");
        bst.setAttributeNS(XMLNS, "xmlns:wsse", WSSE);
        bst.setAttributeNS(XMLNS, "xmlns:wsu", WSU);
        bst.setAttribute("EncodingType", B64BIN);
        bst.setAttribute("ValueType", X509V3);
        bst.setAttributeNS(WSU, "wsu:Id", bstId);
        bst.setTextContent(certB64);
        sec.appendChild(bst);
        XMLSignature sig = new XMLSignature(doc, "", XMLSignature.ALGO_ID_SIGNATURE_RSA_SHA256, Canonicalizer.ALGO_ID_C14N_EXCL_OMIT_COMMENTS);
        sec.appendChild(sig.getElement());
        for (String id : new String[] {bodyId, tsId}) {
            Transforms t = new Transforms(doc);
            t.addTransform(Transforms.TRANSFORM_C14N_EXCL_OMIT_COMMENTS);
            sig.addDocument("#" + id, t, MessageDigestAlgorithm.ALGO_ID_DIGEST_SHA256);
        }
        Element str = doc.createElementNS(WSSE, "wsse:SecurityTokenReference");
        str.setAttributeNS(XMLNS, "xmlns:wsse", WSSE);
        Element ref = doc.createElementNS(WSSE, "wsse:Reference");
        ref.setAttribute("URI", "#" + bstId);
        ref.setAttribute("ValueType", X509V3);
        str.appendChild(ref);
        sig.getKeyInfo().addUnknownElement(str);
        sig.sign(key);
        out.reset();
        DOMImplementationLS ls = (DOMImplementationLS) doc.getImplementation().getFeature("LS", "3.0");
        LSSerializer ser = ls.createLSSerializer();
        LSOutput o = ls.createLSOutput();
        o.setByteStream(out);
        o.setEncoding("UTF-8");
        ser.write(doc, o);
        return out.toByteArray();
    }

    int verify(byte[] x) throws Exception {
        Document doc = parse(x);
        Element[] hb = soap(doc);
        Element body = hb[1];
        Element sec = hb[0] == null ? null : child(hb[0], WSSE, "Security");
        Element ts = sec == null ? null : child(sec, WSU, "Timestamp");
        Element sigEl = sec == null ? null : child(sec, DS, "Signature");
        if (ts == null || sigEl == null) throw new IllegalArgumentException("no Timestamp or Signature in the Security header");
        body.setIdAttributeNS(WSU, "Id", true);
        ts.setIdAttributeNS(WSU, "Id", true);
        XMLSignature sig = new XMLSignature(sigEl, "", true);
        if (!sig.checkSignatureValue(cert)) throw new SecurityException("the signature does not verify");
        Set<String> uris = new HashSet<>();
        int n = sig.getSignedInfo().getLength();
        for (int i = 0; i < n; i++) uris.add(sig.getSignedInfo().item(i).getURI());
        Set<String> want = Set.of("#" + body.getAttributeNS(WSU, "Id"), "#" + ts.getAttributeNS(WSU, "Id"));
        if (!uris.equals(want)) throw new SecurityException("the References name " + uris + ", not the Body and the Timestamp " + want);
        return n;
    }

    static String stem(String f) {
        String n = Paths.get(f).getFileName().toString();
        return n.endsWith(".xml") ? n.substring(0, n.length() - 4) : n;
    }

    static void versions() {
        String jar = new java.io.File(XMLSignature.class.getProtectionDomain().getCodeSource().getLocation().getPath()).getName();
        String jvm = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
        String dom = DocumentBuilderFactory.newInstance().getClass().getName();
        new Peers.Line(PEER, "versions", "").put("version", jar.replace("xmlsec-", "").replace(".jar", "")).put("jar", jar)
                .put("jvm", jvm).put("dom", dom).emit();
    }

    /** The dsig workload: one JVM, the JIT warmed over every document (sign and verify) first. */
    static void run(List<String> files) throws Exception {
        Path dir = Paths.get(System.getenv("VTDX_BENCH_DSIG_DIR"));
        Dsig d = new Dsig(dir);
        List<byte[]> unsigned = new ArrayList<>(), signed = new ArrayList<>();
        for (String f : files) {
            unsigned.add(Files.readAllBytes(dir.resolve(stem(f) + ".unsigned.xml")));
            signed.add(Files.readAllBytes(dir.resolve(stem(f) + ".signed.xml")));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 16);
        boolean[] signOk = new boolean[files.size()], verifyOk = new boolean[files.size()];
        String[] signWhy = new String[files.size()], verifyWhy = new String[files.size()];
        for (int i = 0; i < files.size(); i++) {
            try {
                byte[] o = d.sign(unsigned.get(i), out);
                Path od = dir.resolve("out").resolve(PEER);
                Files.createDirectories(od);
                Files.write(od.resolve(stem(files.get(i)) + ".xml"), o);
                signOk[i] = true;
            } catch (Exception e) {
                signWhy[i] = Peers.why(e);
            }
            try {
                d.verify(signed.get(i));
                verifyOk[i] = true;
            } catch (Exception e) {
                verifyWhy[i] = Peers.why(e);
            }
        }
        // JIT warm-up over the whole workload, in slices of 100 ms per document (a pass over all of them at
        // once would leave a 2 KB message a few dozen runs behind the 2.7 MB one's, far from compiled)
        long t0 = System.nanoTime();
        do {
            for (int i = 0; i < files.size(); i++) {
                long s0 = System.nanoTime();
                do {
                    if (signOk[i]) Peers.sink += d.sign(unsigned.get(i), out).length;
                    if (verifyOk[i]) Peers.sink += d.verify(signed.get(i));
                } while (System.nanoTime() - s0 < 100_000_000L);
            }
        } while (System.nanoTime() - t0 < Peers.workloadWarmupNs);
        for (int i = 0; i < files.size(); i++) {
            String f = files.get(i);
            final byte[] u = unsigned.get(i), s = signed.get(i);
            if (signOk[i]) {
                byte[] o = d.sign(u, out);
                Peers.Stats st = Peers.measure(() -> d.sign(u, out).length);
                new Peers.Line(PEER, "dsig", f).put("case", "sign").stats(st, u.length).put("msgs_per_s", 1e9 / st.median)
                        .put("out_bytes", (long) o.length)
                        .put("out_file", dir.resolve("out").resolve(PEER).resolve(stem(f) + ".xml").toString()).emit();
            } else new Peers.Line(PEER, "dsig", f).put("case", "sign").put("status", "error").put("reason", signWhy[i]).emit();
            if (verifyOk[i]) {
                int n = d.verify(s);
                Peers.Stats st = Peers.measure(() -> d.verify(s));
                new Peers.Line(PEER, "dsig", f).put("case", "verify").stats(st, s.length).put("msgs_per_s", 1e9 / st.median)
                        .put("references", (long) n).put("verified", true).emit();
            } else new Peers.Line(PEER, "dsig", f).put("case", "verify").put("status", "rejected").put("reason", verifyWhy[i]).emit();
        }
    }
}
