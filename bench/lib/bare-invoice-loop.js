// The export benchmark's baseline: fetch every invoice page (page_size 100) through an undici
// Pool and parse it, nothing more. Run as a script (`node bare-invoice-loop.js BASE BIZ TOKEN`),
// as bk is, it prints {rows, ms} timed from the first request (module loading excluded, as bk's
// streaming figure excludes start-up).
import {performance} from 'node:perf_hooks'
import {fileURLToPath, URLSearchParams} from 'node:url'

import {Pool} from 'undici'

export async function bareInvoiceLoop(baseUrl, business, accessToken) {
  const pool = new Pool(baseUrl, {connections: 2})
  const started = performance.now()
  let rows = 0
  let pageToken = null
  do {
    const qs = new URLSearchParams({page_size: '100', ...(pageToken ? {page_token: pageToken} : {})})
    const res = await pool.request({
      method: 'GET',
      path: `/v0/business/${business}/invoice?${qs}`,
      headers: {authorization: `Bearer ${accessToken}`},
    })
    const page = await res.body.json()
    rows += page.data.length
    pageToken = page.pagination.next_page_token
  } while (pageToken)
  const ms = performance.now() - started
  await pool.close()
  return {rows, ms}
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [baseUrl, business, accessToken] = process.argv.slice(2)
  process.stdout.write(JSON.stringify(await bareInvoiceLoop(baseUrl, business, accessToken)) + '\n')
}
