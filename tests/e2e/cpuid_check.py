#!/usr/bin/env python3
"""Check the topology fields of a guest's CPUID dump against expected values.

usage: cpuid_check.py CONSOLE EXPECTED FIELDS_OUT

CONSOLE is a guest console log holding the lines of tests/e2e/cpuid-dump.c
between E2E-CPUID-BEGIN and E2E-CPUID-END.  EXPECTED holds lines
"cpuN FIELD=VALUE..." and "all FIELD=VALUE..." (the latter for every vCPU
named by a cpuN line); FIELDS_OUT receives the fields derived from the dump,
one line per vCPU, in the same form.

Fields (leaf.field, or leaf.subleaf.field; values in decimal):
  0x1.apic        EBX[31:24], initial APIC ID
  0x1.lppp        EBX[23:16], logical processors per package
  0x1.htt         EDX[28]
  0x4.S.type      EAX[4:0] of every subleaf printed (the last one is 0);
                  for the caches (type != 0) also
  0x4.S.level     EAX[7:5]
  0x4.S.share     EAX[25:14] + 1, logical processors sharing the cache
  0x4.S.cores     EAX[31:26] + 1, cores per package
  0xb.S.type      ECX[15:8] of every subleaf printed (the last one is 0)
  0xb.S.x2apic    EDX; for the levels (type != 0) also
  0xb.S.shift     EAX[4:0]
  0xb.S.count     EBX[15:0]
  0x80000001.cmp_legacy  ECX[1]
  0x80000001.topoext     ECX[22]
  0x80000008.apicidsize  ECX[15:12]
  0x80000008.nc          ECX[7:0] + 1
  0x8000001e.extapic     EAX           (only when TOPOEXT is set)
  0x8000001e.coreid      EBX[7:0]
  0x8000001e.threads     EBX[15:8] + 1
  0x8000001e.node        ECX[7:0]
A field exists only when the dump has its leaf.

Exit status 0 when every vCPU's fields equal the expected ones; 1 with one
line on stdout naming the first difference (vCPU, leaf, field, want, got)
and how many more there are; 2 when the dump or EXPECTED is unreadable or
malformed (one line on stdout saying where).
"""
import re
import sys

LINE = re.compile(r'^cpuid cpu=(\d+) leaf=(0x[0-9a-f]+) sub=(\d+) '
                  r'eax=(0x[0-9a-f]+|0) ebx=(0x[0-9a-f]+|0) '
                  r'ecx=(0x[0-9a-f]+|0) edx=(0x[0-9a-f]+|0)$')


def bits(v, hi, lo):
    return (v >> lo) & ((1 << (hi - lo + 1)) - 1)


def derive(leaf, sub, a, b, c, d):
    """The fields one dump line gives, as (name, value) pairs."""
    if leaf == 0x1:
        return [('0x1.apic', bits(b, 31, 24)), ('0x1.lppp', bits(b, 23, 16)),
                ('0x1.htt', bits(d, 28, 28))]
    if leaf == 0x4:
        f = [('0x4.%d.type' % sub, bits(a, 4, 0))]
        if bits(a, 4, 0):
            f += [('0x4.%d.level' % sub, bits(a, 7, 5)),
                  ('0x4.%d.share' % sub, bits(a, 25, 14) + 1),
                  ('0x4.%d.cores' % sub, bits(a, 31, 26) + 1)]
        return f
    if leaf == 0xb:
        f = [('0xb.%d.type' % sub, bits(c, 15, 8)),
             ('0xb.%d.x2apic' % sub, d)]
        if bits(c, 15, 8):
            f += [('0xb.%d.shift' % sub, bits(a, 4, 0)),
                  ('0xb.%d.count' % sub, bits(b, 15, 0))]
        return f
    if leaf == 0x80000001:
        return [('0x80000001.cmp_legacy', bits(c, 1, 1)),
                ('0x80000001.topoext', bits(c, 22, 22))]
    if leaf == 0x80000008:
        return [('0x80000008.apicidsize', bits(c, 15, 12)),
                ('0x80000008.nc', bits(c, 7, 0) + 1)]
    if leaf == 0x8000001e:
        return [('0x8000001e.extapic', a), ('0x8000001e.coreid', bits(b, 7, 0)),
                ('0x8000001e.threads', bits(b, 15, 8) + 1),
                ('0x8000001e.node', bits(c, 7, 0))]
    return []


def read_dump(path):
    """{cpu: {field: value}} from the dump in a console log."""
    cpus, raw, inside, end = {}, {}, False, None
    with open(path, errors='replace') as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\r\n')
            if line == 'E2E-CPUID-BEGIN':
                inside = True
            elif line.startswith('E2E-CPUID-END'):
                end = line
                break
            elif inside and line.startswith('cpuid '):
                m = LINE.match(line)
                if not m:
                    raise ValueError('%s:%d: not a cpuid-dump line: %s'
                                     % (path, n, line[:80]))
                cpu, leaf, sub, a, b, c, d = (int(x, 0) for x in m.groups())
                raw.setdefault(cpu, []).append((leaf, sub, a, b, c, d))
    if not inside:
        raise ValueError('%s: no E2E-CPUID-BEGIN line' % path)
    if end != 'E2E-CPUID-END rc=0':
        raise ValueError('%s: cpuid-dump did not finish (%s)'
                         % (path, end or 'no E2E-CPUID-END line'))
    for cpu, lines in raw.items():
        topoext = any(l[0] == 0x80000001 and bits(l[4], 22, 22) for l in lines)
        fields = cpus.setdefault(cpu, {})
        for leaf, sub, a, b, c, d in lines:
            if leaf == 0x8000001e and not topoext:
                continue
            fields.update(derive(leaf, sub, a, b, c, d))
    return cpus


def read_expected(path):
    """{cpu: {field: value}}: the cpuN lines, each with the all lines."""
    common, cpus = {}, {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split()
            if not words:
                continue
            m = re.match(r'^(all|cpu(\d+))$', words[0])
            pairs = [w.split('=', 1) for w in words[1:]]
            if not m or any(len(p) != 2 or not p[1].isdigit() for p in pairs):
                raise ValueError('%s:%d: expected "cpuN|all FIELD=NUMBER...": %s'
                                 % (path, n, line.strip()[:80]))
            dst = common if m.group(2) is None else \
                cpus.setdefault(int(m.group(2)), {})
            dst.update((k, int(v)) for k, v in pairs)
    if not cpus:
        raise ValueError('%s: no cpuN line' % path)
    return {cpu: dict(common, **f) for cpu, f in cpus.items()}


def describe(field):
    """'0x4.2.share' -> 'leaf 0x4 sub 2 share'"""
    parts = field.split('.')
    return 'leaf %s%s %s' % (parts[0],
                             ' sub ' + parts[1] if len(parts) == 3 else '',
                             parts[-1])


def check(console, expected, fields_out):
    """(exit status, line) as main() gives them; writes FIELDS_OUT."""
    try:
        got = read_dump(console)
        want = read_expected(expected)
    except (OSError, ValueError) as e:
        return 2, str(e)
    with open(fields_out, 'w') as out:
        for cpu in sorted(got):
            out.write('cpu%d %s\n' % (cpu, ' '.join(
                '%s=%d' % kv for kv in sorted(got[cpu].items()))))

    diffs = []
    for cpu in sorted(set(want) | set(got)):
        if cpu not in got:
            diffs.append('cpu%d: no CPUID lines for it' % cpu)
            continue
        if cpu not in want:
            diffs.append('cpu%d: dumped, but no such vCPU expected' % cpu)
            continue
        w, g = want[cpu], got[cpu]
        for field in sorted(set(w) | set(g)):
            if w.get(field) != g.get(field):
                diffs.append('cpu%d %s: want %s, got %s' % (
                    cpu, describe(field),
                    w.get(field, 'absent'), g.get(field, 'absent')))
    if diffs:
        more = ' (and %d more)' % (len(diffs) - 1) if len(diffs) > 1 else ''
        return 1, diffs[0] + more
    return 0, ''


def main():
    if len(sys.argv) != 4:
        print('usage: cpuid_check.py CONSOLE EXPECTED FIELDS_OUT')
        return 2
    rc, line = check(*sys.argv[1:])
    if line:
        print(line)
    return rc


if __name__ == '__main__':
    sys.exit(main())
