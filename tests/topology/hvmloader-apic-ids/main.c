/*
 * hvmloader's lapic_ids_setup() (4.17 series: the vCPUs' APIC IDs from
 * xenstore), with the strtoll() it parses them with, both taken from the
 * tree by hvmloader-apic-ids.t and run here against a fake xenstore and
 * hvm_info.  BUG() returns to the test.  Exit status: the failed cases.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <public/hvm/hvm_xs_strings.h>

#define HVM_MAX_VCPUS 128

static struct { unsigned int nr_vcpus; } info;
#define hvm_info (&info)

static const char *xs_key, *xs_value;
static jmp_buf bug;
static int bugged;

static const char *xenstore_read(const char *path, const char *def)
{
    xs_key = path;
    return xs_value ? xs_value : def;
}

#define BUG() do { bugged = 1; longjmp(bug, 1); } while ( 0 )
#define BUG_ON(p) do { if ( p ) BUG(); } while ( 0 )

uint8_t lapic_ids[HVM_MAX_VCPUS];

#define strtoll hvmloader_strtoll
long long strtoll(const char *s, char **end, int base);
void lapic_ids_setup(void);

#include "extracted.c"

static int failed, cases;

/* VALUE in xenstore (NULL: no key), NR vCPUs: WANT IDs, or NULL for BUG(). */
static void check(const char *name, const char *value, unsigned int nr,
                  const unsigned int *want)
{
    unsigned int i;
    int ok = 1;

    cases++;
    info.nr_vcpus = nr;
    xs_value = value;
    xs_key = NULL;
    bugged = 0;
    memset(lapic_ids, 0xee, sizeof(lapic_ids));

    if ( !setjmp(bug) )
        lapic_ids_setup();

    if ( !xs_key || strcmp(xs_key, "hvmloader/apic-ids") )
        ok = 0;
    else if ( !want )
        ok = bugged;
    else if ( bugged )
        ok = 0;
    else
        for ( i = 0; i < nr; i++ )
            if ( lapic_ids[i] != want[i] )
                ok = 0;

    printf("%s: %s\n", ok ? "ok" : "not ok", name);
    failed += !ok;
}

int main(void)
{
    static const unsigned int two_x[6] = { 0, 2, 4, 6, 8, 10 };
    static const unsigned int chosen[6] = { 0, 1, 2, 4, 5, 6 };
    static char big[HVM_MAX_VCPUS * 4 + 1];
    static unsigned int high[HVM_MAX_VCPUS];
    unsigned int i;
    char *p = big;

    for ( i = 0; i < HVM_MAX_VCPUS; i++ )
    {
        high[i] = 255 - i;
        p += sprintf(p, "%s%u", i ? " " : "", high[i]);
    }

    check("no key: APIC ID 2 * vcpu_id", NULL, 6, two_x);
    check("the IDs listed, one per vCPU", "0 1 2 4 5 6", 6, chosen);
    check("128 vCPUs, IDs 255 down to 128", big, HVM_MAX_VCPUS, high);
    check("one ID too few: BUG", "0 1 2 4 5", 6, NULL);
    check("one ID too many: BUG", "0 1 2 4 5 6 8", 6, NULL);
    check("an ID above 255: BUG", "0 1 2 4 5 256", 6, NULL);
    check("a negative ID: BUG", "0 1 2 4 5 -1", 6, NULL);
    check("not a number: BUG", "0 1 2 4 5 x", 6, NULL);
    check("a number with junk after it: BUG", "0 1 2 4 5 6x", 6, NULL);
    check("an empty value: BUG", "", 6, NULL);
    check("more vCPUs than HVM_MAX_VCPUS: BUG", NULL, HVM_MAX_VCPUS + 1,
          NULL);

    printf("cases %d\n", cases);
    return failed;
}
