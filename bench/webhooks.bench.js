// Webhooks: cost of the Python json.dumps re-serialisation from raw text against a JS round trip
// (JSON.parse + JSON.stringify) of the same body, and of a verification against one bare RSA
// verify, measured alternately in one run. Bodies: a typical event (~0.3 KB) and a large one
// (~250 KB, nested, non-ASCII). Targets: re-serialisation within 10x the JS round trip; a
// verification of a body as received within 1.5x one RSA verify.
import {createSign, createVerify, generateKeyPairSync} from 'node:crypto'
import {performance} from 'node:perf_hooks'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const {pythonJsonDumps, pythonJsonFromText} = await import(join(root, 'dist', 'unbundled', 'shared', 'python-json.js'))
const {verifyWebhook} = await import(join(root, 'dist', 'unbundled', 'webhooks', 'verify.js'))

const small = {
  type: 'ACCOUNT_BALANCE_UPDATED',
  content: {
    business_id: 'biz_00000001abcdef',
    account_id: 'acc_1',
    note: 'Café 🧾',
    balance: 1.5,
    timestamp: '2026-01-02T03:04:05Z',
  },
}
const large = {
  type: 'STATEMENT_IMPORTED',
  content: {
    business_id: 'biz_1',
    lines: Array.from({length: 2000}, (_, i) => ({
      i,
      label: `Zahlung Nr. ${i} — Müller & Söhne`,
      amount: i + 0.25,
      tags: ['a', 'b'],
      ok: i % 2 === 0,
      extra: null,
    })),
  },
}

function timeIt(fn, minMs = 300) {
  let n = 0
  const t0 = performance.now()
  let t = t0
  while (t - t0 < minMs) {
    for (let i = 0; i < 10; i++) fn()
    n += 10
    t = performance.now()
  }
  return (t - t0) / n
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
for (const [name, message] of [
  ['small', small],
  ['large', large],
]) {
  const body = pythonJsonDumps(message)
  const compact = JSON.stringify(message)
  const a = []
  const b = []
  for (let r = 0; r < rounds; r++) {
    a.push(timeIt(() => JSON.stringify(JSON.parse(compact))))
    b.push(timeIt(() => pythonJsonFromText(compact)))
  }
  const base = median(a)
  const ours = median(b)
  const ratio = ours / base
  console.log(
    `re-serialisation, ${name} body (${(body.length / 1024).toFixed(1)} KB): JSON round trip ${(base * 1000).toFixed(1)} us, pythonJsonFromText ${(ours * 1000).toFixed(1)} us = ${ratio.toFixed(2)}x${ratio <= 10 ? '  ok (target <= 10x)' : '  OVER TARGET (10x)'}`,
  )
}

const {privateKey, publicKey} = generateKeyPairSync('rsa', {modulusLength: 2048})
const body = pythonJsonDumps(small)
const id = 'msg_00000001abcdef'
const signature = createSign('sha256').update(`${id}.${body}`).sign(privateKey, 'base64url')
const bare = []
const raw = []
const reencoded = []
const compact = JSON.stringify(small)
for (let r = 0; r < rounds; r++) {
  bare.push(
    timeIt(() => createVerify('sha256').update(`${id}.${body}`).verify(publicKey, Buffer.from(signature, 'base64url'))),
  )
  raw.push(timeIt(() => verifyWebhook({id, signature, body, key: publicKey})))
  reencoded.push(timeIt(() => verifyWebhook({id, signature, body: compact, key: publicKey})))
}
const base = median(bare)
console.log(`verification (baseline: one RSA-2048 verify = ${(base * 1000).toFixed(1)} us)`)
const r1 = median(raw) / base
console.log(
  `  body as received          ${r1.toFixed(2)}x${r1 <= 1.5 ? '  ok (target <= 1.5x)' : '  OVER TARGET (1.5x)'}`,
)
console.log(
  `  re-encoded body (2 tries) ${(median(reencoded) / base).toFixed(2)}x  (expected about 2x: one failed try, one re-serialised)`,
)

// `bk webhooks listen` under load: 1,000 concurrent POSTs of 1 MiB each (the largest body it
// takes), every one a JSON message with a signature that does not verify, so each is read whole,
// tried raw, parsed and re-serialised. Listen reads at most 16 at once (the rest wait, unread), so
// its memory is bounded by 16 × 1 MiB plus its own baseline, whatever the number of senders.
// Target: peak RSS of the listen process <= 300 MB (it was 1.2 GB for 1,500 before the bound).
{
  const {spawn} = await import('node:child_process')
  const {request} = await import('node:http')
  const {once} = await import('node:events')
  const {watchPeakRss} = await import('./lib/peak-rss.js')
  const SENDERS = Number(process.env.BENCH_LISTEN_SENDERS ?? 1000)
  const BOUND_MB = 300
  const bin = join(root, 'bin', 'run.js')
  const jwks = join(root, 'test', 'fixtures', 'webhooks', 'jwks.json')
  const child = spawn(process.execPath, [bin, 'webhooks', 'listen', '--port', '0', '--jwks', jwks, '--json'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let err = ''
  child.stderr.on('data', (d) => (err += d))
  while (!/Listening on (http:\/\/\S+?) /.test(err)) await once(child.stderr, 'data')
  const url = new URL(/Listening on (http:\/\/\S+?) /.exec(err)[1])
  const peak = watchPeakRss(child.pid)
  const head = '{"type": "STATEMENT_IMPORTED", "content": {"business_id": "biz_1", "pad": "'
  const tail = '"}}'
  const body = Buffer.from(head + 'x'.repeat(1024 * 1024 - head.length - tail.length) + tail)
  const signature = Buffer.alloc(256, 7).toString('base64url')
  const started = performance.now()
  const statuses = await Promise.all(
    Array.from(
      {length: SENDERS},
      (_, i) =>
        new Promise((resolve) => {
          const req = request(
            url,
            {
              method: 'POST',
              agent: false,
              headers: {
                'content-type': 'application/json',
                'content-length': body.length,
                'svc-id': `msg_load_${i}`,
                'svc-signature': signature,
              },
            },
            (res) => {
              res.resume()
              res.on('end', () => resolve(res.statusCode))
            },
          )
          req.on('error', (e) => resolve(e.code))
          req.end(body)
        }),
    ),
  )
  const seconds = (performance.now() - started) / 1000
  const mb = peak.stop()
  child.kill('SIGINT')
  await once(child, 'exit')
  const counts = {}
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1
  console.log(
    `listen under load: ${SENDERS} concurrent 1 MiB posts in ${seconds.toFixed(1)} s, answers ${JSON.stringify(counts)}; peak RSS ${mb.toFixed(0)} MB${mb <= BOUND_MB ? `  ok (bound <= ${BOUND_MB} MB)` : `  OVER BOUND (${BOUND_MB} MB)`}`,
  )
}
