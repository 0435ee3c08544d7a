#!/usr/bin/env bash
# The README's first command: installs what is needed (scripts/install.sh
# --no-maven: the example is a plain javac project), shows the bug in
# example/shop-cart-discount, and repairs it with
#   bin/repilot-lsp repair --project . --file FILE --lines A-B -- TEST-CMD
# run inside the example's project folder, where FILE, A-B and TEST-CMD come
# from the example's bug.json. Extra arguments go to "repair" before "--"
# (e.g. --samples 20 --seed 1 --json).
#   REPILOT_CACHE, REPILOT_JDTLS_HOME   as for scripts/install.sh
set -euo pipefail
for a in "$@"; do
  case "$a" in
  -h | --help)
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    echo "Options of repair: bin/repilot-lsp repair --help"
    exit 0
    ;;
  esac
done
. "$(dirname "$0")/lib.sh"
"$root/scripts/install.sh" --no-maven --no-next-steps

id=shop-cart-discount
bug="$root/example/$id"
project="$bug/project"
# bug.json (the README's "Bug fixtures" format) names the file and the buggy lines.
read -r file start end < <(node -e '
  const b = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(b.file, b.start_line, b.end_line);' "$bug/bug.json")

step "the bug: example/$id/project/$file, lines $start-$end"
awk -v s="$start" -v e="$end" 'NR >= s - 3 && NR <= e + 2 {
  printf "%s %4d  %s\n", (NR >= s && NR <= e) ? ">" : " ", NR, $0 }' "$project/$file" >&2
info "(the test, CartTest, does not even compile: Discount has no field 'percentage')"

# The fixture's test command (argv) goes after "--": repair runs it in a
# scratch copy with each compilable patch applied, to mark plausible patches.
mapfile -d '' -t test_cmd < <(node -e '
  const b = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  for (const a of b.test_cmd || []) process.stdout.write(a + "\0");' "$bug/bug.json")

# The command is shown as it could be pasted into a shell in the project
# folder: an argument with characters a shell would read is put in single
# quotes (printf %q's backslash before every space and '&' was hard to read).
shq() {
  if [[ $1 =~ ^[A-Za-z0-9_./=:,+@%-]+$ ]]; then
    printf '%s ' "$1"
  else
    printf "'%s' " "${1//\'/\'\\\'\'}"
  fi
}
args=(repair --project . --file "$file" --lines "$start-$end" "$@" -- "${test_cmd[@]}")
shown=$(for a in "$root/bin/repilot-lsp" "${args[@]}"; do shq "$a"; done)
step "repairing it, in example/$id/project: ${shown% }"
info "(every run starts JDT LS, and the first trains the embedded model: allow a minute or two)"
cd "$project"
set +e
"$root/bin/repilot-lsp" "${args[@]}"
status=$?
set -e
if [ "$status" -ne 0 ]; then
  die "repilot-lsp repair exited with status $status"
fi
fix=$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).fixed_hunk)' "$bug/bug.json")
step "for comparison, the developer's fix:"
printf '%s\n' "$fix" >&2
