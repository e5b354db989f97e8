/*
 * pi.pml: Promela model of the VT-d posted-interrupt blocking lists of
 * xen/arch/x86/hvm/vmx/pi.c (the series' tree), with the hardware's side of
 * posting.  Checked by Spin (tests/model/run.sh); docs/pi-bound.md says what
 * it covers.
 *
 * Each step cites the function of pi.c (or of Xen around it) that it models.
 * A step is one atomic memory access of the C code unless it is a spinlock
 * section whose data nobody reads without that lock.
 *
 * Configuration (cpp -D):
 *   NCPU 2..3, NVCPU 2..3    pCPUs and vCPUs
 *   LIMIT                    vmx-pi-list-limit (0: no bound)
 *   NBLOCK                   times each vCPU halts
 *   NIRQ                     interrupts the device posts
 *   HOTPLUG                  pCPU NCPU-1 goes offline once, then online
 *   TIMER                    one wakeup of a blocked vCPU by something other
 *                            than its posted interrupt (vcpu_unblock())
 *   MIGRATE                  a woken vCPU may run on another online pCPU
 *   HOME0                    every vCPU starts on pCPU LOW (default: on NCPU-1)
 *   HOME_SPLIT               vCPU 0 starts on NCPU-1, the others on pCPU LOW
 *   POOLS                    NCPU 3, two cpupools: the vCPUs' domain in pool
 *                            {1, 2}, pCPU 0 alone in the other; LOW is 1
 *                            (without POOLS: one pool, LOW is 0)
 *   POOLCHG                  with POOLS, no HOTPLUG: pCPU 2 leaves the pool
 *                            once (cpupool_unassign_cpu()), with
 *                            arch_cpupool_changed()'s stray moves
 *   UPSTREAM_FIXUP           the CPU-dead fixup as upstream has it (SN set
 *                            while the entry is examined); else the fixed one
 *   SYNC_PLAIN               vmx_sync_pir_to_irr() as master has it (a plain
 *                            read of ON first, e6dfe4250c); else as 4.17 and
 *                            4.20 have it (starts with the locked
 *                            test_and_clear of ON)
 *   BLOCK_NO_MB              vmx_vcpu_block() without the smp_mb() after the
 *                            NV write (safe with the locked sync only)
 *   PREEMPT                  each vCPU may be preempted once in non-root mode
 *                            (vmx_pi_switch_from() sets SN), and is then
 *                            scheduled again (a full context switch)
 *   MUT_*                    one bug each, see tests/model/mutants
 */

#ifndef NCPU
#define NCPU 3
#endif
#ifndef NVCPU
#define NVCPU 2
#endif
#ifndef LIMIT
#define LIMIT 1
#endif
#ifndef NBLOCK
#define NBLOCK 1
#endif
#ifndef NIRQ
#define NIRQ 1
#endif

#define NONE    255     /* NULL lock pointer, no pCPU */
#define POSTED  0       /* NV = posted_intr_vector */
#define WAKEUP  1       /* NV = pi_wakeup_vector */
#define DEAD    (NCPU - 1)      /* the pCPU that goes offline */

/*
 * The cpupool of the vCPUs' domain: INPOOL(c), cpupool_valid_cpus().  With
 * POOLS, pCPU 0 (which stays online, and is where code outside the pool
 * runs: the CPU-dead fixup) is in another pool, with no vCPU of the model.
 */
#ifdef POOLS
#if NCPU != 3
#error POOLS needs NCPU 3
#endif
#ifdef POOLCHG
#ifdef HOTPLUG
#error POOLCHG and HOTPLUG
#endif
#define INPOOL(c)   ((c) != 0 && !((c) == 2 && p2out))
#else
#define INPOOL(c)   ((c) != 0)
#endif
#define LOW         1
#else
#define INPOOL(c)   1
#define LOW         0
#endif

#if defined(HOME0)
#define HOME(v) LOW
#elif defined(HOME_SPLIT)
#define HOME(v) ((v) == 0 -> DEAD : LOW)
#else
#define HOME(v) DEAD
#endif

/* ---- PI descriptor of each vCPU (written by Xen and by the IOMMU) ---- */
bool pir[NVCPU];        /* any PIR bit set */
bool on[NVCPU];         /* ON: outstanding notification */
bool sn[NVCPU];         /* SN: suppress notification */
byte ndst[NVCPU];       /* NDST, as the pCPU it names */
bit  nv[NVCPU];         /* NV: POSTED or WAKEUP */

/*
 * ---- x86-TSO store buffers ----
 * Xen's plain stores to NDST and NV (write_atomic(): a mov) go through the
 * store buffer of the writing process: a FIFO of SBCAP entries, each
 * (kind, index, value).  They reach memory (where the IOMMU and the other
 * processes read them) later, in order, one at a time (process flusher), or
 * at once when the process runs a locked instruction or smp_mb() (the
 * process waits for its buffer to empty: DRAIN).  A store to a full buffer
 * first sends the oldest entry to memory (a bounded buffer shows a subset of
 * TSO's behaviours).  Loads of NDST and NV by the writer forward from its
 * own buffer (load_fwd).  SN and ON are only changed by locked instructions
 * (set_bit(), clear_bit(), test_and_clear_bit()), never buffered.
 * spin_lock() is a locked instruction on x86; spin_unlock() is a plain
 * store (add_sized()): with stores buffered before it, the release is
 * buffered too, so no other pCPU sees the lock free before them.  Other
 * stores (lists, lengths, lock pointers, flags) are not buffered: lists are
 * read under their locks, which order them.
 * Buffer b: vCPU process b (b < NVCPU), the mover (hotplug or poolchg,
 * MOVER); NSB is the processes without stores to buffer (always empty).
 */
#define SBCAP       2
#define MOVER       NVCPU
#define NSB         (NVCPU + 1)
#define SB_NDST     1
#define SB_NV       2
#define SB_UNLOCK   3
/* an entry: kind << 4 | index (vCPU, or the lock's pCPU) << 2 | value */
#define SBE(k, w, x)    ((k) << 4 | (w) << 2 | (x))
#define SBHIT(e, k, w)  (((e) >> 2) == ((k) << 2 | (w)))
byte sb[NSB * SBCAP];   /* the entries, oldest first; 0 when empty */
byte sbn[NSB + 1];      /* entries in each buffer */
#define DRAINED     (sbn[me] == 0)
#define ALLDRAINED  (sbn[0] == 0 && sbn[1] == 0 && (NVCPU < 3 || sbn[2] == 0) && sbn[MOVER] == 0)

/* ---- struct vmx_pi_blocking_vcpu per pCPU, and v->arch.hvm.vmx.pi_blocking */
byte lst[NCPU];         /* the list: bit v set = v's list_head is on it */
byte plen[NCPU];         /* ->len */
bool lock[NCPU];        /* ->lock held */
byte lown[NCPU];        /* ghost: _pid of the holder (0 when free) */
byte lkp[NVCPU];        /* pi_blocking.lock, as the pCPU of the list; NONE */

/* ---- pCPUs ---- */
bool online[NCPU];      /* cpu_online_map */
byte irqoff[NCPU];      /* code running on the pCPU has interrupts off */
bool irr[NCPU];         /* pi_wakeup_vector pending in the pCPU's LAPIC */

/* ---- scheduler ---- */
bool blocked[NVCPU];    /* _VPF_blocked */
byte proc[NVCPU];       /* v->processor */
bool ingst[NVCPU];      /* running in non-root mode */
byte busy;              /* Xen code in flight: stop_machine waits for 0 */

/* ---- ghosts, read only by the checks ---- */
bool asleep[NVCPU];     /* vcpu_block() decided to sleep, not woken since */
bool ovr[NVCPU];        /* on a list through an add the docs allow over LIMIT */
bool fixing;            /* between the pCPU's death and the end of its fixup */
bool p2out;             /* pCPU 2 is out of the domain's pool (POOLCHG) */
bool pchg;              /* ghost: from that change to the end of its moves */
bool stray[NVCPU];      /* ghost: added to its own pCPU's list outside the
                           pool, every list of the pool looked at full */
bool tried[NVCPU];      /* ghost: the block path is looking for another list */
bool win[NVCPU];        /* between vmx_intr_assist()'s PIR sync and VM entry */
bool tok[NVCPU];        /* in that window, a posted_intr_vector notification
                           reached the vCPU's own pCPU */

#define BIT(v)          (1 << (v))
#define ONL(c, v)       ((lst[c] & BIT(v)) != 0)

/* one entry reaching memory */
inline sb_apply(e)
{
    if
    :: (e >> 4) == SB_NDST -> ndst[(e >> 2) & 3] = e & 3
    :: (e >> 4) == SB_NV -> nv[(e >> 2) & 3] = e & 3
    :: (e >> 4) == SB_UNLOCK ->
        assert(lock[(e >> 2) & 3]); lock[(e >> 2) & 3] = 0; lown[(e >> 2) & 3] = 0
    fi
}

/* the oldest entry of buffer b reaching memory */
inline sb_pop(b)
{
    sb_apply(sb[b * SBCAP]);
    sb[b * SBCAP] = sb[b * SBCAP + 1]; sb[b * SBCAP + 1] = 0;
    sbn[b]--
}

/* a plain store by the running process (buffer me); inside atomic or d_step */
inline sb_put(e)
{
    if :: sbn[me] == SBCAP -> sb_pop(me) :: else -> skip fi;
    sb[me * SBCAP + sbn[me]] = e;
    sbn[me]++
}
inline sb_store(e) { d_step { sb_put(e) } }

/* a plain load of @mem (field @k of @w) by the running process: the newest
 * entry of its own buffer for that field, else memory; inside d_step */
inline load_fwd(k, w, mem, res)
{
    res = mem;
    if :: sbn[me] > 0 && SBHIT(sb[me * SBCAP], k, w) -> res = sb[me * SBCAP] & 3
       :: else -> skip fi;
    if :: sbn[me] > 1 && SBHIT(sb[me * SBCAP + 1], k, w) -> res = sb[me * SBCAP + 1] & 3
       :: else -> skip fi
}

/* smp_mb() (mfence or a locked instruction): the buffer drains first */
#define smp_mb()    DRAINED

/* set_bit() / clear_bit() of SN: locked */
inline set_sn(v)   { atomic { DRAINED -> sn[v] = 1 } }
inline clear_sn(v) { atomic { DRAINED -> sn[v] = 0 } }

/* Stores leave the buffers in order, one at a time, at any time. */
proctype flusher()
{
end_flush:
    do
    :: d_step { sbn[0] > 0 -> sb_pop(0) }
    :: d_step { sbn[1] > 0 -> sb_pop(1) }
#if NVCPU > 2
    :: d_step { sbn[2] > 0 -> sb_pop(2) }
#endif
    :: d_step { sbn[MOVER] > 0 -> sb_pop(MOVER) }
    od
}

/*
 * The IOMMU posting an interrupt (VT-d spec 5.2.3, one atomic update of the
 * descriptor, which sees only what has left the store buffers): set the PIR
 * bit; if ON and SN are clear, set ON and send NV to NDST.  A notification
 * to an offline pCPU is lost.  posted_intr_vector to the pCPU where the
 * vCPU runs in non-root mode is processed by the CPU there (ON cleared, PIR
 * moved to the vIRR); anywhere else Xen only raises a softirq, and ON stays
 * for vmx_sync_pir_to_irr().
 *
 * Timeliness: an interrupt posted to a vCPU must reach the guest before the
 * vCPU's next VM entry, or be notified with posted_intr_vector to the
 * vCPU's pCPU while the vCPU runs in non-root mode (the CPU then processes
 * it at once).  Here: posted while the vCPU is in non-root mode, it must be
 * so notified.  Posted in the window from vmx_intr_assist()'s last PIR sync
 * to VM entry, it must leave PIR before VM entry (the entry's recheck
 * restarts it, and the sync takes it), or be notified with
 * posted_intr_vector to the vCPU's pCPU (tok): that pCPU takes it by the
 * softirq check in entry.S while interrupts are on, or right after VM
 * entry, in non-root mode; the check is at VM entry (vcpu()).  A wakeup
 * vector notification does not count: vmx_pi_wakeup() does not kick a
 * running vCPU.
 */
inline post(v)
{
    atomic {
        pir[v] = 1;
        assert(!ingst[v] || (!on[v] && !sn[v] && nv[v] == POSTED && ndst[v] == proc[v]));
        if
        :: !on[v] && !sn[v] ->
            on[v] = 1;
            if
            :: nv[v] == WAKEUP && online[ndst[v]] -> irr[ndst[v]] = 1
            :: nv[v] == POSTED && ingst[v] && proc[v] == ndst[v] ->
                on[v] = 0; pir[v] = 0
            :: nv[v] == POSTED && win[v] && proc[v] == ndst[v] -> tok[v] = 1
            :: else -> skip
            fi
        :: else -> skip
        fi
    }
}

/*
 * The release of lock c by the running process: at once with an empty store
 * buffer, else behind the stores in it.
 */
inline release(c)
{
    if
    :: sbn[me] == 0 -> lock[c] = 0; lown[c] = 0
    :: else -> sb_put(SBE(SB_UNLOCK, c, 0))
    fi
}

/*
 * Locks remember their holder (ghost lown[], the process id), so that a
 * process that ends, or a run that stops, with a lock held is an error
 * (NOTHELD, NOLOCK): a leaked lock would make every `lock[c] || ...'
 * invariant vacuous for that list.
 */
inline spin_lock(c)   { atomic { DRAINED && !lock[c] -> lock[c] = 1; lown[c] = _pid } }
inline spin_unlock(c) { atomic { assert(lock[c] && lown[c] == _pid); release(c) } }
/*
 * spin_lock_irqsave() / spin_unlock_irqrestore() by code running on pCPU
 * @cpu.  The model turns interrupts off once the lock is taken, not before
 * spinning: more interleavings, not fewer.
 */
inline lock_irq(cpu, c)   { atomic { DRAINED && !lock[c] -> lock[c] = 1; lown[c] = _pid; irqoff[cpu]++ } }
inline unlock_irq(cpu, c) { atomic { assert(lock[c] && lown[c] == _pid); release(c); irqoff[cpu]-- } }

/* the running process holds no list lock (checked where a process ends) */
#define HELD(c)     (lock[c] && lown[c] == _pid)
#define NOTHELD     (!HELD(0) && !HELD(1) && (NCPU < 3 || !HELD(NCPU - 1)))
#define IRQON       (irqoff[0] == 0 && irqoff[1] == 0 && (NCPU < 3 || irqoff[NCPU - 1] == 0))

/* pi_list_add() + pi_list_grew(); the lock pointer is already set. */
inline list_add(c, v)
{
    d_step {
        assert(!ONL(c, v));
        lst[c] = lst[c] | BIT(v);
        plen[c] = plen[c] + 1
    }
}

/* pi_list_del(): list_del(), ->len - 1, lock pointer = NULL */
inline list_del(c, v)
{
    d_step {
        lst[c] = lst[c] & ~BIT(v);
#ifndef MUT_LEN_NOT_DEC
        plen[c] = plen[c] - 1;
#endif
        lkp[v] = NONE;
        ovr[v] = 0;
        stray[v] = 0
    }
}

/* vcpu_unblock(): test_and_clear_bit(_VPF_blocked), vcpu_wake() */
inline vcpu_unblock(v)
{
    atomic { DRAINED -> blocked[v] = 0; asleep[v] = 0 }   /* locked: drains */
}

/*
 * vmx_sync_pir_to_irr() (vmx.c), reached from local_events_need_delivery()
 * and vmx_intr_assist(): only if test_and_clear ON, read (xchg) PIR.  The
 * model takes any ON as a deliverable interrupt.  4.17 and 4.20 start with
 * the locked pi_test_and_clear_on(), which drains the store buffer first;
 * master (SYNC_PLAIN) with a plain pi_test_on(), returning if ON is clear,
 * which x86 may satisfy before the buffered stores reach memory.
 * @w: vmx_intr_assist()'s sync, where the window to VM entry starts once ON
 * was read clear or cleared (the ghosts win, tok).
 */
inline sync_pir_to_irr(v, got, w)
{
    got = 0;
#ifdef SYNC_PLAIN
    atomic {                                /* pi_test_on() */
        if :: on[v] -> got = 1 :: else -> win[v] = w; tok[v] = 0 fi
    }
    if
    :: got ->
        atomic {                            /* pi_test_and_clear_on() */
            DRAINED -> assert(on[v]); on[v] = 0; win[v] = w; tok[v] = 0
        }
    :: else -> skip
    fi;
#else
    atomic {                                /* pi_test_and_clear_on() */
        DRAINED ->
        if :: on[v] -> on[v] = 0; got = 1 :: else -> skip fi;
        win[v] = w; tok[v] = 0
    }
#endif
    if :: got -> pir[v] = 0 :: else -> skip fi   /* xchg() of PIR */
}

/*
 * pi_spill_target(): lengths of the online pCPUs other than @cpu, read one
 * at a time without locks, from a rotor (any start: the model does not keep
 * the rotor); the shortest below @lim, else @cpu.  Only pCPUs of the
 * domain's pool.  One socket, and PI_SPILL_PROBES (4) >= NCPU - 1: the
 * first pass looks at every other online pCPU of the pool, and the second
 * pass is not modelled.
 */
inline spill_target(cpu, lim, res, i, n, bestlen)
{
    res = cpu; bestlen = lim;
    if
    :: i = 0
    :: i = 1
#if NCPU > 2
    :: i = 2
#endif
    fi;
    n = 0;
    do
    :: n < NCPU ->
        atomic {
            if
#ifdef MUT_SPILL_NO_POOL
            :: i != cpu && online[i] && plen[i] < bestlen ->   /* bug: any pool */
#else
            :: i != cpu && online[i] && INPOOL(i) && plen[i] < bestlen ->
#endif
                res = i; bestlen = plen[i]
            :: else -> skip
            fi;
            i = (i + 1) % NCPU;
            n++
        }
    :: else -> break
    od;
    atomic { i = 0; n = 0; bl = 0 }
}

/*
 * vmx_vcpu_block(v), running on pCPU @cpu = v->processor, from vcpu_block().
 */
inline vmx_vcpu_block(v, cpu, lc, ok, i, n, bl)
{
    lc = cpu;
#ifdef MUT_NV_EARLY
    sb_store(SBE(SB_NV, v, WAKEUP));        /* bug: NV before the list */
#endif
#ifdef MUT_SKIP_ON
    if :: on[v] -> goto blk_done :: else -> skip fi;   /* bug: no insertion */
#endif
    lock_irq(cpu, cpu);                     /* spin_lock_irqsave(&pbv->lock) */
    if
#ifdef MUT_BLOCK_IGNORES_POOL
    :: LIMIT && plen[cpu] >= LIMIT ->       /* bug: blocks outside the pool */
#else
    :: LIMIT && (plen[cpu] >= LIMIT || !INPOOL(cpu)) ->   /* full, or left the pool */
#endif
        tried[v] = 1;
        unlock_irq(cpu, cpu);               /* spin_unlock_irqrestore() */
        spill_target(cpu, LIMIT, lc, i, n, bl);  /* pi_spill_target() */
        if
        :: lc != cpu ->
            lock_irq(cpu, lc);
#if defined(MUT_SPILL_NO_LEN_RECHECK)
            ok = online[lc];
#elif defined(MUT_SPILL_NO_ONLINE_RECHECK)
            ok = plen[lc] < LIMIT;
#elif defined(MUT_SPILL_NO_POOL)
            ok = online[lc] && plen[lc] < LIMIT;  /* bug: any pool */
#else
            ok = online[lc] && INPOOL(lc) && plen[lc] < LIMIT;  /* cpu_online() && in pool && len < limit */
#endif
            if
            :: ok -> goto blk_add
            :: else -> skip
            fi;
            unlock_irq(cpu, lc);
            lc = cpu
        :: else -> skip
        fi;
        lock_irq(cpu, cpu)
    :: else -> skip
    fi;
blk_add:
    /* cmpxchg(&pi_blocking.lock, NULL, &pbv->lock): the model's check */
    assert(lkp[v] == NONE);
    atomic { stray[v] = !INPOOL(lc) && lc == cpu && tried[v]; tried[v] = 0; lkp[v] = lc }
    /* ghost: the docs allow going over the limit on the own list only */
    ovr[v] = (LIMIT && plen[lc] >= LIMIT && lc == cpu);
    assert(online[lc]);
    list_add(lc, v);                        /* pi_list_add() */
    if
    :: lc != cpu ->
#ifndef MUT_SPILL_NO_NDST
        sb_store(SBE(SB_NDST, v, lc))       /* write_atomic(&pi_desc->ndst) */
#else
        skip
#endif
    :: else -> skip
    fi;
    sb_store(SBE(SB_NV, v, WAKEUP));        /* write_atomic(&pi_desc->nv), under the lock */
#ifndef BLOCK_NO_MB
    /*
     * smp_mb(): NV (and NDST) reach memory before vcpu_block()'s
     * local_events_need_delivery() reads ON.  Without it, with master's
     * plain read of ON, the read may see ON clear while the IOMMU still
     * sees the posted vector: it sets ON and notifies nobody who wakes the
     * vCPU (and spin_unlock() is a plain store, no barrier).
     */
    smp_mb();
#endif
    unlock_irq(cpu, lc);                    /* spin_unlock_irqrestore() */
blk_done:
    skip
}

/*
 * vmx_pi_unblock_vcpu(v) from vmx_pi_do_resume() (vmx_vmenter_helper(),
 * interrupts already off), v running on @cpu.  @chg: NV was not the posted
 * vector, or NDST not @cpu, when it started.
 */
inline vmx_pi_unblock_vcpu(v, cpu, l, t, chg)
{
    /*
     * read_atomic() of NV and of NDST, as one step: only this vCPU writes
     * NV, so no interleaving is lost
     */
    d_step {
        load_fwd(SB_NV, v, nv[v], t);
        chg = (t != POSTED);
        load_fwd(SB_NDST, v, ndst[v], t);
        chg = chg || t != cpu
    }
#ifndef MUT_NO_NDST_RESTORE
    if :: t != cpu -> d_step { sb_put(SBE(SB_NDST, v, cpu)); t = 0 } :: else -> t = 0 fi;
#endif
    /*
     * write_atomic(&pi_desc->nv), unless nothing changes (the C code stores
     * it anyway; the same value again changes nothing anyone reads)
     */
    if :: chg -> sb_store(SBE(SB_NV, v, POSTED)) :: else -> skip fi;
    do
    :: l = lkp[v];                          /* read_atomic(&pi_blocking.lock) */
        if
        :: l == NONE -> goto unb_out
        :: else -> skip
        fi;
        spin_lock(l);                       /* spin_lock_irqsave() */
#ifdef MUT_NO_UNBLOCK_RECHECK
        if
        :: lkp[v] != NONE -> list_del(l, v); break
        :: else -> break
        fi
#else
        if
        :: lkp[v] == l -> list_del(l, v); break    /* pi_list_del() */
#ifdef MUT_LEAK_LOCK
        :: lkp[v] == NONE -> goto unb_out   /* bug: returns with the lock held */
#else
        :: lkp[v] == NONE -> break
#endif
        :: else -> skip
        fi;
        spin_unlock(l)                      /* moved by the fixup: retry */
#endif
    od;
    spin_unlock(l);
unb_out:
#ifndef MUT_NO_NDST_RESTORE
    atomic { load_fwd(SB_NDST, v, ndst[v], t) }    /* read_atomic(&pi_desc->ndst) */
    if :: t != cpu -> d_step { sb_put(SBE(SB_NDST, v, cpu)); t = 0 } :: else -> t = 0 fi
#else
    skip
#endif
}

/*
 * vmx_pi_do_resume(v), from vmx_vmenter_helper() with interrupts off:
 * vmx_pi_unblock_vcpu(), then, if it changed NV or NDST, smp_mb() and a
 * plain read of ON.  Until NV and NDST are back, a notification goes to the
 * wakeup vector or to another pCPU, neither of which gets the interrupt to
 * the guest; after the barrier, they go to this pCPU with the posted
 * vector.  ON set: restart the entry (vmx_vmenter_helper() returns false),
 * and vmx_intr_assist()'s sync takes the interrupt.  @rs: restart.
 */
inline vmx_pi_do_resume(v, cpu, l, t, chg, rs)
{
    vmx_pi_unblock_vcpu(v, cpu, l, t, chg);
#ifndef MUT_NO_RESUME_RECHECK
    if
    :: chg ->
#ifndef MUT_RECHECK_NO_MB
        smp_mb();
#endif
        rs = on[v]                          /* pi_test_on() */
    :: else -> skip
    fi;
#endif
    chg = 0
}

/*
 * vmx_pi_switch_to(v) on @cpu, from the full context switch.  An interrupt
 * posted while SN was set (the vCPU preempted) set PIR only: ON is set
 * again for it, so that vmx_intr_assist()'s sync takes it.
 */
inline vmx_pi_switch_to(v, cpu, t)
{
    sb_store(SBE(SB_NDST, v, cpu));         /* write_atomic(&pi_desc->ndst) */
    clear_sn(v);                            /* pi_clear_sn() */
#ifndef MUT_SWITCH_TO_NO_ON
    /* smp_mb(), then PIR not empty and ON clear (plain reads, one step) */
    atomic { smp_mb() -> t = pir[v] && !on[v] }
    d_step { if :: t -> on[v] = 1 :: else -> skip fi; t = 0 }  /* pi_set_on() */
#endif
}

/*
 * A vCPU: runs, halts NBLOCK times (vcpu_block() -> vmx_vcpu_block()), is
 * woken, scheduled (maybe elsewhere, maybe by a lazy context switch) and
 * resumed (vmx_intr_assist(), then vmx_vmenter_helper() -> vmx_pi_do_resume()).
 * With PREEMPT, it may also be preempted once while in non-root mode.
 */
proctype vcpu(byte v)
{
    byte nb = NBLOCK, q = HOME(v), last = HOME(v), l, lc, i, n, bl, t;
    bool ok, got, chg, rs;
    byte me = v;        /* store buffer */
#ifdef PREEMPT
    byte np = 1;        /* preemptions left */
#endif
    bool pre;           /* preempted: another vCPU ran on the pCPU meanwhile */

    /* It starts in non-root mode on its home pCPU (see init). */
    do
#ifdef PREEMPT
    :: nb == 0 && np == 0 -> break
    :: np > 0 ->
        /*
         * A VM exit, and schedule() picks another vCPU: context_switch()
         * -> vmx_pi_switch_from(): not blocked, so SN set; an interrupt
         * posted from now on sets PIR only.  The vCPU stays runnable.
         */
        atomic { ingst[v] = 0; busy++; np--; pre = 1 }
        set_sn(v);                                        /* pi_set_sn() */
        busy--;
        goto sched
    :: nb > 0 ->
#else
    :: nb == 0 -> break
    :: else ->
#endif
        /* HLT vmexit: vcpu_block() */
        atomic { ingst[v] = 0; busy++; blocked[v] = 1 }   /* set_bit(_VPF_blocked) */
        vmx_vcpu_block(v, q, lc, ok, i, n, bl);           /* arch_vcpu_block() */
        /* local_events_need_delivery() */
        sync_pir_to_irr(v, got, 0);
        atomic {
            if
            :: got -> blocked[v] = 0                      /* clear_bit() */
            :: else -> asleep[v] = blocked[v]
            fi;
            busy--;
            lc = 0; ok = 0; got = 0
        }
        nb--;
end_asleep:
        !blocked[v];                                      /* woken */
sched:
        /* schedule(): v->processor, context switch */
        atomic {
            q = proc[v];
#ifdef MIGRATE
            if
            :: skip
            :: online[0] && INPOOL(0) -> q = 0
            :: online[1] -> q = 1
#if NCPU > 2
            :: online[2] -> q = 2
#endif
            fi;
            proc[v] = q;
#endif
            busy++
        }
        if
        :: q == last && !pre -> skip    /* lazy: curr_vcpu == v, no __context_switch() */
        :: vmx_pi_switch_to(v, q, t)
        fi;
        d_step { last = q; pre = 0 }
vmentry:
        sync_pir_to_irr(v, got, 1);                       /* vmx_intr_assist() */
        d_step { irqoff[q]++; got = 0 }                   /* cli */
        vmx_pi_do_resume(v, q, l, t, chg, rs);            /* vmx_vmenter_helper() */
        if
        :: rs -> d_step { irqoff[q]--; rs = 0; l = 0 }; goto vmentry   /* sti, restart */
        :: atomic { !rs ->                                /* VM entry */
            /*
             * Timeliness (see post()): nothing left in PIR, or a
             * posted_intr_vector notification on its way to this pCPU,
             * which the CPU processes now.
             */
            assert(!(pir[v] || on[v]) || tok[v]);
            if :: tok[v] -> on[v] = 0; pir[v] = 0 :: else -> skip fi;
            irqoff[q]--; ingst[v] = 1; win[v] = 0; tok[v] = 0; busy--; l = 0
        }
        fi
    od;
    DRAINED;
    assert(NOTHELD)
}

/*
 * The pi_wakeup_vector handler of pCPU @c: vmx_pi_wakeup(), interrupt
 * context, only while the pCPU has interrupts on.
 */
proctype wakeup(byte c)
{
    byte v;
    byte me = NSB;      /* no store to buffer */

end_idle:
    do
    :: atomic { irr[c] && online[c] && irqoff[c] == 0 ->
                irr[c] = 0; irqoff[c]++; busy++ }
        spin_lock(c);                                   /* spin_lock(lock) */
        v = 0;
        do                      /* list_for_each_entry_safe(), in vCPU order */
        :: v < NVCPU ->
            if
            :: ONL(c, v) && on[v] ->                    /* pi_test_on() */
                list_del(c, v);                         /* pi_list_del() */
                vcpu_unblock(v)
            :: else -> skip
            fi;
            v++
        :: else -> break
        od;
        spin_unlock(c);
        atomic { irqoff[c]--; busy--; v = 0 }
    od
}

/*
 * cpu_down(DEAD) from CPU0, then cpu_up(DEAD).  stop_machine: every other
 * pCPU sits in its stop_machine action, so no Xen code is in flight and the
 * pCPU runs no vCPU (the model does not preempt running vCPUs).
 */
/*
 * The fixup may go over the limit: by default (as the docs say) only when
 * pi_spill_target() found no list below it; with STRICT_FIXUP_BOUND only
 * when no online list is below it at the time of the move (one pool).
 */
#ifdef STRICT_FIXUP_BOUND
#define FIXUP_OVR(v, nc, fb) \
    ovr[v] = (LIMIT && plen[nc] >= LIMIT && \
              !((online[0] && 0 != DEAD && plen[0] < LIMIT) || \
                (online[1] && 1 != DEAD && plen[1] < LIMIT) || \
                (NCPU > 2 && online[NCPU - 1] && NCPU - 1 != DEAD && \
                 plen[NCPU - 1] < LIMIT)))
#else
#define FIXUP_OVR(v, nc, fb) ovr[v] = (LIMIT && plen[nc] >= LIMIT && fb)
#endif

/*
 * One entry @v of @from's list leaving it, in pi_move_entries() (the CPU-dead
 * fixup, and arch_cpupool_changed()'s stray moves), with @from's lock held:
 * pi_pick_target(), the NDST write, the ON test, the move.
 */
inline move_entry(from, v, nc, fb, below, rot, tset, i)
{
    /*
     * The fixed fixup: no SN window.  The new NDST is written under the
     * new list's lock, then (smp_mb()) ON is tested: an interrupt posted
     * before the write notified the dead pCPU but left ON set; one
     * posted after it notifies the new pCPU, whose handler waits for this
     * lock and then finds the vCPU on its list.
     */
    /*
     * pi_pick_target(): the set of the pool's other online lists below
     * the limit, computed once per move (t->pool), taken round robin;
     * each list found full (or offline) under its lock leaves the set.
     * An empty set: the next online pCPU of the pool, else any online
     * pCPU.  Bound off: any online pCPU (cpumask_any(), pCPU 0).
     */
    if
    :: !LIMIT -> d_step { nc = 0; fb = 1 }; spin_lock(nc)
    :: else ->
        if
        :: !tset ->
            d_step { tset = 1; rot = from; below = 0; i = 0 }
            do
            :: i < NCPU ->
                atomic {
                    if
#ifdef MUT_FIXUP_NO_POOL
                    :: i != from && online[i] && plen[i] < LIMIT ->   /* bug: the pool is ignored */
#else
                    :: i != from && INPOOL(i) && online[i] && plen[i] < LIMIT ->
#endif
                        below = below | BIT(i)
                    :: else -> skip
                    fi;
                    i++
                }
            :: else -> break
            od;
            i = 0
        :: else -> skip
        fi;
        do
        :: below != 0 ->
            d_step {        /* c = t->rotor = cpumask_cycle(t->rotor, &t->below) */
                nc = rot;
                do
                :: nc = (nc + 1) % NCPU;
                    if :: (below & BIT(nc)) != 0 -> break :: else -> skip fi
                od;
                rot = nc
            }
#ifdef MUT_FIXUP_DEAD_TARGET
            nc = from;      /* bug: the dead pCPU itself */
#endif
            spin_lock(nc);
            if
#ifdef MUT_FIXUP_NO_LEN_RECHECK
            :: online[nc] -> break          /* bug: the length is not checked again */
#else
            :: online[nc] && plen[nc] < LIMIT -> break
#endif
            :: else -> spin_unlock(nc); below = below & ~BIT(nc)
            fi
        :: else ->
            d_step {        /* the next online pCPU of the pool, else any */
                fb = 1; nc = rot; i = 0;
                do
                :: i < NCPU ->
                    nc = (nc + 1) % NCPU;
                    if :: nc != from && INPOOL(nc) && online[nc] -> break :: else -> i++ fi
                :: else -> nc = 0; break
                od;
                rot = nc; i = 0
            }
            spin_lock(nc);
            break
        od
    fi;
#ifdef MUT_FIXUP_SN_LEFT
    set_sn(v);                      /* bug: SN set and never cleared */
#endif
    /*
     * The vCPU may be awake already (woken, not yet through
     * vmx_pi_unblock_vcpu()): then NDST names the new list's pCPU until
     * vmx_pi_unblock_vcpu() puts it back, and vmx_pi_do_resume()'s
     * recheck finds the ON an interrupt posted meanwhile set.
     */
    sb_store(SBE(SB_NDST, v, nc));  /* write_atomic(&pi_desc.ndst) */
#ifndef MUT_MOVER_NO_MB
    smp_mb();                       /* NDST in memory before ON is read */
#endif
#ifdef MUT_FIXUP_MOVES_ON
    if
    :: true ->                      /* bug: ON not tested */
#else
    if
    :: on[v] ->                     /* pi_test_on() */
        list_del(from, v);          /* pi_list_del() */
        vcpu_unblock(v)
    :: else ->
#endif
        d_step {                    /* list_move(), lock = new_lock, lens */
            lst[from] = lst[from] & ~BIT(v);
            lst[nc] = lst[nc] | BIT(v);
            lkp[v] = nc; stray[v] = 0;
            plen[from] = plen[from] - 1;
            FIXUP_OVR(v, nc, fb);
            plen[nc] = plen[nc] + 1;
            /* full now: it leaves the set */
            if :: LIMIT && plen[nc] >= LIMIT -> below = below & ~BIT(nc) :: else -> skip fi
        }
    fi;
    spin_unlock(nc);
}

proctype hotplug()
{
    byte v, nc, i, n, bl, below, rot;   /* pi_targets: .below, .rotor */
    byte me = MOVER;                    /* store buffer */
    bool fb;            /* ghost: the over-limit move is one the docs allow */
    bool tset;          /* pi_targets.pool set */

end_wait:
    atomic {        /* stop_machine: every pCPU runs locked instructions */
        busy == 0 && irqoff[DEAD] == 0 && ALLDRAINED &&
        !((ingst[0] && proc[0] == DEAD) || (ingst[1] && proc[1] == DEAD)
#if NVCPU > 2
          || (ingst[2] && proc[2] == DEAD)
#endif
         ) ->
        online[DEAD] = 0;               /* __cpu_disable() */
        irr[DEAD] = 0;                  /* the dead pCPU takes no interrupt */
        fixing = 1;
        /* cpu_disable_scheduler(): its vCPUs go to pCPU LOW of their pool */
        v = 0;
        do
        :: v < NVCPU -> if :: proc[v] == DEAD -> proc[v] = LOW :: else -> skip fi; v++
        :: else -> break
        od
    }

    /* CPU_DEAD: vmx_cpu_dead() -> vmx_pi_desc_fixup(DEAD), on CPU0 */
    lock_irq(0, DEAD);                  /* spin_lock_irqsave(old_lock) */
    v = 0;
    do                                  /* list_for_each_entry_safe() */
    :: v < NVCPU && !ONL(DEAD, v) -> v++
    :: v < NVCPU && ONL(DEAD, v) ->
#ifdef UPSTREAM_FIXUP
        set_sn(v);                      /* pi_set_sn() */
        if
        :: on[v] ->                     /* pi_test_on() */
            list_del(DEAD, v);          /* pi_list_del() */
            clear_sn(v);                /* pi_clear_sn() */
            vcpu_unblock(v)
        :: else ->
            /* new_cpu = pi_spill_target() ?: cpumask_any(&cpu_online_map) */
            spill_target(DEAD, LIMIT, nc, i, n, bl);
            if :: nc == DEAD -> nc = 0; fb = 1 :: else -> skip fi;
#ifdef MUT_FIXUP_DEAD_TARGET
            nc = DEAD;
#endif
            spin_lock(nc);
            sb_store(SBE(SB_NDST, v, nc));  /* write_atomic(&pi_desc.ndst) */
            d_step {                    /* list_move(), lock = new_lock, lens */
                lst[DEAD] = lst[DEAD] & ~BIT(v);
                lst[nc] = lst[nc] | BIT(v);
                lkp[v] = nc;
                plen[DEAD] = plen[DEAD] - 1;
                FIXUP_OVR(v, nc, fb);
                plen[nc] = plen[nc] + 1
            }
            clear_sn(v);                /* pi_clear_sn() */
            spin_unlock(nc)
        fi;
#else /* !UPSTREAM_FIXUP */
        move_entry(DEAD, v, nc, fb, below, rot, tset, i);
#endif
        atomic { v++; nc = 0; fb = 0 }
    :: else -> break
    od;
    unlock_irq(0, DEAD);                /* spin_unlock_irqrestore() */
    d_step { fixing = 0; below = 0; rot = 0; tset = 0 }

    /* cpu_up(DEAD): vmx_pi_per_cpu_init() on the new pCPU, then online */
#ifdef MUT_INIT_AFTER_ONLINE
    online[DEAD] = 1;
#endif
    d_step { lst[DEAD] = 0; plen[DEAD] = 0 }   /* INIT_LIST_HEAD(), len = 0 */
#ifndef MUT_INIT_AFTER_ONLINE
    online[DEAD] = 1;
#endif
    DRAINED;
    assert(NOTHELD)
}

#ifdef POOLCHG
/*
 * cpupool_unassign_cpu(pool, 2), under cpupool_lock: _start() takes pCPU 2
 * out of cpu_valid and calls arch_cpupool_changed(), which moves each
 * entry on the lists of pCPUs outside the pool (pi_move_entries(cpu,
 * true)), as the fixup does; _finish() runs cpu_disable_scheduler(2),
 * which moves the vCPUs of pCPU 2 to pCPU 1 (the model waits, as for
 * hotplug, until no Xen code is in flight and no vCPU runs there).
 */
proctype poolchg()
{
    byte v, c, nc, i, below, rot;
    bool fb, tset;
    byte me = MOVER;                    /* store buffer */

    atomic { p2out = 1; pchg = 1 }
    c = 0;
    do
    :: c < NCPU ->
        lock_irq(0, c);                 /* spin_lock_irqsave(old_lock) */
        v = 0;
        do
        :: v < NVCPU && !(ONL(c, v) && !INPOOL(c)) -> v++
        :: v < NVCPU && ONL(c, v) && !INPOOL(c) ->
#ifdef MUT_NO_STRAY_MOVE
            skip;                       /* bug: strays are left where they are */
#else
            move_entry(c, v, nc, fb, below, rot, tset, i);
#endif
            atomic { v++; nc = 0; fb = 0 }
        :: else -> break
        od;
        unlock_irq(0, c);
        c++
    :: else -> break
    od;
    atomic { pchg = 0; below = 0; rot = 0; tset = 0; c = 0; v = 0 }
end_wait:
    atomic {
        busy == 0 && ALLDRAINED &&
        !((ingst[0] && proc[0] == 2) || (ingst[1] && proc[1] == 2)
#if NVCPU > 2
          || (ingst[2] && proc[2] == 2)
#endif
         ) ->
        v = 0;
        do
        :: v < NVCPU -> if :: proc[v] == 2 -> proc[v] = 1 :: else -> skip fi; v++
        :: else -> break
        od;
        v = 0
    }
    DRAINED;
    assert(NOTHELD)
}
#endif

/* Posts NIRQ interrupts, each to any vCPU, at any time. */
proctype device()
{
    byte k = NIRQ;

end_dev:
    do
    :: k > 0 -> if :: post(0) :: post(1)
#if NVCPU > 2
                   :: post(2)
#endif
                fi; k--
    :: k == 0 -> break
    od
}

#ifdef TIMER
/* One wakeup of a vCPU by something else (timer, event channel). */
proctype timer()
{
    byte me = NSB;      /* no store to buffer */

    if
    :: vcpu_unblock(0)
    :: vcpu_unblock(1)
#if NVCPU > 2
    :: vcpu_unblock(2)
#endif
    fi
}
#endif

/* ---- invariants, checked in every state ---- */
#define POP(c)      (((lst[c] >> 0) & 1) + ((lst[c] >> 1) & 1) + ((lst[c] >> 2) & 1))
#define NOLOCK      (!lock[0] && !lock[1] && (NCPU < 3 || !lock[NCPU - 1]))
/* H1: a vCPU's lock pointer names the list holding it; length exact */
#define ID_OK(c, v) (lock[c] || (ONL(c, v) == (lkp[v] == c)))
#define LEN_OK(c)   (lock[c] || plen[c] == POP(c))
/* H3/H6: a blocked vCPU on a list with the wakeup vector: NDST names that
 * list's pCPU, SN clear (outside the list lock's critical sections) */
#define BLK_OK(v)   ((!(blocked[v] && nv[v] == WAKEUP && lkp[v] != NONE && \
                        !lock[lkp[v]]) || (ndst[v] == lkp[v] && !sn[v])) && \
                     !(blocked[v] && nv[v] == WAKEUP && lkp[v] == NONE && NOLOCK))
/* H4: a vCPU asleep in vcpu_block() is on a list of an online pCPU, with
 * the wakeup vector (no list lock held: nobody is moving or removing it) */
#define SLEEP_OK(v) (!(asleep[v] && NOLOCK && !fixing) || \
                     (lkp[v] != NONE && nv[v] == WAKEUP && online[lkp[v]]))
/* H5: a vCPU in non-root mode is on no list, NDST its pCPU, NV posted
 * (once its stores have left its store buffer) */
#define GST_OK(v)   (!ingst[v] || sbn[v] > 0 || \
                     (lkp[v] == NONE && ndst[v] == proc[v] && nv[v] == POSTED && !sn[v]))
/* H7: an offline pCPU, once fixed up, holds no list */
#define OFF_OK(c)   (online[c] || fixing || (lst[c] == 0 && plen[c] == 0))
/* the bound: entries beyond LIMIT are the adds the docs allow */
#define OVR(c, v)   (ONL(c, v) && ovr[v])
#define NOVR(c)     (OVR(c, 0) + OVR(c, 1) + (NVCPU > 2 && OVR(c, 2)))
#define BND_OK(c)   (!LIMIT || lock[c] || plen[c] <= LIMIT + NOVR(c))

#define CPU_OK(c)   (ID_OK(c, 0) && ID_OK(c, 1) && (NVCPU < 3 || ID_OK(c, 2)) && \
                     LEN_OK(c) && OFF_OK(c) && BND_OK(c))
/* pools: a vCPU's list is in its domain's pool, unless no pCPU of the pool
 * is online */
#define POOLUP      ((INPOOL(0) && online[0]) || (INPOOL(1) && online[1]) || \
                     (NCPU > 2 && INPOOL(NCPU - 1) && online[NCPU - 1]))
/* ... or a vCPU that blocked on its own pCPU's list once that pCPU had left
 * the pool (before cpu_disable_scheduler() moved the vCPU), every list of
 * the pool it looked at being full */
#define POOL_OK(v)  (lkp[v] == NONE || INPOOL(lkp[v]) || !POOLUP || pchg || stray[v])
#define VCPU_OK(v)  (BLK_OK(v) && SLEEP_OK(v) && GST_OK(v) && POOL_OK(v))
#define INV         (CPU_OK(0) && CPU_OK(1) && (NCPU < 3 || CPU_OK(NCPU - 1)) && \
                     VCPU_OK(0) && VCPU_OK(1) && (NVCPU < 3 || VCPU_OK(NVCPU - 1)) && \
                     (lst[0] & lst[1]) == 0 && \
                     (NCPU < 3 || (lst[NCPU - 1] & (lst[0] | lst[1])) == 0))

proctype invariants()
{
end_inv:
    atomic { !INV -> assert(INV) }
}

/*
 * No lost wakeup.  Every process of the model ends (NBLOCK halts, NIRQ
 * posts, one hotplug) or waits for work: `timeout' holds once nothing can
 * move.  A vCPU still blocked then with a PIR bit set had an interrupt
 * posted that never woke it, and none ever will.
 */
proctype quiescence()
{
    timeout ->
    assert(!(blocked[0] && pir[0]) && !(blocked[1] && pir[1]) &&
           (NVCPU < 3 || !(blocked[NVCPU - 1] && pir[NVCPU - 1])));
    assert(!irr[0] && !irr[1] && (NCPU < 3 || !irr[NCPU - 1]));
    /* no lock left held, no pCPU left with interrupts off */
    assert(NOLOCK && IRQON)
}

init
{
    byte v, c;

    atomic {
        c = 0;
        do
        :: c < NCPU -> online[c] = 1; c++
        :: else -> break
        od;
        v = 0;
        do
        :: v < NVCPU ->
            lkp[v] = NONE; ndst[v] = HOME(v); proc[v] = HOME(v);
            nv[v] = POSTED; ingst[v] = 1; v++
        :: else -> break
        od;
        c = 0;
        do
        :: c < NCPU -> run wakeup(c); c++
        :: else -> break
        od;
        v = 0;
        do
        :: v < NVCPU -> run vcpu(v); v++
        :: else -> break
        od;
        run device();
#ifdef HOTPLUG
        run hotplug();
#endif
#ifdef TIMER
        run timer();
#endif
#ifdef POOLCHG
        run poolchg();
#endif
        run flusher();
        run invariants();
        run quiescence()
    }
}
