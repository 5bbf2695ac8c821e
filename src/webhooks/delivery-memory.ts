/**
 * What `bk webhooks listen` remembers of the deliveries it handled: each svc-id, for as long as a
 * copy of it can still arrive (a retry, a replay, the overlap of a catch-up with live traffic),
 * and the last one, where a catch-up starts from. Bounded by time, not by a count: an id is
 * forgotten `windowMs` after it was handled (a day by default), however many came since, so an
 * old id replayed after ten thousand others is still a duplicate.
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
}

export class DeliveryMemory {
  /** svc-id -> when it was handled (ms); insertion order is time order. */
  private readonly handled = new Map<string, number>()
  private last: string | null = null
  private readonly saves = new CoalescedSaves(() =>
    writeStateFile(this.file!, FORMAT, JSON.stringify({lastId: this.last, handled: [...this.handled]} satisfies Saved)),
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

  /** Records a delivery as handled; resolves once that is on disk (with a file). */
  async add(id: string): Promise<void> {
    this.handled.delete(id)
    this.handled.set(id, this.now())
    this.last = id
    this.prune()
    await this.save()
  }

  private prune(): void {
    const oldest = this.now() - this.windowMs
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
