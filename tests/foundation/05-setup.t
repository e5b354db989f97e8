#!/usr/bin/env bash
# ./run and scripts/deps.sh on machines they cannot set up: not root and no
# sudo, no apt-get or dpkg-query (not Debian), no bash, apt-get failing.
# Each ends in one line on stderr saying what to do, with its documented
# exit status, and installs nothing.  Not root but with sudo, the install
# goes through sudo with the packages that are missing, then make runs.
# The machine is faked: PATH holds stubs of id, dpkg-query, apt-get, sudo
# and make, and links to the few real tools the scripts need, nothing else.
. "$(dirname "$0")/../lib/tap.sh"
set -u

work=$(mktemp -d "$BUILD/test-setup.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The real tools the scripts may use; bash separately, so it can be left out.
mkdir "$work/bin" "$work/bash" "$work/fakes"
for t in grep dirname date; do
    ln -s "$(command -v "$t")" "$work/bin/$t"
done
ln -s "$(command -v bash)" "$work/bash/bash"

# The fakes write what they were asked to $work/log.
fake() { printf '#!/bin/sh\n%s\n' "$2" > "$work/fakes/$1"; chmod +x "$work/fakes/$1"; }
fake id-user 'echo 1000'
fake id-root 'echo 0'
# dpkg-query -W -f=${Status} PKG: the packages named in $work/missing are
# not installed (dpkg-query then fails), the others are.
fake dpkg-query "echo \"\$3\" >> '$work/queried'
case \" \$(read -r m < '$work/missing'; echo \"\$m\") \" in
*\" \$3 \"*) echo \"dpkg-query: no packages found matching \$3\" >&2; exit 1 ;;
esac
printf 'install ok installed'"
fake apt-get "echo \"apt-get \$*\" >> '$work/log'"
fake apt-get-failing "echo \"apt-get \$*\" >> '$work/log'; exit 100"
# apt-get that installs make (a fake one recording its arguments too)
fake apt-get-make "echo \"apt-get \$*\" >> '$work/log'
printf '#!/bin/sh\\necho \"make \$*\" >> \"%s\"\\n' '$work/log' > '$work/stubs/make'
$(command -v chmod) +x '$work/stubs/make'"
fake sudo "echo \"sudo \$*\" >> '$work/log'; exec \"\$@\""

# machine NAME=FAKE... : $work/stubs holds these fakes, under NAME
machine() {
    local s
    rm -rf "$work/stubs" "$work/log" "$work/queried"
    mkdir "$work/stubs"
    : > "$work/log"
    for s in "$@"; do
        ln -s "$work/fakes/${s#*=}" "$work/stubs/${s%%=*}"
    done
}

# try [--no-bash] CMD... : run CMD on the fake machine; sets rc, out, err
try() {
    local path=$work/stubs:$work/bin:$work/bash
    if [ "$1" = --no-bash ]; then
        path=$work/stubs:$work/bin
        shift
    fi
    env -i PATH="$path" "$@" >"$work/out" 2>"$work/err"
    rc=$?
    out=$(cat "$work/out")
    err=$(cat "$work/err")
}

# one_line NAME RC TEXT: exit status RC, TEXT as the only line on stderr
one_line() {
    is "$rc" "$2" "$1: exit status $2"
    is "$(wc -l < "$work/err")" 1 "$1: one line on stderr"
    is "$err" "$3" "$1: it says what to do"
}

# has_words LIST WORD...: every WORD is a word of LIST
has_words() {
    local w
    for w in "${@:2}"; do
        [[ " $1 " == *" $w "* ]] || return 1
    done
}

deps=$TOP/scripts/deps.sh

# What the fake dpkg-query was asked for: every package of the group, in order.
echo "make gcc bison" > "$work/missing"
machine id=id-root dpkg-query=dpkg-query apt-get=apt-get
try "$deps" build
all=$(tr '\n' ' ' < "$work/queried" | sed 's/ $//')
ok "deps.sh asks dpkg-query about make and gcc ($all)" has_words "$all" make gcc

echo "bison flex" > "$work/missing"
machine id=id-user dpkg-query=dpkg-query apt-get=apt-get
try "$deps" build
one_line "not root, no sudo" 3 "deps: not root and no sudo: as root, run: apt-get install bison flex"
is "$out" "" "not root, no sudo: nothing announced as installing"
is "$(cat "$work/log")" "" "not root, no sudo: apt-get is not run"

machine id=id-user
try "$deps" build
one_line "no dpkg-query, no apt-get" 4 \
    "deps: no apt-get/dpkg-query: this needs Debian 12 (bookworm) or a derivative; install the equivalents of: $all"
is "$out" "" "no dpkg-query, no apt-get: nothing announced as installing"

machine id=id-root dpkg-query=dpkg-query
try "$deps" build
one_line "dpkg-query but no apt-get" 4 \
    "deps: no apt-get/dpkg-query: this needs Debian 12 (bookworm) or a derivative; install the equivalents of: bison flex"

machine id=id-root dpkg-query=dpkg-query apt-get=apt-get-failing
try "$deps" build
one_line "apt-get fails" 1 "deps: apt-get install failed for: bison flex"

machine id=id-user dpkg-query=dpkg-query apt-get=apt-get sudo=sudo
try "$deps" build
is "$rc" 0 "not root, with sudo: exit status 0"
is "$err" "" "not root, with sudo: nothing on stderr"
is "$(head -n1 "$work/log")" "sudo apt-get install -y -qq --no-install-recommends bison flex" \
    "not root, with sudo: the missing packages are installed through sudo"
ok "not root, with sudo: it says what it installs ($(head -n1 "$work/out"))" \
    grep -qx "deps: installing: bison flex" "$work/out"
ok "not root, with sudo: and how long it took ($(tail -n1 "$work/out"))" \
    grep -qx "deps: done in [0-9]*s" "$work/out"

: > "$work/missing"
machine id=id-user dpkg-query=dpkg-query
try "$deps" build
is "$rc$out$err$(cat "$work/log")" 0 "nothing missing: exit 0, silent, no apt-get, no sudo needed"

# ./run: make is one of the packages it installs first.
echo "make bison" > "$work/missing"
machine id=id-user dpkg-query=dpkg-query apt-get=apt-get
try "$TOP/run" help
one_line "./run, no make, not root, no sudo" 3 \
    "deps: not root and no sudo: as root, run: apt-get install make bison"
is "$out$(cat "$work/log")" "" "./run, no make, not root, no sudo: nothing run"

machine id=id-user
try "$TOP/run" help
one_line "./run, no make, no apt-get/dpkg-query" 4 \
    "deps: no apt-get/dpkg-query: this needs Debian 12 (bookworm) or a derivative; install the equivalents of: $all"

machine id=id-root dpkg-query=dpkg-query apt-get=apt-get
try --no-bash "$TOP/run" help
one_line "./run, no bash" 4 \
    "run: no bash: this needs Debian 12 (bookworm) or a derivative, with bash installed"

machine id=id-user dpkg-query=dpkg-query apt-get=apt-get-make sudo=sudo
try "$TOP/run" check
is "$rc" 0 "./run, no make, with sudo: exit status 0"
is "$err" "" "./run, no make, with sudo: nothing on stderr"
is "$(cat "$work/log")" "sudo apt-get install -y -qq --no-install-recommends make bison
apt-get install -y -qq --no-install-recommends make bison
make check" "./run, no make, with sudo: make and bison installed through sudo, then make check"

done_testing
