# Minimal TAP producer for the bash tests run by prove.
# Source it, then: ok "name" CMD...; is GOT WANT "name"; done_testing.
# TODO="reason" before ok or is marks a known failure: reported with TAP's
# "# TODO reason", not counted as failed.
# ok and is return 0 when the check passed, 1 when it failed, so that
# `ok ... || { diag ...; continue; }` runs its fallback exactly on failure.
# A compound condition goes inside the check (a function, or bash -c),
# never after it: `ok "x" [ a ] && [ b ]` would test b outside the check.
# shellcheck shell=bash
_tap_n=0
_tap_failed=0
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$TOP/build

# ok NAME CMD...: passes when CMD exits 0
ok() {
    local name=$1; shift
    _tap_n=$((_tap_n + 1))
    if "$@"; then
        echo "ok $_tap_n - $name${TODO:+ # TODO $TODO}"
    else
        echo "not ok $_tap_n - $name${TODO:+ # TODO $TODO}"
        [ -n "${TODO:-}" ] || _tap_failed=$((_tap_failed + 1))
        return 1
    fi
}

# is GOT WANT NAME
is() {
    _tap_n=$((_tap_n + 1))
    if [ "$1" = "$2" ]; then
        echo "ok $_tap_n - $3${TODO:+ # TODO $TODO}"
    else
        echo "not ok $_tap_n - $3${TODO:+ # TODO $TODO}"
        # Every line of a multi-line value stays a TAP comment.
        printf '%s\n' "$1" | sed -e '1s/^/#   got:  /' -e '2,$s/^/#         /'
        printf '%s\n' "$2" | sed -e '1s/^/#   want: /' -e '2,$s/^/#         /'
        [ -n "${TODO:-}" ] || _tap_failed=$((_tap_failed + 1))
        return 1
    fi
}

diag() { printf '# %s\n' "$@"; }

# case_lines PREFIX OUTPUT: a test program's "ok: NAME" / "not ok: NAME"
# lines as TAP checks named PREFIX NAME, then one check that as many held
# as its "cases N" line announced
case_lines() {
    local line cases
    while IFS= read -r line; do
        case $line in
        "ok: "*) ok "$1${line#ok: }" true ;;
        "not ok: "*) ok "$1${line#not ok: }" false ;;
        esac
    done <<<"$2"
    cases=$(sed -n 's/^cases \([0-9]*\)$/\1/p' <<<"$2")
    is "$(grep -c '^ok: ' <<<"$2")" "${cases:-none}" "$1every case announced ($cases) held"
}

bail() { echo "Bail out! $*"; exit 255; }

done_testing() {
    echo "1..$_tap_n"
    [ "$_tap_failed" = 0 ]
}
