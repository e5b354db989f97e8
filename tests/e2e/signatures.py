"""Reading a guest's output: xl's first error, the topology lines a guest
printed, TCG's own deaths and hangs (tcg_oops, tcg_hang, and KSYMS, the
guest kernel symbols dom0's hang dumps need), why a guest printed nothing,
and the outcome of one boot of a topology case (topo_outcome)."""
import os
import re

from common import read, write
import cpuid_check


def first_error(text):
    """xl's first error line (the cause), else its last line."""
    lines = [l for l in text.splitlines() if l.strip()]
    hit = [l for l in lines if re.search(r'error|invalid|refus|not supported', l, re.I)]
    return ((hit or lines or [''])[0] if hit else (lines or [''])[-1])[:200]


def guest_lines(console):
    """The cpuN lines between E2E-GUEST-BEGIN and E2E-GUEST-END."""
    m = re.search(r'^E2E-GUEST-BEGIN$(.*?)(^E2E-GUEST-END$|\Z)', console, re.M | re.S)
    return [l for l in (m.group(1).splitlines() if m else []) if re.match(r'cpu\d', l)]


OOPS = 'BUG: ENTRY_TRAMPOLINE stack guard page was hit'
CALLBACK = 'asm_sysvec_xen_hvm_callback'
# where the callback vector, taken from user mode, has been seen taken
# again with interrupts still disabled, on the base alone (docs/e2e.md)
CALLBACK_ENTRY = (CALLBACK + '+0x0/', 'error_entry+')
SPIN = ('ktime_get', 'ktime_get_update_offsets_now')
# ... or on jiffies_lock, which the callback handler takes, one vCPU
# holding it with the handler entered again on top
JIFFIES, HANDLER = 'tick_do_update_jiffies64', 'sysvec_xen_hvm_callback'
# the guest kernel symbols dom0's hang dumps need
KSYMS = ('_stext', '_etext') + SPIN + (JIFFIES, HANDLER)


def tcg_oops(console):
    """The TCG death: the trampoline oops whose innermost kernel frame (the
    last one before the user-mode frame it interrupted) is the callback
    vector's entry, with EFLAGS.IF clear, itself interrupted by the
    callback vector."""
    i = console.find(OOPS)
    if i < 0:
        return False
    oops = console[i:]
    end = oops.find('---[ end trace')
    frames, caller = [], ''
    for line in oops[:end if end > 0 else None].splitlines():
        m = re.search(r'RIP: (00[13]0|0033):(\S+)', line)
        if m:
            frames.append(dict(cs=m.group(1), where=m.group(2), by=caller, flags=None))
            continue
        m = re.search(r'EFLAGS: ([0-9a-f]+)', line)
        if m and frames and frames[-1]['flags'] is None:
            frames[-1]['flags'] = int(m.group(1), 16)
            continue
        m = re.match(r'\[ *[0-9.]+\]  (\S+)$', line)
        if m:
            caller = m.group(1)
    kernel = []
    for f in frames:
        if f['cs'] == '0033':
            break
        kernel.append(f)
    if not kernel:
        return False
    k = kernel[-1]
    return (k['where'].startswith(CALLBACK_ENTRY) and k['flags'] is not None
            and not k['flags'] & 0x200 and k['by'].startswith(CALLBACK + '+'))


def tcg_hang(dump):
    """The TCG hangs, the callback vector taken inside a section that runs
    with interrupts disabled: every vCPU's RIP in the timekeeping seqcount
    readers, or every vCPU inside tick_do_update_jiffies64 (on jiffies_lock)
    and one with the callback handler twice on its stack.  xenctx prints
    "vcpuN:", "rip: ADDR SYMBOL+OFF", then stack words "[<ADDR>] SYMBOL+OFF"
    (the first of them RIP) until the next vCPU."""
    rip, stack, vcpu = {}, {}, None
    for line in (dump or '').splitlines():
        m = re.match(r'vcpu(\d+):$', line)
        if m:
            vcpu = m.group(1)
            stack.setdefault(vcpu, [])
        m = re.match(r'rip: [0-9a-f]+ ?(\S*)', line)
        if m and vcpu is not None and vcpu not in rip:
            rip[vcpu] = m.group(1).split('+')[0]
        m = re.search(r'\[<[0-9a-f]+>\] (\S+)', line)
        if m and vcpu is not None:
            stack[vcpu].append(m.group(1).split('+')[0])
    if not rip:
        return False
    if all(s in SPIN for s in rip.values()):
        return True
    return (set(stack) == set(rip) and all(JIFFIES in f for f in stack.values())
            and any(f.count(HANDLER) >= 2 for f in stack.values()))


def signature(console):
    """The first BUG/panic line, without its time stamp and addresses."""
    m = re.search(r'.*(BUG:|Oops|Kernel panic|segfault|double fault).*', console)
    if not m:
        return ''
    s = re.sub(r'^\[ *[0-9.]+\] ', '', m.group(0).strip())
    return re.sub(r' at ([0-9a-f]{8,}|\(____ptrval____\)) .*', '', s)[:150]


def no_topology(d, c, console):
    """Why a guest printed no topology."""
    sig = signature(console)
    died, hung = read(os.path.join(d, c + '.died')), read(os.path.join(d, c + '.timeout'))
    if died:
        why = 'crashed: %s%s' % (died.strip(), ': ' + sig if sig else '')
    elif hung:
        last = ([l for l in console.splitlines() if l.strip()] or [''])[-1][:120]
        why = 'hung: %s%s; last line: %s' % (hung.strip(), ': ' + sig if sig else '', last)
    else:
        why = 'guest did not print its topology' + (': ' + sig if sig else '')
    errs = read(os.path.join(d, c + '.xl-list-errors'))
    if errs:
        why += '; xl list failed: ' + errs.strip().splitlines()[-1][:100]
    return why


def first_diff(want, got):
    """'< LINE' for the first wanted line missing from GOT, '> LINE' for the
    first line of GOT not wanted, as one string."""
    return ' '.join([('< ' + w) for w in want if w not in got][:1] +
                    [('> ' + g) for g in got if g not in want][:1])


def topo_outcome(conf, case, rec):
    """One boot of a topology case: ('ok', detail), ('tcg', why: TCG's own
    death or hang, every line printed right) or ('fail', reason)."""
    c, out = case['name'], conf['out']
    d = os.path.join(out, 'out-' + rec['id'])
    rc = read(os.path.join(d, c + '.create.rc'))
    if rc is None:
        return 'fail', rec.get('error') or 'not run (dom0 stopped before it)'
    if rc.strip() != '0':
        return 'fail', 'xl create exited %s: %s' % (rc.strip(), first_error(read(os.path.join(d, c + '.create.txt'), '')))
    console = read(os.path.join(d, c + '.console'))
    if console is None:
        return 'fail', 'no guest console log'
    console = console.replace('\r', '')
    got, want = guest_lines(console), case['expect'].splitlines()
    if not re.search(r'^E2E-GUEST-END$', console, re.M):
        if got != want[:len(got)]:
            return 'fail', 'topology differs before the guest stopped (want %s, got %s)' % (
                want[:len(got)], got)
        why = no_topology(d, c, console)
        # a vCPU that never came up is not TCG's death, whatever followed
        m = re.search(r'^(?:\[ *[0-9.]+\] )?(.*(?:do_boot_cpu failed|failed to report alive state'
                      r'|failed to come online).*)$', console, re.M)
        if m:
            return 'fail', '%s; %s' % (why, m.group(1).strip()[:120])
        if read(os.path.join(d, c + '.died')) and tcg_oops(console):
            return 'tcg', why
        if read(os.path.join(d, c + '.timeout')) and tcg_hang(read(os.path.join(d, c + '.hang.txt'))):
            return 'tcg', why + ' (vCPUs spinning in %s)' % '/'.join(SPIN)
        return 'fail', why
    if got != want:
        diff = first_diff(want, got)
        if len(got) != len(want):
            return 'fail', 'guest shows %d CPUs, want %d (diff: %s)' % (len(got), len(want), diff)
        return 'fail', 'topology differs (< want, > got): ' + diff
    wf = os.path.join(out, c + '.cpuid-want')
    write(wf, case['cpuid'])
    write(os.path.join(out, c + '.console'), console)
    write(os.path.join(out, c + '.log'), '\n'.join(got) + '\n')
    rc, line = cpuid_check.check(os.path.join(out, c + '.console'), wf, os.path.join(out, c + '.cpuid'))
    if rc:
        return 'fail', 'CPUID: ' + line
    secs = (read(os.path.join(d, c + '.secs')) or '?').strip()
    return 'ok', '%d CPUs, CPUID fields as written, %s s' % (len(got), secs)
