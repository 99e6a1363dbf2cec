package vtdxbench;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.Source;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.Validator;

import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.ls.LSInput;
import org.w3c.dom.ls.LSResourceResolver;
import org.xml.sax.ErrorHandler;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * The W3C XML Schema Test Suite (XSD 1.0 subset in {@code $VTDX_CORPUS/xsd}) through Apache Xerces-J 2.12.2's
 * {@code org.apache.xerces.jaxp.validation.XMLSchemaFactory} (XSD 1.0), with the selection and verdict rule of
 * {@code cargo run -p vtdx-conformance --bin xsd} (conformance/src/bin/xsd.rs) and of conformance/xsd-peers.sh.
 *
 * <pre>
 * java -cp 'bench/out/java/target/jvm-peers-0.1.0.jar:bench/out/java/lib/*' vtdxbench.XsdSuite CORPUS/xsd [--failures FILE] [--filter SUBSTR]
 * </pre>
 *
 * <p>Catalogs: {@code msMeta/*_w3c.xml}, {@code sunMeta/*.testSet}, {@code boeingMeta/*.testSet},
 * {@code wgMeta/{IRI,substitution-groups}.testSet}. Items marked only for XSD 1.1 are skipped; of several
 * {@code expected} elements the one for XSD 1.0 (or without a version; for Unicode-dependent tests the Unicode 6.0.0
 * one) is used; {@code indeterminate} results, missing instance files and tests whose review status is neither
 * {@code accepted}, {@code stable} nor absent are left out. A schema test passes when Xerces compiles exactly the
 * schemas the suite calls valid (an error reported while compiling is a rejection, a warning is not); an instance
 * test when Xerces's verdict on the instance (validated against the group's schema; when the group has none, against
 * what the instance's {@code xsi:schemaLocation} / {@code xsi:noNamespaceSchemaLocation} hints name, as vtdx's runner
 * does) matches. An instance of a schema Xerces rejects counts as invalid. Several schema documents of one test make
 * one schema through {@code SchemaFactory.newSchema(Source[])} (a wrapper schema importing or including each of them,
 * as xsd-peers.sh gives xmllint, with {@code honour-all-schemaLocations}, gave the same verdicts on 2026-11-27).
 *
 * <p>Nothing is fetched from the network: schema and DTD locations are resolved (an {@link LSResourceResolver} on
 * the factory and on each validator) only to files under the suite's directory; any other location reads as a
 * document that cannot be opened (what a refused connection gives), and http:, https: and ftp: URLs are refused in
 * the whole JVM besides. A case that takes longer than 30 s fails; so does one that throws an {@link Error} (stack
 * overflow, out of memory).
 */
public final class XsdSuite {
    static final String TS = "http://www.w3.org/XML/2004/xml-schema-test-suite/";
    static final String XLINK = "http://www.w3.org/1999/xlink";
    /** Binding cases the selection finds in the corpus (the total xsd-peers.sh prints). */
    static final int EXPECTED_CASES = 15_984;
    static final long TIMEOUT_MS = 30_000;

    /** Locations refused: outside the suite's directory (resolver) or a network URL (stream handlers). */
    static final AtomicInteger refusedLocal = new AtomicInteger();
    static final AtomicInteger refusedNet = new AtomicInteger();
    static final java.util.Set<String> refused = java.util.Collections.synchronizedSet(new java.util.TreeSet<>());

    record Case(String id, String set, boolean schema, List<Path> docs, Path instance, boolean valid) {}

    static final String[] SETS = {"ms", "sun", "boeing", "wg"};

    // ---- catalogs ----

    static List<Element> tsChildren(Element e, String local) {
        List<Element> out = new ArrayList<>();
        for (Node c = e.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element el && TS.equals(el.getNamespaceURI()) && local.equals(el.getLocalName())) out.add(el);
        }
        return out;
    }

    static String[] tokens(String s) {
        String t = s.trim();
        return t.isEmpty() ? new String[0] : t.split("\\s+");
    }

    /** Marked for XSD 1.1 only. */
    static boolean skip11(Element e) {
        if (!e.hasAttribute("version")) return false;
        boolean any11 = false, has10 = false;
        for (String t : tokens(e.getAttribute("version"))) {
            any11 |= t.startsWith("1.1");
            has10 |= t.equals("1.0");
        }
        return any11 && !has10;
    }

    /** The expected validity for XSD 1.0: TRUE, FALSE, or null (skip). */
    static Boolean expected(Element e) {
        int bestRank = Integer.MAX_VALUE;
        String best = null;
        for (Element x : tsChildren(e, "expected")) {
            int rank;
            if (!x.hasAttribute("version")) {
                rank = 1;
            } else {
                String v = x.getAttribute("version");
                String[] toks = tokens(v);
                boolean has10 = false, all11 = true;
                for (String t : toks) {
                    has10 |= t.equals("1.0");
                    all11 &= t.startsWith("1.1");
                }
                if (has10) rank = 0;
                else if (v.contains("Unicode_6")) rank = 2;
                else if (all11) continue;
                else rank = 3;
            }
            if (rank < bestRank) {
                bestRank = rank;
                best = x.getAttribute("validity");
            }
        }
        if ("valid".equals(best)) return Boolean.TRUE;
        if ("invalid".equals(best)) return Boolean.FALSE;
        return null;
    }

    static boolean binding(Element e) {
        List<Element> cur = tsChildren(e, "current");
        if (cur.isEmpty() || !cur.get(0).hasAttribute("status")) return true;
        String s = cur.get(0).getAttribute("status");
        return s.equals("accepted") || s.equals("stable");
    }

    static Path href(Path base, Element e) {
        String h = e.getAttributeNS(XLINK, "href");
        return base.resolve(h).normalize();
    }

    static void readCatalog(DocumentBuilder db, Path path, String set, List<Case> out) throws Exception {
        Element root = db.parse(path.toFile()).getDocumentElement();
        Path base = path.getParent();
        String stem = path.getFileName().toString();
        for (Element g : tsChildren(root, "testGroup")) {
            if (skip11(g)) continue;
            String gname = g.getAttribute("name");
            List<Element> sts = tsChildren(g, "schemaTest");
            List<Path> docs = new ArrayList<>();
            if (!sts.isEmpty()) {
                Element st = sts.get(0);
                for (Element d : tsChildren(st, "schemaDocument")) docs.add(href(base, d));
                Boolean v = expected(st);
                if (!skip11(st) && v != null && binding(st)) {
                    out.add(new Case(stem + ":" + gname + ":" + st.getAttribute("name"), set, true, docs, null, v));
                }
            }
            for (Element it : tsChildren(g, "instanceTest")) {
                Boolean v = expected(it);
                if (skip11(it) || v == null || !binding(it)) continue;
                List<Element> ids = tsChildren(it, "instanceDocument");
                if (ids.isEmpty()) continue;
                Path inst = href(base, ids.get(0));
                // wgMeta/substitution-groups names five files missing upstream (PROVENANCE.md).
                if (!Files.exists(inst)) continue;
                out.add(new Case(stem + ":" + gname + ":" + it.getAttribute("name"), set, false, docs, inst, v));
            }
        }
    }

    static List<Path> list(Path dir, java.util.function.Predicate<String> pred) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> pred.test(p.getFileName().toString())).sorted().toList();
        }
    }

    // ---- no network, local files of the suite only ----

    /** Refuses http:, https: and ftp: URLs everywhere in this JVM (file: cannot be overridden and stays). */
    static void refuseNetwork() {
        URL.setURLStreamHandlerFactory(protocol -> {
            if (!protocol.equals("http") && !protocol.equals("https") && !protocol.equals("ftp")) return null;
            return new URLStreamHandler() {
                @Override
                protected URLConnection openConnection(URL u) throws IOException {
                    refusedNet.incrementAndGet();
                    refused.add(u.toString());
                    throw new IOException("network access refused: " + u);
                }
            };
        });
    }

    static final class Input implements LSInput {
        String systemId, publicId, baseURI;
        InputStream bytes;

        public java.io.Reader getCharacterStream() { return null; }
        public void setCharacterStream(java.io.Reader r) {}
        public InputStream getByteStream() { return bytes; }
        public void setByteStream(InputStream b) { bytes = b; }
        public String getStringData() { return null; }
        public void setStringData(String s) {}
        public String getSystemId() { return systemId; }
        public void setSystemId(String s) { systemId = s; }
        public String getPublicId() { return publicId; }
        public void setPublicId(String s) { publicId = s; }
        public String getBaseURI() { return baseURI; }
        public void setBaseURI(String s) { baseURI = s; }
        public String getEncoding() { return null; }
        public void setEncoding(String s) {}
        public boolean getCertifiedText() { return false; }
        public void setCertifiedText(boolean b) {}
    }

    /** Resolves schema and DTD locations to files under {@code root}; refuses the rest. */
    static final class LocalOnly implements LSResourceResolver {
        final Path root;

        LocalOnly(Path root) {
            this.root = root;
        }

        public LSInput resolveResource(String type, String ns, String publicId, String systemId, String baseURI) {
            if (systemId == null) return null; // nothing to open (an import without schemaLocation)
            Input in = new Input();
            in.publicId = publicId;
            in.baseURI = baseURI;
            URI u;
            try {
                URI s = new URI(systemId.replace(" ", "%20"));
                u = s.isAbsolute() || baseURI == null ? s : new URI(baseURI.replace(" ", "%20")).resolve(s);
            } catch (Exception e) {
                u = null;
            }
            if (u != null && "file".equals(u.getScheme())) {
                try {
                    Path p = Paths.get(u).normalize();
                    if (p.startsWith(root)) {
                        in.systemId = p.toUri().toString();
                        return in; // Xerces opens the local file itself
                    }
                } catch (Exception e) {
                    // not a usable file URI: refused below
                }
            }
            if (u == null || !"file".equals(u.getScheme())) refusedNet.incrementAndGet();
            else refusedLocal.incrementAndGet();
            in.systemId = u != null ? u.toString() : systemId;
            refused.add(in.systemId);
            String where = in.systemId;
            in.bytes = new InputStream() {
                @Override
                public int read() throws IOException {
                    throw new IOException("refused (not a local file of the suite): " + where);
                }
            };
            return in;
        }
    }

    /** Stops at the first error; warnings do not count. */
    static final class FirstError implements ErrorHandler {
        public void warning(SAXParseException e) {}

        public void error(SAXParseException e) throws SAXException {
            throw e;
        }

        public void fatalError(SAXParseException e) throws SAXException {
            throw e;
        }
    }

    // ---- Xerces ----

    final LocalOnly resolver;
    /** Compiled schemas by their documents: a Schema, or the error message that rejected them. */
    final Map<List<Path>, Object> cache = new HashMap<>();

    XsdSuite(Path root) {
        this.resolver = new LocalOnly(root);
    }

    SchemaFactory factory() {
        SchemaFactory f = new org.apache.xerces.jaxp.validation.XMLSchemaFactory();
        f.setResourceResolver(resolver);
        f.setErrorHandler(new FirstError());
        return f;
    }

    /** A Schema, or a String: why Xerces rejects these documents (several documents: one schema, JAXP's way). */
    Object compile(List<Path> docs) {
        try {
            Source[] srcs = docs.stream().map(d -> new StreamSource(d.toFile())).toArray(Source[]::new);
            return factory().newSchema(srcs);
        } catch (SAXException e) {
            return oneLine(e);
        }
    }

    static String oneLine(Exception e) {
        String m = String.valueOf(e.getMessage()).replace('\n', ' ');
        return m.length() > 200 ? m.substring(0, 200) + "…" : m;
    }

    /** Xerces's verdict on one case, and the first error ("" when it accepts). */
    Object[] run(Case c) throws Exception {
        if (c.schema) {
            Object s = cache.computeIfAbsent(c.docs, this::compile);
            return s instanceof Schema ? new Object[] {true, ""} : new Object[] {false, s};
        }
        Schema schema;
        if (c.docs.isEmpty()) {
            schema = factory().newSchema(); // the instance's schema location hints
        } else {
            Object s = cache.computeIfAbsent(c.docs, this::compile);
            if (!(s instanceof Schema)) return new Object[] {false, "schema rejected: " + s};
            schema = (Schema) s;
        }
        Validator v = schema.newValidator();
        v.setResourceResolver(resolver);
        v.setErrorHandler(new FirstError());
        try {
            v.validate(new StreamSource(c.instance.toFile()));
            return new Object[] {true, ""};
        } catch (SAXException e) {
            return new Object[] {false, oneLine(e)};
        }
    }

    /** One worker thread runs the cases, so that a case can be given up after TIMEOUT_MS. */
    static final class Worker extends Thread {
        final SynchronousQueue<Object[]> in = new SynchronousQueue<>();
        final SynchronousQueue<Object[]> out = new SynchronousQueue<>();
        final XsdSuite suite;

        Worker(XsdSuite suite) {
            super(null, null, "xsd-worker", 256L << 20); // a deep stack: Xerces recurses over nested models
            this.suite = suite;
            setDaemon(true);
        }

        @Override
        public void run() {
            try {
                while (true) {
                    Case c = (Case) in.take()[0];
                    Object[] r;
                    try {
                        r = suite.run(c);
                    } catch (Exception e) {
                        r = new Object[] {false, "exception: " + oneLine(e)};
                    } catch (Error e) {
                        r = new Object[] {null, "crash: " + e};
                    }
                    out.put(r);
                }
            } catch (InterruptedException e) {
                // given up
            }
        }
    }

    @SuppressWarnings({"removal", "deprecation"})
    public static void main(String[] args) throws Exception {
        Path corpus = null;
        String failures = null, filter = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--failures" -> failures = args[++i];
                case "--filter" -> filter = args[++i];
                default -> corpus = Paths.get(args[i]);
            }
        }
        if (corpus == null || !Files.isDirectory(corpus.resolve("msMeta"))) {
            System.err.println("usage: XsdSuite CORPUS/xsd [--failures FILE] [--filter SUBSTR] (no msMeta in " + corpus + ")");
            System.exit(2);
        }
        corpus = corpus.toAbsolutePath().normalize().toRealPath();
        refuseNetwork();
        List<Object[]> cats = new ArrayList<>();
        for (Path p : list(corpus.resolve("msMeta"), n -> n.endsWith("_w3c.xml"))) cats.add(new Object[] {p, "ms"});
        for (Path p : list(corpus.resolve("sunMeta"), n -> n.endsWith(".testSet"))) cats.add(new Object[] {p, "sun"});
        for (Path p : list(corpus.resolve("boeingMeta"), n -> n.endsWith(".testSet"))) cats.add(new Object[] {p, "boeing"});
        for (String n : new String[] {"IRI.testSet", "substitution-groups.testSet"}) {
            cats.add(new Object[] {corpus.resolve("wgMeta").resolve(n), "wg"});
        }
        DocumentBuilderFactory dbf = DocumentBuilderFactory.newInstance();
        dbf.setNamespaceAware(true);
        DocumentBuilder db = dbf.newDocumentBuilder();
        List<Case> cases = new ArrayList<>();
        for (Object[] c : cats) readCatalog(db, (Path) c[0], (String) c[1], cases);
        if (filter == null && cases.size() != EXPECTED_CASES) {
            System.err.println("xerces: found " + cases.size() + " binding cases; expected " + EXPECTED_CASES + " (did the corpus move?)");
            System.exit(2);
        }
        if (filter != null) {
            String f = filter;
            cases = cases.stream().filter(c -> c.id.contains(f)).toList();
        }

        XsdSuite suite = new XsdSuite(corpus);
        long t0 = System.nanoTime();
        // (set, schema?) -> {passed, total}
        Map<String, int[]> tally = new TreeMap<>();
        int[] hints = new int[3]; // instance cases without a schema of their group: passed, total, expected invalid
        Map<String, String> failed = new TreeMap<>();
        Worker w = new Worker(suite);
        w.start();
        for (Case c : cases) {
            w.in.put(new Object[] {c});
            Object[] r = w.out.poll(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            if (r == null) {
                w.interrupt();
                w.stop(); // Xerces cannot be interrupted; the case is given up and its state dropped
                suite.cache.remove(c.docs);
                r = new Object[] {null, "timeout (" + TIMEOUT_MS / 1000 + " s)"};
                w = new Worker(suite);
                w.start();
            }
            Boolean verdict = (Boolean) r[0];
            boolean ok = verdict != null && verdict == c.valid;
            int[] t = tally.computeIfAbsent(c.set + (c.schema ? ":schema" : ":instance"), k -> new int[2]);
            t[1]++;
            if (ok) t[0]++;
            if (!c.schema && c.docs.isEmpty()) {
                hints[1]++;
                if (ok) hints[0]++;
                if (!c.valid) hints[2]++;
            }
            if (!ok) {
                String what = c.valid ? "expected valid, Xerces rejects" : "expected invalid, Xerces accepts";
                if (verdict == null) what = "Xerces gives no verdict";
                String note = (String) r[1];
                failed.put(c.id, note.isEmpty() ? what : what + ": " + note);
            }
        }
        double took = (System.nanoTime() - t0) / 1e9;

        System.out.printf("%-8s %-9s %6s %9s%n", "set", "kind", "cases", "xerces");
        int pass = 0, total = 0;
        for (String s : SETS) {
            for (String k : new String[] {"schema", "instance"}) {
                int[] t = tally.get(s + ":" + k);
                if (t == null) continue;
                pass += t[0];
                total += t[1];
                System.out.printf("%-8s %-9s %6d %8.1f%%   %d/%d%n", s, k, t[1], 100.0 * t[0] / t[1], t[0], t[1]);
            }
        }
        System.out.printf("%-18s %6d %8.1f%%%n", "total", total, total == 0 ? 0.0 : 100.0 * pass / total);
        System.out.printf("passed: xerces %d/%d%n", pass, total);
        System.out.printf(
            "(%s; the %d instance cases whose group has no schema are validated by their schema location hints, as vtdx's "
                + "runner does: %d pass; counted invalid without validating, as above for xmllint and xmlschema, %d would "
                + "pass: total %d/%d)%n",
            org.apache.xerces.impl.Version.getVersion(), hints[1], hints[0], hints[2], pass - hints[0] + hints[2], total);
        System.out.printf("(locations refused: %d network, %d outside the suite; %.1f s)%n", refusedNet.get(), refusedLocal.get(), took);
        if (failures != null) {
            try (PrintWriter pw = new PrintWriter(Files.newBufferedWriter(Paths.get(failures), StandardCharsets.UTF_8))) {
                pw.println("# Binding cases of the W3C XML Schema Test Suite (XSD 1.0 selection of conformance/src/bin/xsd.rs) that");
                pw.println("# Xerces-J fails; written by vtdxbench.XsdSuite (conformance/xsd-peers.sh). `catalog:group:test  # reason`");
                for (Map.Entry<String, String> e : failed.entrySet()) pw.println(e.getKey() + "  # " + e.getValue());
                for (String r : refused) pw.println("# location refused: " + r);
            }
        }
    }
}
