#!/usr/bin/env bash
# Runs an installed bk the way a machine without Node does (docs/install.md): from an empty
# folder, with a PATH that holds bk alone: --version, `emulator start` in the background (until it
# prints its first line), the README's bill import against it, and --jq.
#
#   bash scripts/check-installed.sh PATH/TO/bk
set -euo pipefail
bk="$(realpath "$1")"
examples="$(cd "$(dirname "$0")/.." && pwd)/examples"
work="$(mktemp -d)"
mkdir "$work/bin" "$work/home"
ln -s "$bk" "$work/bin/bk"
cp "$examples/bills.csv" "$work/"
cd "$work"
if (PATH="$work/bin" command -v node >/dev/null); then echo "node is on the PATH of the check" >&2; exit 1; fi
# env -i: nothing of this shell's environment, no Node among it.
run() { env -i HOME="$work/home" PATH="$work/bin" "$@"; }

run bk --version | tee version.txt
grep -q '^bk/[0-9.]* linux-x64 node-v' version.txt || { echo "unexpected --version" >&2; exit 1; }

# Not through run(): a function in the background is a shell of its own, and $! must be bk itself.
# A background job ignores SIGINT, so bk is stopped with SIGTERM, and waited for.
env -i HOME="$work/home" PATH="$work/bin" bk emulator start --port 0 --json >emulator.json 2>emulator.err &
emulator=$!
trap 'kill $emulator 2>/dev/null || true; wait $emulator 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 600); do
  [ -s emulator.json ] && break
  kill -0 $emulator 2>/dev/null || { cat emulator.err >&2; echo "bk emulator start exited" >&2; exit 1; }
  sleep 0.1
done
field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" emulator.json; }
base_url="$(field base_url)"
[ -n "$base_url" ] || { echo "no base_url in: $(cat emulator.json)" >&2; exit 1; }
echo "emulator listening on $base_url"
creds=(BK_BASE_URL="$base_url" BK_CLIENT_ID="$(field client_id)" BK_CLIENT_SECRET="$(field client_secret)"
  BK_BUSINESS_ID=biz_demo_acme BK_CONFIG_DIR="$work/config")

run "${creds[@]}" bk bills import bills.csv | tee import.txt
grep -q '^Done: 30 created, 0 failed' import.txt || { echo "the import did not create the 30 bills" >&2; exit 1; }

run "${creds[@]}" bk transactions get txn_demo_invoice_payments --jq '{id}' | tee jq.txt
[ "$(tr -d ' \n' <jq.txt)" = '{"id":"txn_demo_invoice_payments"}' ] || { echo "unexpected --jq output" >&2; exit 1; }
echo "ok: $bk ran without Node on PATH"
