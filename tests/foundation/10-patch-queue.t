#!/usr/bin/env bash
# The patch queue: well-formed patches, a lossless import/export round trip,
# and a series that applies to the pinned base with git am and patch -p1.
. "$(dirname "$0")/../lib/tap.sh"
set -u

work=$(mktemp -d "$BUILD/test-pq.XXXXXX")
trap 'rm -rf "$work"' EXIT
export CACHE=$BUILD/cache

# code_style PATCH: the C code it adds is within 80 columns and has no tabs
# (generated Go bindings and docs aside); names the offending lines.
code_style() {
    awk '/^diff --git / { file = $3 }
         /^\+[^+]/ && file ~ /\.[ch]$/ {
             line = substr($0, 2)
             if (length(line) > 80 || line ~ /\t/) { print "# " file ": " line; bad = 1 }
         }
         END { exit bad }' "$1"
}

# Every base's queue.
for base in 4.17 4.20 master; do
    mapfile -t series < <(BASE=$base "$TOP/scripts/pq.sh" series)
    on_disk=$(cd "$TOP/patches/$base" && ls -1 -- *.patch | sort)
    is "$(printf '%s\n' "${series[@]}" | sort)" "$on_disk" \
        "$base: series names exactly the patch files in patches/$base"
    ok "$base: series is not empty" [ "${#series[@]}" -gt 0 ]

    for p in "${series[@]}"; do
        f=$TOP/patches/$base/$p
        subj=$(sed -n 's/^Subject: \[PATCH\] //p' "$f" | head -n1)
        ok "$base/$p: subject is 'area: summary'" grep -qE '^[a-zA-Z0-9_./,{} -]+: [^ ]' <<<"$subj"
        # Body: the lines between the headers and the '---' separator.
        body=$(awk '/^$/ && !inbody { inbody = 1; next } inbody && /^---$/ { exit } inbody' "$f" |
               grep -vc -e '^Signed-off-by:' -e '^$')
        ok "$base/$p: body says why (>= 3 lines, got $body)" [ "$body" -ge 3 ]
        ok "$base/$p: Signed-off-by" grep -q '^Signed-off-by: ' "$f"
        ok "$base/$p: added C code within 80 columns, no tabs" code_style "$f"
        ok "$base/$p: no leftovers of patch, an editor or a build (.rej .orig ~ .log .o .pyc .egg-info/ .xen-bigvm-*)" \
            bash -c '! grep -qE "^diff --git a/(.*(\.rej|\.orig|~|\.log|\.o|\.pyc)|.*\.egg-info/.*|(.*/)?\.xen-bigvm-[^ ]*) b/" "$1"' _ "$f"
    done
done
mapfile -t series < <("$TOP/scripts/pq.sh" series)

# Round trip: import then export with no edits is a no-op.
"$TOP/scripts/pq.sh" import "$work/tree" >/dev/null
rc=$?
is "$rc" 0 "pq import into a fresh tree"
is "$(git -C "$work/tree" rev-list --count base..HEAD)" "${#series[@]}" "one commit per patch"
# Export into an empty directory, so that every byte compared was written by
# the export itself.
mkdir "$work/patches"
PATCHES=$work/patches "$TOP/scripts/pq.sh" export "$work/tree" >/dev/null
is "$?" 0 "pq export into an empty directory"
ok "import then export reproduces patches/ byte for byte" diff -r "$TOP/patches/4.17" "$work/patches"

# Exporting replaces the queue: a patch the old series named, and the new
# one does not, is removed; a file the series never named is left alone.
echo "0099-gone.patch" >> "$work/patches/series"
touch "$work/patches/0099-gone.patch" "$work/patches/notes.txt"
PATCHES=$work/patches "$TOP/scripts/pq.sh" export "$work/tree" >/dev/null
ok "export removes a patch dropped from the queue" test ! -e "$work/patches/0099-gone.patch"
ok "export leaves files the series never named" test -e "$work/patches/notes.txt"
rm -f "$work/patches/notes.txt"
ok "and patches/ is again byte for byte the series" diff -r "$TOP/patches/4.17" "$work/patches"

# A developer's commit is not lost by a second import.
echo "/* local */" >> "$work/tree/README"
git -C "$work/tree" -c user.name=t -c user.email=t@t commit -qam "local: edit"
out=$("$TOP/scripts/pq.sh" import "$work/tree" 2>&1)
rc=$?
ok "import refuses to drop unexported commits (rc=$rc)" [ "$rc" = 1 ]
ok "and says so: $out" grep -q "unexported work" <<<"$out"

# The same series with plain patch(1), in series order, on a pristine base.
"$TOP/scripts/fetch-base.sh" "$CACHE" "$work/plain" >/dev/null
fail=
for p in "${series[@]}"; do
    patch -s -p1 -d "$work/plain" < "$TOP/patches/4.17/$p" || { fail=$p; break; }
done
is "$fail" "" "every patch applies with patch -p1 in series order"
git -C "$work/tree" reset -q --hard HEAD~1
ok "patch -p1 and git am give the same tree" \
    diff -r -x .git "$work/plain" "$work/tree"

done_testing
