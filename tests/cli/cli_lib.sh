# Shared by the CLI test scripts: NORMSIM, NORMSIM_SOURCE_DIR, a temp dir $T,
# pass/fail counters and expect_exit. Source it; end with `cli_summary`.
N=${NORMSIM:?}
S=${NORMSIM_SOURCE_DIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0; passes=0
ok()   { passes=$((passes+1)); }
bad()  { echo "FAIL: $*"; fails=$((fails+1)); }

# expect_exit CODE PATTERN -- ARGS...: exit code, and (for 2) a single stderr
# line matching PATTERN -- also without -q, so that no log line came first.
expect_exit() {
  local code=$1 pat=$2; shift 3
  "$N" "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ "$rc" != "$code" ]; then bad "normsim $* -> exit $rc, want $code: $(cat "$T/err")"; return; fi
  if [ "$code" = 2 ]; then
    [ "$(wc -l <"$T/err")" = 1 ] || { bad "normsim $*: stderr is not one line: $(cat "$T/err")"; return; }
    grep -q -- "$pat" "$T/err" || { bad "normsim $*: '$pat' not in: $(cat "$T/err")"; return; }
    local loud=() a
    for a in "$@"; do [ "$a" = -q ] || [ "$a" = --quiet ] || loud+=("$a"); done
    if [ ${#loud[@]} != $# ]; then
      "$N" "${loud[@]}" >/dev/null 2>"$T/err"
      [ "$(wc -l <"$T/err")" = 1 ] && grep -q -- "$pat" "$T/err" ||
        { bad "normsim ${loud[*]} (without -q): not the one error line: $(head -c 600 "$T/err")"; return; }
    fi
  fi
  ok
}

cli_summary() {
  echo "$passes passed, $fails failed"
  [ "$fails" = 0 ]
}
