package vtdxbench;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import javax.xml.parsers.SAXParserFactory;

import org.xml.sax.Attributes;
import org.xml.sax.InputSource;
import org.xml.sax.XMLReader;
import org.xml.sax.helpers.DefaultHandler;

import com.siemens.ct.exi.core.CodingMode;
import com.siemens.ct.exi.core.EXIFactory;
import com.siemens.ct.exi.core.helpers.DefaultEXIFactory;
import com.siemens.ct.exi.grammars.GrammarFactory;
import com.siemens.ct.exi.main.api.sax.SAXEncoder;
import com.siemens.ct.exi.main.api.sax.SAXFactory;

/**
 * The binary workload's JVM peer: EXI (Efficient XML Interchange) with EXIficient, default options
 * (no comments, processing instructions, DTD, prefixes or lexical forms preserved: EXI's default
 * fidelity), one JVM, the JIT warmed over every document and case first.
 *
 * <p>Peers: {@code exi} (schema-less, bit-packed: EXIficient's default), {@code exi-compression}
 * (schema-less, EXI's compression coding mode) and {@code exi-schema} (schema-informed, bit-packed,
 * with the schema named by $VTDX_BENCH_EXI_XSD, for the purchase orders only: every other document
 * gets a skip line). Cases: {@code encode} (the XML text parsed by a namespace-aware SAX parser,
 * reused, straight into a reused EXI encoder: what producing EXI from XML text costs) and {@code
 * decode} (the EXI bytes into SAX events, elements counted, no text written); in compression mode
 * EXIficient's encoder and decoder cannot be reused (it closes its Deflater), so they are made anew
 * for each document, inside the timed operation. A FILE ending in
 * {@code .bin} is a NUL-separated stream of messages: each is encoded on its own (EXI has no
 * state kept from one document to the next), one operation is all of them. Every line has
 * {@code bytes} (the XML text, so MB/s are of text equivalent), {@code out_bytes} / {@code
 * in_bytes} (the EXI size) and, for decode, {@code elements} for the driver's cross-check.
 */
final class Exi {
    static final String[] PEERS = {"exi", "exi-compression", "exi-schema"};
    static final String WORKLOAD = "binary";

    /** One EXI configuration with its reused SAX parser, encoder and decoder. */
    static final class Codec {
        final String name;
        final SAXFactory sf;
        /** EXIficient's compression mode closes its Deflater at the end of a document: a new encoder and decoder each time. */
        final boolean fresh;
        final XMLReader xml;
        SAXEncoder enc;
        XMLReader dec;
        final ElementCounter counter = new ElementCounter();
        final ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 16);

        Codec(String name, EXIFactory f) throws Exception {
            this.name = name;
            sf = new SAXFactory(f);
            fresh = f.getCodingMode() == CodingMode.COMPRESSION;
            enc = sf.createEXIWriter();
            dec = sf.createEXIReader();
            dec.setContentHandler(counter);
            SAXParserFactory spf = SAXParserFactory.newInstance();
            spf.setNamespaceAware(true);
            xml = spf.newSAXParser().getXMLReader();
            // nothing external is fetched: no external DTD subset
            xml.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            xml.setContentHandler(enc);
        }

        byte[] encode(byte[] x) throws Exception {
            encodeSize(x);
            return out.toByteArray();
        }

        /** Encodes into the reused buffer and returns the size (the timed operation). */
        long encodeSize(byte[] x) throws Exception {
            if (fresh) {
                enc = sf.createEXIWriter();
                xml.setContentHandler(enc);
            }
            out.reset();
            enc.setOutputStream(out);
            xml.parse(new InputSource(new ByteArrayInputStream(x)));
            return out.size();
        }

        long decode(byte[] e) throws Exception {
            if (fresh) {
                dec = sf.createEXIReader();
                dec.setContentHandler(counter);
            }
            counter.n = 0;
            dec.parse(new InputSource(new ByteArrayInputStream(e)));
            return counter.n;
        }
    }

    static final class ElementCounter extends DefaultHandler {
        long n;

        @Override
        public void startElement(String uri, String local, String qname, Attributes atts) {
            n++;
        }
    }

    static String version() {
        String jar = new java.io.File(GrammarFactory.class.getProtectionDomain().getCodeSource().getLocation().getPath()).getName();
        return jar.replace("exificient-grammars-", "").replace(".jar", "");
    }

    static Codec make(String name) throws Exception {
        EXIFactory f = DefaultEXIFactory.newInstance();
        switch (name) {
            case "exi": break;
            case "exi-compression": f.setCodingMode(CodingMode.COMPRESSION); break;
            case "exi-schema": {
                String xsd = System.getenv("VTDX_BENCH_EXI_XSD");
                if (xsd == null || xsd.isEmpty()) return null;
                f.setGrammars(GrammarFactory.newInstance().createGrammars(xsd));
                break;
            }
            default: throw new IllegalArgumentException("unknown peer " + name);
        }
        return new Codec(name, f);
    }

    /** exi-schema is for the purchase orders only: the schema is theirs. */
    static boolean applies(String peer, String file) {
        return !peer.equals("exi-schema") || Paths.get(file).getFileName().toString().startsWith("po_");
    }

    /** The binary workload: every peer asked for, on every file. */
    static void run(List<String> files) throws Exception {
        List<List<byte[]>> docs = new ArrayList<>();
        for (String f : files) {
            byte[] b = Files.readAllBytes(Paths.get(f));
            docs.add(f.endsWith(".bin") ? Peers.split(b) : Arrays.asList(b));
        }
        String ver = version();
        for (String name : PEERS) {
            if (Peers.peers != null && !Peers.peers.contains(name)) continue;
            Codec c = make(name);
            int n = files.size();
            // the check (and the encoded bytes every decode starts from): each document encoded once by a
            // fresh encoder and once by the reused one, the two identical, then decoded
            List<List<byte[]>> enc = new ArrayList<>();
            String[] why = new String[n];
            String[] status = new String[n];
            long[] elems = new long[n];
            for (int i = 0; i < n; i++) {
                enc.add(null);
                String f = files.get(i);
                if (c == null) {
                    status[i] = "skip";
                    why[i] = "no schema: $VTDX_BENCH_EXI_XSD is not set";
                    continue;
                }
                if (!applies(name, f)) {
                    status[i] = "skip";
                    why[i] = "schema-informed EXI only for the purchase orders (testdata/schema/po.xsd); the corpus has no schema for this document";
                    continue;
                }
                try {
                    List<byte[]> e = new ArrayList<>();
                    for (byte[] m : docs.get(i)) {
                        byte[] a = make(name).encode(m);
                        byte[] b = c.encode(m);
                        if (!Arrays.equals(a, b)) throw new IllegalStateException("a reused encoder wrote other bytes than a new one");
                        elems[i] += c.decode(b);
                        e.add(b);
                    }
                    enc.set(i, e);
                } catch (Exception e) {
                    status[i] = "rejected";
                    why[i] = Peers.why(e);
                }
            }
            // JIT warm-up over the whole workload (both cases, every document)
            long t0 = System.nanoTime();
            do {
                for (int i = 0; i < n; i++) {
                    if (enc.get(i) == null) continue;
                    for (byte[] m : docs.get(i)) Peers.sink += c.encodeSize(m);
                    for (byte[] e : enc.get(i)) Peers.sink += c.decode(e);
                }
            } while (System.nanoTime() - t0 < Peers.workloadWarmupNs);
            for (int i = 0; i < n; i++) {
                String f = files.get(i);
                if (enc.get(i) == null) {
                    for (String cs : new String[] {"encode", "decode"})
                        new Peers.Line(name, WORKLOAD, f).put("case", cs).put("status", status[i]).put("reason", why[i]).emit();
                    continue;
                }
                List<byte[]> ms = docs.get(i), es = enc.get(i);
                long text = 0, size = 0;
                for (byte[] m : ms) text += m.length;
                for (byte[] e : es) size += e.length;
                boolean stream = f.endsWith(".bin");
                Peers.Stats st = Peers.measure(() -> {
                    long s = 0;
                    for (byte[] m : ms) s += c.encodeSize(m);
                    return s;
                });
                line(name, f, "encode", st, text, ms.size(), stream).put("out_bytes", size).put("exificient", ver).emit();
                st = Peers.measure(() -> {
                    long s = 0;
                    for (byte[] e : es) s += c.decode(e);
                    return s;
                });
                line(name, f, "decode", st, text, ms.size(), stream).put("in_bytes", size).put("elements", elems[i])
                        .put("exificient", ver).emit();
            }
        }
    }

    static Peers.Line line(String peer, String f, String cs, Peers.Stats st, long text, int msgs, boolean stream) {
        Peers.Line l = new Peers.Line(peer, WORKLOAD, f).put("case", cs).stats(st, text);
        if (stream) l.put("messages", (long) msgs).put("msgs_per_s", msgs * 1e9 / st.median).put("ns_per_msg", st.median / msgs);
        return l;
    }
}
