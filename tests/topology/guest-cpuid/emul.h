/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guest-cpuid: the environment guest_cpuid() (xen/arch/x86/cpuid.c) needs,
 * in userspace.
 *
 * Built the way Xen's tools/tests/vpci builds the vPCI code: the Makefile
 * copies cpuid.c out of the tree with every #include removed and this file
 * included instead.  The CPUID policy is Xen's own struct cpu_policy
 * (xen/lib/x86/cpu-policy.h with the tree's generated cpuid-autogen.h), and
 * the helpers are those Xen gives xen/lib/x86 outside the hypervisor
 * (private.h).  Domains and vCPUs carry only the state guest_cpuid() reads,
 * each field a real input the test sets; the host is a CPU with none of the
 * optional features guest_cpuid() forwards (MONITOR, EIST, DTES64, DSCPL).
 */
#ifndef GUEST_CPUID_EMUL_H
#define GUEST_CPUID_EMUL_H

#include <assert.h>
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "private.h"

#include <xen/lib/x86/cpu-policy.h>
#include <xen/asm/x86-defns.h>

#define ASSERT(x) assert(x)
#define ASSERT_UNREACHABLE() assert(0)
#define IS_ENABLED(option) (option)
#define CONFIG_PV 1
#define fallthrough __attribute__((__fallthrough__))
#ifndef array_access_nospec   /* private.h has it up to 4.22. */
#define array_access_nospec(a, i) (a)[(i)]
#endif
#ifndef _AC
#define _AC(x, y) (x ## y) /* xen/const.h, for EFER_LMA */
#endif

/* X86_FEATURE_*, as xen/arch/x86/include/asm/cpufeatureset.h makes them. */
#define XEN_CPUFEATURE(name, value) X86_FEATURE_##name = (value),
enum {
#include <xen/arch-x86/cpufeatureset.h>
};
#undef XEN_CPUFEATURE
#define cpufeat_mask(idx)       (1u << ((idx) % 32))

/* asm/processor.h, asm/xstate.h */
#define TRAP_invalid_op         6
#define TRAP_gp_fault           13
#define XSTATE_CPUID            0x0000000d
#define XSTATE_XSAVES_ONLY      0

/* asm/vpmu.h: the flags guest_cpuid() tests. */
#define VPMU_CPU_HAS_DS         0x1000
#define VPMU_AVAILABLE          0x0100
struct vpmu_struct {
    uint32_t flags;
};
#define vcpu_vpmu(v)            (&(v)->arch.vpmu)
#define vpmu_is_set(vpmu, f)    (!!((vpmu)->flags & (f)))
#define vpmu_available(v)       vpmu_is_set(vcpu_vpmu(v), VPMU_AVAILABLE)

/*
 * The host CPU (boot_cpu_data is also current_cpu_data here); its vendor
 * is called x86_vendor up to 4.22 and vendor since.
 */
struct cpuinfo_x86 {
    union {
        uint8_t x86_vendor;
        uint8_t vendor;
    };
    uint32_t x86_capability[FEATURESET_NR_ENTRIES];
};
extern struct cpuinfo_x86 boot_cpu_data;
extern struct cpu_policy raw_cpu_policy;
extern unsigned long host_cr4;
#define current_cpu_data        boot_cpu_data
#define cpu_has(c, bit)         test_bit(bit, (c)->x86_capability)
#define boot_cpu_has(bit)       cpu_has(&boot_cpu_data, bit)
#define cpu_has_monitor         boot_cpu_has(X86_FEATURE_MONITOR)
#define cpu_has_eist            boot_cpu_has(X86_FEATURE_EIST)
#define cpu_has_mtrr            1
#define read_cr4()              host_cr4

/* CPUID run on this host, as Xen runs it on its own. */
static inline uint32_t cpuid_count_ebx(uint32_t leaf, uint32_t subleaf)
{
    uint32_t a, b, c, d;

    __cpuid_count(leaf, subleaf, a, b, c, d);
    return b;
}

/*
 * asm/xstate.h since 4.20: the size of the XSAVE area for the components
 * of @xstates, standard or compacted, from this host's CPUID leaf 0xd as
 * Xen reads it from its own.
 */
static inline unsigned int xstate_size(uint64_t xstates, bool compacted)
{
    unsigned int size = 512 + 64, i, a, b, c, d;   /* Legacy area, header. */

    for ( i = 2; i < 63; i++ )
    {
        if ( !(xstates & (1ULL << i)) )
            continue;
        __cpuid_count(0xd, i, a, b, c, d);
        if ( !compacted )
            size = a + b > size ? a + b : size;
        else
            size = (c & 2 ? (size + 63) & ~63U : size) + a;
    }
    return size;
}
#define xstate_uncompressed_size(xcr0) xstate_size(xcr0, false)
#define xstate_compressed_size(xstates) xstate_size(xstates, true)

struct domain {
    bool hvm;
    bool hap;
    bool hardware;
    bool viridian;
    struct {
        struct cpu_policy *cpu_policy;
        uint8_t *vcpu_apic_id;  /* XEN_DOMCTL_set_vcpu_apic_ids' IDs. */
    } arch;
};

struct vcpu {
    unsigned int vcpu_id;
    struct domain *domain;
    bool kernel_mode;           /* PV: the guest kernel is running. */
    struct cpu_user_regs regs;  /* The guest's registers on this trap. */
    struct {
        struct vpmu_struct vpmu;
        uint64_t xcr0;              /* The guest's XCR0. */
        struct vcpu_msrs {
            struct {
                uint64_t raw;
            } xss;                  /* The guest's MSR_XSS. */
        } *msrs;
        struct {
            unsigned long guest_cr[5];
            uint64_t guest_efer;
            struct vlapic {
                bool hw_disabled;   /* MSR_APIC_BASE.EN clear. */
                struct {
                    uint32_t x2apic_id; /* From the LAPIC save record. */
                } hw;
            } vlapic;
        } hvm;
        struct {
            unsigned long ctrlreg[5];
        } pv;
    } arch;
};

extern struct vcpu *current;

#define is_hvm_domain(d)        ((d)->hvm)
#define is_pv_domain(d)         (!(d)->hvm)
#define has_vlapic(d)           ((d)->hvm)
#define is_hardware_domain(d)   ((d)->hardware)
#define is_viridian_domain(d)   (is_hvm_domain(d) && (d)->viridian)
#define hap_enabled(d)          (is_hvm_domain(d) && (d)->hap)
#define guest_cpu_user_regs()   (&current->regs)
#define guest_kernel_mode(v, r) ((v)->kernel_mode)
#define hvm_long_mode_active(v) (!!((v)->arch.hvm.guest_efer & EFER_LMA))
#define hvm_pae_enabled(v)      (!!((v)->arch.hvm.guest_cr[4] & X86_CR4_PAE))
#define vcpu_vlapic(v)          (&(v)->arch.hvm.vlapic)
#define vlapic_hw_disabled(vl)  ((vl)->hw_disabled)

/*
 * Leaves 0x40000000-0x400001ff are answered elsewhere in Xen (traps.c,
 * viridian.c), not by the code under test: a query there stops the test.
 */
void cpuid_hypervisor_leaves(const struct vcpu *v, uint32_t leaf,
                             uint32_t subleaf, struct cpuid_leaf *res);
void cpuid_viridian_leaves(const struct vcpu *v, uint32_t leaf,
                           uint32_t subleaf, struct cpuid_leaf *res);

/* asm/cpuid.h */
void guest_cpuid(const struct vcpu *v, uint32_t leaf,
                 uint32_t subleaf, struct cpuid_leaf *res);

#endif /* GUEST_CPUID_EMUL_H */
