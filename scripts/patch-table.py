#!/usr/bin/python3
"""Write README.md's table of the patches from the series itself: for each
patch of patches/4.17/series, its number, its subject and the first
paragraph of its message, so that the table cannot drift from the patches.

usage: patch-table.py [--check] [README]

The table sits between the two marker lines MARK_BEGIN and MARK_END of
README (default README.md beside scripts/).  Without --check it rewrites
the table in place; with --check it changes nothing and exits 1 with one
line when the table is not what the series gives.  Exit status 2: no
markers, or a patch whose message cannot be read (named with the file).
"""
import email.parser
import email.policy
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUEUE = os.path.join(TOP, 'patches', '4.17')
MARK_BEGIN = '<!-- patch table: scripts/patch-table.py writes it -->'
MARK_END = '<!-- end of patch table -->'


def die(msg, status=2):
    print('patch-table: ' + msg, file=sys.stderr)
    sys.exit(status)


def message(path):
    """(subject, first paragraph) of a git format-patch file."""
    with open(path, encoding='utf-8') as f:
        msg = email.parser.Parser(policy=email.policy.default).parse(f)
    subject = ' '.join(str(msg['Subject'] or '').split())
    if subject.startswith('[PATCH'):
        subject = subject.split('] ', 1)[-1]
    body = msg.get_payload()
    if not subject or not isinstance(body, str):
        die('%s: no subject or message' % path)
    para = body.strip().split('\n\n', 1)[0]
    if para.startswith('---'):
        die('%s: no message body' % path)
    return subject, ' '.join(para.split())


def table():
    with open(os.path.join(QUEUE, 'series'), encoding='utf-8') as f:
        names = [l.strip() for l in f if l.strip() and not l.startswith('#')]
    rows = ['| # | patch | why |', '|---|---|---|']
    for n, name in enumerate(names, 1):
        subject, para = message(os.path.join(QUEUE, name))
        rows.append('| %d | `%s` | %s |' % (n, subject, para.replace('|', '\\|')))
    return '\n'.join(rows) + '\n'


def main(argv):
    check = '--check' in argv
    args = [a for a in argv if a != '--check']
    readme = args[0] if args else os.path.join(TOP, 'README.md')
    with open(readme, encoding='utf-8') as f:
        text = f.read()
    if text.count(MARK_BEGIN) != 1 or text.count(MARK_END) != 1:
        die('%s: no single pair of patch table markers' % readme)
    head, rest = text.split(MARK_BEGIN + '\n', 1)
    old, tail = rest.split(MARK_END, 1)
    new = table()
    if check:
        if old != new:
            diff = next((i for i, (a, b) in enumerate(
                zip(old.splitlines(), new.splitlines())) if a != b),
                min(len(old.splitlines()), len(new.splitlines())))
            die('%s: the patch table is not the series\' (table line %d);'
                ' run scripts/patch-table.py' % (readme, diff + 1), 1)
        return 0
    if old != new:
        tmp = readme + '.tmp'
        with open(tmp, 'w', encoding='utf-8') as f:
            f.write(head + MARK_BEGIN + '\n' + new + MARK_END + tail)
        os.replace(tmp, readme)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
