#!/usr/bin/python3
"""Does a commit change hypervisor code that only one build flavour compiles?

usage: debug-only.py TREE COMMIT

Prints FILE:LINE for each line the commit adds or removes under xen/ that
sits inside an #if/#ifdef/#ifndef/#elif/#else group whose condition names
NDEBUG or CONFIG_DEBUG, or that is such a directive itself.  The debug build
does not compile what a release build would there (and the other way
round), so series-check builds the release hypervisor too for such a commit.

Exit status: 0 such lines found, 1 none, 2 usage or git error.
"""
import re
import subprocess
import sys

DEBUG = re.compile(r"\b(NDEBUG|CONFIG_DEBUG)\b")
DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)")
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def git(tree, *args):
    return subprocess.run(["git", "-C", tree] + list(args), check=True,
                          capture_output=True, text=True,
                          errors="replace").stdout


def debug_lines(text):
    """The 1-based numbers of the lines under a debug-flavour condition."""
    stack, marked = [], set()
    for n, line in enumerate(text.splitlines(), 1):
        m = DIRECTIVE.match(line)
        if m:
            kind, cond = m.groups()
            if kind in ("if", "ifdef", "ifndef"):
                stack.append(bool(DEBUG.search(cond)))
            elif kind == "elif" and stack:
                stack[-1] = stack[-1] or bool(DEBUG.search(cond))
            if any(stack) or DEBUG.search(cond):
                marked.add(n)
            if kind == "endif" and stack:
                stack.pop()
        elif any(stack):
            marked.add(n)
    return marked


def show(tree, rev, path):
    try:
        return git(tree, "show", "%s:%s" % (rev, path))
    except subprocess.CalledProcessError:
        return ""           # added or deleted by the commit


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    tree, commit = sys.argv[1:]
    try:
        files = git(tree, "diff-tree", "--no-commit-id", "--name-only", "-r",
                    commit, "--", "xen").split()
    except subprocess.CalledProcessError as e:
        sys.stderr.write("debug-only: git: %s" % e.stderr)
        return 2
    found = False
    for path in files:
        if not path.endswith((".c", ".h", ".S")):
            continue
        old = debug_lines(show(tree, commit + "^", path))
        new = debug_lines(show(tree, commit, path))
        diff = git(tree, "diff", "-U0", commit + "^", commit, "--", path)
        for line in diff.splitlines():
            m = HUNK.match(line)
            if not m:
                continue
            o, oc, n, nc = (int(x) if x is not None else 1 for x in m.groups())
            hits = [x for x in range(o, o + oc) if x in old] + \
                   [x for x in range(n, n + nc) if x in new]
            for x in hits:
                print("%s:%d" % (path, x))
                found = True
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
