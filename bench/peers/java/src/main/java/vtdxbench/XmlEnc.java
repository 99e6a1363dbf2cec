package vtdxbench;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.Key;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;

import org.apache.xml.security.encryption.EncryptedData;
import org.apache.xml.security.encryption.EncryptedKey;
import org.apache.xml.security.encryption.ReferenceList;
import org.apache.xml.security.encryption.XMLCipher;
import org.apache.xml.security.keys.KeyInfo;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.w3c.dom.ls.DOMImplementationLS;
import org.w3c.dom.ls.LSOutput;
import org.w3c.dom.ls.LSSerializer;

/**
 * The xmlenc workload's JVM peer: Apache Santuario's {@link XMLCipher} on a namespace-aware DOM, doing what
 * a WS-Security stack (WSS4J) does with it, bytes in and bytes out.
 *
 * <p>encrypt (form wss): parse; a fresh AES-256 session key; an {@link EncryptedKey} (rsa-oaep-mgf1p to the
 * caller's certificate) with a ReferenceList, put at the top of the wsse:Security header (made when
 * missing); the Body's content encrypted (AES-256-GCM, Type Content) into an EncryptedData whose KeyInfo is
 * a SecurityTokenReference to the EncryptedKey; serialize with LSSerializer. decrypt (form wss, vtdx's
 * S.wss.xml): parse; for each EncryptedKey of the Security header with a ReferenceList, in order: unwrap
 * the session key with the caller's private key and decrypt each EncryptedData it names; then any other
 * EncryptedData with the EncryptedKey in its KeyInfo (the inline form, xmlsec1's); serialize.
 *
 * <p>Files as in bench/src/bin/xmlenc_peers.rs (the reference for this workload): $VTDX_BENCH_XMLENC_DIR
 * holds key.pem, cert.pem and S.wss.xml for each FILE with stem S. The workload {@code xmlenc-cross}
 * decrypts each FILE (another peer's output) once and writes the result to
 * cross/santuario/PRODUCER.NAME there.
 */
final class XmlEnc {
    static final String XENC = "http://www.w3.org/2001/04/xmlenc#";
    static final String WSS_EK = "http://docs.oasis-open.org/wss/oasis-wss-soap-message-security-1.1#EncryptedKey";
    static final String PEER = "santuario";

    final PrivateKey key;
    final X509Certificate cert;
    final DocumentBuilderFactory dbf;
    final SecureRandom rnd = new SecureRandom();
    final KeyGenerator aes;
    DocumentBuilder db;

    XmlEnc(Path dir) throws Exception {
        org.apache.xml.security.Init.init();
        String pem = Files.readString(dir.resolve("key.pem"));
        byte[] der = Base64.getMimeDecoder().decode(pem.replaceAll("-----[^-]+-----", ""));
        key = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
        cert = (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(Files.readAllBytes(dir.resolve("cert.pem"))));
        dbf = DocumentBuilderFactory.newInstance();
        dbf.setNamespaceAware(true);
        dbf.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        aes = KeyGenerator.getInstance("AES");
        aes.init(256, rnd);
    }

    /** Parses with one DocumentBuilder, reset before each use (as WSS4J keeps them in a pool). */
    Document parse(byte[] x) throws Exception {
        if (db == null) db = dbf.newDocumentBuilder();
        else db.reset();
        return db.parse(new ByteArrayInputStream(x));
    }

    String hex() {
        byte[] b = new byte[16];
        rnd.nextBytes(b);
        StringBuilder s = new StringBuilder();
        for (byte v : b) s.append(String.format("%02x", v));
        return s.toString();
    }

    static byte[] serialize(Document doc, ByteArrayOutputStream out) {
        out.reset();
        DOMImplementationLS ls = (DOMImplementationLS) doc.getImplementation().getFeature("LS", "3.0");
        LSSerializer ser = ls.createLSSerializer();
        LSOutput o = ls.createLSOutput();
        o.setByteStream(out);
        o.setEncoding("UTF-8");
        ser.write(doc, o);
        return out.toByteArray();
    }

    byte[] encrypt(byte[] x, ByteArrayOutputStream out) throws Exception {
        Document doc = parse(x);
        Element env = doc.getDocumentElement();
        String sns = env.getNamespaceURI();
        String sp = env.getPrefix() == null ? "soapenv" : env.getPrefix();
        Element[] hb = Dsig.soap(doc);
        Element header = hb[0], body = hb[1];
        if (header == null) {
            header = doc.createElementNS(sns, sp + ":Header");
            env.insertBefore(header, body);
        }
        Element sec = Dsig.child(header, Dsig.WSSE, "Security");
        if (sec == null) {
            sec = doc.createElementNS(Dsig.WSSE, "wsse:Security");
            sec.setAttributeNS(Dsig.XMLNS, "xmlns:wsse", Dsig.WSSE);
            sec.setAttributeNS(sns, sp + ":mustUnderstand", "1");
            header.insertBefore(sec, header.getFirstChild());
        }
        SecretKey session = aes.generateKey();
        String edId = "ED-" + hex(), ekId = "EK-" + hex();
        XMLCipher keyCipher = XMLCipher.getInstance(XMLCipher.RSA_OAEP);
        keyCipher.init(XMLCipher.WRAP_MODE, cert.getPublicKey());
        EncryptedKey ek = keyCipher.encryptKey(doc, session);
        ek.setId(ekId);
        ReferenceList rl = keyCipher.createReferenceList(ReferenceList.DATA_REFERENCE);
        rl.add(rl.newDataReference("#" + edId));
        ek.setReferenceList(rl);

        XMLCipher c = XMLCipher.getInstance(XMLCipher.AES_256_GCM);
        c.init(XMLCipher.ENCRYPT_MODE, session);
        EncryptedData ed = c.getEncryptedData();
        ed.setId(edId);
        KeyInfo ki = new KeyInfo(doc);
        Element str = doc.createElementNS(Dsig.WSSE, "wsse:SecurityTokenReference");
        str.setAttributeNS(Dsig.XMLNS, "xmlns:wsse", Dsig.WSSE);
        Element ref = doc.createElementNS(Dsig.WSSE, "wsse:Reference");
        ref.setAttribute("URI", "#" + ekId);
        ref.setAttribute("ValueType", WSS_EK);
        str.appendChild(ref);
        ki.addUnknownElement(str);
        ed.setKeyInfo(ki);
        c.doFinal(doc, body, true);
        sec.insertBefore(keyCipher.martial(doc, ek), sec.getFirstChild());
        return serialize(doc, out);
    }

    static Element byId(Document doc, String id) {
        NodeList l = doc.getElementsByTagNameNS(XENC, "EncryptedData");
        for (int i = 0; i < l.getLength(); i++) {
            Element e = (Element) l.item(i);
            if (id.equals(e.getAttributeNS(null, "Id"))) return e;
        }
        throw new IllegalArgumentException("no xenc:EncryptedData with Id " + id);
    }

    static String algorithm(Element ed) {
        Element m = Dsig.child(ed, XENC, "EncryptionMethod");
        if (m == null) throw new IllegalArgumentException("an EncryptedData without EncryptionMethod");
        return m.getAttributeNS(null, "Algorithm");
    }

    byte[] decrypt(byte[] x, ByteArrayOutputStream out) throws Exception {
        Document doc = parse(x);
        Element[] hb = Dsig.soap(doc);
        Element sec = hb[0] == null ? null : Dsig.child(hb[0], Dsig.WSSE, "Security");
        int n = 0;
        if (sec != null) {
            List<Element> eks = new ArrayList<>();
            for (Node c = sec.getFirstChild(); c != null; c = c.getNextSibling())
                if (c instanceof Element && XENC.equals(c.getNamespaceURI()) && "EncryptedKey".equals(c.getLocalName())
                        && Dsig.child((Element) c, XENC, "ReferenceList") != null) eks.add((Element) c);
            for (Element ekEl : eks) { // header order
                XMLCipher kc = XMLCipher.getInstance();
                kc.init(XMLCipher.UNWRAP_MODE, key);
                EncryptedKey ek = kc.loadEncryptedKey(doc, ekEl);
                Element list = Dsig.child(ekEl, XENC, "ReferenceList");
                for (Node r = list.getFirstChild(); r != null; r = r.getNextSibling()) {
                    if (!(r instanceof Element) || !"DataReference".equals(r.getLocalName())) continue;
                    Element ed = byId(doc, ((Element) r).getAttributeNS(null, "URI").substring(1));
                    Key session = kc.decryptKey(ek, algorithm(ed));
                    XMLCipher dc = XMLCipher.getInstance();
                    dc.init(XMLCipher.DECRYPT_MODE, session);
                    dc.doFinal(doc, ed);
                    n++;
                }
            }
        }
        // the inline form (xmlsec1's): the EncryptedKey inside the EncryptedData's KeyInfo
        NodeList l = doc.getElementsByTagNameNS(XENC, "EncryptedData");
        List<Element> rest = new ArrayList<>();
        for (int i = 0; i < l.getLength(); i++) rest.add((Element) l.item(i));
        for (Element ed : rest) {
            XMLCipher dc = XMLCipher.getInstance();
            dc.init(XMLCipher.DECRYPT_MODE, null);
            dc.setKEK(key);
            dc.doFinal(doc, ed);
            n++;
        }
        if (n == 0) throw new IllegalArgumentException("nothing encrypted");
        return serialize(doc, out);
    }

    static String stem(String f) {
        return Dsig.stem(f);
    }

    static void line(String f, String c, String status, String why) {
        new Peers.Line(PEER, "xmlenc", f).put("case", c).put("form", "wss").put("status", status).put("reason", why).emit();
    }

    /** The xmlenc workload (one JVM, the JIT warmed over every document first) or xmlenc-cross. */
    static void run(String workload, List<String> files) throws Exception {
        Path dir = Paths.get(System.getenv("VTDX_BENCH_XMLENC_DIR"));
        XmlEnc d = new XmlEnc(dir);
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 16);
        if (workload.equals("xmlenc-cross")) {
            for (String f : files) {
                Path p = Paths.get(f);
                Peers.Line l = new Peers.Line(PEER, "xmlenc-cross", f);
                try {
                    byte[] o = d.decrypt(Files.readAllBytes(p), out);
                    Path q = dir.resolve("cross").resolve(PEER).resolve(p.getParent().getFileName() + "." + p.getFileName());
                    Files.createDirectories(q.getParent());
                    Files.write(q, o);
                    l.put("status", "ok").put("out_file", q.toString());
                } catch (Exception e) {
                    l.put("status", "error").put("reason", Peers.why(e));
                }
                l.emit();
            }
            return;
        }
        int k = files.size();
        List<byte[]> plain = new ArrayList<>(), wss = new ArrayList<>();
        for (String f : files) {
            plain.add(Files.readAllBytes(Paths.get(f)));
            wss.add(Files.readAllBytes(dir.resolve(stem(f) + ".wss.xml")));
        }
        String[] encWhy = new String[k], decWhy = new String[k];
        Path od = dir.resolve("out").resolve(PEER);
        Files.createDirectories(od);
        for (int i = 0; i < k; i++) {
            try {
                Files.write(od.resolve(stem(files.get(i)) + ".encrypt-wss.xml"), d.encrypt(plain.get(i), out));
            } catch (Exception e) {
                encWhy[i] = Peers.why(e);
            }
            try {
                Files.write(od.resolve(stem(files.get(i)) + ".decrypt-wss.xml"), d.decrypt(wss.get(i), out));
            } catch (Exception e) {
                decWhy[i] = Peers.why(e);
            }
        }
        // JIT warm-up over the whole workload, in slices of 100 ms per document (as in Dsig)
        long t0 = System.nanoTime();
        do {
            for (int i = 0; i < k; i++) {
                long s0 = System.nanoTime();
                do {
                    if (encWhy[i] == null) Peers.sink += d.encrypt(plain.get(i), out).length;
                    if (decWhy[i] == null) Peers.sink += d.decrypt(wss.get(i), out).length;
                } while (System.nanoTime() - s0 < 100_000_000L);
            }
        } while (System.nanoTime() - t0 < Peers.workloadWarmupNs);
        for (int i = 0; i < k; i++) {
            String f = files.get(i);
            final byte[] p = plain.get(i), w = wss.get(i);
            if (encWhy[i] == null) {
                byte[] o = d.encrypt(p, out);
                Peers.Stats st = Peers.measure(() -> d.encrypt(p, out).length);
                new Peers.Line(PEER, "xmlenc", f).put("case", "encrypt").put("form", "wss").stats(st, p.length)
                        .put("msgs_per_s", 1e9 / st.median).put("out_bytes", (long) o.length)
                        .put("out_file", od.resolve(stem(f) + ".encrypt-wss.xml").toString()).emit();
            } else line(f, "encrypt", "error", encWhy[i]);
            if (decWhy[i] == null) {
                byte[] o = d.decrypt(w, out);
                Peers.Stats st = Peers.measure(() -> d.decrypt(w, out).length);
                new Peers.Line(PEER, "xmlenc", f).put("case", "decrypt").put("form", "wss").stats(st, w.length)
                        .put("msgs_per_s", 1e9 / st.median).put("out_bytes", (long) o.length)
                        .put("out_file", od.resolve(stem(f) + ".decrypt-wss.xml").toString()).emit();
            } else line(f, "decrypt", "rejected", decWhy[i]);
        }
    }
}
