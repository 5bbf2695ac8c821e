/**
 * `bk webhooks listen` and the emulator together, as a developer uses them: listen finds the
 * emulator by itself, catches up what it missed, and follows the emulator's key across restarts.
 */
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'
import {whenOutput} from '../helpers/wait.js'
import {startEmulatorProcess, type EmulatorProcess} from '../helpers/emulator-process.js'
import {JWKS_FILE, recordingServer, startListen, type ListenerChild} from './helpers.js'

const trigger = (emulator: EmulatorProcess, type: string, ...field: string[]) =>
  runBk(['emulator', 'trigger', type, ...field.flatMap((f) => ['--field', f])], {env: emulator.env()})

/** The svc-ids of the deliveries the listener printed as valid, in order. */
const validIds = (l: ListenerChild) =>
  l
    .stdout()
    .split('\n')
    .filter((line) => line.includes('  valid'))
    .map((line) => line.split('  ')[2])

describe('bk webhooks listen against the local emulator', () => {
  it('with only its port: registers itself, a trigger is delivered and verified, and it unregisters on exit', async () => {
    const emulator = await startEmulatorProcess(['--seed', 'empty'])
    try {
      const listener = await startListen([], {BK_BASE_URL: emulator.info.baseUrl})
      const sent = await trigger(emulator, 'TASKS_REQUEST_COMPLETED')
      expect(sent.code).toBe(0)
      expect(sent.stderr).not.toContain('no webhook URL')
      await listener.printed(() => validIds(listener).length === 1, 'the delivery')
      expect(listener.stdout()).toMatch(/ {2}200 {2}msg_\w+ {2}TASKS_REQUEST_COMPLETED {2}valid\n/)
      expect(await listener.stop()).toBe(0)

      const unheard = await trigger(emulator, 'TASKS_REQUEST_COMPLETED')
      expect(unheard.code).toBe(0)
      expect(unheard.stderr).toContain('the emulator has no webhook URL')
      expect(unheard.stderr).toContain('bk webhooks listen --port')
    } finally {
      await emulator.stop()
    }
  })

  it('--catch-up forwards what was missed while it was down, in order, none twice, then live events', async () => {
    const emulator = await startEmulatorProcess(['--seed', 'empty'])
    const app = await recordingServer()
    const state = join(tempDir(), 'listen.state')
    const env = emulator.env()
    const args = ['--forward-to', app.url, '--state', state]
    try {
      const first = await startListen(args, env)
      expect((await trigger(emulator, 'BUSINESS_CREATED')).code).toBe(0)
      await app.waitFor(1)
      expect(await first.stop()).toBe(0)

      // Down: three events reach nobody.
      for (const task of ['request_receipt', 'request_statement', 'other'])
        expect((await trigger(emulator, 'TASK_REQUEST', `task_types=["${task}"]`)).stderr).toContain('no webhook URL')
      expect(app.requests).toHaveLength(1)

      const second = await startListen([...args, '--catch-up'], env)
      await app.waitFor(4)
      await whenOutput(second.child.stderr, () => second.stderr().includes('now live'), 'the end of the catch-up')
      expect(second.stderr()).toContain('Caught up: 3 forwarded, 0 already handled; now live.')
      const caught = app.requests.slice(1)
      expect(caught.map((r) => JSON.parse(r.body).content.task_types[0])).toEqual([
        'request_receipt',
        'request_statement',
        'other',
      ])
      expect(caught.every((r) => r.headers['bk-replay'] === '1')).toBe(true)
      // Then live traffic, after them.
      expect((await trigger(emulator, 'TASKS_REQUEST_COMPLETED')).code).toBe(0)
      await app.waitFor(5)
      expect(JSON.parse(app.requests[4]!.body).type).toBe('TASKS_REQUEST_COMPLETED')
      expect(app.requests[4]!.headers['svc-signature']).toBeTruthy()
      expect(await second.stop()).toBe(0)

      // Restarted once more: everything was handled, nothing is forwarded again.
      const third = await startListen([...args, '--catch-up'], env)
      await whenOutput(third.child.stderr, () => third.stderr().includes('now live'), 'the end of the catch-up')
      expect(third.stderr()).toContain('Caught up: 0 forwarded, 0 already handled; now live.')
      expect(await third.stop()).toBe(0)
      const ids = app.requests.map((r) => r.headers['svc-id'])
      expect(ids).toHaveLength(5)
      expect(new Set(ids).size).toBe(5)
    } finally {
      await emulator.stop()
      await app.close()
    }
  })

  it('keeps verifying when the emulator is restarted under it with a new key', async () => {
    const first = await startEmulatorProcess(['--seed', 'empty'])
    const port = new URL(first.info.baseUrl).port
    const listener = await startListen(['--json'], first.env())
    let second: EmulatorProcess | undefined
    try {
      expect((await trigger(first, 'TASKS_REQUEST_COMPLETED')).code).toBe(0)
      await listener.printed(() => listener.stdout().includes('"valid":true'), 'the first delivery')
      expect(await first.stop()).toBe(0)
      // A new emulator on the same address: a new signing key, and the listener named as its URL.
      second = await startEmulatorProcess(['--seed', 'empty', '--port', port, '--webhook-url', listener.url])
      expect((await trigger(second, 'TASKS_REQUEST_COMPLETED')).code).toBe(0)
      await listener.printed(() => listener.stdout().trim().split('\n').length >= 2, 'the second delivery')
      const lines = listener
        .stdout()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as {valid: boolean; status: number})
      expect(lines.map((l) => [l.valid, l.status])).toEqual([
        [true, 200],
        [true, 200],
      ])
    } finally {
      await listener.stop()
      await second?.stop()
    }
  })
})

describe('bk webhooks replay into bk webhooks listen', () => {
  it('says why the listener refuses an unsigned replay, and goes through with --accept-replays', async () => {
    const emulator = await startEmulatorProcess(['--seed', 'empty'])
    try {
      expect((await trigger(emulator, 'TASKS_REQUEST_COMPLETED')).code).toBe(0)
      const strict = await startListen(['--no-register'], emulator.env())
      const refused = await runBk(['webhooks', 'replay', '--forward-to', strict.url], {env: emulator.env()})
      await strict.stop()
      expect(refused.code).toBe(6)
      expect(refused.stdout).toMatch(/→ FAILED 400: an unsigned replay \(bk-replay: 1\)/)
      expect(refused.stderr).toContain('takes them with --accept-replays')

      const relaxed = await startListen(['--no-register', '--accept-replays'], emulator.env())
      const accepted = await runBk(['webhooks', 'replay', '--forward-to', relaxed.url], {env: emulator.env()})
      await relaxed.printed(() => relaxed.stdout().includes('valid (replay)'), 'the replay')
      await relaxed.stop()
      expect(accepted.code).toBe(0)
      expect(accepted.stdout).toMatch(/→ ok 200/)
    } finally {
      await emulator.stop()
    }
  })
})

describe('the key set behind a redirect', () => {
  it('is refused when the redirect leaves for http on another port', async () => {
    const jwks = await import('node:fs').then((fs) => fs.readFileSync(JWKS_FILE, 'utf8'))
    const serve = (handler: Parameters<typeof createServer>[1]) =>
      new Promise<Server>((resolve) => {
        const server = createServer(handler)
        server.listen(0, '127.0.0.1', () => resolve(server))
      })
    const elsewhere = await serve((_req, res) => res.writeHead(200, {'content-type': 'application/json'}).end(jwks))
    const otherPort = (elsewhere.address() as AddressInfo).port
    const service = await serve((_req, res) =>
      res.writeHead(302, {location: `http://127.0.0.1:${otherPort}/.well-known/jwks.json`}).end(),
    )
    try {
      const base = `http://127.0.0.1:${(service.address() as AddressInfo).port}`
      const result = await runBk(['webhooks', 'jwks', '--refresh'], {env: {BK_BASE_URL: base}})
      expect(result.code).toBe(7)
      expect(result.stderr).toContain(`redirected to http://127.0.0.1:${otherPort}, another origin`)
      expect(result.stdout).toBe('')
    } finally {
      service.close()
      elsewhere.close()
    }
  })
})
