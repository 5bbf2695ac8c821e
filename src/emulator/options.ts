/** Start-up options of the emulator, with their defaults. */
import {FAULT_KINDS, type FaultKind} from './faults.js'

export interface EmulatorOptions {
  host?: string
  /** 0 picks a free port. */
  port?: number
  clientId?: string
  clientSecret?: string
  /** demo: three businesses and their records; empty: one business with its reference data; none: nothing. */
  seed?: 'demo' | 'empty' | 'none'
  /** Seed this many invoices (and proportionally more of the rest) for benchmarks. */
  scale?: number
  tokenTtlSeconds?: number
  latencyMs?: number
  faultRate?: number
  faultSeed?: number
  /** The kinds of fault injected (all of FAULT_KINDS by default). */
  faultKinds?: readonly FaultKind[]
  webhookUrl?: string | undefined
  /**
   * The clock token lifetimes are measured by, in epoch milliseconds (Date.now by default): a
   * test moves it past a token's expiry instead of waiting for it. Not a flag of `bk emulator start`.
   */
  clock?: () => number
  /** Multiplies every webhook retry delay (0.001 makes 10 s into 10 ms) for tests. */
  timeScale?: number
  /** PEM file of the RSA private key that signs webhooks; generated when absent. */
  keyFile?: string | undefined
  /** Seconds sent in Retry-After with an injected 503 or 429. */
  retryAfterSeconds?: number
  /** Serve https with a certificate made at start for loopback and these extra host names. */
  tls?: {hosts?: string[]} | undefined
  /** Keep the data in this file across restarts (src/emulator/persist.ts). */
  stateFile?: string | undefined
  /** Fixture sets added after the seed, in order (src/emulator/fixtures.ts); not when a state file is loaded. */
  fixtures?: ReadonlyArray<{label: string; set: unknown}> | undefined
}

type Unset = 'webhookUrl' | 'keyFile' | 'tls' | 'stateFile' | 'fixtures'
export type ResolvedEmulatorOptions = Required<Omit<EmulatorOptions, Unset>> & Pick<EmulatorOptions, Unset>

export const DEFAULT_PORT = 4010

export function resolveOptions(options: EmulatorOptions): ResolvedEmulatorOptions {
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? DEFAULT_PORT,
    clientId: options.clientId ?? 'local-client',
    clientSecret: options.clientSecret ?? 'local-secret',
    seed: options.seed ?? 'demo',
    scale: options.scale ?? 0,
    tokenTtlSeconds: options.tokenTtlSeconds ?? 3600,
    latencyMs: options.latencyMs ?? 0,
    faultRate: options.faultRate ?? 0,
    faultSeed: options.faultSeed ?? 1,
    faultKinds: options.faultKinds ?? FAULT_KINDS,
    webhookUrl: options.webhookUrl,
    clock: options.clock ?? Date.now,
    timeScale: options.timeScale ?? 1,
    keyFile: options.keyFile,
    retryAfterSeconds: options.retryAfterSeconds ?? 1,
    tls: options.tls,
    stateFile: options.stateFile,
    fixtures: options.fixtures,
  }
}
