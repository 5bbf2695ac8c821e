/**
 * `bk webhooks listen --catch-up`: what the service sent while the listener was down. The
 * notifications created after the last delivery the listener handled (its state file says which)
 * are read from the authenticated notifications API, in order, and forwarded as live deliveries
 * are, before any live delivery is; an id already handled is skipped, so nothing is forwarded
 * twice. They carry `bk-replay: 1` and no signature (bk cannot sign): they come from the API over
 * the profile's credentials, not from the network.
 *
 * A notification the target refuses is tried again, with growing pauses, until it takes it or
 * the listener stops: skipping it would break the order.
 */
import {setTimeout as sleep} from 'node:timers/promises'

import type {BkClient} from '../api/client.js'
import {ApiError} from '../api/errors.js'
import {WEBHOOK_ID_HEADER} from '../shared/spec.js'
import {REPLAY_HEADER} from './forward.js'
import {catchUpEvent, type Forwarder, type ListenerEvent} from './listener.js'
import {replay} from './replay.js'

export interface CatchUpOptions {
  client: BkClient
  /** The last id handled; nothing to catch up without one. */
  since: string | null
  forward: Forwarder
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
}

const MAX_RETRY_DELAY_MS = 30_000

export async function catchUp(options: CatchUpOptions): Promise<CatchUpResult> {
  const result: CatchUpResult = {forwarded: 0, skipped: 0}
  if (!options.since) return {...result, note: 'no delivery handled yet in this state file: nothing to catch up from'}
  try {
    await replay({
      client: options.client,
      since: options.since,
      signal: options.signal,
      onItem: async (item) => {
        const headers = {'content-type': 'application/json', [WEBHOOK_ID_HEADER]: item.id, [REPLAY_HEADER]: '1'}
        let delay = options.retryDelayMs ?? 1_000
        for (;;) {
          const event = catchUpEvent(item.id, item.body)
          const status = await options.forward(item.id, item.body, headers, event)
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
      },
    })
  } catch (error) {
    if (error instanceof ApiError && error.status === 404)
      return {
        ...result,
        note: `the service does not know ${options.since}, the last delivery handled, so nothing after it can be placed; nothing was caught up (bk webhooks replay --since or without it replays what you choose)`,
      }
    throw error
  }
  return result
}
