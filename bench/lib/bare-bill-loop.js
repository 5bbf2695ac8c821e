// The import benchmark's baseline: post pre-built batches of bills (JSON text) through an undici
// Pool at a given concurrency, read each answer as JSON, nothing more. Imported by the bench (run
// in its process, its JIT warmed by the rounds before) or run as a script
// (`node bare-bill-loop.js BASE BUSINESS CLIENT_ID CLIENT_SECRET CONCURRENCY BATCHES.jsonl`), a
// cold process as bk is; either way it prints or returns bills/s timed from the first post.
import {readFileSync} from 'node:fs'
import {performance} from 'node:perf_hooks'
import {fileURLToPath, URLSearchParams} from 'node:url'

import {Pool} from 'undici'

export async function bareBillLoop({baseUrl, business, clientId, clientSecret, concurrency, batches}) {
  const pool = new Pool(baseUrl, {connections: concurrency})
  const tokenRes = await pool.request({
    method: 'POST',
    path: '/v0/auth/token',
    headers: {'content-type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams({client_id: clientId, client_secret: clientSecret}).toString(),
  })
  const {access_token: token} = await tokenRes.body.json()
  const headers = {'content-type': 'application/json', authorization: `Bearer ${token}`}
  let next = 0
  let bills = 0
  const started = performance.now()
  await Promise.all(
    Array.from({length: concurrency}, async () => {
      while (next < batches.length) {
        const body = batches[next++]
        const res = await pool.request({method: 'POST', path: `/v0/business/${business}/bills`, headers, body})
        const json = await res.body.json()
        bills += json.data.length
      }
    }),
  )
  const rate = bills / ((performance.now() - started) / 1000)
  await pool.close()
  return rate
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [baseUrl, business, clientId, clientSecret, concurrency, file] = process.argv.slice(2)
  const batches = readFileSync(file, 'utf8').split('\n').filter(Boolean)
  const rate = await bareBillLoop({
    baseUrl,
    business,
    clientId,
    clientSecret,
    concurrency: Number(concurrency),
    batches,
  })
  process.stdout.write(`${JSON.stringify({rate})}\n`)
}
