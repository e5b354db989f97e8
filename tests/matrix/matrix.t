#!/usr/bin/env bash
# `make matrix` (scripts/matrix.sh), the part CI can afford: the patched
# hypervisor without HVM and without Intel VT-x (the options whose code the
# series touches most, and the configurations upstream's CI meets only in
# its randconfigs) on master, and without HVM on 4.17, which has no
# CONFIG_INTEL_VMX: that configuration is skipped there, saying so.  A
# configuration that fails is also built on the pristine base
# (MATRIX_REV=base), and the diagnostics say whether upstream fails too.
# How the script reports: an unknown configuration is one line and exit 2;
# a configuration whose options do not hold fails, named on the last line
# with its log, exit 1; one naming a symbol the base lacks is skipped.
# The whole matrix (`make matrix`) is not run here: see docs/testing.md.
#
# Sources: the 4.17 tree the suite builds; XEN_SRC_MASTER for master
# (skipped, saying why, without it).
. "$(dirname "$0")/../lib/tap.sh"
set -u

work=$(mktemp -d "$BUILD/test-matrix.XXXXXX")
trap 'rm -rf "$work"' EXIT
m=$TOP/scripts/matrix.sh
export JOBS=${JOBS:-$(nproc)} NONET=${NONET:-$(unshare -n true 2>/dev/null && echo unshare -n)}

# An unknown configuration: one line, exit 2, before any tree is made.
BASE=4.17 "$m" no-such-conf >"$work/out" 2>"$work/err"
is "$?" 2 "an unknown configuration exits 2"
is "$(wc -l <"$work/err")" 1 "with one line on stderr"
is "$(wc -c <"$work/out")" 0 "and nothing on stdout"
ok "naming it" grep -q "^matrix: unknown configuration 'no-such-conf' (known: gcc-debug " "$work/err"

# The reporting, on 4.17 with a configuration file of its own: an option
# that cannot hold (HVM_FEP needs HVM) fails before anything is compiled,
# a symbol 4.17 lacks is skipped.
cat >"$work/matrix.conf" <<'EOF'
# test configurations
absent  CONFIG_XEN_BIGVM_NO_SUCH_SYMBOL=y
cannot  CONFIG_HVM=n CONFIG_HVM_FEP=y
EOF
BASE=4.17 MATRIX_CONF=$work/matrix.conf "$m" absent cannot >"$work/out" 2>"$work/err"
is "$?" 1 "4.17: a configuration that fails exits 1"
is "$(tail -n 1 "$work/err")" \
   "matrix: cannot failed (4.17 at $(git -C "$BUILD/xen" rev-parse --short HEAD)): log build/matrix/4.17/cannot.log" \
   "4.17: the last line names it and its log"
ok "4.17: the log says which option did not hold" \
    grep -q '^matrix: CONFIG_HVM_FEP=y does not hold' "$BUILD/matrix/4.17/cannot.log"
ok "4.17: a symbol the base lacks skips the configuration, saying so" \
    grep -qx 'matrix: absent: skipped: CONFIG_XEN_BIGVM_NO_SUCH_SYMBOL does not exist on 4.17' "$work/out"
ok "4.17: the tree is left as it was" \
    test -z "$(git -C "$BUILD/xen" status --porcelain --untracked-files=no)"

# run BASE CONF...: the configurations build; a failure is built on the
# base too, for the diagnostics.
run() {
    local base=$1 conf rc; shift
    BASE=$base "$m" "$@" >"$work/$base.out" 2>"$work/$base.err"
    rc=$?
    sed 's/^/# /' "$work/$base.out"
    for conf in "$@"; do
        if grep -q "^matrix: $conf: skipped: " "$work/$base.out"; then
            ok "$base: $conf: $(sed -n "s/^matrix: $conf: //p" "$work/$base.out")" true
            continue
        fi
        ok "$base: the hypervisor builds in configuration $conf" \
            grep -q "^matrix: $conf: done in " "$work/$base.out" && continue
        grep "^matrix: $conf: FAILED" "$work/$base.err" | sed 's/^/# /'
        if BASE=$base MATRIX_REV=base "$m" "$conf" >"$work/$base-base.out" 2>&1; then
            diag "$base: the pristine base builds $conf: the series breaks it"
        else
            diag "$base: the pristine base fails $conf too (build/matrix/$base-base/$conf.log)"
        fi
    done
    [ "$rc" = 0 ] || tail -n 1 "$work/$base.err" | sed 's/^/# /'
}

run 4.17 hvm-n vmx-n
if [ -n "${XEN_SRC_MASTER:-}" ]; then
    export XEN_SRC=$XEN_SRC_MASTER
    run master hvm-n vmx-n
else
    ok "master: skipped, no source: XEN_SRC_MASTER is not set (a tree or tarball of upstream master, c447b7308b or later)" true
fi

done_testing
