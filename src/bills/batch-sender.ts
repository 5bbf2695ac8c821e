/**
 * Sends batches of bills with bounded concurrency, and owns everything about a batch in flight:
 * its request slot, the journal records around it ("sending" before the request leaves, "result"
 * or "notsent" after), the resend rounds for a batch the service certainly did not act on, and
 * what each bill's outcome is, as far as bk can know. What to do with each outcome (files,
 * counts, the record of created bills) is the caller's, through `settle`.
 *
 * Nothing twice: a batch is re-sent only after an answer that proves the service did not act
 * (429, 503, no connection; src/api/outcome.ts); anything else it may have acted on is
 * unconfirmed and never sent again by bk.
 */
import {setTimeout as sleep} from 'node:timers/promises'

import {classifyWriteFailure} from '../api/outcome.js'
import type {PreparedBills} from '../api/resources/bills.js'
import type {CreateBillsResponse} from '../api/schemas/bill.js'
import {BkError} from '../shared/errors.js'
import {Gate} from '../shared/gate.js'
import type {BillDraft} from './assemble.js'
import {heapGuard} from './heap-guard.js'
import type {BillLogWriter} from './resume-log.js'

/** What became of one batch, as far as bk can know. */
type BatchResult =
  | {kind: 'answered'; response: CreateBillsResponse}
  | {kind: 'refused'; reason: string}
  | {kind: 'unknown'; reason: string}
  /** `retry`: the service may accept it a moment later (429, 503, no connection), unlike a 401/403/404. */
  | {kind: 'not-sent'; error: BkError; retry: boolean}

/** A bill the service created, with the id it gave it. */
export interface CreatedDraft {
  bill: BillDraft
  id: string
}

/** Each bill of a batch that reached the service, by outcome, with the id or the reason. */
export interface BatchOutcome {
  created: CreatedDraft[]
  failed: Array<{bill: BillDraft; reason: string}>
  unconfirmed: Array<{bill: BillDraft; reason: string}>
}

export interface BatchSenderOptions {
  /** Sends one batch (api.bills.create). */
  send: (bills: PreparedBills, signal: AbortSignal) => Promise<CreateBillsResponse>
  concurrency: number
  journal: BillLogWriter | undefined
  /** A bill's name in the journal. */
  journalKey: (bill: BillDraft) => string
  /** The last batch number an earlier run of this journal used. */
  lastBatch: number
  /** Aborted on the second Ctrl-C: batches in flight are abandoned (they become unconfirmed). */
  abort: AbortSignal
  /** Whether to send nothing more (first Ctrl-C). */
  stopRequested: () => boolean
  resendRounds: number
  resendDelayMs: number
  onResendWait?: ((delayMs: number) => void) | undefined
  /** Called with each batch not sent (the run stopped, or the service did not act on it). */
  onNotSent?: ((batch: BillDraft[]) => Promise<void>) | undefined
  /** Called once per batch that reached the service, after its result is in the journal. */
  settle: (outcome: BatchOutcome) => Promise<void>
}

function classify(error: unknown, aborted: boolean): BatchResult {
  if (aborted)
    return {
      kind: 'unknown',
      reason: 'outcome unknown: the import was aborted (second Ctrl-C) while this batch was in flight',
    }
  const outcome = classifyWriteFailure(error)
  switch (outcome.kind) {
    case 'not-acted':
      return {kind: 'not-sent', error: outcome.error, retry: outcome.retry}
    case 'refused':
      return {kind: 'refused', reason: outcome.error.message}
    case 'unknown':
      return outcome
  }
}

export class BatchSender {
  /** Bills whose request reached the service (answered, refused or unknown). */
  sentBills = 0
  /** Bills not sent because the run stopped or the service was unavailable; a --resume sends them. */
  notSent = 0
  /** Why sending stopped, when it did for a reason other than Ctrl-C. */
  fatal: BkError | undefined
  private batchNumber: number
  /** Batches submitted and not yet on the wire (their "sending" record being written, or waiting for a slot). */
  private readonly waiting = new Set<Promise<void>>()
  /** Batches not yet fully recorded (journal, files). */
  private readonly settling = new Set<Promise<void>>()
  /** The request slots, handed out in the order they were asked for. */
  private readonly slots: Gate
  private readonly checkHeap = heapGuard()

  constructor(private readonly options: BatchSenderOptions) {
    this.batchNumber = options.lastBatch
    this.slots = new Gate(options.concurrency)
  }

  /** Whether no more batches are sent: Ctrl-C, or a failure that ends the run. */
  get stopped(): boolean {
    return this.options.stopRequested() || this.fatal !== undefined
  }

  /**
   * Sends the batch in the background: its "sending" record is written at once, while up to
   * `concurrency` batches are in flight, so that it goes on the wire the moment a slot frees.
   * Waits while `concurrency` batches are already recorded and waiting for a slot.
   */
  async submit(batch: BillDraft[]): Promise<void> {
    const {concurrency} = this.options
    while (this.waiting.size >= concurrency) await Promise.race(this.waiting)
    while (this.settling.size >= concurrency * 3) await Promise.race(this.settling)
    if (this.stopped) {
      this.notSent += batch.length
      await this.options.onNotSent?.(batch)
      return
    }
    let sent!: () => void
    const waiting = new Promise<void>((resolve) => {
      sent = resolve
    })
    this.waiting.add(waiting)
    void waiting.then(() => this.waiting.delete(waiting))
    const p: Promise<void> = this.send(batch, sent)
      .catch((error: unknown) => {
        this.fatal ??=
          error instanceof BkError ? error : new BkError(`Import failed: ${(error as Error).message}`, {cause: error})
      })
      .finally(() => {
        sent()
        this.settling.delete(p)
      })
    this.settling.add(p)
  }

  /** Resolves once every batch submitted is answered and recorded. */
  async drain(): Promise<void> {
    await Promise.all(this.settling)
  }

  /** `sent` is called once the batch is on the wire (or will never be); the bookkeeping after it needs no slot. */
  private async send(batch: BillDraft[], sent: () => void): Promise<void> {
    const {journal, journalKey} = this.options
    const id = ++this.batchNumber
    const announced = journal?.append({t: 'sending', batch: id, keys: batch.map(journalKey)})
    announced?.catch(() => {})
    // Each bill's text was written as its rows were read; joined once, the resend rounds send the same text.
    const body: PreparedBills = {count: batch.length, jsonText: `[${batch.map((b) => b.json).join(',')}]`}
    try {
      await announced
    } catch (error) {
      // Not announced, so not sent: these bills are read and left for --resume.
      this.notSent += batch.length
      await this.options.onNotSent?.(batch)
      throw error
    }
    const release = this.stopped ? () => {} : await this.slots.enter()
    sent()
    if (this.stopped) {
      // Recorded as sending, but the run stopped (Ctrl-C, a failure) before a slot freed.
      release()
      return this.notSentAfterAll(batch, id, 'the import stopped before this batch was sent')
    }
    const result = await this.request(body)
    release()
    if (result.kind === 'not-sent') {
      this.fatal ??= result.error
      return this.notSentAfterAll(batch, id, result.error.message)
    }
    this.sentBills += batch.length
    const outcome = outcomeOf(batch, result)
    const named = <T>(list: Array<{bill: BillDraft} & T>, value: (e: T) => string): Array<[string, string]> =>
      list.map((e) => [journalKey(e.bill), value(e)])
    let unrecorded: unknown
    try {
      await journal?.append({
        t: 'result',
        batch: id,
        created: named(outcome.created, (e) => e.id),
        failed: named(outcome.failed, (e) => e.reason),
        unconfirmed: named(outcome.unconfirmed, (e) => e.reason),
      })
    } catch (error) {
      // The service acted all the same: its answer is counted (and recorded where it can be); the
      // journal keeps the batch as sent without a result, so a --resume leaves it unconfirmed.
      unrecorded = error
    }
    this.checkHeap()
    await this.options.settle(outcome)
    if (unrecorded) throw unrecorded
  }

  /** A batch recorded as sending that did not go out (or that the service certainly did not act on). */
  private async notSentAfterAll(batch: BillDraft[], id: number, reason: string): Promise<void> {
    this.notSent += batch.length
    await this.options.onNotSent?.(batch)
    // Without this record (a full disk) a --resume takes the batch for one in flight: unconfirmed.
    await this.options.journal?.append({t: 'notsent', batch: id, reason})
  }

  /** One batch's request, sent again only while the service certainly has not acted on it. */
  private async request(body: PreparedBills): Promise<BatchResult> {
    const {abort, resendRounds, resendDelayMs} = this.options
    for (let round = 0; ; round++) {
      // Aborted while its "sending" record was being made durable: a listener added now would never
      // fire, and the request would go out after the second Ctrl-C. It is treated as abandoned in flight.
      if (abort.aborted) return classify(undefined, true)
      let result: BatchResult
      // A signal per request: listeners the transport adds to it go away with it.
      const request = new AbortController()
      const onAbort = () => request.abort(abort.reason)
      abort.addEventListener('abort', onAbort, {once: true})
      try {
        const response = await this.options.send(body, request.signal)
        result = {kind: 'answered', response}
      } catch (error) {
        result = classify(error, abort.aborted)
      } finally {
        abort.removeEventListener('abort', onAbort)
      }
      if (result.kind !== 'not-sent' || !result.retry || round >= resendRounds || abort.aborted) return result
      // A second Ctrl-C ends the wait and sends nothing more: the batch stays "not sent", for --resume.
      this.options.onResendWait?.(resendDelayMs * (round + 1))
      await sleep(resendDelayMs * (round + 1), undefined, {signal: abort}).catch(() => {})
      if (abort.aborted) return result
    }
  }
}

/**
 * Each bill's outcome from the answer. A batch never holds one number twice (the caller's batches
 * split on a repeated number), so a number in the answer names one bill.
 */
function outcomeOf(batch: BillDraft[], result: Exclude<BatchResult, {kind: 'not-sent'}>): BatchOutcome {
  const outcome: BatchOutcome = {created: [], failed: [], unconfirmed: []}
  if (result.kind === 'refused') {
    for (const bill of batch) outcome.failed.push({bill, reason: `rejected by the service: ${result.reason}`})
    return outcome
  }
  if (result.kind === 'unknown') {
    for (const bill of batch) outcome.unconfirmed.push({bill, reason: result.reason})
    return outcome
  }
  const ids = new Map<string, string>()
  for (const bill of result.response.data) if (bill.number) ids.set(bill.number, bill.id)
  const errors = new Map<string, string>()
  for (const e of result.response.errors) if (e.bill_number) errors.set(e.bill_number, e.error)
  for (const bill of batch) {
    const id = ids.get(bill.number)
    const error = errors.get(bill.number)
    if (id !== undefined) outcome.created.push({bill, id})
    else if (error !== undefined) outcome.failed.push({bill, reason: `rejected by the service: ${error}`})
    else
      outcome.unconfirmed.push({
        bill,
        reason: "outcome unknown: the service's answer names this bill neither as created nor as failed",
      })
  }
  return outcome
}

/** Valid bills into batches of `size`; a batch never holds one number twice (see BatchSender). */
export class Batcher {
  private bills: BillDraft[] = []
  private numbers = new Set<string>()

  constructor(
    private readonly size: number,
    private readonly sender: BatchSender,
  ) {}

  /** Resolves once the batch the bill completes is submitted; undefined (no promise) when it completes none. */
  add(bill: BillDraft): Promise<void> | undefined {
    if (this.numbers.has(bill.number)) return this.flush().then(() => this.add(bill))
    this.bills.push(bill)
    this.numbers.add(bill.number)
    return this.bills.length >= this.size ? this.flush() : undefined
  }

  /** The bills not yet in a batch, taken out (the run stopped before sending them). */
  takePending(): BillDraft[] {
    const pending = this.bills
    this.bills = []
    this.numbers = new Set()
    return pending
  }

  async flush(): Promise<void> {
    if (this.bills.length === 0) return
    const batch = this.bills
    this.bills = []
    this.numbers = new Set()
    await this.sender.submit(batch)
  }
}
