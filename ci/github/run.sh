#!/usr/bin/env bash
# The action's run step: one bk command with --json. Its annotations and step summary go where
# the runner reads them (stderr, GITHUB_STEP_SUMMARY); its counts become step outputs
# (GITHUB_OUTPUT); the step fails as bk does, unless allow-partial lets exit 6 pass.
set -uo pipefail
: "${BK_COMMAND:?the action input command is required (bills import FILE ...)}"
read -ra words <<<"$BK_COMMAND"
extra=()
while IFS= read -r line; do [ -n "$line" ] && extra+=("$line"); done <<<"${BK_ARGS:-}"
result="${RUNNER_TEMP:?}/bk-result-${GITHUB_RUN_ID:-local}-$$.json"
# Empty inputs are unset: bk then takes its credentials from a profile, as anywhere.
for name in BK_BASE_URL BK_CLIENT_ID BK_CLIENT_SECRET BK_BUSINESS_ID; do
  [ -n "${!name:-}" ] || unset "$name"
done
bk "${words[@]}" "${extra[@]}" --json >"$result"
code=$?
cat "$result"
node "$(dirname "$0")/outputs.mjs" "$result" "$code" >>"${GITHUB_OUTPUT:?}"
if [ "$code" -eq 6 ] && [ "${BK_ALLOW_PARTIAL:-false}" = "true" ]; then exit 0; fi
exit "$code"
