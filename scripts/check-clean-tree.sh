#!/bin/sh
# make test leaves the tracked files as it found them. `start` (make test's first step) records
# what every tracked file holds: a copy of git's index with the working tree staged into it, kept
# in .cache/, so edits made before the run are part of the record and not blamed on it. `end`
# (its last step) compares the working tree with that record, and lists each tracked file that
# changed during the run, with a diff stat, and fails. Neither touches git's own index or the
# working tree. Outside a git checkout (a source tarball) both do nothing.
# Usage: check-clean-tree.sh start|end
set -eu
cd "$(dirname "$0")/.."
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "check-clean-tree: not a git checkout, not checked"; exit 0; }
record=$PWD/.cache/clean-tree.index
case ${1-} in
start)
  mkdir -p .cache && rm -f "$record"
  index=$(git rev-parse --path-format=absolute --git-path index)
  if [ -f "$index" ]; then cp "$index" "$record"; else GIT_INDEX_FILE=$record git read-tree HEAD; fi
  GIT_INDEX_FILE=$record git add -u
  ;;
end)
  [ -f "$record" ] || { echo "check-clean-tree: $record is missing: 'start' was not run" >&2; exit 2; }
  if [ -n "$(GIT_INDEX_FILE=$record git diff --name-only)" ]; then
    echo "check-clean-tree: tracked files changed during the run (by a step of it, or by hand meanwhile):" >&2
    GIT_INDEX_FILE=$record git --no-pager diff --name-status >&2
    GIT_INDEX_FILE=$record git --no-pager diff --stat >&2
    exit 1
  fi
  echo "check-clean-tree: no tracked file changed during the run"
  ;;
*) echo "usage: $0 start|end" >&2; exit 2 ;;
esac
