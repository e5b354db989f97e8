/* main.c - pi-stats command line. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "atomic.h"
#include "clock.h"
#include "cpulist.h"
#include "exitcodes.h"
#include "input.h"
#include "output.h"
#include "report.h"

#include "version.h"

#define MAX_SHOWN 5             /* warnings of one kind shown per input */

enum fmt { FMT_TEXT, FMT_JSON, FMT_CSV };

struct input_ctx {
    const char *name;
    struct pis_pi *pi;
    int quiet;
    unsigned shown[PIS_DIAG_NKINDS];
    unsigned hidden[PIS_DIAG_NKINDS];
};

static void usage(FILE *f)
{
    fprintf(f,
"Usage: pi-stats [OPTION]... FILE...\n"
"Posted-interrupt blocking-list lengths and wakeup costs from xentrace dumps.\n"
"FILE is a xentrace output file, a pipe, or - for standard input; with\n"
"several files each is reported and then all are merged.\n"
"\n"
"  -j, --json          one JSON object (schema in pi-stats(1))\n"
"  -c, --csv           CSV rows: input,metric,cpu,kind,low,high,value\n"
"      --svg FILE      also write both histograms as an SVG plot to FILE\n"
"  -o, --output FILE   write the report to FILE (atomically) not stdout\n"
"      --cpu LIST      only samples of these pCPUs, e.g. 0-3,8,4000\n"
"      --cpu-mhz N     TSC runs at N MHz: print wakeup times in us\n"
"      --cpu-mhz host  ask the hypervisor (needs a libxenctrl build)\n"
"      --tsc-hz N      TSC runs at N Hz\n"
"      --len-step N    list-length bucket width (default 1)\n"
"      --strict        exit 5 on corrupt, truncated or disordered data\n"
"  -q, --quiet         no warnings on stderr (errors still shown)\n"
"  -h, --help          this help\n"
"  -V, --version       version\n"
"\n"
"Without a clock, times are TSC cycles; pi-stats never guesses a frequency.\n"
"Exit status: 0 ok, 1 internal error, 2 usage error, 3 input unreadable,\n"
"4 input is not a xentrace dump, 5 data problems with --strict.\n");
}

static void on_diag(void *ctx, enum pis_diag_kind kind, uint64_t off,
                    const char *msg)
{
    struct input_ctx *ic = ctx;

    if (kind != PIS_DIAG_NOT_TRACE) {
        if (ic->quiet)
            return;
        if (ic->shown[kind] >= MAX_SHOWN) {
            ic->hidden[kind]++;
            return;
        }
        ic->shown[kind]++;
        fprintf(stderr, "pi-stats: %s: byte %" PRIu64 ": warning: %s\n",
                ic->name, off, msg);
        return;
    }
    fprintf(stderr, "pi-stats: %s: byte %" PRIu64 ": %s\n", ic->name, off,
            msg);
}

/* The histogram store allocates and frees arrays of a few hundred KiB per
 * pCPU at every flush and report: keep them in the heap instead of a fresh
 * mmap (zeroed pages, one fault each) every time.  The counters of many
 * pCPUs are then touched at random: grow the heap in one step and ask for
 * huge pages there (one fault and one TLB entry per 2 MiB instead of 512;
 * measured: about 15% less time on the PI-heavy bench trace). */
static void heap_setup(void)
{
#ifdef __GLIBC__
    const uintptr_t huge = 2u << 20;
    uintptr_t from, to;
    void *first;

    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#ifdef MADV_HUGEPAGE
    mallopt(M_TOP_PAD, 64 << 20);
    first = malloc(1);          /* the heap grows by the pad */
    from = ((uintptr_t)first + huge - 1) & ~(huge - 1);
    to = (uintptr_t)sbrk(0) & ~(huge - 1);
    if (first && to > from)
        (void)madvise((void *)from, to - from, MADV_HUGEPAGE);
    free(first);
#endif
#endif
}

static void on_rec(void *ctx, const struct pis_rec *rec)
{
    struct input_ctx *ic = ctx;
    pis_pi_record(ic->pi, rec);
}

static void on_batch(void *ctx, const struct pis_batch *b)
{
    struct input_ctx *ic = ctx;
    pis_pi_batch(ic->pi, b);
}

static int data_problems(const struct pis_report *r)
{
    return r->st.corrupt_events || r->st.corrupt_bytes ||
           r->st.truncated_windows || r->st.truncated_bytes ||
           r->st.tsc_backwards || r->pi.c.malformed;
}

/* Read one input into rep.  Returns an exit code. */
static int analyse(struct pis_report *rep, const char *name, int index,
                   int quiet)
{
    struct pis_reader rd;
    struct input_ctx ic;
    enum pis_input_status st;
    char err[256];

    memset(&ic, 0, sizeof(ic));
    ic.name = name;
    ic.pi = &rep->pi;
    ic.quiet = quiet;
    rep->pi.file = index;
    if (pis_reader_init(&rd, on_rec, on_batch, on_diag, &ic) ||
        pis_pi_want(&rd, 1)) {
        fprintf(stderr, "pi-stats: out of memory\n");
        pis_reader_free(&rd);
        return PIS_EXIT_INTERNAL;
    }
    st = pis_input_run(&rd, name, err, sizeof(err));
    pis_pi_end_input(&rep->pi);
    pis_report_take(rep, &rd);
    pis_reader_free(&rd);
    for (int k = 0; k < PIS_DIAG_NKINDS; k++)
        if (ic.hidden[k])
            fprintf(stderr, "pi-stats: %s: %u more warnings like the "
                    "above not shown\n", name, ic.hidden[k]);
    switch (st) {
    case PIS_INPUT_OK:
        break;
    case PIS_INPUT_IO:
        fprintf(stderr, "pi-stats: %s: %s\n", name, err);
        return PIS_EXIT_IO;
    case PIS_INPUT_NOT_TRACE:
        return PIS_EXIT_NOT_TRACE;
    case PIS_INPUT_NOMEM:
    default:
        fprintf(stderr, "pi-stats: %s: out of memory\n", name);
        return PIS_EXIT_INTERNAL;
    }
    if (rep->pi.oom) {
        fprintf(stderr, "pi-stats: %s: out of memory, samples lost\n", name);
        return PIS_EXIT_INTERNAL;
    }
    return PIS_EXIT_OK;
}

static int emit(enum fmt fmt, FILE *f, struct pis_report *const *ok, int nok,
                const struct pis_report *merged, const struct pis_out_opts *o)
{
    switch (fmt) {
    case FMT_JSON:
        return pis_out_json(f, ok, nok, merged, o);
    case FMT_CSV:
        return pis_out_csv(f, ok, nok, merged, o);
    case FMT_TEXT:
    default:
        return pis_out_text(f, ok, nok, merged, o);
    }
}

static int write_to(const char *path, enum fmt fmt, int svg,
                    struct pis_report *const *ok, int nok,
                    const struct pis_report *merged,
                    const struct pis_out_opts *o)
{
    struct pis_atomic a;
    int rc;

    if (pis_atomic_open(&a, path)) {
        fprintf(stderr, "pi-stats: %s: cannot create: %s\n", path,
                strerror(errno));
        return -1;
    }
    if (svg)
        rc = pis_out_svg(a.f, merged ? merged : ok[0], o);
    else
        rc = emit(fmt, a.f, ok, nok, merged, o);
    if (rc) {
        fprintf(stderr, "pi-stats: %s: cannot write output\n", path);
        pis_atomic_abort(&a);
        return -1;
    }
    if (pis_atomic_commit(&a)) {
        fprintf(stderr, "pi-stats: %s: cannot write: %s\n", path,
                strerror(errno));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    enum { O_SVG = 256, O_CPU, O_MHZ, O_HZ, O_STEP, O_STRICT };
    static const struct option lopts[] = {
        { "json", no_argument, NULL, 'j' },
        { "csv", no_argument, NULL, 'c' },
        { "output", required_argument, NULL, 'o' },
        { "svg", required_argument, NULL, O_SVG },
        { "cpu", required_argument, NULL, O_CPU },
        { "cpu-mhz", required_argument, NULL, O_MHZ },
        { "tsc-hz", required_argument, NULL, O_HZ },
        { "len-step", required_argument, NULL, O_STEP },
        { "strict", no_argument, NULL, O_STRICT },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };

    heap_setup();
    static unsigned char cpumap[PIS_CPUMAP_BYTES];
    struct pis_out_opts o = { 0, NULL, 1, NULL, NULL, 0 };
    enum fmt fmt = FMT_TEXT;
    const char *out = NULL, *svg = NULL, *mhz = NULL, *tschz = NULL;
    int strict = 0, quiet = 0, opt, rc = PIS_EXIT_OK, n, nok = 0;
    struct pis_report *reps, **ok, merged;
    int have_merged = 0, worst_in = 0, any_data = 0;
    char err[256];

    opterr = 0;
    while ((opt = getopt_long(argc, argv, "jco:qhV", lopts, NULL)) != -1) {
        switch (opt) {
        case 'j':
        case 'c':
            if (fmt != FMT_TEXT && fmt != (opt == 'j' ? FMT_JSON : FMT_CSV)) {
                fprintf(stderr, "pi-stats: --json and --csv exclude each "
                        "other\n");
                return PIS_EXIT_USAGE;
            }
            fmt = opt == 'j' ? FMT_JSON : FMT_CSV;
            break;
        case 'o':
            out = optarg;
            break;
        case O_SVG:
            svg = optarg;
            break;
        case O_CPU:
            if (pis_cpulist_parse(optarg, cpumap, err, sizeof(err))) {
                fprintf(stderr, "pi-stats: --cpu: %s\n", err);
                return PIS_EXIT_USAGE;
            }
            o.cpu_list = optarg;
            break;
        case O_MHZ:
            mhz = optarg;
            break;
        case O_HZ:
            tschz = optarg;
            break;
        case O_STEP: {
            char *end;
            unsigned long long v;
            errno = 0;
            v = strtoull(optarg, &end, 10);
            if (errno || *end || end == optarg || v == 0 || optarg[0] == '-') {
                fprintf(stderr, "pi-stats: --len-step: want a positive "
                        "integer, got \"%s\"\n", optarg);
                return PIS_EXIT_USAGE;
            }
            o.len_step = v;
            break;
        }
        case O_STRICT:
            strict = 1;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'h':
            usage(stdout);
            return PIS_EXIT_OK;
        case 'V':
            printf("pi-stats %s\n", PIS_VERSION);
            return PIS_EXIT_OK;
        default:
            if (optopt && optopt < 256)
                fprintf(stderr, "pi-stats: bad option -%c or missing "
                        "argument\n", optopt);
            else
                fprintf(stderr, "pi-stats: bad option %s\n",
                        argv[optind - 1]);
            fprintf(stderr, "Try 'pi-stats --help'.\n");
            return PIS_EXIT_USAGE;
        }
    }
    if (mhz && tschz) {
        fprintf(stderr, "pi-stats: give --cpu-mhz or --tsc-hz, not both\n");
        return PIS_EXIT_USAGE;
    }
    if (mhz && strcmp(mhz, "host") == 0) {
        if (pis_clock_host(&o.clock_hz, err, sizeof(err))) {
            fprintf(stderr, "pi-stats: %s\n", err);
            return PIS_EXIT_USAGE;
        }
        o.clock_source = "xc_physinfo";
    } else if (mhz) {
        if (pis_clock_parse(mhz, 1e6, &o.clock_hz)) {
            fprintf(stderr, "pi-stats: --cpu-mhz: want a number of MHz "
                    "(e.g. 2394.5) or \"host\", got \"%s\"\n", mhz);
            return PIS_EXIT_USAGE;
        }
        o.clock_source = "--cpu-mhz";
    } else if (tschz) {
        if (pis_clock_parse(tschz, 1.0, &o.clock_hz)) {
            fprintf(stderr, "pi-stats: --tsc-hz: want a number of Hz "
                    "(e.g. 2394500000), got \"%s\"\n", tschz);
            return PIS_EXIT_USAGE;
        }
        o.clock_source = "--tsc-hz";
    }
    n = argc - optind;
    if (n <= 0) {
        fprintf(stderr, "pi-stats: no input file (use - for standard "
                "input)\nTry 'pi-stats --help'.\n");
        return PIS_EXIT_USAGE;
    }
    if (svg && out && strcmp(svg, out) == 0) {
        fprintf(stderr, "pi-stats: --svg and --output name the same file\n");
        return PIS_EXIT_USAGE;
    }

    reps = calloc((size_t)n, sizeof(*reps));
    ok = calloc((size_t)n, sizeof(*ok));
    if (!reps || !ok) {
        fprintf(stderr, "pi-stats: out of memory\n");
        return PIS_EXIT_INTERNAL;
    }
    o.names = (const char *const *)(argv + optind);
    o.ninputs = n;
    for (int i = 0; i < n; i++) {
        const char *name = argv[optind + i];
        int r;
        if (pis_report_init(&reps[i], name, o.cpu_list ? cpumap : NULL)) {
            fprintf(stderr, "pi-stats: out of memory\n");
            return PIS_EXIT_INTERNAL;
        }
        r = analyse(&reps[i], name, i, quiet);
        if (r == PIS_EXIT_INTERNAL)
            return r;
        if (r != PIS_EXIT_OK) {
            /* lowest code wins: unreadable (3) before not-a-trace (4) */
            if (!worst_in || r < worst_in)
                worst_in = r;
            continue;
        }
        if (data_problems(&reps[i]))
            any_data = 1;
        ok[nok++] = &reps[i];
    }
    if (nok > 1) {
        if (pis_report_init(&merged, "(all inputs)", NULL)) {
            fprintf(stderr, "pi-stats: out of memory\n");
            return PIS_EXIT_INTERNAL;
        }
        merged.merged = 1;
        merged.ninputs = 0;
        for (int i = 0; i < nok; i++)
            if (pis_report_merge(&merged, ok[i])) {
                fprintf(stderr, "pi-stats: out of memory\n");
                return PIS_EXIT_INTERNAL;
            }
        have_merged = 1;
    }
    if (nok > 0) {
        const struct pis_report *m = have_merged ? &merged : NULL;
        if (out) {
            if (write_to(out, fmt, 0, ok, nok, m, &o))
                rc = PIS_EXIT_INTERNAL;
        } else if (emit(fmt, stdout, ok, nok, m, &o) || fflush(stdout)) {
            fprintf(stderr, "pi-stats: cannot write to standard output\n");
            rc = PIS_EXIT_INTERNAL;
        }
        if (svg && rc == PIS_EXIT_OK && write_to(svg, fmt, 1, ok, nok, m, &o))
            rc = PIS_EXIT_INTERNAL;
    }
    if (rc == PIS_EXIT_OK) {
        if (worst_in)
            rc = worst_in;
        else if (strict && any_data)
            rc = PIS_EXIT_DATA;
    }
    if (strict && any_data && rc == PIS_EXIT_DATA)
        fprintf(stderr, "pi-stats: --strict: data problems found (see "
                "warnings above)\n");
    for (int i = 0; i < n; i++)
        pis_report_free(&reps[i]);
    if (have_merged)
        pis_report_free(&merged);
    free(reps);
    free(ok);
    return rc;
}
