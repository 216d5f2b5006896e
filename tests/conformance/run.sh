#!/usr/bin/env bash
# Runs the official MCP conformance client scenarios against `sonde conformance-client`.
# Usage: run.sh NODE CONFORMANCE_DIR SONDE [SCENARIO@VERSION...]
# With no scenarios, runs every client scenario the harness lists for the 2025-11-25 and
# 2026-07-28 requirement sets, auth/* included (extensions are not in those lists), and the named extra
# scenarios below. A scenario passes when the harness says OVERALL: PASSED with no
# warnings. Ends with the line "N passed, N failed"; exits 1 if any failed.
set -u
node=$1 pkg=$2 sonde=$3
shift 3
cli="$node $pkg/dist/index.js"
if [ $# -eq 0 ]; then
  set --
  for version in 2025-11-25 2026-07-28; do
    listed=$($cli list --client --requirements "$version") || { echo "run.sh: the harness could not list scenarios" >&2; exit 1; }
    for s in $(echo "$listed" | sed -n '/^Client scenarios/,/^$/p' | sed -n 's/^  - //p'); do
      set -- "$@" "$s@$version"
    done
    # Listed by the suite though not in the frozen requirement sets: a client must keep a tool's
    # JSON Schema 2020-12 keywords ($schema, $defs, additionalProperties) as the server sent them.
    case " $* " in *" json-schema-2020-12-preservation@$version "*) ;; *) set -- "$@" "json-schema-2020-12-preservation@$version" ;; esac
  done
  # A run of nothing must not pass.
  [ $# -gt 0 ] || { echo "run.sh: no client scenarios were listed" >&2; exit 1; }
fi
out=${CONFORMANCE_OUT:-$(mktemp -d)}
mkdir -p "$out"
passed=0 failed=0
failures=()
for item in "$@"; do
  scenario=${item%@*} version=${item#*@}
  log="$out/${scenario//\//_}@$version.log"
  # Each scenario gets its own session directory, so its wire log can be read afterwards.
  XDG_DATA_HOME="$out/data" timeout 120 $cli client --command "$sonde conformance-client" \
    --scenario "$scenario" --spec-version "$version" >"$log" 2>&1
  checks=$(grep -o 'Passed: [0-9]*/[0-9]*, [0-9]* failed, [0-9]* warnings' "$log" | tail -n 1)
  if grep -q 'OVERALL: PASSED' "$log" && [[ $checks == *", 0 failed, 0 warnings" ]]; then
    passed=$((passed + 1))
    printf '%-45s %-11s passed (%s)\n' "$scenario" "$version" "${checks%%,*}"
  else
    failed=$((failed + 1))
    failures+=("$log")
    printf '%-45s %-11s FAILED (%s)\n' "$scenario" "$version" "$log"
  fi
done
for log in "${failures[@]}"; do
  echo "---- $log"
  tail -n 40 "$log"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
