/* cli.c - option parsing and --help for pi-stats. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clock.h"
#include "exitcodes.h"
#include "version.h"

#define GO_ON (-1)

static void usage(FILE *f)
{
    fprintf(f,
"Usage: pi-stats [OPTION]... FILE...\n"
"  or:  pi-stats --compare [OPTION]... BEFORE AFTER\n"
"Posted-interrupt blocking-list lengths and wakeup costs from xentrace dumps.\n"
"FILE is a xentrace output file, a pipe, or - for standard input, plain\n"
"or gzip/xz/zstd compressed (known by its first bytes); with several\n"
"files each is reported and then all are merged.\n"
"\n"
"  -j, --json          one JSON object (schema in pi-stats(1))\n"
"      --compare       BEFORE AFTER side by side: count, p50, p90, p99,\n"
"                      p99.9, max and after/before of each metric, and\n"
"                      the spilled and over-limit adds (text or JSON)\n"
"  -c, --csv           CSV rows: input,metric,cpu,kind,low,high,value\n"
"      --svg FILE      also write both histograms as an SVG plot to FILE\n"
"  -o, --output FILE   write the report to FILE not stdout (a regular file\n"
"                      is replaced atomically, FIFOs and devices written into)\n"
"      --cpu LIST      only samples of these pCPUs, e.g. 0-3,8,4000\n"
"      --cpu-mhz N     TSC runs at N MHz: print wakeup times in us\n"
"      --cpu-mhz host  ask the hypervisor (needs a libxenctrl build)\n"
"      --tsc-hz N      TSC runs at N Hz\n"
"      --len-step N    list-length bucket width (default 1)\n"
"      --interval SECONDS  while reading a pipe, print a short report\n"
"                      every SECONDS of wall time (JSON: one object a line)\n"
"      --by pcpu|domain|vcpu  list lengths and spills by the list's pCPU\n"
"                      (default) or by the domain or vCPU added to it\n"
"      --top N         text tables: only the N worst rows (by max, p99)\n"
"      --all           text tables: every row (default: the 8 worst when\n"
"                      there are more than 16)\n"
"      --since T       only PI records at or after T, and\n"
"      --until T       before T: seconds from the input's first PI record\n"
"                      with a TSC given a clock, else absolute TSC values\n"
"      --strict        exit 5 on corrupt, truncated or disordered data\n"
"  -q, --quiet         no warnings on stderr (errors still shown)\n"
"  -h, --help          this help\n"
"  -V, --version       version\n"
"\n"
"SIGINT or SIGTERM ends the input: the report of what was read is printed.\n"
"Without a clock, times are TSC cycles; pi-stats never guesses a frequency.\n"
"Exit status: 0 ok, 1 internal error, 2 usage error, 3 input unreadable,\n"
"4 input is not a xentrace dump, 5 data problems with --strict.\n");
}

/* Print "pi-stats: <message>" and return the usage exit status. */
static int __attribute__((format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "pi-stats: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return PIS_EXIT_USAGE;
}

/* A positive decimal integer; returns 0 or -1. */
static int parse_pos(const char *s, unsigned long long *v)
{
    char *end;

    errno = 0;
    *v = strtoull(s, &end, 10);
    return errno || *end || end == s || *v == 0 || s[0] == '-' ? -1 : 0;
}

/* A decimal number of seconds (may be signed); returns 0 or -1. */
static int parse_seconds(const char *s, double *v)
{
    char *end;

    errno = 0;
    *v = strtod(s, &end);
    return errno || *end || end == s || !isfinite(*v) ? -1 : 0;
}

static int parse_by(struct pis_cli *c, const char *s)
{
    for (unsigned i = 0; i < 3; i++)
        if (strcmp(s, pis_by_name[i]) == 0) {
            c->o.by = (enum pis_by)i;
            return GO_ON;
        }
    return usage_error("--by: want pcpu, domain or vcpu, got \"%s\"", s);
}

static int set_fmt(struct pis_cli *c, enum pis_fmt f)
{
    if (c->fmt != PIS_FMT_TEXT && c->fmt != f)
        return usage_error("--json and --csv exclude each other");
    c->fmt = f;
    return GO_ON;
}

/* The clock options, once all are known. */
static int resolve_clock(struct pis_cli *c, const char *mhz,
                         const char *tschz)
{
    char err[256];

    if (mhz && tschz)
        return usage_error("give --cpu-mhz or --tsc-hz, not both");
    if (mhz && strcmp(mhz, "host") == 0) {
        if (pis_clock_host(&c->o.clock_hz, err, sizeof(err)))
            return usage_error("%s", err);
        c->o.clock_source = "xc_physinfo";
    } else if (mhz) {
        if (pis_clock_parse(mhz, 1e6, &c->o.clock_hz))
            return usage_error("--cpu-mhz: want a number of MHz (e.g. "
                               "2394.5) or \"host\", got \"%s\"", mhz);
        c->o.clock_source = "--cpu-mhz";
    } else if (tschz) {
        if (pis_clock_parse(tschz, 1.0, &c->o.clock_hz))
            return usage_error("--tsc-hz: want a number of Hz (e.g. "
                               "2394500000), got \"%s\"", tschz);
        c->o.clock_source = "--tsc-hz";
    }
    return GO_ON;
}

/* One end of --since/--until: seconds (>= 0) given a clock, else a TSC
 * value.  Returns 0 or -1. */
static int range_end(const char *s, double hz, int64_t *rel, uint64_t *abs)
{
    unsigned long long v;
    double sec;

    if (hz > 0) {
        if (parse_seconds(s, &sec) || sec < 0 || sec * hz >= 9.2e18)
            return -1;
        *rel = (int64_t)ceil(sec * hz);
        return 0;
    }
    if (strcmp(s, "0") == 0) {
        *abs = 0;
        return 0;
    }
    if (parse_pos(s, &v))
        return -1;
    *abs = v;
    return 0;
}

/* --since/--until, once the clock is known. */
static int resolve_range(struct pis_cli *c)
{
    struct pis_range *r = &c->o.range;
    const char *want = c->o.clock_hz > 0 ?
        "a number of seconds >= 0 (a clock is given)" :
        "a TSC value (no clock: give --cpu-mhz or --tsc-hz for seconds)";

    if (!c->o.since && !c->o.until)
        return GO_ON;
    r->on = 1;
    r->relative = c->o.clock_hz > 0;
    r->rlo = INT64_MIN;
    r->rhi = INT64_MAX;
    r->lo = 0;
    r->hi = UINT64_MAX;
    if (c->o.since && range_end(c->o.since, c->o.clock_hz, &r->rlo, &r->lo))
        return usage_error("--since: want %s, got \"%s\"", want,
                           c->o.since);
    if (c->o.until && range_end(c->o.until, c->o.clock_hz, &r->rhi, &r->hi))
        return usage_error("--until: want %s, got \"%s\"", want,
                           c->o.until);
    if (r->relative ? r->rlo >= r->rhi : r->lo >= r->hi)
        return usage_error("--since %s is not before --until %s",
                           c->o.since ? c->o.since : "(start)",
                           c->o.until ? c->o.until : "(end)");
    return GO_ON;
}

static int bad_option(char **argv)
{
    if (optopt && optopt < 256)
        fprintf(stderr, "pi-stats: bad option -%c or missing argument\n",
                optopt);
    else
        fprintf(stderr, "pi-stats: bad option %s\n", argv[optind - 1]);
    fprintf(stderr, "Try 'pi-stats --help'.\n");
    return PIS_EXIT_USAGE;
}

/* Checks that need all options and the operands. */
static int finish(struct pis_cli *c, int argc, char **argv)
{
    c->inputs = argv + optind;
    c->ninputs = argc - optind;
    if (c->ninputs <= 0)
        return usage_error("no input file (use - for standard input)\n"
                           "Try 'pi-stats --help'.");
    if (c->o.compare && c->ninputs != 2)
        return usage_error("--compare: want two inputs, BEFORE and AFTER, "
                           "got %d", c->ninputs);
    if (c->o.compare && (c->fmt == PIS_FMT_CSV || c->svg))
        return usage_error("--compare prints text or JSON (not --csv or "
                           "--svg)");
    if (c->svg && c->out && strcmp(c->svg, c->out) == 0)
        return usage_error("--svg and --output name the same file");
    c->o.names = (const char *const *)c->inputs;
    c->o.ninputs = c->ninputs;
    return GO_ON;
}

enum { O_SVG = 256, O_CPU, O_MHZ, O_HZ, O_STEP, O_STRICT, O_INTERVAL, O_BY,
       O_TOP, O_ALL, O_COMPARE, O_SINCE, O_UNTIL };

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
    { "interval", required_argument, NULL, O_INTERVAL },
    { "by", required_argument, NULL, O_BY },
    { "top", required_argument, NULL, O_TOP },
    { "all", no_argument, NULL, O_ALL },
    { "compare", no_argument, NULL, O_COMPARE },
    { "since", required_argument, NULL, O_SINCE },
    { "until", required_argument, NULL, O_UNTIL },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
};

/* One option; mhz and tschz collect the clock options for later. */
static int one_option(struct pis_cli *c, int opt, char **argv,
                      const char **mhz, const char **tschz)
{
    char err[256];
    unsigned long long v;

    switch (opt) {
    case 'j':
        return set_fmt(c, PIS_FMT_JSON);
    case 'c':
        return set_fmt(c, PIS_FMT_CSV);
    case 'o':
        c->out = optarg;
        return GO_ON;
    case O_SVG:
        c->svg = optarg;
        return GO_ON;
    case O_CPU:
        if (pis_cpulist_parse(optarg, c->cpumap, err, sizeof(err)))
            return usage_error("--cpu: %s", err);
        c->o.cpu_list = optarg;
        return GO_ON;
    case O_MHZ:
        *mhz = optarg;
        return GO_ON;
    case O_HZ:
        *tschz = optarg;
        return GO_ON;
    case O_STEP:
        if (parse_pos(optarg, &v))
            return usage_error("--len-step: want a positive integer, got "
                               "\"%s\"", optarg);
        c->o.len_step = v;
        return GO_ON;
    case O_STRICT:
        c->strict = 1;
        return GO_ON;
    case O_BY:
        return parse_by(c, optarg);
    case O_SINCE:
        c->o.since = optarg;
        return GO_ON;
    case O_UNTIL:
        c->o.until = optarg;
        return GO_ON;
    case O_COMPARE:
        c->o.compare = 1;
        return GO_ON;
    case O_TOP:
        if (parse_pos(optarg, &v) || v > 1000000)
            return usage_error("--top: want a number of rows from 1 to "
                               "1000000, got \"%s\"", optarg);
        c->o.top = (unsigned)v;
        return GO_ON;
    case O_ALL:
        c->o.all = 1;
        return GO_ON;
    case O_INTERVAL:
        if (parse_seconds(optarg, &c->interval) || c->interval <= 0 ||
            c->interval > 1e6)
            return usage_error("--interval: want a number of seconds "
                               "above 0 (e.g. 1 or 0.5), got \"%s\"",
                               optarg);
        return GO_ON;
    case 'q':
        c->quiet = 1;
        return GO_ON;
    case 'h':
        usage(stdout);
        return PIS_EXIT_OK;
    case 'V':
        printf("pi-stats %s\n", PIS_VERSION);
        return PIS_EXIT_OK;
    default:
        return bad_option(argv);
    }
}

int pis_cli_parse(struct pis_cli *c, int argc, char **argv)
{
    const char *mhz = NULL, *tschz = NULL;
    int opt, rc;

    memset(c, 0, sizeof(*c));
    c->fmt = PIS_FMT_TEXT;
    c->o.len_step = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "jco:qhV", lopts, NULL)) != -1)
        if ((rc = one_option(c, opt, argv, &mhz, &tschz)) != GO_ON)
            return rc;
    if ((rc = resolve_clock(c, mhz, tschz)) != GO_ON ||
        (rc = resolve_range(c)) != GO_ON)
        return rc;
    return finish(c, argc, argv);
}
