package vtdxbench;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.Validator;

import org.xml.sax.ErrorHandler;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * The validate workload's JVM peers: JAXP validation of a document from its bytes (a validating SAX parse), with the
 * schema compiled once into a {@link Schema} (the cached grammar) and one {@link Validator} reused.
 *
 * <p>{@code xerces}: Apache Xerces-J 2.12.2's {@code org.apache.xerces.jaxp.validation.XMLSchemaFactory};
 * {@code jdk}: the JDK's own validator ({@code SchemaFactory.newDefaultInstance()}, its internal copy of Xerces).
 *
 * <p>Files as in bench/src/bin/validate_peers.rs (the reference for this workload): the first FILE ending in .xsd is
 * the schema; a FILE whose name contains ".invalid" gets a verdict only. Before measuring, the JIT is warmed up by
 * validating the timed documents for {@code --workload-warmup-ms}.
 */
final class Validate {
    static final String[] ALL = {"xerces", "jdk"};

    /** Counts errors; never throws, so every error of a document is counted. */
    static final class Counting implements ErrorHandler {
        int errors;
        String first;

        public void warning(SAXParseException e) {}

        public void error(SAXParseException e) {
            if (errors++ == 0) first = e.getLineNumber() + ":" + e.getColumnNumber() + ": " + e.getMessage();
        }

        public void fatalError(SAXParseException e) throws SAXException {
            error(e);
            throw e;
        }
    }

    static SchemaFactory factory(String peer) {
        if (peer.equals("xerces")) return new org.apache.xerces.jaxp.validation.XMLSchemaFactory();
        return SchemaFactory.newDefaultInstance();
    }

    static void run(List<String> files) throws Exception {
        String xsd = null;
        List<String> docs = new ArrayList<>();
        for (String f : files) {
            if (f.endsWith(".xsd")) {
                if (xsd == null) xsd = f;
            } else docs.add(f);
        }
        if (xsd == null) throw new IllegalArgumentException("no schema (a FILE ending in .xsd) among the files");
        List<byte[]> bytes = new ArrayList<>();
        for (String f : docs) bytes.add(Files.readAllBytes(Paths.get(f)));
        for (String peer : ALL) {
            if (Peers.peers != null && !Peers.peers.contains(peer)) continue;
            SchemaFactory sf = factory(peer);
            if (!sf.isSchemaLanguageSupported(XMLConstants.W3C_XML_SCHEMA_NS_URI))
                throw new IllegalStateException(peer + ": no W3C XML Schema support");
            Schema schema = sf.newSchema(Paths.get(xsd).toFile());
            Validator v = schema.newValidator();
            Counting h = new Counting();
            v.setErrorHandler(h);
            // JIT warm-up over the timed documents
            long t0 = System.nanoTime();
            do {
                for (int i = 0; i < docs.size(); i++) {
                    if (docs.get(i).contains(".invalid")) continue;
                    v.validate(new StreamSource(new ByteArrayInputStream(bytes.get(i))));
                }
            } while (System.nanoTime() - t0 < Peers.workloadWarmupNs);
            for (int i = 0; i < docs.size(); i++) {
                String f = docs.get(i);
                byte[] x = bytes.get(i);
                boolean timed = !f.contains(".invalid");
                h.errors = 0;
                h.first = null;
                try {
                    v.validate(new StreamSource(new ByteArrayInputStream(x)));
                } catch (SAXParseException e) {
                    new Peers.Line(peer, "validate", f).put("status", "rejected").put("reason", "not well-formed: " + e.getMessage()).emit();
                    continue;
                }
                int errors = h.errors;
                String first = h.first;
                Peers.Line l = new Peers.Line(peer, "validate", f);
                if (timed) {
                    Peers.Stats s = Peers.measure(() -> {
                        v.validate(new StreamSource(new ByteArrayInputStream(x)));
                        return 1;
                    });
                    l.stats(s, x.length);
                } else l.put("status", "ok").put("bytes", (long) x.length);
                l.put("timed", timed).put("valid", errors == 0).put("errors", (long) errors);
                if (first != null) l.put("first_error", first);
                l.emit();
            }
        }
    }

    static void versions() {
        new Peers.Line("xerces", "versions", "").put("version", org.apache.xerces.impl.Version.getVersion().replace("Xerces-J ", ""))
                .put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")).emit();
        new Peers.Line("jdk", "versions", "").put("version", "JDK " + System.getProperty("java.runtime.version"))
                .put("factory", SchemaFactory.newDefaultInstance().getClass().getName()).emit();
    }
}
