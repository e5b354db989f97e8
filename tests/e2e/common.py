"""The boot test's (e2e.py's) shared ground: where it lives, its output
(verdict lines, TAP in --tap mode), running commands, reading and writing
files, the Setup error, and the names dom0 and the host share (the trace's
guest, a move case's steps)."""
import hashlib
import os
import re
import subprocess
import threading

E2E = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(E2E))


TRACE_GUEST = 'e2e-trace-guest'
# a move case's steps unless it names its own (cases.py: steps)
MOVES = ('restore', 'migrate', 'cycle')
OUT_STATE = {'tap': False, 'n': 0, 'log': None, 'lock': threading.Lock()}


class Setup(Exception):
    """A prerequisite missing: 'e2e: FAIL setup: ...'."""


def emit(line):
    """One line of output: a verdict becomes TAP in --tap mode."""
    with OUT_STATE['lock']:
        if OUT_STATE['log']:
            OUT_STATE['log'].write(line + '\n')
            OUT_STATE['log'].flush()
        if OUT_STATE['tap']:
            m = re.match(r'e2e: (PASS|FAIL) (.*)', line)
            if m:
                OUT_STATE['n'] += 1
                line = '%s %d - %s' % ('ok' if m.group(1) == 'PASS' else 'not ok',
                                       OUT_STATE['n'], m.group(2).replace('#', '\\#'))
            else:
                line = '# ' + line[5:] if line.startswith('e2e: ') else '# ' + line
        print(line, flush=True)


def log(msg):
    emit('e2e: ' + msg)


def run(cmd, **kw):
    """subprocess.run with text output captured."""
    return subprocess.run(cmd, capture_output=True, text=True, errors='replace', **kw)


def read(path, default=None):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return default


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)


def sha256(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            h.update(block)
    return h.hexdigest()
