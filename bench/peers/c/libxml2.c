/* libxml2 from C, for the side-by-side harness (bench/run).
 * parse: xmlReadMemory (XML_PARSE_NONET; whitespace kept, entities not substituted) + xmlFreeDoc.
 * roundtrip: parse + xmlDocDumpMemory. xpath: parse + xmlXPathCompiledEval of a precompiled
 * expression + xmlUnlinkNode/xmlFreeNode of every selected node + xmlDocDumpMemory.
 * many: parse each of the bundled messages. memory: one parse, peak RSS.
 */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlversion.h>
#include <libxml/xpath.h>

#include "harness.h"

#define PEER "libxml2"
#define OPTS XML_PARSE_NONET

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
    ctx_t *c = (ctx_t *)p;
    xmlDocPtr d = xmlReadMemory((const char *)c->b->data, (int)c->b->len, NULL, NULL, OPTS);
    if (!d) return 1;
    xmlFreeDoc(d);
    return 0;
}

static int op_roundtrip(void *p) {
    ctx_t *c = (ctx_t *)p;
    xmlDocPtr d = xmlReadMemory((const char *)c->b->data, (int)c->b->len, NULL, NULL, OPTS);
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

static int op_xpath(void *p) {
    ctx_t *c = (ctx_t *)p;
    xmlDocPtr d = xmlReadMemory((const char *)c->b->data, (int)c->b->len, NULL, NULL, OPTS);
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
        xmlDocPtr d = xmlReadMemory((const char *)c->msgs[i].data, (int)c->msgs[i].len, NULL, NULL, OPTS);
        if (!d) return 1;
        xmlFreeDoc(d);
    }
    return 0;
}

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
    if (!wants(&a, PEER)) return 0;
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
            xmlDocPtr d = xmlReadMemory((const char *)b.data, (int)b.len, NULL, NULL, OPTS);
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
                xmlDocPtr d = xmlReadMemory((const char *)msgs[i].data, (int)msgs[i].len, NULL, NULL, OPTS);
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
        /* Every other workload needs the document to parse. */
        xmlDocPtr d0 = xmlReadMemory((const char *)b.data, (int)b.len, NULL, NULL, OPTS);
        if (!d0) {
            if (!strcmp(w, "xpath")) {
                for (int e = 1; e <= 5; e++) emit_blank_x(PEER, f, e, "rejected", last_error());
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
        } else {
            fprintf(stderr, "libxml2 peer: unknown workload %s\n", w);
            return 2;
        }
        free(b.data);
    }
    xmlCleanupParser();
    return 0;
}
