/*
 * Guest side of the e2e topology cases: print the CPUID leaves that carry
 * the CPU topology, as each online CPU of the guest sees them.
 *
 * usage: cpuid-dump [--xen] [--all]
 *
 * --xen executes CPUID with Xen's forced emulation prefix (ud2; "xen";
 * cpuid), which Xen handles for PV guests, in user mode too; a plain CPUID
 * in PV user space reaches Xen only on hosts with CPUID faulting.  Without
 * it, a plain CPUID (what PVH and HVM guests' CPUID always reaches).
 *
 * For each CPU the process may run on, it pins itself there and prints one
 * line per leaf and subleaf:
 *   cpuid cpu=N leaf=0xL sub=S eax=0x... ebx=0x... ecx=0x... edx=0x...
 * leaf 1; leaf 4 until the cache type is 0 and leaf 0xb until the level
 * type is 0 (when the largest basic leaf reaches them); 0x80000001,
 * 0x80000008, 0x8000001e (when the largest extended leaf reaches them).
 *
 * --all prints every leaf up to the largest basic, hypervisor (from
 * 0x40000000, and 0x40000100 where Xen's leaves move with viridian) and
 * extended one instead: leaves 4 and 0x8000001d until the cache type is 0,
 * 0xb and 0x1f until the level type is 0, and of the others subleaf 0 and
 * each subleaf up to 63 that is not zero and not subleaf 0 again.
 * Exit status 0; 1 with one line on stderr when a CPU cannot be pinned;
 * 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* subleaf loops stop here at the latest (Intel defines far fewer) */
#define MAX_SUBLEAVES 16

static int use_xen;

static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
    if ( use_xen )
        asm volatile ( "ud2a; .ascii \"xen\"; cpuid"
                       : "=a" (r[0]), "=b" (r[1]), "=c" (r[2]), "=d" (r[3])
                       : "0" (leaf), "2" (sub) );
    else
        asm volatile ( "cpuid"
                       : "=a" (r[0]), "=b" (r[1]), "=c" (r[2]), "=d" (r[3])
                       : "0" (leaf), "2" (sub) );
}

/* print LEAF/SUB of CPU; return the register selected by REG (0-3) */
static uint32_t dump(int cpu, uint32_t leaf, uint32_t sub, int reg)
{
    uint32_t r[4];

    cpuid(leaf, sub, r);
    printf("cpuid cpu=%d leaf=0x%x sub=%u eax=%#x ebx=%#x ecx=%#x edx=%#x\n",
           cpu, leaf, sub, r[0], r[1], r[2], r[3]);
    return r[reg];
}

/* a subleaf series: LEAF from subleaf 0 until REG's bits MASK are 0 */
static void dump_subleaves(int cpu, uint32_t leaf, int reg, uint32_t mask)
{
    uint32_t sub;

    for ( sub = 0; sub < MAX_SUBLEAVES; sub++ )
        if ( !(dump(cpu, leaf, sub, reg) & mask) )
            break;
}

/* --all: leaves FIRST to LAST (at most 0x100 of them) */
static void dump_range(int cpu, uint32_t first, uint32_t last)
{
    uint32_t leaf, sub, r0[4], r[4];

    for ( leaf = first; leaf <= last && leaf - first < 0x100; leaf++ )
    {
        switch ( leaf )
        {
        case 0x4: case 0x8000001d:
            dump_subleaves(cpu, leaf, 0, 0x1f);
            continue;

        case 0xb: case 0x1f:
            dump_subleaves(cpu, leaf, 2, 0xff00);
            continue;
        }

        cpuid(leaf, 0, r0);
        dump(cpu, leaf, 0, 0);
        for ( sub = 1; sub < 64; sub++ )
        {
            cpuid(leaf, sub, r);
            if ( memcmp(r, r0, sizeof(r)) && (r[0] | r[1] | r[2] | r[3]) )
                dump(cpu, leaf, sub, 0);
        }
    }
}

int main(int argc, char **argv)
{
    cpu_set_t all, one;
    uint32_t r[4], max_basic, max_extd, base;
    int cpu, i, every = 0;

    for ( i = 1; i < argc; i++ )
        if ( !strcmp(argv[i], "--xen") )
            use_xen = 1;
        else if ( !strcmp(argv[i], "--all") )
            every = 1;
        else
        {
            fprintf(stderr, "usage: %s [--xen] [--all]\n", argv[0]);
            return 2;
        }

    if ( sched_getaffinity(0, sizeof(all), &all) )
    {
        perror("cpuid-dump: sched_getaffinity");
        return 1;
    }

    for ( cpu = 0; cpu < CPU_SETSIZE; cpu++ )
    {
        if ( !CPU_ISSET(cpu, &all) )
            continue;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if ( sched_setaffinity(0, sizeof(one), &one) )
        {
            fprintf(stderr, "cpuid-dump: cannot pin to CPU %d: %s\n", cpu,
                    strerror(errno));
            return 1;
        }

        cpuid(0, 0, r);
        max_basic = r[0];
        cpuid(0x80000000, 0, r);
        max_extd = r[0];

        if ( every )
        {
            dump_range(cpu, 0, max_basic);
            for ( base = 0x40000000; base <= 0x40000100; base += 0x100 )
            {
                cpuid(base, 0, r);
                if ( r[0] >= base && r[0] < base + 0x100 )
                    dump_range(cpu, base, r[0]);
            }
            dump_range(cpu, 0x80000000, max_extd);
            continue;
        }

        dump(cpu, 1, 0, 0);
        if ( max_basic >= 4 )
            dump_subleaves(cpu, 4, 0, 0x1f);     /* EAX[4:0] cache type */
        if ( max_basic >= 0xb )
            dump_subleaves(cpu, 0xb, 2, 0xff00); /* ECX[15:8] level type */
        if ( max_extd >= 0x80000001 )
            dump(cpu, 0x80000001, 0, 0);
        if ( max_extd >= 0x80000008 )
            dump(cpu, 0x80000008, 0, 0);
        if ( max_extd >= 0x8000001e )
            dump(cpu, 0x8000001e, 0, 0);
    }

    return fflush(stdout) ? 1 : 0;
}
