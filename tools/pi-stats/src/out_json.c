/* out_json.c - one JSON object; schema documented in pi-stats.1. */
#define _POSIX_C_SOURCE 200809L     /* open_memstream */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "buckets.h"
#include "output.h"
#include "version.h"

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, surrogates or values past U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p)
{
    unsigned char c = p[0];
    size_t n;
    uint32_t v, min;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        v = c & 0x1fu;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        v = c & 0x0fu;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        v = c & 0x07u;
        min = 0x10000;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)      /* also stops at the NUL */
            return 0;
        v = v << 6 | (p[i] & 0x3fu);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    return n;
}

/* A JSON string; a byte that is not part of well-formed UTF-8 (a file
 * name is any bytes) becomes U+FFFD.  Returns whether any did. */
static int jstr(FILE *f, const char *s)
{
    int lossy = 0;

    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_len(p);
        if (n == 0) {
            fputs("\\ufffd", f);
            lossy = 1;
            p++;
        } else if (n > 1) {
            fwrite(p, 1, n, f);
            p += n;
        } else {
            if (*p == '"' || *p == '\\')
                fprintf(f, "\\%c", *p);
            else if (*p < 0x20 || *p == 0x7f)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
            p++;
        }
    }
    fputc('"', f);
    return lossy;
}

/* An input's name: "name", and when it is not UTF-8 also "name_hex", its
 * bytes in hex (lossless). */
static void jname(FILE *f, const char *s)
{
    fputs("\"name\":", f);
    if (!jstr(f, s))
        return;
    fputs(",\"name_hex\":\"", f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        fprintf(f, "%02x", *p);
    fputc('"', f);
}

/* "k":v, or "k":null unless has, after a comma if comma, at p; returns
 * the end.  Keys are this file's literals, shorter than 48 characters, so
 * that one takes at most KV_MAX characters.  Formatted here, not by
 * printf: the summaries of thousands of pCPUs. */
#define KV_MAX 96
static char *put_kv(char *p, const char *k, int has, uint64_t v, int comma)
{
    p = pis_put_str(p, comma ? ",\"" : "\"", 0);
    p = pis_put_str(pis_put_str(p, k, 0), "\":", 0);
    return has ? pis_put_u64(p, v, 0) : pis_put_str(p, "null", 0);
}

static void kv(FILE *f, const char *k, uint64_t v, int comma)
{
    char b[KV_MAX];

    fwrite(b, 1, (size_t)(put_kv(b, k, 1, v, comma) - b), f);
}

static void kvn(FILE *f, const char *k, int has, uint64_t v)
{
    char b[KV_MAX];

    fwrite(b, 1, (size_t)(put_kv(b, k, has, v, 1) - b), f);
}

/* "N":{ after a comma unless first: the key of one pCPU's object. */
static void cpu_key(FILE *f, unsigned cpu, int first)
{
    char b[32], *p = pis_put_str(b, first ? "\"" : ",\"", 0);

    p = pis_put_str(pis_put_u64(p, cpu, 0), "\":{", 0);
    fwrite(b, 1, (size_t)(p - b), f);
}

static int summary(FILE *f, const struct pis_hist *h, int merged,
                   const struct pis_out_opts *o, struct pis_vc **vc,
                   size_t *nvc)
{
    struct pis_summary s;
    char b[9 * KV_MAX], *p = b;
    int has;

    if (pis_summarize(h, &s, vc, nvc))
        return -1;
    has = s.count > 0;
    p = put_kv(p, "count", 1, s.count, 0);
    p = put_kv(p, "min", has, s.min, 1);
    p = put_kv(p, "p50", has, s.p50, 1);
    p = put_kv(p, "p90", has, s.p90, 1);
    p = put_kv(p, "p99", has, s.p99, 1);
    p = put_kv(p, "p999", has, s.p999, 1);
    p = put_kv(p, "max", has, s.max, 1);
    p = put_kv(p, "max_tsc", has && s.max_has_tsc, s.max_tsc, 1);
    p = put_kv(p, "max_offset", has, s.max_offset, 1);
    fwrite(b, 1, (size_t)(p - b), f);
    if (merged) {
        fprintf(f, ",\"max_input\":");
        if (has && o->names && s.max_file >= 0 && s.max_file < o->ninputs)
            jstr(f, o->names[s.max_file]);
        else
            fprintf(f, "null");
    }
    return 0;
}

/* "per_domain" or "per_vcpu": list lengths and spills (--by). */
static int per_owner(FILE *f, const struct pis_report *r,
                     const struct pis_out_opts *o)
{
    const struct pis_owners *t = &r->pi.owners;

    fprintf(f, ",\"per_%s\":{", pis_by_name[r->pi.by]);
    for (size_t i = 0; i < t->n; i++) {
        char lbl[24];
        pis_owner_label(lbl, sizeof(lbl), r->pi.by, t->o[i]->key);
        fprintf(f, "%s\"%s\":{", i ? "," : "", lbl);
        if (summary(f, &t->o[i]->len, r->merged, o, NULL, NULL))
            return -1;
        kv(f, "spilled", t->o[i]->spilled, 1);
        fputc('}', f);
    }
    fputc('}', f);
    return 0;
}

static int metric(FILE *f, const struct pis_report *r, enum pis_metric_id m,
                  const struct pis_out_opts *o)
{
    struct pis_hist total;
    struct pis_vc *vc = NULL;
    struct pis_bucket *b;
    size_t nvc, nb;
    enum pis_scheme sc = pis_metric_scheme(m);
    uint64_t step = pis_metric_step(m, o);
    int first = 1;

    if (pis_pi_total(&r->pi, m, &total))
        goto fail;
    fprintf(f, ",\"%s\":{", pis_metric_name[m]);
    if (summary(f, &total, r->merged, o, &vc, &nvc))
        goto fail;
    fprintf(f, ",\"unit\":\"%s\"", m == PIS_M_WAKE_CYCLES ? "cycles" :
            "entries");
    if (m == PIS_M_LIST_LEN) {
        const struct pis_longest *l = &r->pi.longest;
        kvn(f, "max_domain", l->set, l->dom);
        kvn(f, "max_vcpu", l->set, l->vcpu);
    }
    fprintf(f, ",\"scheme\":\"%s\",\"step\":%" PRIu64 ",\"buckets\":[",
            sc == PIS_LOG2 ? "log2" : "linear", sc == PIS_LOG2 ? 0 : step);
    b = pis_buckets(vc, nvc, sc, step, 0, &nb);
    if (nvc && !b)
        goto fail;
    for (size_t i = 0; i < nb; i++)
        fprintf(f, "%s[%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", i ? "," : "",
                b[i].low, b[i].high, b[i].count);
    free(b);
    free(vc);
    vc = NULL;
    fprintf(f, "],\"per_cpu\":{");
    for (unsigned c = 0; c < PIS_MAX_CPUS; c++) {
        if (!r->pi.m[m].cpu[c])
            continue;
        cpu_key(f, c, first);
        first = 0;
        if (summary(f, r->pi.m[m].cpu[c], r->merged, o, NULL, NULL))
            goto fail;
        fputc('}', f);
    }
    fputc('}', f);
    if (m == PIS_M_LIST_LEN && r->pi.by != PIS_BY_PCPU &&
        per_owner(f, r, o))
        goto fail;
    fputc('}', f);
    pis_hist_free(&total);
    return 0;
fail:
    free(vc);
    pis_hist_free(&total);
    return -1;
}

/* The keys of the record classes (the class bit, or none). */
static const char *const class_key[PIS_NCLASS] = {
    "0x00010000", "0x00020000", "0x00040000", "0x00080000", "0x00100000",
    "0x00200000", "0x00400000", "0x00800000", "0x01000000", "0x02000000",
    "0x04000000", "0x08000000", "none",
};

static void classes(FILE *f, const uint64_t *by_class)
{
    int first = 1;
    for (unsigned k = 0; k < PIS_NCLASS; k++) {
        if (!by_class[k])
            continue;
        kv(f, class_key[k], by_class[k], !first);
        first = 0;
    }
}

static int body(FILE *f, const struct pis_report *r,
                const struct pis_out_opts *o)
{
    const struct pis_read_stats *st = &r->st;
    const struct pis_pi_counts *c = &r->pi.c;
    uint64_t total_class[PIS_NCLASS] = { 0 };
    struct pis_vc *vc;
    size_t nvc;
    int first = 1;

    kv(f, "bytes", st->bytes, 0);
    kv(f, "windows", st->windows, 1);
    kv(f, "records", st->records, 1);
    kv(f, "records_no_tsc", st->records_no_tsc, 1);
    kv(f, "wrap_records", st->wrap_records, 1);
    fprintf(f, ",\"byte_order\":\"%s\"", pis_byte_order_name(st->byte_order));
    kv(f, "pcpus", pis_report_npcpus(r), 1);
    kv(f, "lost_records", st->lost_records, 1);
    kv(f, "lost_markers", st->lost_markers, 1);
    kv(f, "corrupt_bytes", st->corrupt_bytes, 1);
    kv(f, "corrupt_resyncs", st->corrupt_events, 1);
    kv(f, "skipped_at_start", st->lead_bytes, 1);
    kv(f, "truncated_bytes", st->truncated_bytes, 1);
    kv(f, "truncated_windows", st->truncated_windows, 1);
    kv(f, "missing_bytes", st->missing_bytes, 1);
    kv(f, "tsc_backwards", st->tsc_backwards, 1);
    kvn(f, "tsc_min", st->have_tsc, st->tsc_min);
    kvn(f, "tsc_max", st->have_tsc, st->tsc_max);

    fprintf(f, ",\"records_by_cpu\":{");
    for (unsigned cpu = 0; cpu < PIS_MAX_CPUS; cpu++) {
        const struct pis_cpu_stats *cs = &r->cpu[cpu];
        if (!cs->windows)
            continue;
        for (unsigned k = 0; k < PIS_NCLASS; k++)
            total_class[k] += cs->by_class[k];
        cpu_key(f, cpu, first);
        first = 0;
        kv(f, "records", cs->records, 0);
        kv(f, "windows", cs->windows, 1);
        kv(f, "no_tsc", cs->no_tsc, 1);
        fputs(",\"by_class\":{", f);
        classes(f, cs->by_class);
        fputs("}}", f);
    }
    fprintf(f, "},\"records_by_class\":{");
    classes(f, total_class);
    fprintf(f, "}");

    fprintf(f, ",\"pi_events\":{");
    kv(f, "list_add", c->list_add, 0);
    kv(f, "list_move", c->list_move, 1);
    kv(f, "list_del", c->list_del, 1);
    kv(f, "wakeup", c->wakeup, 1);
    kv(f, "woken", c->woken, 1);
    kv(f, "legacy_block_list", c->legacy_block, 1);
    kv(f, "legacy_wakeup_start", c->legacy_start, 1);
    kv(f, "legacy_wakeup_end", c->legacy_end, 1);
    kv(f, "legacy_pairs", c->legacy_pairs, 1);
    kv(f, "legacy_unmatched_start", c->legacy_unmatched_start, 1);
    kv(f, "legacy_unmatched_end", c->legacy_unmatched_end, 1);
    kv(f, "legacy_voided_by_lost", c->legacy_voided_by_lost, 1);
    kv(f, "legacy_untimed", c->legacy_untimed, 1);
    kv(f, "legacy_end_before_start", c->legacy_backwards, 1);
    kv(f, "no_tsc", c->no_tsc, 1);
    kv(f, "malformed", c->malformed, 1);
    kv(f, "filtered_out", c->filtered_out, 1);
    kv(f, "out_of_range", c->out_of_range, 1);
    fprintf(f, "}");
    kvn(f, "range_base_tsc", r->pi.range.have_base, r->pi.range.base);
    kv(f, "spilled_adds", c->spilled_adds, 1);
    fprintf(f, ",\"limit\":{");
    kv(f, "unbounded_adds", c->unbounded_adds, 0);
    kv(f, "over_limit_adds", c->over_limit_adds, 1);
    fprintf(f, ",\"by_limit\":[");
    vc = pis_hist_sorted(&r->pi.limits, &nvc);
    if (!vc)
        return -1;
    for (size_t i = 0; i < nvc; i++)
        fprintf(f, "%s[%" PRIu64 ",%" PRIu64 "]", i ? "," : "", vc[i].value,
                vc[i].count);
    free(vc);
    fprintf(f, "]}");
    for (int m = 0; m < PIS_NMETRICS; m++)
        if (metric(f, r, (enum pis_metric_id)m, o))
            return -1;
    return pis_lt_json(f, r);
}

/* The body of r, made once in memory when it is printed twice (a single
 * input: the top level and its entry in "inputs"). */
static int body_twice(FILE *f, const struct pis_report *r,
                      const struct pis_out_opts *o, char **text, size_t *len)
{
    FILE *m = open_memstream(text, len);
    int rc;

    if (!m)
        return -1;
    rc = body(m, r, o);
    if (fclose(m) || rc)
        return -1;
    return fwrite(*text, 1, *len, f) == *len ? 0 : -1;
}

int pis_out_json(FILE *f, struct pis_report *const *in, int n,
                 const struct pis_report *merged,
                 const struct pis_out_opts *o)
{
    const struct pis_report *top = merged ? merged : in[0];
    char *text = NULL;
    size_t len = 0;
    int rc = -1;

    fprintf(f, "{\"tool\":\"pi-stats\",\"version\":\"%s\",\"schema\":1",
            PIS_VERSION);
    if (o->clock_hz > 0)
        fprintf(f, ",\"clock_hz\":%.0f,\"clock_source\":", o->clock_hz);
    else
        fprintf(f, ",\"clock_hz\":null,\"clock_source\":null");
    if (o->clock_hz > 0)
        jstr(f, o->clock_source);
    fprintf(f, ",\"time_unit\":\"%s\"", o->clock_hz > 0 ? "us" : "cycles");
    fprintf(f, ",\"cpu_filter\":");
    if (o->cpu_list)
        jstr(f, o->cpu_list);
    else
        fprintf(f, "null");
    fprintf(f, ",\"by\":\"%s\",\"range\":", pis_by_name[o->by]);
    if (o->range.on) {
        fprintf(f, "{\"since\":");
        o->since ? jstr(f, o->since) : (void)fprintf(f, "null");
        fprintf(f, ",\"until\":");
        o->until ? jstr(f, o->until) : (void)fprintf(f, "null");
        fprintf(f, ",\"unit\":\"%s\"}", o->range.relative ? "s" : "tsc");
    } else {
        fprintf(f, "null");
    }
    fprintf(f, ",\"ninputs\":%d,", n);
    if (top == in[0] ? body_twice(f, top, o, &text, &len) : body(f, top, o))
        goto out;
    fprintf(f, ",\"inputs\":[");
    for (int i = 0; i < n; i++) {
        fputs(i ? ",{" : "{", f);
        jname(f, in[i]->name);
        fputc(',', f);
        if (text && in[i] == top) {
            if (fwrite(text, 1, len, f) != len)
                goto out;
        } else if (body(f, in[i], o)) {
            goto out;
        }
        fputc('}', f);
    }
    fprintf(f, "]}\n");
    rc = ferror(f) ? -1 : 0;
out:
    free(text);
    return rc;
}

void pis_json_str(FILE *f, const char *s)
{
    jstr(f, s);
}
