/**
 * Notification ids (the `svc-id` of a delivery), which the spec says uniquely identify the
 * webhook request: a listener remembers the ids it handled, across resets and restarts of the
 * emulator, and drops an id it knows as a duplicate. So they come from the clock and from
 * randomness, not from the seeded generator of record ids, which a reset or a fresh start
 * replays. They keep the shape and the order of record ids (`msg_`, 8 sortable characters, 6
 * random ones): the notifications API places `webhook_id` by comparing ids.
 */
import {randomInt} from 'node:crypto'

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz'
const STAMP_LENGTH = 8

export class NotificationIds {
  /** The stamp of the last id made: the next one sorts after it even when the clock has not moved. */
  private last = 0

  /** A new id, after `after` (the last id kept, loaded from a state file perhaps) and every id made before. */
  next(after: string | undefined): string {
    const stamp = Math.max(Date.now(), this.last + 1, stampOf(after) + 1)
    this.last = stamp
    let tail = ''
    for (let i = 0; i < 6; i++) tail += ALPHABET[randomInt(ALPHABET.length)]
    return `msg_${stamp.toString(36).padStart(STAMP_LENGTH, '0')}${tail}`
  }
}

function stampOf(id: string | undefined): number {
  const stamp = id === undefined ? NaN : parseInt(id.slice('msg_'.length, 'msg_'.length + STAMP_LENGTH), 36)
  return Number.isSafeInteger(stamp) ? stamp : 0
}
