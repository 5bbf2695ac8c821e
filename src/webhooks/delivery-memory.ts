/**
 * What `bk webhooks listen` remembers of the deliveries it handled: each svc-id, for as long as a
 * copy of it can still arrive (a retry, a replay, the overlap of a catch-up with live traffic),
 * and the last one, where a catch-up starts from. Bounded by time, not by a count: an id is
 * forgotten `windowMs` after it was handled (a day by default), however many came since, so an
 * old id replayed after ten thousand others is still a duplicate.
 *
 * It also keeps the deliveries forwarded and not (yet) acknowledged by the target: recorded
 * before the forward starts, dropped once the target took it. Each keeps the last id handled when
 * it was first seen, so a catch-up can start just before the oldest of them (`catchUpFrom`), not
 * after the last one handled. While one waits, the ids handled after it are kept past their
 * window, so that catch-up does not forward them again.
 *
 * With `--state FILE` it is kept in that file (src/shared/state-file.ts: written whole, refused when
 * torn), saved before the listener answers 200, so nothing is forwarded twice across restarts.
 */
import {CoalescedSaves, readStateFile, writeStateFile} from '../shared/state-file.js'

const FORMAT = 'bk-webhooks-listen-state'
export const DEDUPE_WINDOW_MS = 24 * 60 * 60 * 1000

interface Saved {
  lastId: string | null
  /** [svc-id, handled at (ms)], oldest first. */
  handled: Array<[string, number]>
  /** [svc-id, the last id handled when it was first seen, first seen at (ms)], oldest first. */
  unacknowledged?: Array<[string, string | null, number]>
}

interface Unacknowledged {
  after: string | null
  at: number
}

/** Where a catch-up reads from: after `since` (from the start when null), forwarding from `firstId` on when given. */
export interface CatchUpStart {
  since: string | null
  /** With no id to read after: the first one to forward (those before it were never this listener's). */
  firstId?: string
  /** The ids forwarded and not acknowledged, oldest first. */
  unacknowledged: string[]
}

export class DeliveryMemory {
  /** svc-id -> when it was handled (ms); insertion order is time order. */
  private readonly handled = new Map<string, number>()
  private last: string | null = null
  /** svc-id -> where it stood; insertion order is the order first seen. */
  private readonly unacked = new Map<string, Unacknowledged>()
  private readonly saves = new CoalescedSaves(() =>
    writeStateFile(
      this.file!,
      FORMAT,
      JSON.stringify({
        lastId: this.last,
        handled: [...this.handled],
        unacknowledged: [...this.unacked].map(([id, u]) => [id, u.after, u.at]),
      } satisfies Saved),
    ),
  )

  private constructor(
    readonly file: string | undefined,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** A memory kept in `file` (loaded when it exists; a damaged one throws StateFileError), or in memory only. */
  static async open(
    file: string | undefined,
    options: {windowMs?: number; now?: () => number} = {},
  ): Promise<DeliveryMemory> {
    const memory = new DeliveryMemory(file, options.windowMs ?? DEDUPE_WINDOW_MS, options.now ?? Date.now)
    const text = file ? await readStateFile(file, FORMAT, 'listen state file') : undefined
    if (text !== undefined) {
      const saved = JSON.parse(text) as Saved
      memory.last = saved.lastId
      for (const [id, at] of saved.handled) memory.handled.set(id, at)
      for (const [id, after, at] of saved.unacknowledged ?? []) memory.unacked.set(id, {after, at})
      memory.prune()
    }
    return memory
  }

  /** The last svc-id handled: a catch-up replays what the service holds after it. */
  get lastId(): string | null {
    return this.last
  }

  get size(): number {
    return this.handled.size
  }

  has(id: string): boolean {
    this.prune()
    return this.handled.has(id)
  }

  /** Where a catch-up starts: before the oldest delivery not acknowledged, else after the last handled; null when neither is known. */
  catchUpFrom(): CatchUpStart | null {
    const unacknowledged = [...this.unacked.keys()]
    const [oldest] = this.unacked
    if (!oldest) return this.last === null ? null : {since: this.last, unacknowledged}
    const [id, {after}] = oldest
    return after === null ? {since: null, firstId: id, unacknowledged} : {since: after, unacknowledged}
  }

  /** Records a forward about to start; resolves once that is on disk (with a file). */
  async forwarding(id: string): Promise<void> {
    if (this.unacked.has(id)) return
    this.unacked.set(id, {after: this.last, at: this.now()})
    await this.save()
  }

  /** Forgets a delivery that was not acknowledged and cannot be caught up (the service no longer lists it). */
  async giveUp(id: string): Promise<void> {
    if (this.unacked.delete(id)) await this.save()
  }

  /** Records a delivery as handled; resolves once that is on disk (with a file). */
  async add(id: string): Promise<void> {
    this.unacked.delete(id)
    this.handled.delete(id)
    this.handled.set(id, this.now())
    this.last = id
    this.prune()
    await this.save()
  }

  private prune(): void {
    const [waiting] = this.unacked.values()
    const oldest = Math.min(this.now() - this.windowMs, waiting?.at ?? Number.POSITIVE_INFINITY)
    for (const [id, at] of this.handled) {
      if (at >= oldest) break
      this.handled.delete(id)
    }
  }

  /** Coalesced writes: a change made while one is written goes into the next. */
  save(): Promise<void> {
    return this.file ? this.saves.save() : Promise.resolve()
  }
}
