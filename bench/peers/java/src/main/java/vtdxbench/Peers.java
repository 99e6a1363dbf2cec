package vtdxbench;

import com.ximpleware.AutoPilot;
import com.ximpleware.VTDGen;
import com.ximpleware.VTDNav;
import com.ximpleware.XMLModifier;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathExpression;
import javax.xml.xpath.XPathFactory;

import org.w3c.dom.Document;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.w3c.dom.ls.DOMImplementationLS;
import org.w3c.dom.ls.LSOutput;
import org.w3c.dom.ls.LSSerializer;
import org.xml.sax.ErrorHandler;
import org.xml.sax.SAXParseException;

/**
 * The JVM peers of the side-by-side harness (bench/run): VTD-XML (normal and buffer-reuse mode) and
 * Xerces-J DOM (deferred and full node expansion), as in the seed's Table 1; for the dsig workload
 * Apache Santuario ({@link Dsig}).
 *
 * <p>Same command line and JSON lines as every peer (bench/src/harness.rs is the reference), plus
 * {@code --workload-warmup-ms}: before the first measurement the JIT is warmed up by running the
 * workload over all its documents for that long (the full run uses well over a second).
 */
public final class Peers {
    static final String[] XPATH_EXPRS = {
        "/*/*/*[position() mod 2 = 0]",
        "/purchaseOrder/items/item[USPrice<100]",
        "/*/*/*/quantity/text()",
        "//item/comment",
        "//item/comment/../quantity",
    };
    static final double SAMPLE_TARGET_NS = 50_000.0;
    static volatile long sink;

    // ---- options ----
    static String workload;
    static List<String> peers;
    static double warmupNs = 200e6, minNs = 500e6, maxNs = 3000e6, workloadWarmupNs = 0;
    static int minSamples = 15;
    static final List<String> files = new ArrayList<>();

    interface Op {
        long run() throws Exception;
    }

    static final class Stats {
        double median, min, p90;
        long iters, samples, batch;
    }

    static Stats measure(Op op) throws Exception {
        long t0 = System.nanoTime();
        long n = 0, acc = 0;
        while (true) {
            acc += op.run();
            n++;
            if (System.nanoTime() - t0 >= warmupNs) break;
        }
        double per = Math.max(1.0, (System.nanoTime() - t0) / (double) n);
        long batch = Math.max(1, (long) Math.ceil(SAMPLE_TARGET_NS / per));
        double[] v = new double[1024];
        int k = 0;
        long start = System.nanoTime();
        while (true) {
            long a = System.nanoTime();
            for (long i = 0; i < batch; i++) acc += op.run();
            long b = System.nanoTime();
            if (k == v.length) v = Arrays.copyOf(v, k * 2);
            v[k++] = (b - a) / (double) batch;
            long el = b - start;
            if ((k >= minSamples && el >= minNs) || (el >= maxNs && k >= 3)) break;
        }
        sink += acc;
        double[] s = Arrays.copyOf(v, k);
        Arrays.sort(s);
        Stats st = new Stats();
        st.median = k % 2 == 1 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
        st.min = s[0];
        st.p90 = s[Math.min(k - 1, (int) (k * 0.9))];
        st.iters = k * batch;
        st.samples = k;
        st.batch = batch;
        return st;
    }

    // ---- JSON lines ----
    static final class Line {
        final Map<String, Object> m = new LinkedHashMap<>();

        Line(String peer, String wl, String file) {
            m.put("peer", peer);
            m.put("workload", wl);
            m.put("file", file);
        }

        Line put(String k, Object v) {
            m.put(k, v);
            return this;
        }

        Line stats(Stats s, long bytes) {
            put("status", "ok").put("median_ns", s.median).put("min_ns", s.min).put("p90_ns", s.p90);
            put("iters", s.iters).put("samples", s.samples).put("batch", s.batch).put("bytes", bytes);
            return put("mbps", bytes * 1e3 / s.median);
        }

        void emit() {
            StringBuilder b = new StringBuilder("{");
            for (Map.Entry<String, Object> e : m.entrySet()) {
                if (b.length() > 1) b.append(',');
                str(b, e.getKey());
                b.append(':');
                Object v = e.getValue();
                if (v instanceof String) str(b, (String) v);
                else if (v instanceof Double) b.append(String.format("%.3f", (Double) v));
                else b.append(v);
            }
            System.out.println(b.append('}'));
            System.out.flush();
        }

        static void str(StringBuilder b, String s) {
            b.append('"');
            for (char c : s.toCharArray()) {
                if (c == '"' || c == '\\') b.append('\\').append(c);
                else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                else b.append(c);
            }
            b.append('"');
        }
    }

    // ---- peers ----
    abstract static class Peer {
        final String name;

        Peer(String name) {
            this.name = name;
        }

        /** One parse; returns something cheap to keep the work alive. */
        abstract long parse(byte[] x) throws Exception;

        abstract long elements(byte[] x) throws Exception;

        /** Parse + reserialize into out (reset first); returns the output size. */
        abstract int roundtrip(byte[] x, ByteArrayOutputStream out) throws Exception;

        /** Parse + precompiled XPath e + remove the selected nodes + output; returns how many were removed. */
        abstract int xpathEdit(byte[] x, int e, ByteArrayOutputStream out) throws Exception;

        /** Parses once and keeps the result (memory workload). */
        abstract Object keep(byte[] x) throws Exception;

        /** Called before each measured cell. */
        void beforeCell() {}
    }

    static final class Vtd extends Peer {
        final boolean reuse;
        VTDGen vg = new VTDGen();
        final XMLModifier xm = new XMLModifier();
        final AutoPilot[] aps = new AutoPilot[XPATH_EXPRS.length];

        Vtd(boolean reuse) throws Exception {
            super(reuse ? "vtd-xml-reuse" : "vtd-xml");
            this.reuse = reuse;
            for (int i = 0; i < aps.length; i++) {
                aps[i] = new AutoPilot();
                aps[i].selectXPath(XPATH_EXPRS[i]);
            }
        }

        /** A new VTDGen per document, so buffer-reuse mode sizes its buffers for that document (as in the seed). */
        @Override
        void beforeCell() {
            vg = new VTDGen();
        }

        VTDNav nav(byte[] x) throws Exception {
            if (reuse) vg.setDoc_BR(x);
            else vg.setDoc(x);
            vg.parse(true);
            return vg.getNav();
        }

        long parse(byte[] x) throws Exception {
            return nav(x).getTokenCount();
        }

        long elements(byte[] x) throws Exception {
            VTDNav vn = nav(x);
            long n = 0;
            for (int i = 0; i < vn.getTokenCount(); i++)
                if (vn.getTokenType(i) == VTDNav.TOKEN_STARTING_TAG) n++;
            return n;
        }

        int roundtrip(byte[] x, ByteArrayOutputStream out) throws Exception {
            VTDNav vn = nav(x);
            out.reset();
            vn.dumpXML(out); // VTD-XML writes the bytes it indexed: nothing to reserialize
            return out.size();
        }

        int xpathEdit(byte[] x, int e, ByteArrayOutputStream out) throws Exception {
            VTDNav vn = nav(x);
            AutoPilot ap = aps[e];
            ap.bind(vn);
            xm.bind(vn);
            int n = 0, i;
            while ((i = ap.evalXPath()) != -1) {
                if (vn.getTokenType(i) == VTDNav.TOKEN_STARTING_TAG) xm.remove();
                else xm.removeToken(i);
                n++;
            }
            ap.resetXPath();
            out.reset();
            xm.output(out);
            return n;
        }

        Object keep(byte[] x) throws Exception {
            VTDGen g = new VTDGen();
            g.setDoc(x);
            g.parse(true);
            return g.getNav();
        }
    }

    static final class Xerces extends Peer {
        final DocumentBuilder db;
        final DOMImplementationLS ls;
        final LSSerializer ser;
        final XPathExpression[] xps = new XPathExpression[XPATH_EXPRS.length];

        Xerces(boolean deferred) throws Exception {
            super(deferred ? "xerces-deferred" : "xerces-full");
            DocumentBuilderFactory f = new org.apache.xerces.jaxp.DocumentBuilderFactoryImpl();
            f.setNamespaceAware(true);
            f.setFeature("http://apache.org/xml/features/dom/defer-node-expansion", deferred);
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            db = f.newDocumentBuilder();
            db.setErrorHandler(new ErrorHandler() {
                public void warning(SAXParseException e) {}

                public void error(SAXParseException e) {}

                public void fatalError(SAXParseException e) throws SAXParseException {
                    throw e;
                }
            });
            ls = (DOMImplementationLS) db.getDOMImplementation();
            ser = ls.createLSSerializer();
            XPathFactory xf = XPathFactory.newInstance();
            for (int i = 0; i < xps.length; i++) xps[i] = xf.newXPath().compile(XPATH_EXPRS[i]);
        }

        Document doc(byte[] x) throws Exception {
            return db.parse(new ByteArrayInputStream(x));
        }

        long parse(byte[] x) throws Exception {
            return doc(x).hashCode();
        }

        static long count(Node n) {
            long c = n.getNodeType() == Node.ELEMENT_NODE ? 1 : 0;
            for (Node k = n.getFirstChild(); k != null; k = k.getNextSibling()) c += count(k);
            return c;
        }

        long elements(byte[] x) throws Exception {
            return count(doc(x));
        }

        void write(Document d, ByteArrayOutputStream out) {
            out.reset();
            LSOutput o = ls.createLSOutput();
            o.setByteStream(out);
            ser.write(d, o);
        }

        int roundtrip(byte[] x, ByteArrayOutputStream out) throws Exception {
            write(doc(x), out);
            return out.size();
        }

        int xpathEdit(byte[] x, int e, ByteArrayOutputStream out) throws Exception {
            Document d = doc(x);
            NodeList nl = (NodeList) xps[e].evaluate(d, XPathConstants.NODESET);
            int n = nl.getLength();
            for (int i = 0; i < n; i++) {
                Node k = nl.item(i);
                k.getParentNode().removeChild(k);
            }
            write(d, out);
            return n;
        }

        Object keep(byte[] x) throws Exception {
            return doc(x);
        }
    }

    static Peer make(String name) throws Exception {
        switch (name) {
            case "vtd-xml": return new Vtd(false);
            case "vtd-xml-reuse": return new Vtd(true);
            case "xerces-deferred": return new Xerces(true);
            case "xerces-full": return new Xerces(false);
            default: throw new IllegalArgumentException("unknown peer " + name);
        }
    }

    static final String[] ALL = {"vtd-xml", "vtd-xml-reuse", "xerces-deferred", "xerces-full"};

    static String why(Throwable t) {
        String m = t.getMessage();
        return t.getClass().getSimpleName() + (m == null ? "" : ": " + m.trim());
    }

    static long vmHwm() throws Exception {
        for (String l : Files.readAllLines(Paths.get("/proc/self/status")))
            if (l.startsWith("VmHWM:")) return Long.parseLong(l.substring(6).trim().split("\\s+")[0]) * 1024;
        return 0;
    }

    static long heapUsed() {
        Runtime r = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) System.gc();
        return r.totalMemory() - r.freeMemory();
    }

    public static void main(String[] argv) throws Exception {
        workload = argv[0];
        for (int i = 1; i < argv.length; i++) {
            String a = argv[i];
            if (a.startsWith("--")) {
                String v = argv[++i];
                switch (a) {
                    case "--peers": peers = Arrays.asList(v.split(",")); break;
                    case "--warmup-ms": warmupNs = Double.parseDouble(v) * 1e6; break;
                    case "--min-ms": minNs = Double.parseDouble(v) * 1e6; break;
                    case "--max-ms": maxNs = Double.parseDouble(v) * 1e6; break;
                    case "--min-samples": minSamples = Math.max(1, Integer.parseInt(v)); break;
                    case "--workload-warmup-ms": workloadWarmupNs = Double.parseDouble(v) * 1e6; break;
                    default: throw new IllegalArgumentException("unknown option " + a);
                }
            } else files.add(a);
        }
        if (workload.equals("versions")) {
            String vtd = new java.io.File(VTDGen.class.getProtectionDomain().getCodeSource().getLocation().getPath()).getName();
            String jvm = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
            String xp = XPathFactory.newInstance().getClass().getName();
            for (String p : ALL) {
                Line l = new Line(p, "versions", "").put("jvm", jvm);
                if (p.startsWith("vtd")) l.put("version", vtd.replace("vtd-xml-", "").replace(".jar", "")).put("jar", vtd);
                else l.put("version", org.apache.xerces.impl.Version.getVersion().replace("Xerces-J ", "")).put("xpath", xp);
                l.emit();
            }
            Dsig.versions();
            return;
        }
        if (workload.equals("dsig")) { // Apache Santuario: Dsig.java
            Dsig.run(files);
            return;
        }
        if (workload.equals("validate")) { // Xerces-J and the JDK's validator: Validate.java
            Validate.run(files);
            return;
        }
        if (workload.startsWith("xmlenc")) { // Apache Santuario's XMLCipher: XmlEnc.java
            XmlEnc.run(workload, files);
            return;
        }
        if (workload.equals("binary")) { // EXI with EXIficient: Exi.java
            Exi.run(files);
            return;
        }
        List<byte[]> docs = new ArrayList<>();
        for (String f : files) docs.add(Files.readAllBytes(Paths.get(f)));
        for (String name : ALL) {
            if (peers != null && !peers.contains(name)) continue;
            Peer p = make(name);
            run(p, docs);
        }
    }

    static List<byte[]> split(byte[] bundle) {
        List<byte[]> v = new ArrayList<>();
        int i = 0;
        while (i < bundle.length) {
            int j = i;
            while (j < bundle.length && bundle[j] != 0) j++;
            if (j > i) v.add(Arrays.copyOfRange(bundle, i, j));
            i = j + 1;
        }
        return v;
    }

    static void run(Peer p, List<byte[]> docs) throws Exception {
        String w = workload;
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 16);
        if (w.equals("memory")) {
            if (docs.size() != 1) throw new IllegalArgumentException("memory takes one file");
            byte[] x = docs.get(0);
            long base = vmHwm(), heap0 = heapUsed();
            Object keep;
            try {
                keep = p.keep(x);
            } catch (Exception e) {
                new Line(p.name, w, files.get(0)).put("status", "rejected").put("reason", why(e)).emit();
                return;
            }
            long peak = vmHwm(), heap1 = heapUsed();
            new Line(p.name, w, files.get(0)).put("status", "ok").put("bytes", (long) x.length).put("base_rss", base)
                    .put("peak_rss", peak).put("rss_delta_bytes", Math.max(0, peak - base))
                    .put("delta_bytes", Math.max(0, heap1 - heap0)).put("measure", "retained Java heap after GC")
                    .emit();
            sink += keep.hashCode();
            return;
        }
        // Which documents this peer accepts (a blank cell with the reason for the others).
        boolean[] ok = new boolean[docs.size()];
        long[] elems = new long[docs.size()];
        List<List<byte[]>> bundles = new ArrayList<>();
        for (int d = 0; d < docs.size(); d++) {
            String f = files.get(d);
            try {
                if (w.equals("many")) {
                    List<byte[]> msgs = split(docs.get(d));
                    for (byte[] m : msgs) elems[d] += p.elements(m);
                    bundles.add(msgs);
                } else {
                    elems[d] = p.elements(docs.get(d));
                    bundles.add(null);
                }
                ok[d] = true;
            } catch (Exception e) {
                bundles.add(null);
                if (w.equals("xpath")) {
                    for (int i = 0; i < XPATH_EXPRS.length; i++)
                        new Line(p.name, w, f).put("expr", (long) i + 1).put("xpath", XPATH_EXPRS[i]).put("status", "rejected").put("reason", why(e)).emit();
                } else new Line(p.name, w, f).put("status", "rejected").put("reason", why(e)).emit();
            }
        }
        // JIT warm-up over the whole workload.
        long t0 = System.nanoTime();
        do {
            for (int d = 0; d < docs.size(); d++) {
                if (!ok[d]) continue;
                byte[] x = docs.get(d);
                switch (w) {
                    case "parse": sink += p.parse(x); break;
                    case "roundtrip": sink += p.roundtrip(x, out); break;
                    case "xpath": for (int e = 0; e < XPATH_EXPRS.length; e++) sink += p.xpathEdit(x, e, out); break;
                    case "many": for (byte[] m : bundles.get(d)) sink += p.parse(m); break;
                    default: throw new IllegalArgumentException("unknown workload " + w);
                }
            }
        } while (System.nanoTime() - t0 < workloadWarmupNs);
        for (int d = 0; d < docs.size(); d++) {
            if (!ok[d]) continue;
            final byte[] x = docs.get(d);
            String f = files.get(d);
            p.beforeCell();
            switch (w) {
                case "parse": {
                    Stats s = measure(() -> p.parse(x));
                    new Line(p.name, w, f).stats(s, x.length).put("elements", elems[d]).emit();
                    break;
                }
                case "roundtrip": {
                    int n = p.roundtrip(x, out);
                    byte[] o = out.toByteArray();
                    Line l = new Line(p.name, w, f);
                    Stats s = measure(() -> p.roundtrip(x, out));
                    l.stats(s, x.length).put("out_bytes", (long) n).put("identical", Arrays.equals(o, x));
                    try {
                        l.put("out_elements", p.elements(o));
                    } catch (Exception e) {
                        l.put("reparse_error", why(e));
                    }
                    l.emit();
                    break;
                }
                case "xpath": {
                    for (int e = 0; e < XPATH_EXPRS.length; e++) {
                        final int ex = e;
                        Line l = new Line(p.name, w, f).put("expr", (long) e + 1).put("xpath", XPATH_EXPRS[e]);
                        int sel;
                        try {
                            sel = p.xpathEdit(x, e, out);
                        } catch (Exception err) {
                            l.put("status", "error").put("reason", why(err)).emit();
                            continue;
                        }
                        byte[] o = out.toByteArray();
                        Stats s = measure(() -> p.xpathEdit(x, ex, out));
                        l.stats(s, x.length).put("selected", (long) sel).put("out_bytes", (long) o.length);
                        try {
                            l.put("out_elements", p.elements(o));
                        } catch (Exception err) {
                            l.put("reparse_error", why(err));
                        }
                        l.emit();
                    }
                    break;
                }
                case "many": {
                    final List<byte[]> msgs = bundles.get(d);
                    long total = 0;
                    for (byte[] m : msgs) total += m.length;
                    Stats s = measure(() -> {
                        long a = 0;
                        for (byte[] m : msgs) a += p.parse(m);
                        return a;
                    });
                    new Line(p.name, w, f).stats(s, total).put("messages", (long) msgs.size())
                            .put("msgs_per_s", msgs.size() * 1e9 / s.median).put("elements", elems[d]).emit();
                    break;
                }
                default:
                    throw new IllegalArgumentException("unknown workload " + w);
            }
        }
    }
}
