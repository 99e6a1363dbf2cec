/* The measurement loop and result format of the side-by-side harness, for the C
 * and C++ peers. It mirrors bench/src/harness.rs (the reference): warm-up, a batch
 * size so that one timed sample lasts about 50 us, samples until both a minimum
 * count and a minimum time are reached (or a maximum time has passed, with at
 * least 3 samples), the median time per operation.
 *
 *   PROGRAM WORKLOAD [--peers a,b] [--warmup-ms N] [--min-ms N] [--max-ms N]
 *           [--min-samples N] [--workload-warmup-ms N] FILE...
 *
 * Output: one JSON object per line on stdout.
 */
#ifndef VTDX_BENCH_HARNESS_H
#define VTDX_BENCH_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SAMPLE_TARGET_NS 50000.0

typedef struct {
    double warmup_ns, min_ns, max_ns;
    size_t min_samples;
} policy_t;

typedef struct {
    double median_ns, min_ns, p90_ns;
    uint64_t iters, samples, batch;
} stats_t;

typedef struct {
    const char *workload;
    const char *peers; /* comma-separated, NULL = all */
    policy_t policy;
    double workload_warmup_ns;
    int nfiles;
    char **files;
} args_t;

typedef struct {
    unsigned char *data;
    size_t len;
} buf_t;

static inline double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Runs op(ctx) under the policy; op returns nonzero on failure (then the measurement aborts and
 * *failed is set). */
static stats_t measure(const policy_t *p, int (*op)(void *), void *ctx, int *failed) {
    stats_t s;
    memset(&s, 0, sizeof s);
    *failed = 0;
    double t0 = now_ns();
    uint64_t n = 0;
    for (;;) {
        if (op(ctx)) { *failed = 1; return s; }
        n++;
        if (now_ns() - t0 >= p->warmup_ns) break;
    }
    double per = (now_ns() - t0) / (double)n;
    if (per < 1.0) per = 1.0;
    uint64_t batch = (uint64_t)(SAMPLE_TARGET_NS / per + 0.999999);
    if (batch < 1) batch = 1;
    size_t cap = 1024, k = 0;
    double *v = (double *)malloc(cap * sizeof(double));
    double start = now_ns();
    for (;;) {
        double a = now_ns();
        for (uint64_t i = 0; i < batch; i++)
            if (op(ctx)) { *failed = 1; free(v); return s; }
        double b = now_ns();
        if (k == cap) { cap *= 2; v = (double *)realloc(v, cap * sizeof(double)); }
        v[k++] = (b - a) / (double)batch;
        double el = b - start;
        if ((k >= p->min_samples && el >= p->min_ns) || (el >= p->max_ns && k >= 3)) break;
    }
    qsort(v, k, sizeof(double), cmp_double);
    s.median_ns = (k % 2) ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2.0;
    s.min_ns = v[0];
    size_t i90 = (size_t)((double)k * 0.9);
    s.p90_ns = v[i90 < k ? i90 : k - 1];
    s.iters = (uint64_t)k * batch;
    s.samples = k;
    s.batch = batch;
    free(v);
    return s;
}

static void usage_exit(const char *msg) {
    fprintf(stderr, "%s\nusage: PROGRAM WORKLOAD [--peers a,b] [--warmup-ms N] [--min-ms N] [--max-ms N] [--min-samples N] [--workload-warmup-ms N] FILE...\n", msg);
    exit(2);
}

static args_t parse_args(int argc, char **argv) {
    args_t a;
    memset(&a, 0, sizeof a);
    if (argc < 2) usage_exit("missing workload");
    a.workload = argv[1];
    a.policy.warmup_ns = 200e6;
    a.policy.min_ns = 500e6;
    a.policy.max_ns = 3000e6;
    a.policy.min_samples = 15;
    a.files = (char **)calloc((size_t)argc, sizeof(char *));
    for (int i = 2; i < argc; i++) {
        const char *x = argv[i];
        if (strncmp(x, "--", 2) == 0) {
            if (i + 1 >= argc) usage_exit("option needs a value");
            const char *v = argv[++i];
            double ms = atof(v) * 1e6;
            if (!strcmp(x, "--peers")) a.peers = v;
            else if (!strcmp(x, "--warmup-ms")) a.policy.warmup_ns = ms;
            else if (!strcmp(x, "--min-ms")) a.policy.min_ns = ms;
            else if (!strcmp(x, "--max-ms")) a.policy.max_ns = ms;
            else if (!strcmp(x, "--min-samples")) a.policy.min_samples = (size_t)(atoi(v) < 1 ? 1 : atoi(v));
            else if (!strcmp(x, "--workload-warmup-ms")) a.workload_warmup_ns = ms;
            else usage_exit("unknown option");
        } else {
            a.files[a.nfiles++] = argv[i];
        }
    }
    return a;
}

/* Whether peer was asked for (all when --peers is absent). */
static int wants(const args_t *a, const char *peer) {
    if (!a->peers) return 1;
    size_t n = strlen(peer);
    const char *p = a->peers;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, peer, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

static buf_t read_file(const char *path) {
    buf_t b = {NULL, 0};
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot read %s\n", path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b.data = (unsigned char *)malloc((size_t)n + 1);
    if (n > 0 && fread(b.data, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "cannot read %s\n", path); exit(2); }
    b.data[n] = 0;
    b.len = (size_t)n;
    fclose(f);
    return b;
}

/* Splits a NUL-separated message bundle into separately allocated buffers. */
static buf_t *split_bundle(const buf_t *bundle, size_t *count) {
    size_t cap = 16, n = 0, i = 0;
    buf_t *v = (buf_t *)malloc(cap * sizeof(buf_t));
    while (i < bundle->len) {
        size_t j = i;
        while (j < bundle->len && bundle->data[j] != 0) j++;
        if (j > i) {
            if (n == cap) { cap *= 2; v = (buf_t *)realloc(v, cap * sizeof(buf_t)); }
            v[n].len = j - i;
            v[n].data = (unsigned char *)malloc(j - i + 1);
            memcpy(v[n].data, bundle->data + i, j - i);
            v[n].data[j - i] = 0;
            n++;
        }
        i = j + 1;
    }
    *count = n;
    return v;
}

static long proc_status_kb(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = 0;
    size_t n = strlen(key);
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, n)) { v = atol(line + n); break; }
    fclose(f);
    return v;
}
static uint64_t peak_rss(void) { return (uint64_t)proc_status_kb("VmHWM:") * 1024; }
static uint64_t current_rss(void) { return (uint64_t)proc_status_kb("VmRSS:") * 1024; }

/* ---- JSON lines ---- */
static void json_str_val(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { putchar('\\'); putchar(c); }
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}
static void json_begin(const char *peer, const char *workload, const char *file) {
    printf("{\"peer\":");
    json_str_val(peer);
    printf(",\"workload\":");
    json_str_val(workload);
    printf(",\"file\":");
    json_str_val(file);
}
static void json_s(const char *k, const char *v) { printf(",\"%s\":", k); json_str_val(v); }
static void json_i(const char *k, uint64_t v) { printf(",\"%s\":%llu", k, (unsigned long long)v); }
static void json_f(const char *k, double v) { printf(",\"%s\":%.3f", k, v); }
static void json_stats(const stats_t *s, uint64_t bytes) {
    json_s("status", "ok");
    json_f("median_ns", s->median_ns);
    json_f("min_ns", s->min_ns);
    json_f("p90_ns", s->p90_ns);
    json_i("iters", s->iters);
    json_i("samples", s->samples);
    json_i("batch", s->batch);
    json_i("bytes", bytes);
    json_f("mbps", (double)bytes * 1e3 / s->median_ns);
}
static void json_end(void) {
    printf("}\n");
    fflush(stdout);
}
static void emit_blank(const char *peer, const char *workload, const char *file, const char *status, const char *reason) {
    json_begin(peer, workload, file);
    json_s("status", status);
    json_s("reason", reason);
    json_end();
}

/* CRC-32 (IEEE 802.3, zlib's) of data: the c14n workload's cross-check of canonical outputs
 * between the peer programs (bench/src/harness.rs crc32). */
static inline uint32_t crc32(const unsigned char *data, size_t len) {
    static uint32_t table[256];
    static int ready = 0;
    if (!ready) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
        ready = 1;
    }
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++) c = table[(c ^ data[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

/* The five XPath expressions of the seed's Tables 2-6 (bench/src/lib.rs XPATH_EXPRS). */
static const char *const XPATH_EXPRS[5] = {
    "/*/*/*[position() mod 2 = 0]",
    "/purchaseOrder/items/item[USPrice<100]",
    "/*/*/*/quantity/text()",
    "//item/comment",
    "//item/comment/../quantity",
};

/* A blank xpath (or xpath-eval) cell: expression idx (1-based). */
static void emit_blank_xw(const char *peer, const char *workload, const char *file, int idx, const char *status, const char *reason) {
    json_begin(peer, workload, file);
    json_i("expr", (uint64_t)idx);
    json_s("xpath", XPATH_EXPRS[idx - 1]);
    json_s("status", status);
    json_s("reason", reason);
    json_end();
}

static void emit_blank_x(const char *peer, const char *file, int idx, const char *status, const char *reason) {
    emit_blank_xw(peer, "xpath", file, idx, status, reason);
}


/* The glibc malloc settings must come from the driver (bench/run sets them in the environment of
 * every native peer): refuse to measure without them, so no run is silently different. */
static void require_malloc_env(void) {
    if (!getenv("MALLOC_TRIM_THRESHOLD_") || !getenv("MALLOC_MMAP_THRESHOLD_")) {
        fprintf(stderr, "MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_ must be set (bench/run sets them)\n");
        exit(2);
    }
}

#endif
