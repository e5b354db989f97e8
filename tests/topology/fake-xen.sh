# Sourced, after tests/lib/tap.sh and with TREE set, by the tests that run
# the tree's tools libraries with the hypercall layer replaced by
# fake-xencall.c.

# fake_xen_env LIBDIR...: bail unless valgrind is installed; set libs to
# TREE's tools/libs/LIBDIR... (colon-separated, for LD_LIBRARY_PATH and
# -rpath-link) and tmp to a directory removed on exit.
fake_xen_env() {
    local d

    command -v valgrind >/dev/null || bail "valgrind missing (scripts/deps.sh)"
    libs=
    for d in "$@"; do
        libs=${libs:+$libs:}$TREE/tools/libs/$d
    done
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
}
