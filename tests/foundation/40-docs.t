#!/usr/bin/env bash
# The docs cannot drift from what they describe: README.md's patch table
# is what scripts/patch-table.py makes of the series, and every figure of
# docs/results.md names the command that made it.
. "$(dirname "$0")/../lib/tap.sh"
set -u

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
table=$TOP/scripts/patch-table.py

ok "README.md's patch table is the series'" \
    python3 "$table" --check "$TOP/README.md"

# A table edited by hand, or a message changed, is caught, with one line.
sed '/^| 5 | /s/| \([^|]*\) |$/| edited by hand |/' "$TOP/README.md" > "$work/README.md"
python3 "$table" --check "$work/README.md" > "$work/out" 2>&1
is "$?" 1 "a row edited by hand: exit 1"
is "$(wc -l < "$work/out")" 1 "... with one line"
ok "... which names the file and the fix" \
    grep -q "$work/README.md: the patch table is not the series' (table line 7); run scripts/patch-table.py" "$work/out"

# Without the markers nothing is written and the exit status is 2.
grep -v '^<!-- patch table' "$TOP/README.md" > "$work/README.md"
cp "$work/README.md" "$work/before"
python3 "$table" "$work/README.md" > "$work/out" 2>&1
is "$?" 2 "no markers: exit 2"
ok "... and the file is left as it was" cmp -s "$work/README.md" "$work/before"

# Rewriting restores the table exactly.
sed '/^| 5 | /s/| \([^|]*\) |$/| edited by hand |/' "$TOP/README.md" > "$work/README.md"
python3 "$table" "$work/README.md"
ok "rewriting a stale table gives the checked-in README" \
    cmp -s "$work/README.md" "$TOP/README.md"

# Every figure names its command: each top-level item of docs/results.md
# holds a command in backquotes.
commands() {
    python3 - "$1" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
items = re.split(r'\n(?=- \*\*)', text)[1:]
cmd = re.compile(r'`(make |\./run|prove |git clone|bash \.ci/run|XEN_SRC|E2E_)')
bad = [re.match(r'- \*\*(.*?)\*\*', i).group(1) for i in items if not cmd.search(i)]
for b in bad:
    print('docs/results.md: no command for: ' + b)
sys.exit(1 if bad or not items else 0)
EOF
}
ok "every figure of docs/results.md names its command" commands "$TOP/docs/results.md"
sed 's/`make bench`/make bench/g' "$TOP/docs/results.md" > "$work/results.md"
out=$(commands "$work/results.md")
is "$?" 1 "a figure without its command is caught"
ok "... and named" grep -q "no command for: The bound" <<<"$out"

done_testing
