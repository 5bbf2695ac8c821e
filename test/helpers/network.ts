/**
 * A real forward proxy (tinyproxy, the Debian package) for tests of bk behind a proxy, and the
 * name the emulator is reached by through it.
 *
 * bk always reaches loopback directly, so a proxy test cannot use 127.0.0.1 as the service's
 * address. The emulator is named `bk-emulator.test` instead, a name that resolves to 127.0.0.1
 * only inside a private mount namespace (`unshare -m`) where a hosts file of the test's own is
 * bound over /etc/hosts: tinyproxy runs there (it resolves the name when bk asks it to CONNECT),
 * and so does bk when a test needs it to reach the name directly (NO_PROXY). Nothing leaves
 * loopback. Where tinyproxy or unshare is missing the tests skip with the reason, except under
 * BK_REQUIRE_PROXY=1 (set by .ci/run), where that fails them.
 */
import {spawn, spawnSync, type ChildProcess} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {createServer, type AddressInfo} from 'node:net'
import {join} from 'node:path'

import {tempDir} from './bk.js'
import {whenOutput} from './wait.js'

export const TEST_HOST = 'bk-emulator.test'

/** unshare as root, or in a user namespace of its own for anyone else. */
const UNSHARE = process.getuid?.() === 0 ? ['unshare', '-m'] : ['unshare', '-r', '-m']

/** A hosts file that names TEST_HOST (and localhost) as 127.0.0.1. */
export function hostsFile(): string {
  const file = join(tempDir('bk-hosts-'), 'hosts')
  writeFileSync(file, `127.0.0.1 localhost\n::1 localhost\n127.0.0.1 ${TEST_HOST}\n`)
  return file
}

/** The command line that runs `command` with `hosts` as its /etc/hosts. */
export function withHosts(hosts: string, command: string[]): string[] {
  return [...UNSHARE, 'sh', '-c', 'mount --bind "$0" /etc/hosts && exec "$@"', hosts, ...command]
}

export function proxyStatus(): {available: true} | {available: false; reason: string} {
  const which = spawnSync('tinyproxy', ['-v'], {encoding: 'utf8'})
  if (which.error) return {available: false, reason: 'tinyproxy is not installed (apt-get install tinyproxy)'}
  const hosts = hostsFile()
  const [cmd, ...args] = withHosts(hosts, ['getent', 'hosts', TEST_HOST])
  const probe = spawnSync(cmd as string, args, {encoding: 'utf8'})
  if (probe.status !== 0 || !probe.stdout.includes('127.0.0.1'))
    return {
      available: false,
      reason: `a private /etc/hosts cannot be set up with ${UNSHARE.join(' ')} (${(probe.stderr || String(probe.error ?? '')).trim().split('\n')[0]})`,
    }
  return {available: true}
}

/** True when proxy tests can run; throws under BK_REQUIRE_PROXY=1 when they cannot. */
export function requireProxyOrSkip(): boolean {
  const status = proxyStatus()
  if (status.available) return true
  if (process.env.BK_REQUIRE_PROXY === '1') throw new Error(`BK_REQUIRE_PROXY=1 but ${status.reason}`)
  console.warn(`Skipping proxy tests: ${status.reason}`)
  return false
}

export interface RunningProxy {
  /** http://[user:pass@]127.0.0.1:PORT */
  url: string
  port: number
  /** Everything tinyproxy logged so far. */
  log(): string
  /** The targets of the CONNECT requests it tunnelled (`host:port`), in order. */
  tunnels(): string[]
  /** Resolves once `count` tunnels were established. */
  waitForTunnels(count: number): Promise<void>
  close(): Promise<void>
}

export interface ProxyOptions {
  /** Ask for these credentials (tinyproxy's BasicAuth). */
  basicAuth?: {user: string; password: string}
  /** Allow CONNECT only to these ports (tinyproxy's ConnectPort); a tunnel elsewhere is refused with 403. */
  connectPorts?: number[]
}

export async function startProxy(hosts: string, options: ProxyOptions = {}): Promise<RunningProxy> {
  const port = await freePort()
  const dir = tempDir('bk-proxy-')
  const config = join(dir, 'tinyproxy.conf')
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 30',
      'MaxClients 50',
      'LogLevel Connect',
      'Allow 127.0.0.1',
      ...(options.basicAuth ? [`BasicAuth ${options.basicAuth.user} ${options.basicAuth.password}`] : []),
      ...(options.connectPorts ?? []).map((p) => `ConnectPort ${p}`),
      '',
    ].join('\n'),
  )
  const [cmd, ...args] = withHosts(hosts, ['tinyproxy', '-d', '-c', config])
  const child: ChildProcess = spawn(cmd as string, args, {stdio: ['ignore', 'pipe', 'pipe']})
  // tinyproxy -d logs to stdout, unbuffered; errors of unshare or mount come on stderr.
  const stream = child.stdout as NonNullable<ChildProcess['stdout']>
  let log = ''
  stream.on('data', (d: Buffer) => (log += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()))
  await whenOutput(stream, () => /Reloading config file finished/.test(log), `tinyproxy started (log: ${log})`)
  await whenListening(port)
  const tunnels = () => [...log.matchAll(/Established connection to host "([^"]+)"/g)].map((m) => m[1] as string)
  const auth = options.basicAuth
    ? `${encodeURIComponent(options.basicAuth.user)}:${encodeURIComponent(options.basicAuth.password)}@`
    : ''
  return {
    url: `http://${auth}127.0.0.1:${port}`,
    port,
    log: () => log,
    tunnels,
    waitForTunnels: (count) => whenOutput(stream, () => tunnels().length >= count, `${count} tunnels`),
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('close', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** Resolves once something accepts connections on the port (each try waits on its own outcome). */
async function whenListening(port: number): Promise<void> {
  const {connect} = await import('node:net')
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (ok) return
    await new Promise((resolve) => setImmediate(resolve))
  }
}
