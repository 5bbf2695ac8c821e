import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {InputError} from '../../shared/errors.js'
import type {FaultKind} from '../../emulator/faults.js'
import type {EmulatorOptions} from '../../emulator/options.js'
import {splitList} from '../../cli/flags.js'
import {shellWord} from '../../output/shell-word.js'

export interface EmulatorStartResult {
  baseUrl: string
  clientId: string
  clientSecret: string
  businessIds: string[]
  /** With --tls: the CA file to trust (BK_CA_FILE). */
  caFile?: string
  /** With --state: the file, and whether the data came from it. */
  stateFile?: string
  restored?: boolean
}

export default class EmulatorStart extends BaseCommand<typeof EmulatorStart> {
  static override summary = 'Run the local emulator of the bookkeeping service.'
  static override description =
    'Serves every endpoint of the API on a loopback port with seed data, signed webhooks and fault injection, until Ctrl-C. With --tls it serves https with a certificate authority made at start, written to the file the start line names (use it as BK_CA_FILE). With --json the first stdout line is {"base_url","client_id","client_secret","business_ids"} (and "ca_file" with --tls, "state_file" and "restored" with --state).'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --port 0 --json',
    '<%= config.bin %> <%= command.id %> --tls',
    '<%= config.bin %> <%= command.id %> --seed empty --fault-rate 0.2 --fault-seed 7',
    '<%= config.bin %> <%= command.id %> --seed none --fixtures examples/emulator-fixtures.yaml --state emulator.state',
  ]

  static override flags = {
    port: Flags.integer({summary: 'Port to listen on (0 picks a free one).', default: 4010, min: 0, max: 65535}),
    host: Flags.string({summary: 'Address to listen on.', default: '127.0.0.1'}),
    'client-id': Flags.string({summary: 'Client id the emulator accepts.', default: 'local-client'}),
    'client-secret': Flags.string({summary: 'Client secret the emulator accepts.', default: 'local-secret'}),
    seed: Flags.option({
      options: ['demo', 'empty', 'none'] as const,
      summary: 'Seed data: demo businesses and records, one business (empty), or nothing (none).',
      default: 'demo',
    })(),
    fixtures: Flags.string({
      summary: 'Add your own businesses, vendors, ledgers, tags and records from a YAML or JSON file (repeatable).',
      helpValue: 'FILE',
      multiple: true,
    }),
    state: Flags.string({
      summary: 'Keep the data in this file across restarts (loaded when it exists; then no seed or fixtures).',
      helpValue: 'FILE',
    }),
    scale: Flags.integer({
      summary: 'Seed this many invoices (and more of the rest) for benchmarks.',
      min: 0,
      default: 0,
    }),
    'token-ttl': Flags.integer({summary: 'Lifetime of access tokens, in seconds.', min: 1, default: 3600}),
    latency: Flags.integer({summary: 'Added latency per request, in milliseconds.', min: 0, default: 0}),
    'fault-rate': Flags.string({
      summary:
        'Share of requests (0 to 1) that meet a fault: 503, 429, or a dropped connection before or after handling.',
      default: '0',
    }),
    'fault-kinds': Flags.string({
      summary:
        'Comma-separated kinds of fault to inject: 503, 429, reset-before, reset-after, commit-5xx (handled, then answered 500/502/504). All by default.',
    }),
    'fault-seed': Flags.integer({summary: 'Seed that makes the faults reproducible.', default: 1}),
    'retry-after': Flags.integer({
      summary: 'Seconds sent in Retry-After with an injected 503 or 429.',
      min: 0,
      default: 1,
    }),
    'webhook-url': Flags.string({summary: 'Deliver signed webhooks to this URL.'}),
    'time-scale': Flags.string({
      summary: 'Multiplier of webhook retry delays (0.001 turns 10 s into 10 ms).',
      default: '1',
    }),
    key: Flags.string({summary: 'PEM file of the RSA private key that signs webhooks (generated when absent).'}),
    tls: Flags.boolean({
      summary: 'Serve https, with a certificate authority made at start and written to a file (needs openssl).',
    }),
  }

  async run(): Promise<EmulatorStartResult | undefined> {
    const {flags} = this
    const checked = await checkFlags(flags)
    await checkHost(flags.host)
    const [{isLoopback}, {isEveryAddress}] = await Promise.all([
      import('../../net/loopback.js'),
      import('../../shared/listen-address.js'),
    ])
    if (isEveryAddress(flags.host))
      this.warn(
        `Listening on every address of this machine (--host ${flags.host}): anyone who can reach it can use the emulator. The base URL printed is the loopback one, which bk takes on this machine.`,
      )
    else if (!isLoopback(flags.host))
      this.warn(
        `Listening on ${flags.host}, which is not a loopback address: anyone who can reach it can use the emulator.`,
      )
    const {loadFixturesFile} = await import('../../fixtures/load.js')
    const fixtureFiles = await Promise.all((flags.fixtures ?? []).map((file) => loadFixturesFile(file)))
    // One emulator per state file: two would each write their own state over the other's.
    const {acquireRunLock} = await import('../../files/run-lock.js')
    const stateLock = flags.state
      ? acquireRunLock(flags.state, `The emulator state file ${flags.state}`, {
          hint: 'Stop the emulator that uses it, or give this one another --state file.',
        })
      : undefined
    const {startEmulator} = await import('../../emulator/server.js')
    const emulator = await startEmulator(emulatorOptions(flags, checked, fixtureFiles)).catch(
      async (error: NodeJS.ErrnoException) => {
        stateLock?.release()
        throw await startError(error, flags, fixtureFiles)
      },
    )
    const info: EmulatorStartResult = {
      baseUrl: emulator.baseUrl,
      clientId: emulator.clientId,
      clientSecret: emulator.clientSecret,
      businessIds: emulator.businessIds,
      ...(emulator.caFile ? {caFile: emulator.caFile} : {}),
      ...(flags.state ? {stateFile: flags.state, restored: emulator.restored} : {}),
    }
    // The start line exists to hand out these credentials (a CI script reads them): shown as they
    // are, even when the shell's BK_CLIENT_SECRET is the same value and would be redacted.
    const {revealSecret} = await import('../../api/redact.js')
    revealSecret(emulator.clientSecret)
    if (this.jsonEnabled()) this.writeJsonLine(info)
    else process.stdout.write(startText(info, this.config.bin, fixtureFiles.length > 0))
    await new Promise<void>((resolve) => {
      const stop = () => resolve()
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
    await emulator.close()
    stateLock?.release()
    return undefined
  }
}

type StartFlags = EmulatorStart['flags']
type FixtureFile = Awaited<ReturnType<typeof import('../../fixtures/load.js').loadFixturesFile>>

/** The flags that take more than oclif checks: the fault rate and kinds, the time scale, the webhook URL. */
async function checkFlags(
  flags: StartFlags,
): Promise<{faultRate: number; faultKinds: string[] | undefined; timeScale: number}> {
  const faultRate = Number(flags['fault-rate'])
  const timeScale = Number(flags['time-scale'])
  if (!(faultRate >= 0 && faultRate <= 1))
    throw new InputError(`--fault-rate must be between 0 and 1, got ${flags['fault-rate']}`)
  const faultKinds = splitList(flags['fault-kinds'])
  const {FAULT_KINDS} = await import('../../emulator/faults.js')
  const unknownKind = faultKinds?.find((k) => !(FAULT_KINDS as readonly string[]).includes(k))
  if (unknownKind !== undefined)
    throw new InputError(`--fault-kinds: unknown kind ${unknownKind}; the kinds are ${FAULT_KINDS.join(', ')}`)
  if (!(timeScale > 0)) throw new InputError(`--time-scale must be a positive number, got ${flags['time-scale']}`)
  const {WEBHOOK_URL_RULE, webhookUrl} = await import('../../emulator/webhooks/url.js')
  if (flags['webhook-url'] !== undefined && webhookUrl(flags['webhook-url']) === undefined)
    throw new InputError(`--webhook-url must be ${WEBHOOK_URL_RULE}, got ${flags['webhook-url']}`, {
      hint: 'Give the address of your webhook receiver, such as --webhook-url http://127.0.0.1:8787/.',
    })
  return {faultRate, faultKinds, timeScale}
}

/**
 * --host before anything says it listens there: an address, or a name this machine resolves
 * (256.1.1.1 is neither, and would fail later as a failed DNS lookup).
 */
async function checkHost(host: string): Promise<void> {
  const [{isIP}, {lookup}] = await Promise.all([import('node:net'), import('node:dns/promises')])
  if (isIP(host) !== 0) return
  const resolved = await lookup(host).then(
    () => true,
    () => false,
  )
  if (!resolved)
    throw new InputError(`--host ${host} is neither an IP address nor a name this machine resolves`, {
      hint: 'Give an address of this machine: 127.0.0.1 (the default), ::1, or 0.0.0.0 for every interface.',
    })
}

/** The emulator's options from the flags. */
function emulatorOptions(
  flags: StartFlags,
  {faultRate, faultKinds, timeScale}: Awaited<ReturnType<typeof checkFlags>>,
  fixtureFiles: FixtureFile[],
): EmulatorOptions {
  return {
    host: flags.host,
    port: flags.port,
    clientId: flags['client-id'],
    clientSecret: flags['client-secret'],
    seed: flags.seed,
    scale: flags.scale,
    tokenTtlSeconds: flags['token-ttl'],
    latencyMs: flags.latency,
    faultRate,
    faultSeed: flags['fault-seed'],
    ...(faultKinds ? {faultKinds: faultKinds as FaultKind[]} : {}),
    retryAfterSeconds: flags['retry-after'],
    webhookUrl: flags['webhook-url'],
    timeScale,
    keyFile: flags.key,
    tls: flags.tls ? {} : undefined,
    stateFile: flags.state,
    fixtures: fixtureFiles.map((f) => ({label: f.file, set: f.set})),
  }
}

/** Why the emulator did not start, as bk's error: TLS set-up, the state file, fixtures, the port. */
async function startError(
  error: NodeJS.ErrnoException,
  flags: StartFlags,
  fixtureFiles: FixtureFile[],
): Promise<Error> {
  const {BkError, ExitCode} = await import('../../shared/errors.js')
  const {TlsSetupError} = await import('../../emulator/tls.js')
  if (error instanceof TlsSetupError) return new BkError(error.message, {code: error.code, hint: error.hint})
  const {SigningKeyError} = await import('../../emulator/webhooks/signer.js')
  if (error instanceof SigningKeyError)
    return new BkError(error.message, {code: error.code, exitCode: ExitCode.usage, hint: error.hint})
  const {StateFileError} = await import('../../shared/state-file.js')
  if (error instanceof StateFileError)
    return new BkError(error.message, {code: 'state_file_unusable', exitCode: 2, hint: error.hint})
  const {FixtureError} = await import('../../emulator/fixtures.js')
  if (error instanceof FixtureError) {
    const {fixtureProblems, pathText} = await import('../../fixtures/load.js')
    const loaded = fixtureFiles.find((f) => f.file === error.source)
    return fixtureProblems(
      error.source ?? 'fixtures',
      error.problems.map((p) => ({
        where: loaded?.where(p.path) ?? error.source ?? '',
        path: pathText(p.path),
        message: p.message,
      })),
      'checked against the emulator',
    )
  }
  const {listenError} = await import('../../cli/listen-error.js')
  return listenError(error, flags.host, flags.port)
}

/**
 * The start lines for a person: where it listens, the credentials, and the line that saves them,
 * each value a shell word so the line pasted into a shell passes it as it is.
 */
function startText(info: EmulatorStartResult, bin: string, hasFixtures: boolean): string {
  return [
    `Emulator listening on ${info.baseUrl}`,
    `  client id:     ${info.clientId}`,
    `  client secret: ${info.clientSecret}`,
    `  businesses:    ${info.businessIds.join(', ')}`,
    ...(info.caFile ? [`  CA file:       ${info.caFile} (removed when the emulator stops)`] : []),
    ...(info.stateFile
      ? [
          `  state file:    ${info.stateFile} (${info.restored ? `loaded${hasFixtures ? '; --fixtures not applied again' : ''}` : 'new'}; kept up to date)`,
        ]
      : []),
    '',
    'Use it with:',
    ...(info.caFile ? [`  export BK_CA_FILE=${shellWord(info.caFile)}`] : []),
    `  printf %s ${shellWord(info.clientSecret)} | ${bin} profiles add local --env local --base-url ${shellWord(info.baseUrl)} --client-id ${shellWord(info.clientId)}${info.businessIds[0] ? ` --business ${shellWord(info.businessIds[0])}` : ''} --client-secret-stdin`,
    'Press Ctrl-C to stop.',
    '',
  ].join('\n')
}
