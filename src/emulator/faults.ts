/**
 * Fault injection for reliability tests: with probability `faultRate` a request meets one of
 * the selected kinds (`faultKinds`, all by default), spread evenly and reproducible with
 * `faultSeed` (see `isFaultExempt`):
 * - 503 with Retry-After, and 429 with Retry-After: the request is not handled;
 * - reset-before: the connection is destroyed before the request is handled;
 * - reset-after: the request is handled and committed, then the connection is destroyed
 *   without an answer (the outcome the client cannot know);
 * - commit-5xx: the request is handled and committed, then answered 500, 502 or 504 in turn, as a
 *   gateway or a failing service may after the work was done (again an outcome the client cannot
 *   know: bk must never send it again).
 */
import {seededRandom} from './state.js'

export const FAULT_KINDS = ['503', '429', 'reset-before', 'reset-after', 'commit-5xx'] as const
export type FaultKind = (typeof FAULT_KINDS)[number]

export interface FaultPlan {
  /** The fault for the next request, if any. */
  next(path: string): FaultKind | undefined
  /** How many of each kind were injected. */
  readonly counts: Record<FaultKind, number>
  /** The status a commit-5xx answers with: 500, 502 and 504 in turn. */
  commitStatus(): number
}

const COMMIT_STATUSES = [500, 502, 504] as const

/**
 * Paths never faulted: the emulator's own routes (inspection, reset, trigger) and the public key
 * set. The business lifecycle routes stand for operations of the service, so they are faulted.
 */
const EXEMPT = /^\/(_emulator\/|\.well-known\/)/
const LIFECYCLE = /^\/_emulator\/businesses(\/[^/]+\/(activate|deactivate))?\/?$/

function isFaultExempt(path: string): boolean {
  return EXEMPT.test(path) && !LIFECYCLE.test(path)
}

/** The fault options of the emulator (options.ts): probability, seed and kinds. */
export interface FaultOptions {
  faultRate: number
  faultSeed: number
  faultKinds: readonly FaultKind[]
}

export function createFaultPlan(options: FaultOptions): FaultPlan {
  const random = seededRandom(options.faultSeed)
  const kinds = options.faultKinds
  const counts: Record<FaultKind, number> = {'503': 0, '429': 0, 'reset-before': 0, 'reset-after': 0, 'commit-5xx': 0}
  let commits = 0
  return {
    counts,
    commitStatus: () => COMMIT_STATUSES[commits++ % COMMIT_STATUSES.length] as number,
    next(path) {
      if (options.faultRate <= 0 || kinds.length === 0 || isFaultExempt(path)) return undefined
      if (random() >= options.faultRate) return undefined
      const kind = kinds[Math.floor(random() * kinds.length)] as FaultKind
      counts[kind]++
      return kind
    },
  }
}
