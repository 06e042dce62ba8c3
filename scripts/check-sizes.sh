#!/bin/sh
# scripts/check-sizes.sh [ROOT] — the house limits on size (issue 27 item 2):
# no C source over 1,000 lines, and no function over 120 lines unless the
# comment right above it says why ("over 120 lines: ...").  Files and
# functions not yet split are listed, each with its reason, in
# .size-pending ("FILE" or "FILE:FUNCTION", then " # why"); an entry that
# no longer exceeds its limit must be removed, so the list only shrinks.
# Exit 0 when clean, 1 listing each offence.
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 1
pending=.size-pending
[ -f "$pending" ] || pending=/dev/null
files=$(git ls-files --cached --others --exclude-standard '*.c' '*.h' '*.cu' '*.cc' 2>/dev/null || find . -name '*.[ch]' | sed 's|^\./||')
# examples/ and test inputs keep their layout on purpose; they are inputs, not code
files=$(printf '%s\n' $files | grep -v -e '^examples/' -e '/progs/' -e '^tests/.*/data/')
over=$(for f in $files; do
    n=$(wc -l <"$f")
    [ "$n" -gt 1000 ] && echo "$f $n lines"
    # functions: a signature at column 0, its body from a '{' to a '}' at column 0
    awk -v file="$f" '
        /^\/\*/ { incmt = 1; cmt = "" }
        incmt { cmt = cmt " " $0; if ($0 ~ /\*\//) { incmt = 0; cmt_end = NR }; next }
        /^[A-Za-z_].*\(/ && $0 !~ /;[ \t]*$/ && $0 !~ /^(typedef|struct|enum|union)/ {
            sig = NR; name = $0; sub(/\(.*/, "", name); n = split(name, w, /[ \t*]+/)
            name = w[n]; reason = (cmt_end == NR - 1 && tolower(cmt) ~ /over 120 lines/)
        }
        /^\{/ && sig { start = sig }
        /^\}/ && start {
            if (NR - start + 1 > 120 && !reason)
                printf "%s:%s %d lines\n", file, name, NR - start + 1
            start = 0; sig = 0
        }' "$f"
done)
rc=0
for o in $(printf '%s\n' "$over" | awk 'NF {print $1}'); do
    if ! grep -q "^$o[ 	]" "$pending" 2>/dev/null && ! grep -qx "$o" "$pending" 2>/dev/null; then
        printf '%s\n' "$over" | grep "^$o " | sed 's/^/over the limit: /'
        rc=1
    fi
done
for p in $(sed -e 's/[ 	]*#.*//' -e '/^$/d' "$pending"); do
    if ! printf '%s\n' "$over" | grep -q "^$p "; then
        echo "$pending lists $p, which is within its limit now: remove that line"
        rc=1
    fi
done
[ $rc = 0 ] && echo "sizes: every file <= 1000 lines, every function <= 120 (or with its reason)"
exit $rc
