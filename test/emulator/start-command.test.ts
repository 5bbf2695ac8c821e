/**
 * `bk emulator start` as the real binary: its first stdout line, the API behind it, Ctrl-C.
 */
import type {ChildProcessWithoutNullStreams} from 'node:child_process'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {createInterface} from 'node:readline'

import {describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk, runShellLine, spawnBk, tempDir} from '../helpers/bk.js'
import {whenOutput} from '../helpers/wait.js'
import {call} from './support.js'

interface Started {
  child: ChildProcessWithoutNullStreams
  firstLine: string
  /** Everything written to stdout, kept up to date. */
  stdout: () => string
  stderr: () => string
  exit: Promise<{code: number | null; signal: NodeJS.Signals | null}>
}

/** Spawns bk emulator start and resolves once it has printed its first line (the address). */
function startBinary(args: string[], configDir = tempDir(), env: Record<string, string> = {}): Promise<Started> {
  const child = spawnBk(['emulator', 'start', '--port', '0', ...args], {configDir, env})
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const exit = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) =>
    child.on('close', (code, signal) => resolve({code, signal})),
  )
  const killer = setTimeout(() => child.kill('SIGKILL'), 100_000)
  void exit.then(() => clearTimeout(killer))
  return new Promise((resolve, reject) => {
    const lines = createInterface({input: child.stdout})
    lines.once('line', (firstLine) => resolve({child, firstLine, stdout: () => stdout, stderr: () => stderr, exit}))
    void exit.then(({code}) => reject(new Error(`bk emulator start exited (${code}) before printing:\n${stderr}`)))
  })
}

describe('bk emulator start', () => {
  it('with --json prints one JSON line first, serves the API there, and exits 0 on SIGINT', async () => {
    const started = await startBinary([
      '--json',
      '--seed',
      'demo',
      '--client-id',
      'ci-client',
      '--client-secret',
      'ci-secret',
    ])
    try {
      const info = JSON.parse(started.firstLine) as {
        base_url: string
        client_id: string
        client_secret: string
        business_ids: string[]
      }
      expect(Object.keys(info).sort()).toEqual(['base_url', 'business_ids', 'client_id', 'client_secret'])
      expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(info.base_url).not.toMatch(/:0$/)
      expect(info).toMatchObject({
        client_id: 'ci-client',
        client_secret: 'ci-secret',
        business_ids: ['biz_demo_acme', 'biz_demo_globex', 'biz_demo_initech'],
      })
      const token = await call(info.base_url, 'POST', '/v0/auth/token', {
        form: {client_id: info.client_id, client_secret: info.client_secret},
      })
      expect(token.status).toBe(200)
      const wrong = await call(info.base_url, 'POST', '/v0/auth/token', {
        form: {client_id: 'local-client', client_secret: 'local-secret'},
      })
      expect(wrong.status).toBe(401)
      const listed = await call(info.base_url, 'GET', '/v0/business', {token: token.body.access_token})
      expect(listed.status).toBe(200)
      expect(listed.body.data.map((b: {id: string}) => b.id)).toEqual(info.business_ids)
      started.child.kill('SIGINT')
      const {code, signal} = await started.exit
      expect(signal).toBeNull()
      expect(code).toBe(0)
      // Nothing but the one JSON line on stdout.
      expect(started.stdout()).toBe(started.firstLine + '\n')
    } finally {
      started.child.kill('SIGKILL')
    }
  })

  it('for people, prints the address, credentials and a working `bk profiles add` line', async () => {
    const configDir = tempDir()
    const started = await startBinary(['--seed', 'empty'], configDir)
    try {
      expect(started.firstLine).toMatch(/^Emulator listening on http:\/\/127\.0\.0\.1:\d+$/)
      const baseUrl = started.firstLine.replace('Emulator listening on ', '')
      // Wait until the whole banner is out (it ends with the Ctrl-C line).
      await whenOutput(started.child.stdout, () => started.stdout().includes('Ctrl-C'), 'the whole banner')
      const out = started.stdout()
      expect(out).toContain('client id:     local-client')
      expect(out).toContain('client secret: local-secret')
      expect(out).toContain('businesses:    biz_demo_acme')
      const line = out.split('\n').find((l) => l.includes('profiles add')) ?? ''
      expect(line).toContain(
        `bk profiles add local --env local --base-url ${baseUrl} --client-id local-client --business biz_demo_acme --client-secret-stdin`,
      )
      expect(line).toMatch(/^\s*printf %s local-secret \| bk /)
      // The printed line works: run it (with file storage, as CI machines may lack a keychain).
      const args = line
        .slice(line.indexOf('| bk ') + 5)
        .trim()
        .split(/\s+/)
      const added = await runBk([...args, '--insecure-storage'], {configDir, input: 'local-secret'})
      expect(added.code, added.stderr).toBe(0)
      const listed = await runBk(['businesses', 'list', '--json', '--profile', 'local'], {configDir})
      expect(listed.code, listed.stderr).toBe(0)
      expect(parseJsonOutput<{data: Array<{id: string}>}>(listed).data.map((b) => b.id)).toEqual(['biz_demo_acme'])
      started.child.kill('SIGINT')
      expect((await started.exit).code).toBe(0)
    } finally {
      started.child.kill('SIGKILL')
    }
  })

  it('quotes the values of its `bk profiles add` line for the shell: pasted into sh, the line stores them as given', async () => {
    const configDir = tempDir()
    const secret = "it's $HOME"
    const started = await startBinary(['--seed', 'empty', '--client-secret', secret, '--client-id', 'a b'], configDir)
    try {
      await whenOutput(started.child.stdout, () => started.stdout().includes('Ctrl-C'), 'the whole banner')
      const line =
        started
          .stdout()
          .split('\n')
          .find((l) => l.includes('profiles add')) ?? ''
      expect(line).toMatch(/^\s*printf %s 'it'\\''s \$HOME' \| bk profiles add local .*--client-id 'a b' /)
      const added = await runShellLine(`${line.trim()} --insecure-storage`, {configDir}, 'sh')
      expect(added.code, added.stderr).toBe(0)
      const shown = await runBk(['profiles', 'show', 'local', '--json'], {configDir})
      expect(parseJsonOutput<{client_id: string}>(shown)).toMatchObject({client_id: 'a b'})
      // The emulator takes only its own id and secret: the list answers when both arrived intact.
      const listed = await runBk(['businesses', 'list', '--json', '--profile', 'local'], {configDir})
      expect(listed.code, listed.stderr).toBe(0)
      expect(parseJsonOutput<{data: Array<{id: string}>}>(listed).data.map((b) => b.id)).toEqual(['biz_demo_acme'])
    } finally {
      started.child.kill('SIGKILL')
    }
  })

  it('on every address (--host 0.0.0.0) prints the loopback base URL, which bk takes, and says so on stderr', async () => {
    const started = await startBinary(['--json', '--host', '0.0.0.0'])
    try {
      const info = JSON.parse(started.firstLine) as {base_url: string}
      expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      await whenOutput(started.child.stderr, () => started.stderr().includes('every address'), 'the warning')
      expect(started.stderr()).toContain('Warning: Listening on every address of this machine (--host 0.0.0.0)')
      const env = {BK_BASE_URL: info.base_url, BK_CLIENT_ID: 'local-client', BK_CLIENT_SECRET: 'local-secret'}
      const listed = await runBk(['businesses', 'list', '--json'], {env})
      expect(listed.code, listed.stderr).toBe(0)
      started.child.kill('SIGINT')
      expect((await started.exit).code).toBe(0)
    } finally {
      started.child.kill('SIGKILL')
    }
  })

  it('with --tls serves https, names its CA file, and removes it on SIGINT', async () => {
    const started = await startBinary(['--json', '--tls'])
    try {
      const info = JSON.parse(started.firstLine) as {base_url: string; ca_file: string}
      expect(info.base_url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
      expect(readFileSync(info.ca_file, 'utf8')).toContain('-----BEGIN CERTIFICATE-----')
      const env = {BK_BASE_URL: info.base_url, BK_CLIENT_ID: 'local-client', BK_CLIENT_SECRET: 'local-secret'}
      const trusted = await runBk(['businesses', 'list', '--json'], {env: {...env, BK_CA_FILE: info.ca_file}})
      expect(trusted.code, trusted.stderr).toBe(0)
      const untrusted = await runBk(['businesses', 'list'], {env})
      expect(untrusted.code).toBe(7)
      expect(untrusted.stderr).toContain('BK_CA_FILE')
      started.child.kill('SIGINT')
      expect((await started.exit).code).toBe(0)
      expect(existsSync(info.ca_file)).toBe(false)
    } finally {
      started.child.kill('SIGKILL')
    }
  })

  it("prints its own credentials as they are when the shell's BK_CLIENT_SECRET is the same", async () => {
    const secret = 'emulator-secret-in-the-shell-too'
    const env = {BK_CLIENT_SECRET: secret}
    const json = await startBinary(['--json', '--client-secret', secret], tempDir(), env)
    try {
      expect((JSON.parse(json.firstLine) as {client_secret: string}).client_secret).toBe(secret)
    } finally {
      json.child.kill('SIGKILL')
    }
    const text = await startBinary(['--client-secret', secret], tempDir(), env)
    try {
      await whenOutput(text.child.stdout, () => text.stdout().includes('Ctrl-C'), 'the whole banner')
      expect(text.stdout()).toContain(`client secret: ${secret}`)
      expect(text.stdout()).toContain(`printf %s ${secret} |`)
      expect(text.stdout()).not.toContain('[redacted]')
    } finally {
      text.child.kill('SIGKILL')
    }
  })

  it('refuses a --webhook-url that PUT /_emulator/webhook would refuse, with exit 2', async () => {
    for (const url of ['notaurl', 'ftp://x']) {
      const result = await runBk(['emulator', 'start', '--port', '0', '--webhook-url', url])
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain(`--webhook-url must be an absolute http(s) URL, got ${url}`)
      expect(result.stdout).toBe('')
    }
  })

  it('--help names the keys of the --json start line as printed', async () => {
    const help = await runBk(['emulator', 'start', '--help'])
    expect(help.code, help.stderr).toBe(0)
    const text = help.stdout.replace(/\s+/g, ' ')
    const named = [...text.matchAll(/"([a-zA-Z_]+)"/g)].map((m) => m[1]!)
    expect(named).toEqual([
      'base_url',
      'client_id',
      'client_secret',
      'business_ids',
      'ca_file',
      'state_file',
      'restored',
    ])
    const started = await startBinary(['--json', '--tls', '--state', join(tempDir(), 'emulator.state')])
    try {
      expect(Object.keys(JSON.parse(started.firstLine) as object).sort()).toEqual([...named].sort())
    } finally {
      // SIGINT: the emulator removes its CA file as it stops.
      started.child.kill('SIGINT')
      await started.exit
    }
  })

  it('refuses a fault rate outside 0..1 with exit 2', async () => {
    const result = await runBk(['emulator', 'start', '--port', '0', '--fault-rate', '1.5'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--fault-rate must be between 0 and 1')
    expect(result.stdout).toBe('')
  })
})

describe('bk emulator start on a busy port', () => {
  it('exits 2 naming the port and how to pick another', async () => {
    const {createServer} = await import('node:net')
    const holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    try {
      const port = (holder.address() as {port: number}).port
      const result = await runBk(['emulator', 'start', '--port', String(port)])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`)
      expect(result.stderr).toContain('--port 0')
      expect(result.stdout).toBe('')
    } finally {
      holder.close()
    }
  })
})

describe('bk emulator start with a bad --key or --host', () => {
  it('exits 2 naming a key file that does not exist, with a hint', async () => {
    const missing = join(tempDir(), 'nokey.pem')
    const result = await runBk(['emulator', 'start', '--port', '0', '--key', missing])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(`Error: The webhook signing key ${missing} does not exist`)
    expect(result.stderr).toContain('Hint: Give --key a PEM file of an RSA private key')
    expect(result.stderr).not.toMatch(/ENOENT|unexpected|report/i)
    expect(result.stdout).toBe('')
  })

  it('exits 2 naming a key file that holds no PEM key, without OpenSSL words', async () => {
    const garbage = join(tempDir(), 'garbage.pem')
    writeFileSync(garbage, 'not a key\n')
    const result = await runBk(['emulator', 'start', '--port', '0', '--key', garbage])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(`Error: ${garbage} is not a PEM private key`)
    expect(result.stderr).toContain('Hint: Give --key a PEM file')
    expect(result.stderr).not.toMatch(/DECODER|routines|unsupported/)
  })

  it('exits 2 naming a --host that is no address, before saying it listens there', async () => {
    const result = await runBk(['emulator', 'start', '--port', '0', '--host', '256.1.1.1'])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain('--host 256.1.1.1 is neither an IP address nor a name this machine resolves')
    expect(result.stderr).toContain('Hint: Give an address of this machine')
    expect(result.stderr).not.toContain('Listening on 256.1.1.1')
    expect(result.stderr).not.toContain('ENOTFOUND')
  })
})
