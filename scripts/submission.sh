#!/usr/bin/env bash
# Write the master queue as the series xen-devel takes: one directory per
# patches/master/covers/N-NAME.txt, holding `git format-patch
# --cover-letter` files of the patches the cover names ("Patches:
# 0001-0007"), the cover's Subject and text filled in, and a base-commit
# trailer naming the upstream commit the queue was made on.
#
# usage: submission.sh OUT
#   TREE      the master tree (default build/xen-master, made by pq.sh
#             import with BASE=master)
#   XEN_SRC   the upstream source the tree was imported from: a `git
#             archive` tarball (its commit is read from it) or a checkout
#             (its HEAD); without it no base-commit trailer is written
# Signed-off-by: stays the project's placeholder; whoever submits adds
# their own (the DCO needs a person).  Exit status: 0 written, 1 failed
# (one line on stderr, OUT not created).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
TREE=${TREE:-$top/build/xen-master}
covers=$top/patches/master/covers
die() { echo "submission: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: submission.sh OUT"
out=$1
[ ! -e "$out" ] || die "$out already exists"
git -C "$TREE" rev-parse -q --verify base >/dev/null ||
    die "$TREE: no master tree (make pq-import BASE=master XEN_SRC=...)"

# The upstream commit of the base.
upstream=
if [ -f "${XEN_SRC:-}" ]; then
    case $XEN_SRC in
    *.xz) upstream=$(xz -dc "$XEN_SRC" | git get-tar-commit-id) || true ;;
    *.gz) upstream=$(gzip -dc "$XEN_SRC" | git get-tar-commit-id) || true ;;
    *) upstream=$(git get-tar-commit-id <"$XEN_SRC") || true ;;
    esac
elif [ -d "${XEN_SRC:-}" ]; then
    upstream=$(git -C "$XEN_SRC" rev-parse -q --verify HEAD 2>/dev/null) || true
fi
[ -n "$upstream" ] ||
    echo "submission: the upstream commit of the base is not known (XEN_SRC): no base-commit trailer" >&2

mapfile -t commits < <(git -C "$TREE" rev-list --reverse base..HEAD)
base=$(git -C "$TREE" rev-parse base)
tmp=$out.tmp.$$
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"
for cover in "$covers"/*.txt; do
    name=$(basename "$cover" .txt)
    range=$(sed -n 's/^Patches: //p' "$cover")
    subject=$(sed -n 's/^Subject: //p' "$cover")
    first=$((10#${range%-*})) last=$((10#${range#*-}))
    [ -n "$subject" ] && [ "$first" -ge 1 ] && [ "$last" -le ${#commits[@]} ] &&
        [ "$first" -le "$last" ] || die "$cover: bad Patches: or Subject: line"
    from=${commits[$((first - 1))]} to=${commits[$((last - 1))]}
    git -C "$TREE" -c format.signature= -c core.abbrev=12 \
        -c user.name="xen-bigvm developers" \
        -c user.email=devel@xen-bigvm.invalid format-patch -q \
        --cover-letter --base=base --zero-commit -o "$tmp/$name" \
        "$from^..$to" >/dev/null
    # The cover's subject and text.
    python3 - "$tmp/$name/0000-cover-letter.patch" "$cover" <<'EOF'
import sys
path, cover = sys.argv[1:]
text = open(cover).read().split('\n')
subject = next(l[len('Subject: '):] for l in text if l.startswith('Subject: '))
body = '\n'.join(l for l in text
                 if not l.startswith(('Subject: ', 'Patches: '))).strip()
s = open(path).read()
s = s.replace('*** SUBJECT HERE ***', subject).replace('*** BLURB HERE ***', body)
open(path, 'w').write(s)
EOF
    # format-patch names the base in the cover letter only.
    if [ -n "$upstream" ]; then
        sed -i "s/^base-commit: $base\$/base-commit: $upstream/" \
            "$tmp/$name/0000-cover-letter.patch"
    else
        sed -i '/^base-commit: /d' "$tmp/$name/0000-cover-letter.patch"
    fi
done
mv "$tmp" "$out"
trap - EXIT
echo "submission: $(ls "$out" | wc -l) series in $out"
