/**
 * `bk doctor`'s report as text and JSON, and the support bundle: a folder with the report, the
 * versions, the network-related environment (values that are secrets replaced), and the --debug
 * trace of one command, every file cleaned of each secret the run knows and of anything shaped
 * like a bearer token, so it can be sent to support as it is.
 */
import {spawn} from 'node:child_process'
import {join} from 'node:path'

import {REDACTED, redactKnown} from '../api/redact.js'
import {privateFolder, writeNewPrivateFile} from '../files/private-file.js'
import {printableProxyValue} from '../net/proxy.js'
import {InputError} from '../shared/errors.js'
import {bkItself} from '../shared/own-process.js'
import {counted, formatCount} from '../shared/counts.js'
import type {Check} from './checks.js'

export interface DoctorReport {
  ok: boolean
  bk: string
  node: string
  platform: string
  checks: ReportedCheck[]
}

/** A check as --json prints it: every key always there, so scripts can rely on the shape. */
export interface ReportedCheck {
  id: string
  status: Check['status']
  detail: string
  fix: string | null
  ms: number | null
}

export function reported(check: Check): ReportedCheck {
  return {id: check.id, status: check.status, detail: check.detail, fix: check.fix ?? null, ms: check.ms ?? null}
}

const MARK: Record<Check['status'], string> = {pass: 'pass', warn: 'WARN', fail: 'FAIL', skip: 'skip'}

export function reportText(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((c) => c.id.length))
  const lines: string[] = []
  for (const c of report.checks) {
    lines.push(`${MARK[c.status]}  ${c.id.padEnd(width)}  ${c.detail}`)
    if (c.fix && (c.status === 'warn' || c.status === 'fail')) lines.push(`${' '.repeat(width + 8)}fix: ${c.fix}`)
  }
  const failed = report.checks.filter((c) => c.status === 'fail').length
  const warned = report.checks.filter((c) => c.status === 'warn').length
  lines.push(
    '',
    failed
      ? `${counted(failed, 'check')} failed${warned ? `, ${formatCount(warned)} warned` : ''}: fix the first one first.`
      : warned
        ? `No failures; ${counted(warned, 'warning')}.`
        : 'Everything bk needs works.',
  )
  return lines.join('\n') + '\n'
}

/** Anything that looks like a bearer token or a secret-named JSON field, whoever printed it. */
function scrub(text: string): string {
  return redactKnown(text)
    .replace(/(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, `$1${REDACTED}`)
    .replace(/("(?:access_token|client_secret|refresh_token|token|password)"\s*:\s*")[^"]+"/gi, `$1${REDACTED}"`)
    .replace(/(client_secret=)[^&\s"]+/gi, `$1${REDACTED}`)
    .replace(/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/g, REDACTED)
}

/** Environment variables that shape what bk does; secrets shown only as set. */
function environmentOf(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {}
  const secret = /SECRET|TOKEN|PASSWORD/i
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue
    if (k.startsWith('BK_')) out[k] = secret.test(k) ? '[set]' : v
    else if (/^(https?_proxy|all_proxy)$/i.test(k)) out[k] = printableProxyValue(v)
    else if (/^no_proxy$/i.test(k)) out[k] = v
    else if (['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'CI', 'DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR'].includes(k))
      out[k] = v
  }
  return out
}

export interface BundleOptions {
  dir: string
  report: DoctorReport
  /** `bk` arguments to run once with --debug, its trace kept (e.g. `businesses list`). */
  command?: string[] | undefined
  bin: string
  env?: NodeJS.ProcessEnv
}

/** Writes the bundle; returns the files written. */
export async function writeBundle(options: BundleOptions): Promise<string[]> {
  const env = options.env ?? process.env
  await privateFolder('--bundle', options.dir)
  const files: Array<[string, string]> = [
    ['report.txt', reportText(options.report)],
    ['report.json', JSON.stringify(options.report, null, 2) + '\n'],
    [
      'versions.json',
      JSON.stringify({bk: options.report.bk, platform: options.report.platform, versions: process.versions}, null, 2) +
        '\n',
    ],
    ['environment.json', JSON.stringify(environmentOf(env), null, 2) + '\n'],
  ]
  if (options.command?.length) files.push(['command.txt', await traceOf(options.bin, options.command, env)])
  const written: string[] = []
  for (const [name, text] of files) {
    const file = join(options.dir, name)
    await writeNewPrivateFile('--bundle', file, scrub(text))
    written.push(file)
  }
  return written
}

/** Runs `bk ARGS --debug` with no terminal and returns what it printed, and how it ended. */
function traceOf(bin: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve) => {
    const bk = bkItself(bin, [...args, '--debug'])
    const child = spawn(bk.command, bk.args, {
      env: {...env, ...bk.env, BK_DEBUG: '1', CI: env.CI ?? '1'},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (out += d.toString()))
    const timer = setTimeout(() => child.kill('SIGTERM'), 120_000)
    child.once('error', (error) => {
      clearTimeout(timer)
      resolve(`$ bk ${args.join(' ')} --debug\n(could not run: ${error.message})\n`)
    })
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      resolve(`$ bk ${args.join(' ')} --debug\n${out}\n(exit ${code ?? signal})\n`)
    })
  })
}

/**
 * Refuses a --command whose purpose is to print a secret (`auth token`): its output is the
 * token itself, which no scrubbing can tell from other text.
 */
export function checkTraceCommand(args: string[]): void {
  const words = args.filter((a) => !a.startsWith('-'))
  const id = words[0]?.includes(':') ? words[0] : words.slice(0, 2).join(':')
  if (id === 'auth:token')
    throw new InputError('--command: "auth token" prints an access token, which a support bundle must not hold', {
      hint: 'Trace a command that uses the token instead, e.g. --command "businesses list".',
      details: {flag: '--command', value: args.join(' ')},
    })
}

/** Splits a --command value into arguments: spaces separate, single or double quotes group. */
export function splitCommand(value: string): string[] {
  const args: string[] = []
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g
  for (const m of value.matchAll(re)) args.push(m[1] ?? m[2] ?? m[3] ?? '')
  return args[0] === 'bk' ? args.slice(1) : args
}
