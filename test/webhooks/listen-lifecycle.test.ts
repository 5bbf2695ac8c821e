/**
 * `bk webhooks listen` staying in step with the emulator and with other listeners: a restarted
 * emulator is noticed and registered with again, a second listener's take-over is said, exit
 * gives back only what was there before; and `--catch-up` starts at the oldest delivery the
 * target has not acknowledged, repeating at most the one a kill interrupted, under its svc-id.
 */
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'
import {startEmulatorProcess, type EmulatorProcess} from '../helpers/emulator-process.js'
import {whenOutput} from '../helpers/wait.js'
import {recordingServer, startListen, type ListenerChild} from './helpers.js'

const trigger = (emulator: EmulatorProcess, type: string, ...field: string[]) =>
  runBk(['emulator', 'trigger', type, ...field.flatMap((f) => ['--field', f])], {env: emulator.env()})

/** The webhook URL the emulator delivers to now. */
const urlInForce = async (emulator: EmulatorProcess) => {
  const res = await fetch(new URL('/_emulator/webhook', emulator.info.baseUrl))
  return ((await res.json()) as {data: {url: string | null}}).data.url
}

const saidOnStderr = (l: ListenerChild, text: string) =>
  whenOutput(l.child.stderr, () => l.stderr().includes(text), `"${text}" on stderr`)

/** The listener's URL as it registers it (with the trailing slash). */
const registered = (l: ListenerChild) => `${l.url}/`

describe('bk webhooks listen and the emulator it registers with', () => {
  it('registers again with an emulator restarted on its port, and gives back on exit only what the new one had', async () => {
    const app = await recordingServer()
    const first = await startEmulatorProcess(['--seed', 'empty'])
    const port = new URL(first.info.baseUrl).port
    const listener = await startListen([], first.env())
    let second: EmulatorProcess | undefined
    try {
      expect(await urlInForce(first)).toBe(registered(listener))
      expect(await first.stop()).toBe(0)
      // The new emulator delivers to the app until a listener takes its place.
      second = await startEmulatorProcess(['--seed', 'empty', '--port', port, '--webhook-url', app.url])
      await saidOnStderr(listener, 'the emulator at')
      await saidOnStderr(listener, 'registered again')
      expect(await urlInForce(second)).toBe(registered(listener))

      const sent = await trigger(second, 'TASKS_REQUEST_COMPLETED')
      expect(sent.stderr).not.toContain('no webhook URL')
      await listener.printed(() => listener.stdout().includes('TASKS_REQUEST_COMPLETED  valid'), 'the delivery')
      expect(await listener.stop()).toBe(0)
      expect(await urlInForce(second)).toBe(app.url)
      expect(app.requests).toHaveLength(0)
    } finally {
      await listener.stop()
      await second?.stop()
      await app.close()
    }
  })

  it('tells the first listener when a second takes over, and each exit gives back only its own place', async () => {
    const app = await recordingServer()
    const emulator = await startEmulatorProcess(['--seed', 'empty', '--webhook-url', app.url])
    const a = await startListen([], emulator.env())
    let b: ListenerChild | undefined
    try {
      expect(await urlInForce(emulator)).toBe(registered(a))
      b = await startListen([], emulator.env())
      await saidOnStderr(a, `another listener (${registered(b)}) took over`)
      expect(await urlInForce(emulator)).toBe(registered(b))

      // B stops: A is in force again, and says so.
      expect(await b.stop()).toBe(0)
      await saidOnStderr(a, 'the emulator delivers here again')
      expect(await urlInForce(emulator)).toBe(registered(a))
      expect((await trigger(emulator, 'TASKS_REQUEST_COMPLETED')).code).toBe(0)
      await a.printed(() => a.stdout().includes('TASKS_REQUEST_COMPLETED  valid'), 'the delivery to A')

      // C takes over, A stops first: C keeps its place; C stops: back to the emulator's own URL, not A's.
      const c = await startListen([], emulator.env())
      await saidOnStderr(a, `another listener (${registered(c)}) took over`)
      expect(await a.stop()).toBe(0)
      expect(await urlInForce(emulator)).toBe(registered(c))
      expect(await c.stop()).toBe(0)
      expect(await urlInForce(emulator)).toBe(app.url)
    } finally {
      await a.stop()
      await b?.stop()
      await emulator.stop()
      await app.close()
    }
  })
})

describe('a listener killed with kill -9 while another waited under it', () => {
  it('is taken out at its first refused delivery, and the one before it gets that delivery and says so', async () => {
    const emulator = await startEmulatorProcess(['--seed', 'empty', '--time-scale', '0.001'])
    const a = await startListen([], emulator.env())
    try {
      const b = await startListen([], emulator.env())
      await saidOnStderr(a, `another listener (${registered(b)}) took over`)
      const exited = new Promise((resolve) => b.child.once('exit', resolve))
      b.child.kill('SIGKILL')
      await exited

      expect((await trigger(emulator, 'TASKS_REQUEST_COMPLETED')).code).toBe(0)
      await a.printed(() => a.stdout().includes('TASKS_REQUEST_COMPLETED  valid'), 'the delivery to A')
      await saidOnStderr(a, 'the emulator delivers here again')
      expect(await urlInForce(emulator)).toBe(registered(a))
    } finally {
      await a.stop()
      await emulator.stop()
    }
  })
})

describe('bk webhooks listen --catch-up', () => {
  it('starts from the oldest delivery the target refused, though a later one was taken', async () => {
    // Retries 1,000 times faster: the refused delivery runs through its 5 attempts at once.
    const emulator = await startEmulatorProcess(['--seed', 'empty', '--time-scale', '0.001'])
    let refusing = true
    const app = await recordingServer(() => (refusing ? 500 : 200))
    const state = join(tempDir(), 'listen.state')
    const args = ['--forward-to', app.url, '--state', state]
    try {
      const first = await startListen(args, emulator.env())
      expect((await trigger(emulator, 'TASK_REQUEST', 'task_types=["request_receipt"]')).code).toBe(0)
      await app.waitFor(5)
      const refusedId = app.requests[0]!.headers['svc-id']
      await whenOutput(first.child.stdout, () => first.stdout().split('\n').length > 5, 'the fifth refusal printed')
      refusing = false
      expect((await trigger(emulator, 'TASKS_REQUEST_COMPLETED')).code).toBe(0)
      await app.waitFor(6)
      await first.printed(() => first.stdout().includes('TASKS_REQUEST_COMPLETED  valid'), 'the taken delivery')
      expect(await first.stop()).toBe(0)

      const second = await startListen([...args, '--catch-up'], emulator.env())
      await saidOnStderr(second, 'now live')
      expect(second.stderr()).toContain('Caught up: 1 forwarded')
      expect(app.requests).toHaveLength(7)
      expect(app.requests[6]!.headers['svc-id']).toBe(refusedId)
      expect(JSON.parse(app.requests[6]!.body).content.task_types).toEqual(['request_receipt'])
      expect(await second.stop()).toBe(0)
    } finally {
      await emulator.stop()
      await app.close()
    }
  })

  it('after a kill -9 during a forward, repeats that one delivery at most once, under the same svc-id', async () => {
    const emulator = await startEmulatorProcess(['--seed', 'empty', '--time-scale', '0.001'])
    let answer: (status: number) => void = () => {}
    let holding = true
    const app = await recordingServer(() => (holding ? new Promise<number>((resolve) => (answer = resolve)) : 200))
    const state = join(tempDir(), 'listen.state')
    const args = ['--forward-to', app.url, '--state', state]
    try {
      holding = false
      const first = await startListen(args, emulator.env())
      expect((await trigger(emulator, 'BUSINESS_CREATED')).code).toBe(0)
      await app.waitFor(1)
      await first.printed(() => first.stdout().includes('BUSINESS_CREATED  valid'), 'the first delivery')

      // The target has the second delivery and has not answered: the listener is killed then.
      holding = true
      expect((await trigger(emulator, 'TASKS_REQUEST_COMPLETED')).code).toBe(0)
      await app.waitFor(2)
      const killedId = app.requests[1]!.headers['svc-id']
      const exited = new Promise((resolve) => first.child.once('exit', resolve))
      first.child.kill('SIGKILL')
      await exited
      holding = false
      answer(200) // the target took it; the listener never heard

      const second = await startListen([...args, '--catch-up'], emulator.env())
      await saidOnStderr(second, 'now live')
      // A live event after the catch-up: everything before it has been forwarded.
      expect((await trigger(emulator, 'TASK_REQUEST', 'task_types=["other"]')).code).toBe(0)
      await second.printed(() => second.stdout().includes('TASK_REQUEST  valid'), 'the live delivery')
      expect(await second.stop()).toBe(0)

      const copies = app.requests.filter((r) => r.headers['svc-id'] === killedId)
      expect(copies.length).toBeGreaterThanOrEqual(1)
      expect(copies.length).toBeLessThanOrEqual(2)
      expect(new Set(copies.map((r) => r.body)).size).toBe(1)
      const ids = app.requests.map((r) => r.headers['svc-id'])
      expect(ids.filter((id) => id !== killedId)).toHaveLength(new Set(ids).size - 1)
    } finally {
      await emulator.stop()
      await app.close()
    }
  })

  it('says in its help that a kill during a forward may repeat that delivery once', async () => {
    const help = await runBk(['webhooks', 'listen', '--help'])
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('at most one repeat')
  })
})
