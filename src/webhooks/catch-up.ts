/**
 * `bk webhooks listen --catch-up`: what the target has not acknowledged. The listener's state
 * file records each delivery forwarded and not acknowledged (refused, or cut short by a kill),
 * with the last delivery handled before it; the catch-up reads the notifications API from there
 * (or, when nothing was handled before it, from the start, forwarding from that delivery on), in
 * order, and forwards each one not handled yet, before any live delivery. With none waiting, it
 * starts after the last delivery handled. An id already handled is skipped.
 *
 * A kill during a forward may repeat that one delivery once (the target may have taken it before
 * the listener could record it): it carries the same `svc-id`, so the target can drop it.
 * Caught-up posts carry `bk-replay: 1` and no signature (bk cannot sign): they come from the API
 * over the profile's credentials, not from the network.
 *
 * A notification the target refuses is tried again, with growing pauses, until it takes it or
 * the listener stops: skipping it would break the order.
 */
import {setTimeout as sleep} from 'node:timers/promises'

import type {BkClient} from '../api/client.js'
import {ApiError} from '../api/errors.js'
import {WEBHOOK_ID_HEADER} from '../shared/spec.js'
import {REPLAY_HEADER} from './forward.js'
import type {CatchUpStart, DeliveryMemory} from './delivery-memory.js'
import {catchUpEvent, type Forwarder, type ListenerEvent} from './listener.js'
import {replay} from './replay.js'

export interface CatchUpOptions {
  client: BkClient
  memory: DeliveryMemory
  forward: Forwarder
  /** Only these event types are forwarded (--events); the others are passed over. */
  events?: readonly string[] | undefined
  signal: AbortSignal
  onEvent(event: ListenerEvent): void
  /** The first pause after a refused forward; doubled up to 30 s. */
  retryDelayMs?: number
}

export interface CatchUpResult {
  /** Forwarded now. */
  forwarded: number
  /** Already handled (a live copy, or an earlier run). */
  skipped: number
  /** Why nothing was caught up, when nothing could be. */
  note?: string
  /** Not acknowledged, and not listed where the catch-up read: given up (the service no longer has them there). */
  lost: string[]
}

const MAX_RETRY_DELAY_MS = 30_000

export async function catchUp(options: CatchUpOptions): Promise<CatchUpResult> {
  const result: CatchUpResult = {forwarded: 0, skipped: 0, lost: []}
  const start = options.memory.catchUpFrom()
  if (!start) return {...result, note: 'no delivery handled yet in this state file: nothing to catch up from'}
  const waiting = new Set(start.unacknowledged)
  let reached = start.firstId === undefined
  try {
    await replay({
      client: options.client,
      since: start.since ?? undefined,
      signal: options.signal,
      onItem: async (item) => {
        waiting.delete(item.id)
        reached ||= item.id === start.firstId
        if (!reached || (options.events && !options.events.includes(item.type))) return
        await forwardUntilTaken(options, item.id, item.body, result)
      },
    })
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return {...result, note: unknownSince(start)}
    throw error
  }
  if (!options.signal.aborted)
    for (const id of waiting) {
      await options.memory.giveUp(id)
      result.lost.push(id)
    }
  return result
}

function unknownSince(start: CatchUpStart): string {
  return `the service does not know ${start.since}, the last delivery handled before the catch-up's start, so nothing after it can be placed; nothing was caught up (bk webhooks replay --since or without it replays what you choose)`
}

/** Forwards one notification, again and again after growing pauses, until the target takes it or the listener stops. */
async function forwardUntilTaken(options: CatchUpOptions, id: string, body: string, result: CatchUpResult) {
  const headers = {'content-type': 'application/json', [WEBHOOK_ID_HEADER]: id, [REPLAY_HEADER]: '1'}
  let delay = options.retryDelayMs ?? 1_000
  for (;;) {
    const event = catchUpEvent(id, body)
    const status = await options.forward(id, body, headers, event)
    event.status = status
    if (event.duplicate) {
      result.skipped++
      return
    }
    if (status !== 200)
      event.reason = `forwarding failed: ${event.forwarded?.status ?? event.forwarded?.error ?? 'no answer'}`
    options.onEvent(event)
    if (status === 200) {
      result.forwarded++
      return
    }
    if (options.signal.aborted) return
    await sleep(delay, undefined, {signal: options.signal}).catch(() => {})
    delay = Math.min(MAX_RETRY_DELAY_MS, delay * 2)
  }
}
