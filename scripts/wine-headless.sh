#!/usr/bin/env bash
# Runs build/bin/agenthub-headless.exe under wine (scripts/wine-exec.sh) as
# if it were the Linux headless binary, for the e2e tests:
#   AGENTHUB_HEADLESS_BIN=$PWD/scripts/wine-headless.sh go test ./e2e/ -run …
# Absolute Unix paths among the arguments become wine's Z:\ paths (a
# Windows program takes /tmp/x as relative to its current folder).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
args=()
for a in "$@"; do
  if [[ "$a" == /* ]]; then a="Z:${a//\//\\}"; fi
  args+=("$a")
done
exec "$root/scripts/wine-exec.sh" "$root/build/bin/agenthub-headless.exe" "${args[@]}"
