/* libxml2 from C, for the side-by-side harness (bench/run). Two peers:
 * - libxml2: every document parsed with xmlReadMemory (a new parser context each time);
 * - libxml2-reuse: one parser context for every document (xmlCtxtReadMemory on one xmlParserCtxt,
 *   so its dictionary of names and its buffers are kept between documents, as lxml keeps them),
 *   with XML_PARSE_COMPACT added (short text stored inside the node, as lxml parses by default);
 *   for the Exclusive C14N of a SOAP Body it uses lxml's method (a temporary document whose root
 *   stands in for the Body, canonicalized whole) instead of the node-set callback.
 * parse: xmlReadMemory (XML_PARSE_NONET; whitespace kept, entities not substituted) + xmlFreeDoc.
 * roundtrip: parse + xmlDocDumpMemory. xpath: parse + xmlXPathCompiledEval of a precompiled
 * expression + xmlUnlinkNode/xmlFreeNode of every selected node + xmlDocDumpMemory.
 * xpath-eval: parse + xmlXPathCompiledEval of a precompiled expression + count + free.
 * many: parse each of the bundled messages. memory: one parse, peak RSS.
 * c14n: Canonical XML with libxml2's c14n module, the code behind `xmllint --c14n` and
 * `--exc-c14n` (with xmllint's parse options for them, but without comments): inclusive C14N 1.0
 * and exclusive C14N 1.0 of the whole document (xmlC14NDocSaveTo, no node-set) and exclusive
 * C14N of a SOAP Body subtree (xmlC14NExecute with an is-visible callback that accepts a node
 * when the Body is among its ancestors-or-self: the node-set of a same-document reference, as
 * xmlsec builds it), each into a memory output buffer (xmlAllocOutputBuffer), from the parsed
 * document and from bytes (parse + canonicalize + xmlFreeDoc).
 */
#include <libxml/c14n.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlversion.h>
#include <libxml/xmlIO.h>
#include <libxml/xpath.h>

#include "harness.h"

/* the peer being measured: "libxml2" or "libxml2-reuse" */
static const char *PEER = "libxml2";
/* libxml2-reuse: the one parser context every document is parsed with (NULL for libxml2) */
static xmlParserCtxtPtr reuse_ctxt = NULL;
#define OPTS XML_PARSE_NONET
/* xmllint --c14n / --exc-c14n add these parse options (entities substituted, DTD attributes defaulted) */
#define C14N_OPTS (XML_PARSE_NONET | XML_PARSE_NOENT | XML_PARSE_DTDATTR | XML_PARSE_DTDLOAD)

static uint64_t count_elements(xmlNodePtr n) {
    uint64_t c = 0;
    for (; n; n = n->next) {
        if (n->type == XML_ELEMENT_NODE) c += 1 + count_elements(n->children);
    }
    return c;
}

static uint64_t doc_elements(xmlDocPtr d) { return count_elements(d->children); }

static void quiet(void *ctx, const char *msg, ...) { (void)ctx; (void)msg; }

static const char *last_error(void) {
    const xmlError *e = xmlGetLastError();
    return e && e->message ? e->message : "parse failed";
}

static xmlDocPtr read_buf(const buf_t *b, int opts) {
    if (reuse_ctxt)
        return xmlCtxtReadMemory(reuse_ctxt, (const char *)b->data, (int)b->len, NULL, NULL, opts | XML_PARSE_COMPACT);
    return xmlReadMemory((const char *)b->data, (int)b->len, NULL, NULL, opts);
}

/* parse and free: the parse-only operation (with the options of the workload) */
static int parse_free(const buf_t *b, int opts) {
    xmlDocPtr d = read_buf(b, opts);
    if (!d) return 1;
    xmlFreeDoc(d);
    return 0;
}

typedef struct {
    const buf_t *b;
    xmlXPathCompExprPtr comp;
    uint64_t selected;
    int out_len;
    xmlChar *keep_out; /* when non-NULL requested, the last output is kept here */
    int keep;
    const buf_t *msgs;
    size_t nmsgs;
} ctx_t;

static int op_parse(void *p) {
    return parse_free(((ctx_t *)p)->b, OPTS);
}

static int op_roundtrip(void *p) {
    ctx_t *c = (ctx_t *)p;
    xmlDocPtr d = read_buf(c->b, OPTS);
    if (!d) return 1;
    xmlChar *mem = NULL;
    int size = 0;
    xmlDocDumpMemory(d, &mem, &size);
    xmlFreeDoc(d);
    if (!mem) return 1;
    c->out_len = size;
    if (c->keep) { xmlFree(c->keep_out); c->keep_out = mem; } else xmlFree(mem);
    return 0;
}

static int op_xpath_eval(void *p) {
    ctx_t *c = (ctx_t *)p;
    xmlDocPtr d = read_buf(c->b, OPTS);
    if (!d) return 1;
    xmlXPathContextPtr x = xmlXPathNewContext(d);
    xmlXPathObjectPtr r = xmlXPathCompiledEval(c->comp, x);
    if (!r) { xmlXPathFreeContext(x); xmlFreeDoc(d); return 1; }
    c->selected = r->type == XPATH_NODESET && r->nodesetval ? (uint64_t)r->nodesetval->nodeNr : 0;
    xmlXPathFreeObject(r);
    xmlXPathFreeContext(x);
    xmlFreeDoc(d);
    return 0;
}

static int op_xpath(void *p) {
    ctx_t *c = (ctx_t *)p;
    xmlDocPtr d = read_buf(c->b, OPTS);
    if (!d) return 1;
    xmlXPathContextPtr x = xmlXPathNewContext(d);
    xmlXPathObjectPtr r = xmlXPathCompiledEval(c->comp, x);
    if (!r) { xmlXPathFreeContext(x); xmlFreeDoc(d); return 1; }
    uint64_t n = 0;
    if (r->type == XPATH_NODESET && r->nodesetval) {
        xmlNodeSetPtr ns = r->nodesetval;
        for (int i = 0; i < ns->nodeNr; i++) {
            xmlNodePtr node = ns->nodeTab[i];
            if (node->type == XML_NAMESPACE_DECL || node->type == XML_ATTRIBUTE_NODE) continue;
            ns->nodeTab[i] = NULL;
            xmlUnlinkNode(node);
            xmlFreeNode(node);
            n++;
        }
        ns->nodeNr = 0;
    }
    xmlXPathFreeObject(r);
    xmlXPathFreeContext(x);
    xmlChar *mem = NULL;
    int size = 0;
    xmlDocDumpMemory(d, &mem, &size);
    xmlFreeDoc(d);
    if (!mem) return 1;
    c->selected = n;
    c->out_len = size;
    if (c->keep) { xmlFree(c->keep_out); c->keep_out = mem; } else xmlFree(mem);
    return 0;
}

static int op_many(void *p) {
    ctx_t *c = (ctx_t *)p;
    for (size_t i = 0; i < c->nmsgs; i++) {
        xmlDocPtr d = read_buf(&c->msgs[i], OPTS);
        if (!d) return 1;
        xmlFreeDoc(d);
    }
    return 0;
}

/* ---- c14n ---- */

static const char *const SOAP_NS[2] = {"http://schemas.xmlsoap.org/soap/envelope/", "http://www.w3.org/2003/05/soap-envelope"};

/* The Body child of a SOAP Envelope root element, or NULL. */
static xmlNodePtr soap_body(xmlDocPtr d) {
    xmlNodePtr r = xmlDocGetRootElement(d);
    if (!r || !r->ns || strcmp((const char *)r->name, "Envelope")) return NULL;
    if (strcmp((const char *)r->ns->href, SOAP_NS[0]) && strcmp((const char *)r->ns->href, SOAP_NS[1])) return NULL;
    for (xmlNodePtr n = r->children; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE && n->ns && !strcmp((const char *)n->name, "Body") && !strcmp((const char *)n->ns->href, (const char *)r->ns->href))
            return n;
    return NULL;
}

/* The is-visible callback for the Body subtree: node (for a namespace node, its element `parent`)
 * has the Body as ancestor-or-self. */
static int in_subtree(void *user, xmlNodePtr node, xmlNodePtr parent) {
    xmlNodePtr top = (xmlNodePtr)user;
    xmlNodePtr n = (node == NULL || node->type == XML_NAMESPACE_DECL) ? parent : node;
    for (; n && n->type != XML_DOCUMENT_NODE; n = n->parent)
        if (n == top) return 1;
    return 0;
}

/* lxml's way of canonicalizing a subtree (what its tostring(element, method='c14n') does), done here
 * in C: a temporary document whose root element is a shallow copy of the Body (its attributes and
 * namespace declarations, xmlDocCopyNode with extended=2), given the namespace declarations in scope
 * from the Body's ancestors (the nearest declaration of a prefix wins: xmlNewNs refuses a prefix
 * already declared on the node) and lent the Body's children; xmlC14NDocSaveTo canonicalizes that
 * whole document (no node-set, no callback), then the children are handed back and the temporary
 * document freed. The parsed document is unchanged afterwards. */
static int c14n_fake_root(xmlDocPtr d, xmlNodePtr body, int mode, xmlOutputBufferPtr out) {
    xmlDocPtr fake = xmlCopyDoc(d, 0);
    if (!fake) return -1;
    xmlNodePtr root = xmlDocCopyNode(body, fake, 2);
    if (!root) { xmlFreeDoc(fake); return -1; }
    for (xmlNodePtr a = body->parent; a && a->type == XML_ELEMENT_NODE; a = a->parent)
        for (xmlNsPtr ns = a->nsDef; ns; ns = ns->next) xmlNewNs(root, ns->href, ns->prefix);
    xmlDocSetRootElement(fake, root);
    root->children = body->children;
    root->last = body->last;
    for (xmlNodePtr c = root->children; c; c = c->next) c->parent = root;
    int n = xmlC14NDocSaveTo(fake, NULL, mode, NULL, 0, out);
    for (xmlNodePtr c = body->children; c; c = c->next) c->parent = body;
    root->children = root->last = NULL;
    xmlFreeDoc(fake);
    return n;
}

/* The bytes of the Body element in the input, start tag to end tag (the MB/s of exc-body from a
 * tree; the same span the other peers report), found by searching for its qualified name. */
static uint64_t body_span(const buf_t *b, xmlNodePtr body) {
    char open[256], close[256];
    const char *pre = body->ns && body->ns->prefix ? (const char *)body->ns->prefix : NULL;
    snprintf(open, sizeof open, "<%s%s%s", pre ? pre : "", pre ? ":" : "", (const char *)body->name);
    snprintf(close, sizeof close, "</%s%s%s", pre ? pre : "", pre ? ":" : "", (const char *)body->name);
    const unsigned char *d = b->data, *start = NULL, *end = NULL;
    size_t lo = strlen(open), lc = strlen(close);
    for (size_t i = 0; i + lo < b->len; i++)
        if (d[i] == '<' && !memcmp(d + i, open, lo) && d[i + lo] && strchr(" \t\r\n/>", d[i + lo])) { start = d + i; break; }
    for (size_t i = b->len >= lc ? b->len - lc : 0; start && i > (size_t)(start - d); i--)
        if (d[i] == '<' && !memcmp(d + i, close, lc)) { end = d + i + lc; break; }
    if (!start || !end) return 0;
    while ((size_t)(end - d) < b->len && *end != '>') end++;
    return (uint64_t)(end + 1 - start);
}

typedef struct {
    const buf_t *b;
    xmlDocPtr doc;  /* the parsed document (from a tree), or NULL: parse it (from bytes) */
    int mode;       /* XML_C14N_1_0 or XML_C14N_EXCLUSIVE_1_0 */
    int body;       /* the SOAP Body subtree rather than the whole document */
    int keep;       /* keep the output's length and CRC-32 (outside the timed loop) */
    uint64_t out_len;
    uint32_t out_crc;
} c14n_t;

static int op_parse_c14n(void *p) {
    return parse_free(((c14n_t *)p)->b, C14N_OPTS);
}

static int op_c14n(void *p) {
    c14n_t *c = (c14n_t *)p;
    xmlDocPtr d = c->doc;
    if (!d) d = read_buf(c->b, C14N_OPTS);
    if (!d) return 1;
    xmlOutputBufferPtr out = xmlAllocOutputBuffer(NULL);
    int n;
    if (c->body) {
        xmlNodePtr body = soap_body(d);
        if (!body) n = -1;
        else if (reuse_ctxt) n = c14n_fake_root(d, body, c->mode, out);
        else n = xmlC14NExecute(d, in_subtree, body, c->mode, NULL, 0, out);
    } else {
        n = xmlC14NDocSaveTo(d, NULL, c->mode, NULL, 0, out);
    }
    if (n >= 0 && c->keep) {
        c->out_len = (uint64_t)xmlOutputBufferGetSize(out);
        c->out_crc = crc32(xmlOutputBufferGetContent(out), (size_t)c->out_len);
    }
    xmlOutputBufferClose(out);
    if (!c->doc) xmlFreeDoc(d);
    return n < 0;
}

static void c14n_doc(const args_t *a, const char *f, const buf_t *b) {
    const char *w = "c14n";
    xmlDocPtr d = read_buf(b, C14N_OPTS);
    if (!d) {
        json_begin(PEER, w, f);
        json_s("case", "parse");
        json_s("from", "bytes");
        json_s("status", "rejected");
        json_s("reason", last_error());
        json_end();
        return;
    }
    int failed = 0;
    c14n_t c;
    memset(&c, 0, sizeof c);
    c.b = b;
    stats_t s = measure(&a->policy, op_parse_c14n, &c, &failed);
    json_begin(PEER, w, f);
    json_s("case", "parse");
    json_s("from", "bytes");
    if (failed) { json_s("status", "error"); json_s("reason", "parse failed while measuring"); }
    else { json_stats(&s, b->len); json_i("doc_bytes", b->len); }
    json_end();
    xmlNodePtr body = soap_body(d);
    static const struct { const char *name; int mode, body; } cases[3] = {
        {"c14n", XML_C14N_1_0, 0}, {"exc", XML_C14N_EXCLUSIVE_1_0, 0}, {"exc-body", XML_C14N_EXCLUSIVE_1_0, 1}};
    for (int k = 0; k < 3; k++) {
        if (cases[k].body && !body) continue;
        c.mode = cases[k].mode;
        c.body = cases[k].body;
        for (int from_tree = 1; from_tree >= 0; from_tree--) {
            c.doc = from_tree ? d : NULL;
            c.keep = 1;
            int bad = op_c14n(&c);
            c.keep = 0;
            json_begin(PEER, w, f);
            json_s("case", cases[k].name);
            json_s("from", from_tree ? "tree" : "bytes");
            if (!bad) s = measure(&a->policy, op_c14n, &c, &failed);
            if (bad || failed) {
                json_s("status", "error");
                json_s("reason", "canonicalization failed");
            } else {
                uint64_t in = from_tree && cases[k].body ? body_span(b, body) : b->len;
                char crc[16];
                snprintf(crc, sizeof crc, "%08x", c.out_crc);
                json_stats(&s, in);
                json_i("doc_bytes", b->len);
                json_i("out_bytes", c.out_len);
                json_s("out_crc32", crc);
            }
            json_end();
        }
    }
    xmlFreeDoc(d);
}

static void run_peer(const args_t *a);

/* Parses out once and counts its elements; 0 with *err set on failure. */
static uint64_t reparse_count(const xmlChar *out, int len, const char **err) {
    xmlDocPtr d = xmlReadMemory((const char *)out, len, NULL, NULL, OPTS);
    if (!d) { *err = last_error(); return 0; }
    uint64_t n = doc_elements(d);
    xmlFreeDoc(d);
    *err = NULL;
    return n;
}

int main(int argc, char **argv) {
    require_malloc_env();
    args_t a = parse_args(argc, argv);
    xmlInitParser();
    xmlSetGenericErrorFunc(NULL, quiet);
    LIBXML_TEST_VERSION;
    const char *w = a.workload;
    if (!strcmp(w, "versions")) {
        int v = atoi(xmlParserVersion);
        char dotted[32];
        snprintf(dotted, sizeof dotted, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
        json_begin(PEER, "versions", "");
        json_s("version", dotted);
        json_s("compiled_against", LIBXML_DOTTED_VERSION);
        json_end();
        return 0;
    }
    if (wants(&a, "libxml2")) run_peer(&a);
    if (wants(&a, "libxml2-reuse")) {
        PEER = "libxml2-reuse";
        reuse_ctxt = xmlNewParserCtxt();
        if (!reuse_ctxt) { fprintf(stderr, "libxml2 peer: xmlNewParserCtxt failed\n"); return 2; }
        run_peer(&a);
        xmlFreeParserCtxt(reuse_ctxt);
        reuse_ctxt = NULL;
    }
    xmlCleanupParser();
    return 0;
}

/* Every workload on every file for the peer PEER (with reuse_ctxt set for libxml2-reuse). */
static void run_peer(const args_t *ap) {
    args_t a = *ap;
    const char *w = a.workload;
    int failed = 0;
    for (int fi = 0; fi < a.nfiles; fi++) {
        const char *f = a.files[fi];
        buf_t b = read_file(f);
        ctx_t c;
        memset(&c, 0, sizeof c);
        c.b = &b;
        if (!strcmp(w, "memory")) {
            uint64_t base = peak_rss();
            if (current_rss() > base) base = current_rss();
            xmlDocPtr d = read_buf(&b, OPTS);
            if (!d) { emit_blank(PEER, w, f, "rejected", last_error()); continue; }
            uint64_t peak = peak_rss();
            json_begin(PEER, w, f);
            json_s("status", "ok");
            json_i("bytes", b.len);
            json_i("base_rss", base);
            json_i("peak_rss", peak);
            json_i("delta_bytes", peak > base ? peak - base : 0);
            json_end();
            xmlFreeDoc(d);
            continue;
        }
        if (!strcmp(w, "many")) {
            size_t n = 0;
            buf_t *msgs = split_bundle(&b, &n);
            c.msgs = msgs;
            c.nmsgs = n;
            uint64_t total = 0, elems = 0;
            int bad = 0;
            for (size_t i = 0; i < n && !bad; i++) {
                xmlDocPtr d = read_buf(&msgs[i], OPTS);
                if (!d) { emit_blank(PEER, w, f, "rejected", last_error()); bad = 1; break; }
                elems += doc_elements(d);
                total += msgs[i].len;
                xmlFreeDoc(d);
            }
            if (bad) continue;
            stats_t s = measure(&a.policy, op_many, &c, &failed);
            if (failed) { emit_blank(PEER, w, f, "error", "parse failed while measuring"); continue; }
            json_begin(PEER, w, f);
            json_stats(&s, total);
            json_i("messages", n);
            json_f("msgs_per_s", (double)n * 1e9 / s.median_ns);
            json_i("elements", elems);
            json_end();
            continue;
        }
        if (!strcmp(w, "c14n")) {
            c14n_doc(&a, f, &b);
            free(b.data);
            continue;
        }
        /* Every other workload needs the document to parse. */
        xmlDocPtr d0 = read_buf(&b, OPTS);
        if (!d0) {
            if (!strcmp(w, "xpath") || !strcmp(w, "xpath-eval")) {
                for (int e = 1; e <= 5; e++) emit_blank_xw(PEER, w, f, e, "rejected", last_error());
            } else emit_blank(PEER, w, f, "rejected", last_error());
            continue;
        }
        uint64_t elems = doc_elements(d0);
        xmlFreeDoc(d0);
        if (!strcmp(w, "parse")) {
            stats_t s = measure(&a.policy, op_parse, &c, &failed);
            if (failed) { emit_blank(PEER, w, f, "error", "parse failed while measuring"); continue; }
            json_begin(PEER, w, f);
            json_stats(&s, b.len);
            json_i("elements", elems);
            json_end();
        } else if (!strcmp(w, "roundtrip")) {
            c.keep = 1;
            if (op_roundtrip(&c)) { emit_blank(PEER, w, f, "error", "reserialize failed"); continue; }
            c.keep = 0;
            const char *err;
            uint64_t oe = reparse_count(c.keep_out, c.out_len, &err);
            int identical = (size_t)c.out_len == b.len && !memcmp(c.keep_out, b.data, b.len);
            int out_len = c.out_len;
            stats_t s = measure(&a.policy, op_roundtrip, &c, &failed);
            if (failed) { emit_blank(PEER, w, f, "error", "failed while measuring"); continue; }
            json_begin(PEER, w, f);
            json_stats(&s, b.len);
            json_i("out_bytes", (uint64_t)out_len);
            printf(",\"identical\":%s", identical ? "true" : "false");
            if (err) json_s("reparse_error", err); else json_i("out_elements", oe);
            json_end();
            xmlFree(c.keep_out);
            c.keep_out = NULL;
        } else if (!strcmp(w, "xpath")) {
            for (int e = 0; e < 5; e++) {
                c.comp = xmlXPathCompile((const xmlChar *)XPATH_EXPRS[e]);
                c.keep = 1;
                if (!c.comp || op_xpath(&c)) {
                    emit_blank_x(PEER, f, e + 1, "error", "XPath evaluation failed");
                    continue;
                }
                c.keep = 0;
                const char *err;
                uint64_t oe = reparse_count(c.keep_out, c.out_len, &err);
                uint64_t sel = c.selected;
                int out_len = c.out_len;
                stats_t s = measure(&a.policy, op_xpath, &c, &failed);
                json_begin(PEER, w, f);
                json_i("expr", (uint64_t)e + 1);
                json_s("xpath", XPATH_EXPRS[e]);
                if (failed) { json_s("status", "error"); json_s("reason", "failed while measuring"); json_end(); continue; }
                json_stats(&s, b.len);
                json_i("selected", sel);
                json_i("out_bytes", (uint64_t)out_len);
                if (err) json_s("reparse_error", err); else json_i("out_elements", oe);
                json_end();
                xmlFree(c.keep_out);
                c.keep_out = NULL;
                xmlXPathFreeCompExpr(c.comp);
            }
        } else if (!strcmp(w, "xpath-eval")) {
            for (int e = 0; e < 5; e++) {
                c.comp = xmlXPathCompile((const xmlChar *)XPATH_EXPRS[e]);
                if (!c.comp || op_xpath_eval(&c)) {
                    emit_blank_xw(PEER, w, f, e + 1, "error", "XPath evaluation failed");
                    continue;
                }
                uint64_t sel = c.selected;
                stats_t s = measure(&a.policy, op_xpath_eval, &c, &failed);
                json_begin(PEER, w, f);
                json_i("expr", (uint64_t)e + 1);
                json_s("xpath", XPATH_EXPRS[e]);
                if (failed) { json_s("status", "error"); json_s("reason", "failed while measuring"); json_end(); continue; }
                json_stats(&s, b.len);
                json_i("selected", sel);
                json_end();
                xmlXPathFreeCompExpr(c.comp);
            }
        } else {
            fprintf(stderr, "libxml2 peer: unknown workload %s\n", w);
            exit(2);
        }
        free(b.data);
    }
}
