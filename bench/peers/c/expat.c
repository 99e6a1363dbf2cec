/* Expat from C, for the side-by-side harness (bench/run).
 * parse: one XML_Parse over the whole buffer with no-op handlers for start/end tags and
 * character data (the start handler counts elements), reusing the parser through
 * XML_ParserReset as Expat documents. Expat builds no tree, so it has no reserialize and no
 * XPath cell, and no Canonical XML. many: parse each of the bundled messages. memory: one parse, peak RSS.
 */
#include <expat.h>

#include "harness.h"

#define PEER "expat"

typedef struct {
    const buf_t *b;
    XML_Parser p;
    uint64_t elems;
    const buf_t *msgs;
    size_t nmsgs;
} ctx_t;

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **atts) {
    (void)name;
    (void)atts;
    ((ctx_t *)ud)->elems++;
}
static void XMLCALL on_end(void *ud, const XML_Char *name) {
    (void)ud;
    (void)name;
}
static void XMLCALL on_text(void *ud, const XML_Char *s, int len) {
    (void)ud;
    (void)s;
    (void)len;
}

static int parse_one(ctx_t *c, const unsigned char *data, size_t len) {
    XML_ParserReset(c->p, NULL);
    XML_SetUserData(c->p, c);
    XML_SetElementHandler(c->p, on_start, on_end);
    XML_SetCharacterDataHandler(c->p, on_text);
    return XML_Parse(c->p, (const char *)data, (int)len, 1) == XML_STATUS_OK ? 0 : 1;
}

static int op_parse(void *p) {
    ctx_t *c = (ctx_t *)p;
    return parse_one(c, c->b->data, c->b->len);
}

static int op_many(void *p) {
    ctx_t *c = (ctx_t *)p;
    for (size_t i = 0; i < c->nmsgs; i++)
        if (parse_one(c, c->msgs[i].data, c->msgs[i].len)) return 1;
    return 0;
}

int main(int argc, char **argv) {
    require_malloc_env();
    args_t a = parse_args(argc, argv);
    const char *w = a.workload;
    if (!strcmp(w, "versions")) {
        XML_Expat_Version v = XML_ExpatVersionInfo();
        char dotted[32];
        snprintf(dotted, sizeof dotted, "%d.%d.%d", v.major, v.minor, v.micro);
        json_begin(PEER, "versions", "");
        json_s("version", dotted);
        json_end();
        return 0;
    }
    if (!wants(&a, PEER)) return 0;
    ctx_t c;
    memset(&c, 0, sizeof c);
    c.p = XML_ParserCreate(NULL);
    int failed = 0;
    char reason[256];
    for (int fi = 0; fi < a.nfiles; fi++) {
        const char *f = a.files[fi];
        buf_t b = read_file(f);
        c.b = &b;
        if (!strcmp(w, "roundtrip")) {
            emit_blank(PEER, w, f, "skip", "no tree: Expat is a stream (SAX-style) parser, nothing to reserialize");
            continue;
        }
        if (!strcmp(w, "c14n")) {
            emit_blank(PEER, w, f, "skip", "no tree and no canonicalizer: Expat is a stream (SAX-style) parser");
            continue;
        }
        if (!strcmp(w, "xpath")) {
            for (int e = 1; e <= 5; e++) emit_blank_x(PEER, f, e, "skip", "no tree: stream parser, no XPath or editing");
            continue;
        }
        if (!strcmp(w, "xpath-eval")) {
            for (int e = 1; e <= 5; e++) emit_blank_xw(PEER, w, f, e, "skip", "no tree: stream parser, no XPath");
            continue;
        }
        if (!strcmp(w, "many")) {
            size_t n = 0;
            buf_t *msgs = split_bundle(&b, &n);
            c.msgs = msgs;
            c.nmsgs = n;
            c.elems = 0;
            uint64_t total = 0;
            for (size_t i = 0; i < n; i++) total += msgs[i].len;
            if (op_many(&c)) {
                snprintf(reason, sizeof reason, "%s", XML_ErrorString(XML_GetErrorCode(c.p)));
                emit_blank(PEER, w, f, "rejected", reason);
                continue;
            }
            uint64_t elems = c.elems;
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
        if (!strcmp(w, "memory")) {
            uint64_t base = peak_rss();
            if (current_rss() > base) base = current_rss();
            XML_Parser fresh = XML_ParserCreate(NULL);
            XML_SetUserData(fresh, &c);
            XML_SetElementHandler(fresh, on_start, on_end);
            XML_SetCharacterDataHandler(fresh, on_text);
            if (XML_Parse(fresh, (const char *)b.data, (int)b.len, 1) != XML_STATUS_OK) {
                emit_blank(PEER, w, f, "rejected", XML_ErrorString(XML_GetErrorCode(fresh)));
                continue;
            }
            uint64_t peak = peak_rss();
            json_begin(PEER, w, f);
            json_s("status", "ok");
            json_i("bytes", b.len);
            json_i("base_rss", base);
            json_i("peak_rss", peak);
            json_i("delta_bytes", peak > base ? peak - base : 0);
            json_end();
            XML_ParserFree(fresh);
            continue;
        }
        if (strcmp(w, "parse")) {
            fprintf(stderr, "expat peer: unknown workload %s\n", w);
            return 2;
        }
        c.elems = 0;
        if (parse_one(&c, b.data, b.len)) {
            snprintf(reason, sizeof reason, "line %lu: %s", (unsigned long)XML_GetCurrentLineNumber(c.p),
                     XML_ErrorString(XML_GetErrorCode(c.p)));
            emit_blank(PEER, w, f, "rejected", reason);
            continue;
        }
        uint64_t elems = c.elems;
        stats_t s = measure(&a.policy, op_parse, &c, &failed);
        if (failed) { emit_blank(PEER, w, f, "error", "parse failed while measuring"); continue; }
        json_begin(PEER, w, f);
        json_stats(&s, b.len);
        json_i("elements", elems);
        json_end();
        free(b.data);
    }
    XML_ParserFree(c.p);
    return 0;
}
