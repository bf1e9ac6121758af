#!/usr/bin/env bash
# Prints the release notes of one version: its section of CHANGELOG.md (`## [<version>] - <date>`), without the
# heading. Fails, naming the reason, when the section is missing, empty, or still marked Unreleased — a tag must not
# publish notes nobody finished.
#   scripts/release-notes.sh 0.1.0 [--allow-unreleased]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=${1:?usage: scripts/release-notes.sh <version> [--allow-unreleased]}
version=${version#v}
changelog="$root/CHANGELOG.md"
heading=$(grep -m1 -E "^## \[$(printf '%s' "$version" | sed 's/\./\\./g')\]" "$changelog" || true)
[ -n "$heading" ] || { echo "release-notes: CHANGELOG.md has no section ## [$version]" >&2; exit 1; }
if [ "${2:-}" != "--allow-unreleased" ] && printf '%s' "$heading" | grep -qi unreleased; then
  echo "release-notes: CHANGELOG.md's section for $version is still marked Unreleased ($heading): date it first" >&2
  exit 1
fi
notes=$(awk -v heading="$heading" '
  $0 == heading { inside = 1; next }
  inside && /^## \[/ { exit }
  inside { print }
' "$changelog" | sed -e '/./,$!d')
[ -n "$notes" ] || { echo "release-notes: CHANGELOG.md's section for $version is empty" >&2; exit 1; }
printf '%s\n' "$notes"
