#!/usr/bin/env bash
# The README demo: the main job against the bundled emulator, with no credentials, no keychain
# and no network beyond loopback. Everything it writes goes to a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f dist/bk.cjs ] || [ -n "$(find src -newer oclif.manifest.json -name '*.ts' -print -quit)" ]; then
  echo "== building"
  npm run build --silent
fi

bk() { node bin/run.js "$@"; }
step() { printf '\n\033[1m== %s\033[0m\n$ bk %s\n' "$1" "${*:2}"; }
free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
export BK_CONFIG_DIR="$work/config"

listen_port="$(free_port)"
step "Start the emulator (signed webhooks go to a local listener; retry delays scaled down)" \
  emulator start --port 0 --json --webhook-url "http://127.0.0.1:$listen_port/" --time-scale 0.01
# Started with node itself, not the bk function: $! must be the process that cleanup stops.
node bin/run.js emulator start --port 0 --json --webhook-url "http://127.0.0.1:$listen_port/" --time-scale 0.01 > "$work/emulator.out" 2> "$work/emulator.err" &
pids+=($!)
for _ in $(seq 1 100); do [ -s "$work/emulator.out" ] && break; sleep 0.1; done
info="$(head -n 1 "$work/emulator.out")"
echo "$info"
field() { node -e "console.log(JSON.parse(process.argv[1])[process.argv[2]])" "$info" "$1"; }

# CI-style credentials: environment variables only, no profile, no keychain.
export BK_BASE_URL="$(field base_url)" BK_CLIENT_ID="$(field client_id)" BK_CLIENT_SECRET="$(field client_secret)"
export BK_BUSINESS_ID=biz_demo_acme

step "Who am I" auth status
bk auth status

step "Businesses of the tenant" businesses list --output table
bk businesses list --output table

step "Receive webhooks: a verifying listener in the background" webhooks listen --port "$listen_port"
node bin/run.js webhooks listen --port "$listen_port" > "$work/listen.out" 2> "$work/listen.err" &
pids+=($!)
for _ in $(seq 1 100); do grep -q '^Listening on' "$work/listen.err" && break; sleep 0.1; done

cp examples/bills.csv examples/journal-entries.yaml "$work/"
step "Validate the bill file offline (nothing is sent)" bills import bills.csv --dry-run
bk bills import "$work/bills.csv" --dry-run

step "Import the bills: batches of up to 100, rejects and results beside the file" bills import bills.csv
bk bills import "$work/bills.csv" --results "$work/bills-results.csv" || echo "(exit $?: see the rejects file)"
ls "$work" | grep -E '^bills' | sed 's/^/  /'

step "Run it again: refused, because the journal says these bills were already created" bills import bills.csv
bk bills import "$work/bills.csv" || true

cp -r examples/exports/xero "$work/xero"
step "A Xero bill export, as it is: the preset, its date format, lookups for names and codes" bills import xero/bills.csv --map xero
bk bills maps | sed -n '/^xero/,$p' | sed -n 1,4p
bk bills import "$work/xero/bills.csv" --map xero --date-format DD/MM/YYYY --amounts net --currency GBP \
  --lookup vendor_id="$work/xero/vendors.csv" --lookup line_ledger_id="$work/xero/ledgers.csv" --dry-run --show 1
bk bills import "$work/xero/bills.csv" --map xero --date-format DD/MM/YYYY --amounts net --currency GBP \
  --lookup vendor_id="$work/xero/vendors.csv" --lookup line_ledger_id="$work/xero/ledgers.csv"

step "Journal entries: the local balance check, then the post" journal-entries create journal-entries.yaml
bk journal-entries validate "$work/journal-entries.yaml"
bk journal-entries create "$work/journal-entries.yaml"

step "Open invoices, first 5" invoices list --status open --limit 5 --output table
bk invoices list --status open --limit 5 --output table

step "Receivables at a glance: what is owed, by days past due" invoices aging --as-of 2026-06-30
bk invoices aging --as-of 2026-06-30 --output table

step "Export every invoice to CSV (streamed; formula cells neutralised)" invoices list --all --output csv --file invoices.csv
bk invoices list --all --output csv --file "$work/invoices.csv"
echo "  $(($(wc -l < "$work/invoices.csv") - 1)) invoices written to $work/invoices.csv; first lines:"
head -n 4 "$work/invoices.csv" | cut -c1-160 | sed 's/^/  /'

step "Trigger service events (the emulator signs and delivers them)" emulator trigger RECEIPT_MATCHED
bk emulator trigger BUSINESS_ACTIVATED >/dev/null || true
bk emulator trigger RECEIPT_MATCHED >/dev/null
bk emulator trigger TASK_REQUEST >/dev/null
# The listener prints a line per delivery; wait for the three (10 s at most).
for _ in $(seq 1 100); do [ "$(wc -l < "$work/listen.out")" -ge 3 ] && break; sleep 0.1; done
echo "  the listener verified and printed:"
sed 's/^/  /' "$work/listen.out"

step "Replay past notifications (what a tenant would fetch after an outage)" webhooks replay --limit 5
bk webhooks replay --limit 5

echo
echo "Done. Files of this run are in $work"
