/**
 * Everything the emulated service holds, in memory. Ids are a kind prefix, an ordered counter
 * and a random tail, so string order is creation order: cursors stay stable when rows are added.
 */
import type {
  Bill,
  BusinessRecord,
  DocumentRecord,
  EventSink,
  Grant,
  Invoice,
  JournalEntry,
  NamedRecord,
  ReceiptRequestConfig,
  Refund,
  TaskRecord,
  Transaction,
  WebhookNotificationRecord,
} from './types.js'

/** A per-business list kept in id (creation) order, with lookup by id. */
export class BusinessCollection<T extends {id: string}> {
  private readonly lists = new Map<string, T[]>()
  private readonly byId = new Map<string, {businessId: string; item: T}>()

  add(businessId: string, item: T): T {
    let list = this.lists.get(businessId)
    if (!list) this.lists.set(businessId, (list = []))
    list.push(item)
    this.byId.set(item.id, {businessId, item})
    return item
  }

  /** All items of a business in id order (do not mutate). */
  all(businessId: string): readonly T[] {
    return this.lists.get(businessId) ?? []
  }

  get(businessId: string, id: string): T | undefined {
    const hit = this.byId.get(id)
    return hit && hit.businessId === businessId ? hit.item : undefined
  }

  delete(businessId: string, id: string): boolean {
    const hit = this.byId.get(id)
    if (!hit || hit.businessId !== businessId) return false
    this.byId.delete(id)
    const list = this.lists.get(businessId) ?? []
    list.splice(list.indexOf(hit.item), 1)
    return true
  }

  /** Every business's items, in id order (for saving the state). */
  entries(): Array<[string, readonly T[]]> {
    return [...this.lists.entries()]
  }

  count(businessId?: string): number {
    if (businessId !== undefined) return this.all(businessId).length
    return this.byId.size
  }

  clear(): void {
    this.lists.clear()
    this.byId.clear()
  }
}

/** A small seeded PRNG (mulberry32): the same seed gives the same data; `a` is all its state. */
export class SeededRandom {
  constructor(public a: number) {
    this.a = a >>> 0
  }

  next(): number {
    this.a = (this.a + 0x6d2b79f5) >>> 0
    let t = this.a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export function seededRandom(seed: number): () => number {
  const random = new SeededRandom(seed)
  return () => random.next()
}

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz'

export class EmulatorState {
  readonly clients = new Map<string, string>()
  readonly tokens = new Map<string, Grant>()
  readonly businesses = new Map<string, BusinessRecord>()
  readonly vendors = new BusinessCollection<NamedRecord>()
  readonly customers = new BusinessCollection<NamedRecord>()
  readonly ledgers = new BusinessCollection<NamedRecord>()
  readonly externalAccounts = new BusinessCollection<NamedRecord>()
  /** business id -> tag field name -> tag value -> tag value id. */
  readonly tagFields = new Map<string, Map<string, Map<string, string>>>()
  readonly bills = new BusinessCollection<Bill>()
  readonly journalEntries = new BusinessCollection<JournalEntry>()
  readonly transactions = new BusinessCollection<Transaction>()
  readonly invoices = new BusinessCollection<Invoice>()
  readonly refunds = new BusinessCollection<Refund>()
  readonly documents = new BusinessCollection<DocumentRecord>()
  readonly tasks = new BusinessCollection<TaskRecord>()
  readonly receiptConfigs = new Map<string, ReceiptRequestConfig>()
  events: EventSink = {emit() {}}
  /** Webhook notifications in id (creation) order, with their delivery status (src/emulator/webhooks). */
  readonly notifications: WebhookNotificationRecord[] = []
  /** Ids of the bills and journal entries the seed made: the inspection routes list the others as created. */
  readonly seeded = {bills: new Set<string>(), journalEntries: new Set<string>()}

  /** The clock token lifetimes are measured by (EmulatorOptions.clock). */
  now: () => number = Date.now

  private counter = 0
  private random: SeededRandom

  constructor(private readonly seed = 1) {
    this.random = new SeededRandom(seed)
  }

  /** What newId() and rand() go on from: saved with the state, so ids stay unique after a restart. */
  get generator(): {counter: number; random: number} {
    return {counter: this.counter, random: this.random.a}
  }

  set generator(value: {counter: number; random: number}) {
    this.counter = value.counter
    this.random = new SeededRandom(value.random)
  }

  /**
   * Forgets every record (every Map, Set, BusinessCollection and array field except the
   * clients and tokens) and restarts ids, so seeding again gives the ids of the start.
   */
  clearAll(): void {
    for (const [key, value] of Object.entries(this)) {
      if (key === 'clients' || key === 'tokens') continue
      if (value instanceof Map || value instanceof Set || value instanceof BusinessCollection) value.clear()
      else if (Array.isArray(value)) value.length = 0
    }
    this.seeded.bills.clear()
    this.seeded.journalEntries.clear()
    this.counter = 0
    this.random = new SeededRandom(this.seed)
  }

  /** A new id of the given kind, e.g. newId('bil_'); later ids sort after earlier ones. */
  newId(prefix: string): string {
    this.counter++
    let tail = ''
    for (let i = 0; i < 6; i++) tail += ALPHABET[Math.floor(this.random.next() * 36)]
    return prefix + this.counter.toString(36).padStart(8, '0') + tail
  }

  rand(): number {
    return this.random.next()
  }
}
