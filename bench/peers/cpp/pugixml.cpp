// pugixml (the Debian package), for the side-by-side harness (bench/run). Two peers:
//   pugixml     load_buffer with parse_default (whitespace-only text dropped), save with format_default;
//   pugixml-ws  load_buffer with parse_default | parse_ws_pcdata (all text kept, closest to vtdx),
//               save with format_raw (no re-indentation, so the kept whitespace is written as it was).
// parse: load_buffer into a fresh xml_document (destroyed each time). roundtrip: parse + save
// through an xml_writer into a reused std::string. xpath: parse + a precompiled xpath_query +
// parent().remove_child() of every selected node + save. xpath-eval: parse + the precompiled
// xpath_query's evaluate_node_set + count. many: parse each bundled message.
// c14n: a skip line (pugixml has no Canonical XML).
#include <pugixml.hpp>

#include <string>
#include <vector>

#include "../c/harness.h"

struct string_writer : pugi::xml_writer {
    std::string *out;
    void write(const void *data, size_t size) override { out->append(static_cast<const char *>(data), size); }
};

struct variant {
    const char *peer;
    unsigned parse_opts;
    unsigned format;
};

static const variant VARIANTS[2] = {
    {"pugixml", pugi::parse_default, pugi::format_default},
    {"pugixml-ws", pugi::parse_default | pugi::parse_ws_pcdata, pugi::format_raw},
};

struct ctx_t {
    const variant *v;
    const buf_t *b;
    std::string out;
    pugi::xpath_query *q = nullptr;
    uint64_t selected = 0;
    std::vector<buf_t> msgs;
};

static uint64_t count_elements(pugi::xml_node n) {
    uint64_t c = 0;
    for (pugi::xml_node k = n.first_child(); k; k = k.next_sibling())
        if (k.type() == pugi::node_element) c += 1 + count_elements(k);
    return c;
}

static int op_parse(void *p) {
    ctx_t *c = static_cast<ctx_t *>(p);
    pugi::xml_document doc;
    return doc.load_buffer(c->b->data, c->b->len, c->v->parse_opts) ? 0 : 1;
}

static int op_roundtrip(void *p) {
    ctx_t *c = static_cast<ctx_t *>(p);
    pugi::xml_document doc;
    if (!doc.load_buffer(c->b->data, c->b->len, c->v->parse_opts)) return 1;
    c->out.clear();
    string_writer w;
    w.out = &c->out;
    doc.save(w, "\t", c->v->format);
    return 0;
}

static int op_xpath(void *p) {
    ctx_t *c = static_cast<ctx_t *>(p);
    pugi::xml_document doc;
    if (!doc.load_buffer(c->b->data, c->b->len, c->v->parse_opts)) return 1;
    pugi::xpath_node_set set = c->q->evaluate_node_set(doc);
    uint64_t n = 0;
    for (const pugi::xpath_node &x : set) {
        pugi::xml_node node = x.node();
        if (!node) continue; // attributes are not selected by the seed expressions
        node.parent().remove_child(node);
        n++;
    }
    c->out.clear();
    string_writer w;
    w.out = &c->out;
    doc.save(w, "\t", c->v->format);
    c->selected = n;
    return 0;
}

static int op_xpath_eval(void *p) {
    ctx_t *c = static_cast<ctx_t *>(p);
    pugi::xml_document doc;
    if (!doc.load_buffer(c->b->data, c->b->len, c->v->parse_opts)) return 1;
    pugi::xpath_node_set set = c->q->evaluate_node_set(doc);
    c->selected = set.size();
    return 0;
}

static int op_many(void *p) {
    ctx_t *c = static_cast<ctx_t *>(p);
    for (const buf_t &m : c->msgs) {
        pugi::xml_document doc;
        if (!doc.load_buffer(m.data, m.len, c->v->parse_opts)) return 1;
    }
    return 0;
}

static uint64_t reparse_count(const ctx_t &c, const char **err) {
    pugi::xml_document doc;
    pugi::xml_parse_result r = doc.load_buffer(c.out.data(), c.out.size(), c.v->parse_opts);
    if (!r) {
        *err = r.description();
        return 0;
    }
    *err = nullptr;
    return count_elements(doc);
}

int main(int argc, char **argv) {
    require_malloc_env();
    args_t a = parse_args(argc, argv);
    const char *w = a.workload;
    if (!strcmp(w, "versions")) {
        char v[32];
        snprintf(v, sizeof v, "%d.%d", PUGIXML_VERSION / 1000, PUGIXML_VERSION % 1000 / 10);
        for (const variant &x : VARIANTS) {
            json_begin(x.peer, "versions", "");
            json_s("version", v);
            json_end();
        }
        return 0;
    }
    int failed = 0;
    for (const variant &v : VARIANTS) {
        if (!wants(&a, v.peer)) continue;
        for (int fi = 0; fi < a.nfiles; fi++) {
            const char *f = a.files[fi];
            buf_t b = read_file(f);
            ctx_t c;
            c.v = &v;
            c.b = &b;
            if (!strcmp(w, "c14n")) {
                emit_blank(v.peer, w, f, "skip", "no Canonical XML: `save` has no canonical mode (no attribute sorting or namespace-node rules)");
                free(b.data);
                continue;
            }
            if (!strcmp(w, "memory")) {
                uint64_t base = peak_rss();
                if (current_rss() > base) base = current_rss();
                pugi::xml_document doc;
                pugi::xml_parse_result r = doc.load_buffer(b.data, b.len, v.parse_opts);
                if (!r) { emit_blank(v.peer, w, f, "rejected", r.description()); continue; }
                uint64_t peak = peak_rss();
                json_begin(v.peer, w, f);
                json_s("status", "ok");
                json_i("bytes", b.len);
                json_i("base_rss", base);
                json_i("peak_rss", peak);
                json_i("delta_bytes", peak > base ? peak - base : 0);
                json_end();
                free(b.data);
                continue;
            }
            if (!strcmp(w, "many")) {
                size_t n = 0;
                buf_t *msgs = split_bundle(&b, &n);
                c.msgs.assign(msgs, msgs + n);
                uint64_t total = 0, elems = 0;
                const char *bad = nullptr;
                for (const buf_t &m : c.msgs) {
                    pugi::xml_document doc;
                    pugi::xml_parse_result r = doc.load_buffer(m.data, m.len, v.parse_opts);
                    if (!r) { bad = r.description(); break; }
                    elems += count_elements(doc);
                    total += m.len;
                }
                if (bad) { emit_blank(v.peer, w, f, "rejected", bad); continue; }
                stats_t s = measure(&a.policy, op_many, &c, &failed);
                if (failed) { emit_blank(v.peer, w, f, "error", "parse failed while measuring"); continue; }
                json_begin(v.peer, w, f);
                json_stats(&s, total);
                json_i("messages", n);
                json_f("msgs_per_s", (double)n * 1e9 / s.median_ns);
                json_i("elements", elems);
                json_end();
                continue;
            }
            uint64_t elems;
            {
                pugi::xml_document doc;
                pugi::xml_parse_result r = doc.load_buffer(b.data, b.len, v.parse_opts);
                if (!r) {
                    if (!strcmp(w, "xpath") || !strcmp(w, "xpath-eval"))
                        for (int e = 1; e <= 5; e++) emit_blank_xw(v.peer, w, f, e, "rejected", r.description());
                    else
                        emit_blank(v.peer, w, f, "rejected", r.description());
                    continue;
                }
                elems = count_elements(doc);
            }
            if (!strcmp(w, "parse")) {
                stats_t s = measure(&a.policy, op_parse, &c, &failed);
                if (failed) { emit_blank(v.peer, w, f, "error", "parse failed while measuring"); continue; }
                json_begin(v.peer, w, f);
                json_stats(&s, b.len);
                json_i("elements", elems);
                json_end();
            } else if (!strcmp(w, "roundtrip")) {
                op_roundtrip(&c);
                const char *err;
                uint64_t oe = reparse_count(c, &err);
                bool identical = c.out.size() == b.len && !memcmp(c.out.data(), b.data, b.len);
                uint64_t out_len = c.out.size();
                stats_t s = measure(&a.policy, op_roundtrip, &c, &failed);
                if (failed) { emit_blank(v.peer, w, f, "error", "failed while measuring"); continue; }
                json_begin(v.peer, w, f);
                json_stats(&s, b.len);
                json_i("out_bytes", out_len);
                printf(",\"identical\":%s", identical ? "true" : "false");
                if (err) json_s("reparse_error", err); else json_i("out_elements", oe);
                json_end();
            } else if (!strcmp(w, "xpath")) {
                for (int e = 0; e < 5; e++) {
                    pugi::xpath_query q(XPATH_EXPRS[e]);
                    c.q = &q;
                    if (op_xpath(&c)) { emit_blank_x(v.peer, f, e + 1, "error", "failed"); continue; }
                    const char *err;
                    uint64_t oe = reparse_count(c, &err);
                    uint64_t sel = c.selected, out_len = c.out.size();
                    stats_t s = measure(&a.policy, op_xpath, &c, &failed);
                    if (failed) { emit_blank_x(v.peer, f, e + 1, "error", "failed while measuring"); continue; }
                    json_begin(v.peer, w, f);
                    json_i("expr", (uint64_t)e + 1);
                    json_s("xpath", XPATH_EXPRS[e]);
                    json_stats(&s, b.len);
                    json_i("selected", sel);
                    json_i("out_bytes", out_len);
                    if (err) json_s("reparse_error", err); else json_i("out_elements", oe);
                    json_end();
                }
            } else if (!strcmp(w, "xpath-eval")) {
                for (int e = 0; e < 5; e++) {
                    pugi::xpath_query q(XPATH_EXPRS[e]);
                    c.q = &q;
                    if (op_xpath_eval(&c)) { emit_blank_xw(v.peer, w, f, e + 1, "error", "failed"); continue; }
                    uint64_t sel = c.selected;
                    stats_t s = measure(&a.policy, op_xpath_eval, &c, &failed);
                    if (failed) { emit_blank_xw(v.peer, w, f, e + 1, "error", "failed while measuring"); continue; }
                    json_begin(v.peer, w, f);
                    json_i("expr", (uint64_t)e + 1);
                    json_s("xpath", XPATH_EXPRS[e]);
                    json_stats(&s, b.len);
                    json_i("selected", sel);
                    json_end();
                }
            } else {
                fprintf(stderr, "pugixml peer: unknown workload %s\n", w);
                return 2;
            }
            free(b.data);
        }
    }
    return 0;
}
