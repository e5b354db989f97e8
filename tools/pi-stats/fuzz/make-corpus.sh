#!/bin/sh
# make-corpus.sh DIR - seed corpus for the reader fuzzer: the first windows
# of each real trace (whole windows, at most 60 KB each), single windows
# from the middle, and generated traces with every PI event.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
traces=${TRACES:-$top/tests/data/traces}
out=$1
mkdir -p "$out"
python3 - "$traces" "$out" "$here/../tests" <<'PY'
import lzma, os, struct, sys
traces, out, tests = sys.argv[1:4]
sys.path.insert(0, tests)
import gentrace as g
def windows(data):
    off = 0
    while off + 12 <= len(data):
        size = struct.unpack_from('<I', data, off + 8)[0]
        yield off, 12 + size
        off += 12 + size
n = 0
for name in sorted(os.listdir(traces)):
    path = os.path.join(traces, name)
    if name.endswith('.xz'):
        with lzma.open(path) as f:
            data = f.read(4 << 20)
    elif name.endswith('.xentrace'):
        with open(path, 'rb') as f:
            data = f.read()
    else:
        continue
    wins = list(windows(data))
    # a prefix of whole windows up to 60 KB
    end = 0
    for off, ln in wins:
        if off + ln > 60000:
            break
        end = off + ln
    seeds = [data[:end]] if end else []
    # single windows from across the file (small ones)
    for off, ln in wins[1::max(1, len(wins) // 6)]:
        if ln <= 60000:
            seeds.append(data[off:off + ln])
    for s in seeds:
        with open(os.path.join(out, 'real-%s-%d' % (name.split('.')[0], n)), 'wb') as f:
            f.write(s)
        n += 1
pi = b''.join([
    g.window(1, [g.pi_add(5, 1, 0, 1, 2, 3, 4), g.pi_wakeup(6, 3, 1, 900),
                 g.pi_move(7, 1, 0, 1, 2, 2), g.lost(8, 3), g.wrap(2)]),
    g.window(4000, [g.old_block(1, 1, 2, 4000, 1), g.old_start(2, 1),
                    g.old_end(30), g.rec(g.OLD_START, None, [2])]),
])
with open(os.path.join(out, 'gen-pi'), 'wb') as f:
    f.write(pi)
print('%d seeds in %s' % (n + 1, out))
PY
