/**
 * `bk webhooks replay --junit`: one test case per notification. With --forward-to a case fails
 * when its re-post failed; without, it reports the delivery status the service keeps (error: a
 * failure, pending: skipped, sent: passed), so a CI job can watch for undelivered notifications.
 */
import {checkJunitPath, writeJunit, type JunitCase} from './junit.js'

export interface ReplayedNotification {
  id: string
  datetime: string
  status: string
  type: string
  forwarded: {url: string; status: number | null; ok: boolean; error?: string; detail?: string} | null
}

export {checkJunitPath}

function outcomeOf(item: ReplayedNotification, forwarded: boolean): JunitCase['outcome'] {
  const f = item.forwarded
  if (forwarded) {
    if (!f || f.ok) return undefined
    const why = `${f.error ?? `HTTP ${f.status}`}${f.detail ? `: ${f.detail}` : ''}`
    return {kind: 'failure', type: 'forward', message: `re-post to ${f.url} failed: ${why}`}
  }
  if (item.status === 'error') return {kind: 'failure', type: 'delivery', message: 'the service could not deliver it'}
  if (item.status === 'pending') return {kind: 'skipped', message: 'not delivered yet (pending)'}
  return undefined
}

export function writeReplayJunit(
  path: string,
  items: readonly ReplayedNotification[],
  forwardTo: string | undefined,
  timeMs: number,
): void {
  writeJunit(path, 'bk webhooks replay', [
    {
      name: forwardTo ? `re-posted to ${forwardTo}` : 'notifications',
      timeMs,
      cases: items.map((item) => ({
        name: `${item.id} ${item.type}`,
        classname: 'webhooks',
        outcome: outcomeOf(item, forwardTo !== undefined),
        output: `${item.datetime} ${item.status}${item.forwarded?.status ? ` → ${item.forwarded.status}` : ''}`,
      })),
    },
  ])
}
