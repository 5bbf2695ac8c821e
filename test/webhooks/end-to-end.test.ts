/**
 * The emulator delivers to a real `bk webhooks listen` child, whose --forward-to target (the
 * "app") fails the first attempts; the retries are checked at the app, then `bk webhooks replay`
 * re-posts what was missed. The emulator signs with the committed fixture key, so the listener's
 * key set (fetched from the emulator's JWKS) is one made outside bk.
 */
import {createServer} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk, spawnBk} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'
import {whenOutput} from '../helpers/wait.js'
import {FIXTURES, recordingServer, startListen, type ListenerChild, type RecordingServer} from './helpers.js'

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const {port} = server.address() as {port: number}
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

async function trigger(emulator: RunningEmulator, type: string, content: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${emulator.baseUrl}/_emulator/events`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({type, content}),
  })
  expect(res.status).toBe(202)
}

const TIME_SCALE = 0.005 // 10 s -> 50 ms

describe('emulator -> bk webhooks listen -> app, then bk webhooks replay', () => {
  let emulator: RunningEmulator
  let app: RecordingServer
  let listener: ListenerChild
  beforeAll(async () => {
    // The app fails the first two attempts of every delivery, and every attempt for biz_down.
    const seen = new Map<string, number>()
    app = await recordingServer((r) => {
      if (r.headers['bk-replay']) return 200
      const id = r.headers['svc-id'] as string
      seen.set(id, (seen.get(id) ?? 0) + 1)
      if (r.body.includes('biz_down')) return 500
      return (seen.get(id) ?? 0) <= 2 ? 503 : 200
    })
    const port = await freePort()
    emulator = await start({
      seed: 'empty',
      webhookUrl: `http://127.0.0.1:${port}/webhooks`,
      timeScale: TIME_SCALE,
      keyFile: join(FIXTURES, 'key.pem'),
    })
    listener = await startListen(['--port', String(port), '--forward-to', app.url, '--json'], {
      BK_BASE_URL: emulator.baseUrl,
    })
  })
  afterAll(async () => {
    await listener?.stop()
    await emulator?.close()
    await app?.close()
  })

  it('retries failed deliveries at the scaled delays, then replays the missed ones', async () => {
    // The business BUSINESS_DEACTIVATED changes must be one the emulator holds.
    emulator.state.businesses.set('biz_down', {
      id: 'biz_down',
      external_id: 'ext',
      name: 'Down',
      active: true,
      created_at: '2026-01-01T00:00:00Z',
    })
    await trigger(emulator, 'TASK_REQUEST', {business_id: 'biz_ok', task_types: ['request_receipt']})
    await trigger(emulator, 'ACCOUNT_BALANCE_UPDATED', {
      business_id: 'biz_down',
      account_id: 'acc_1',
      timestamp: '2026-01-01T00:00:00Z',
    })
    await trigger(emulator, 'BUSINESS_DEACTIVATED', {
      business_id: 'biz_down',
      business_external_id: 'ext',
      timestamp: '2026-01-01T00:00:00Z',
    })
    await emulator.webhooks.idle()
    const [ok, down1, down2] = emulator.state.notifications
    expect([ok?.status, down1?.status, down2?.status]).toEqual(['sent', 'error', 'error'])

    // At the app: 3 attempts of the first (2 failed), 5 of each of the others, in order.
    const attempts = (id: string | undefined) =>
      app.requests.filter((r) => r.headers['svc-id'] === id && !r.headers['bk-replay'])
    expect(attempts(ok?.id)).toHaveLength(3)
    expect(attempts(down1?.id)).toHaveLength(5)
    expect(attempts(down2?.id)).toHaveLength(5)
    const times = attempts(down1?.id).map((r) => r.at)
    for (let i = 1; i < times.length; i++)
      expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(10_000 * TIME_SCALE * 2 ** (i - 1) - 5)
    // Every attempt came through the listener with the service's headers and signed body.
    for (const r of attempts(down1?.id)) {
      expect(r.headers['svc-signature']).toBeTruthy()
      expect(r.body).toBe(down1?.body)
    }
    // The listener answered 502 to the failed forwards and 200 to the last of the first. It prints
    // each line after answering, so the last ones may still be on their way through its stdout.
    const printed = attempts(ok?.id).length + attempts(down1?.id).length + attempts(down2?.id).length
    await listener.printed(
      () => listener.stdout().trim().split('\n').length >= printed,
      'the listener printed every attempt',
    )
    const lines = listener
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as {svc_id: string; status: number; valid: boolean})
    expect(lines.every((l) => l.valid)).toBe(true)
    expect(lines.filter((l) => l.svc_id === ok?.id).map((l) => l.status)).toEqual([502, 502, 200])
    expect(lines.filter((l) => l.svc_id === down1?.id).map((l) => l.status)).toEqual([502, 502, 502, 502, 502])

    // Replay what was missed: the notifications in error, re-posted to the app.
    const env = envFor(emulator, null)
    const listed = await runBk(['webhooks', 'replay', '--status', 'error', '--json'], {env})
    expect(listed.code).toBe(0)
    expect(parseJsonOutput<{items: Array<{id: string}>}>(listed).items.map((i) => i.id)).toEqual([down1?.id, down2?.id])
    // Repeats and empty items in a list flag are dropped, as in every bk list flag.
    const repeated = await runBk(['webhooks', 'replay', '--status', 'error,,error', '--json'], {env})
    expect(parseJsonOutput<{items: Array<{id: string}>}>(repeated).items.map((i) => i.id)).toEqual([
      down1?.id,
      down2?.id,
    ])
    const replayed = await runBk(['webhooks', 'replay', '--status', 'error', '--forward-to', app.url], {env})
    expect(replayed.code).toBe(0)
    expect(replayed.stdout).toContain(`${down1?.id}`)
    expect(replayed.stdout).toMatch(/→ ok 200/)
    expect(replayed.stderr).toContain(`2 notifications re-posted to ${app.url}; last: ${down2?.id}`)
    const replays = app.requests.filter((r) => r.headers['bk-replay'] === '1')
    expect(replays.map((r) => r.headers['svc-id'])).toEqual([down1?.id, down2?.id])
    // The original message, byte for byte as it was signed; no signature can be made by bk.
    expect(replays.map((r) => r.body)).toEqual([down1?.body, down2?.body])
    expect(replays[0]?.headers['svc-signature']).toBeUndefined()

    // --since continues after an id.
    const since = await runBk(['webhooks', 'replay', '--since', down1?.id as string, '--json'], {env})
    expect(parseJsonOutput<{items: Array<{id: string}>}>(since).items.map((i) => i.id)).toEqual([down2?.id])
  })
})

describe('bk webhooks replay', () => {
  let emulator: RunningEmulator
  beforeAll(async () => {
    emulator = await start({seed: 'empty'})
    for (let i = 0; i < 5; i++)
      emulator.state.events.emit('TASKS_REQUEST_COMPLETED', {business_id: `biz_${i}`, amount: i + 0.5})
  })
  afterAll(() => emulator.close())

  it('pages through with --limit and a small page size', async () => {
    const result = await runBk(['webhooks', 'replay', '--limit', '3', '--page-size', '2', '--json'], {
      env: envFor(emulator, null),
    })
    expect(result.code).toBe(0)
    const out = parseJsonOutput<{count: number; last_id: string; items: Array<{id: string}>}>(result)
    expect(out.items.map((i) => i.id)).toEqual(emulator.state.notifications.slice(0, 3).map((n) => n.id))
    expect(out.last_id).toBe(emulator.state.notifications[2]?.id)
  })

  it('reports failed re-posts with exit 6, and refuses an unknown status with exit 2', async () => {
    const app = await recordingServer(() => 500)
    try {
      const result = await runBk(['webhooks', 'replay', '--limit', '2', '--forward-to', app.url], {
        env: envFor(emulator, null),
      })
      expect(result.code).toBe(6)
      expect(result.stdout).toMatch(/→ FAILED 500/)
      expect(result.stderr).toContain('2 of 2 re-posts')
    } finally {
      await app.close()
    }
    const bad = await runBk(['webhooks', 'replay', '--status', 'sent,lost'], {env: envFor(emulator, null)})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('"lost"')
  })

  it('stops cleanly on Ctrl-C after the post in progress and prints the last replayed id', async () => {
    let release: (() => void) | undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    const app = await recordingServer(async (_r, index) => {
      if (index === 1) await held
      return 200
    })
    try {
      const child = spawnBk(['webhooks', 'replay', '--page-size', '1', '--forward-to', app.url], {
        env: envFor(emulator, null),
      })
      child.stdin.end()
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
      await app.waitFor(2)
      child.kill('SIGINT')
      // The held post is answered only once the command says it is stopping.
      await whenOutput(child.stderr, () => stderr.includes('Stopping after'), 'the replay said it is stopping')
      expect(stderr).toContain('Stopping after the notification in progress')
      release?.()
      const code = await exited
      const second = emulator.state.notifications[1]?.id as string
      expect(code).toBe(130)
      expect(app.requests).toHaveLength(2)
      expect(stdout.trim().split('\n')).toHaveLength(2)
      expect(stderr).toContain(`last replayed: ${second}`)
      expect(stderr).toContain(`--since ${second}`)
    } finally {
      release?.()
      await app.close()
    }
  })
})
