/**
 * The emulator's EventSink: every event becomes a webhook notification, kept in
 * `state.notifications` with its status, and delivered, signed, to `url`: `options.webhookUrl`, or
 * the URL a listener registered (routes/emulator-webhook.ts).
 *
 * Registrations stack: each listener that registers takes the deliveries, and one that leaves
 * gives them back to the one before it, if that one is still registered (a listener leaving
 * while another is in force only takes itself out). `instance` changes with every start, so a
 * listener can tell a restarted emulator (which has none of its registrations) from a take-over.
 * A registered URL that refuses the connection is taken out: its listener was killed before it
 * could leave, and the one before it takes the deliveries (the retries included).
 *
 * Delivery (spec, Events): POST of the message `{type, content}` serialised as Python's
 * json.dumps does by default, with headers `svc-id` (the notification id) and `svc-signature`.
 * A non-200 answer or a timeout is retried up to 4 more times, after 10 s, 20 s, 40 s and 80 s,
 * each delay multiplied by `options.timeScale`; after the fifth failure the status is `error`.
 * A delivery waits at most 10 s for an answer (the spec leaves it open), scaled the same way but
 * never below 1 s. Without a webhook URL notifications stay `pending`, ready for replay.
 */
import {randomUUID} from 'node:crypto'

import {WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER} from '../../shared/spec.js'
import {postBody, type PostResult} from '../../shared/post-body.js'
import {pythonJsonDumps} from '../../shared/python-json.js'
import type {ResolvedEmulatorOptions} from '../options.js'
import type {EmulatorState} from '../state.js'
import type {EventSink, WebhookNotificationRecord} from '../types.js'
import {NotificationIds} from './notification-id.js'
import {WebhookSigner} from './signer.js'

const FIRST_RETRY_DELAY_MS = 10_000
const MAX_RETRIES = 4
const DELIVERY_TIMEOUT_MS = 10_000
const MIN_TIMEOUT_MS = 1_000

export class WebhookHub implements EventSink {
  readonly signer: WebhookSigner
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly inFlight = new Set<AbortController>()
  private active = 0
  private idleWaiters: Array<() => void> = []
  private closed = false
  /** This start of the emulator: a new one each time it starts. */
  readonly instance = randomUUID()
  readonly startedAt = new Date().toISOString()
  /** Where deliveries go when no listener is registered: --webhook-url. */
  private readonly fallback: string | undefined
  /** The URLs listeners registered (PUT /_emulator/webhook), oldest first; the last is in force. */
  private readonly registrations: string[] = []
  private readonly ids = new NotificationIds()
  /** Called after a notification's status changed (the state file is saved then). */
  onChange: () => void = () => {}

  constructor(
    private readonly state: EmulatorState,
    private readonly options: Pick<ResolvedEmulatorOptions, 'webhookUrl' | 'timeScale' | 'keyFile'>,
    savedKey?: string,
  ) {
    this.signer = new WebhookSigner(options.keyFile, options.keyFile ? undefined : savedKey)
    this.fallback = options.webhookUrl
  }

  /** Where deliveries go: the URL a listener registered last, else --webhook-url. */
  get url(): string | undefined {
    return this.registrations.at(-1) ?? this.fallback
  }

  /** The registered URLs, oldest first. */
  get registered(): readonly string[] {
    return this.registrations
  }

  /** `url` takes the deliveries (moved to the top when it was registered already); the URL in force before. */
  register(url: string): string | undefined {
    const previous = this.url
    this.unregister(url)
    this.registrations.push(url)
    return previous
  }

  /** Takes `url` out of the registrations; the one before it is in force again when `url` was. Whether it was registered. */
  unregister(url: string): boolean {
    const at = this.registrations.indexOf(url)
    if (at < 0) return false
    this.registrations.splice(at, 1)
    return true
  }

  emit(type: string, content: Record<string, unknown>): void {
    const notification = {type, content}
    const record: WebhookNotificationRecord = {
      id: this.ids.next(this.state.notifications.at(-1)?.id),
      createdAt: new Date().toISOString(),
      sentAt: null,
      status: 'pending',
      notification,
      body: pythonJsonDumps(notification),
      attempts: [],
    }
    this.state.notifications.push(record)
    if (this.url && !this.closed) this.schedule(record, 0, 0)
  }

  /** Resolves when no delivery is waiting or running (for tests and shutdown). */
  idle(): Promise<void> {
    if (this.active === 0) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  async close(): Promise<void> {
    this.closed = true
    this.cancelPending()
  }

  /** Drops every scheduled retry and aborts deliveries in flight (a full reset of the emulator). */
  cancelPending(): void {
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
    for (const c of this.inFlight) c.abort()
    this.active = 0
    this.release()
  }

  private schedule(record: WebhookNotificationRecord, attempt: number, delayMs: number): void {
    this.active++
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      // Fire and forget: post() turns every network failure into a result, so deliver() does not reject.
      void this.deliver(record, attempt, delayMs).finally(() => {
        this.active = Math.max(0, this.active - 1)
        this.release()
      })
    }, delayMs)
    this.timers.add(timer)
  }

  private release(): void {
    if (this.active > 0) return
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const w of waiters) w()
  }

  private async deliver(record: WebhookNotificationRecord, attempt: number, delayMs: number): Promise<void> {
    const url = this.url
    if (!url || this.closed) return
    const at = Date.now()
    const signature = await this.signer.sign(record.id, record.body)
    const timeoutMs = Math.max(MIN_TIMEOUT_MS, DELIVERY_TIMEOUT_MS * this.options.timeScale)
    const result = await this.post(url, record, signature, timeoutMs)
    if (this.closed) return
    // Nothing listens at a registered URL: that listener is gone (killed before it could leave).
    // The one before it takes the deliveries, this one's retries included.
    if (result.error === 'ECONNREFUSED') this.unregister(url)
    record.attempts.push({at, delayMs, status: result.status, ...(result.error ? {error: result.error} : {})})
    if (result.status === 200) {
      record.status = 'sent'
      record.sentAt = new Date().toISOString()
    } else if (attempt < MAX_RETRIES) {
      this.schedule(record, attempt + 1, FIRST_RETRY_DELAY_MS * 2 ** attempt * this.options.timeScale)
    } else {
      record.status = 'error'
    }
    this.onChange()
  }

  private async post(
    url: string,
    record: WebhookNotificationRecord,
    signature: string,
    timeoutMs: number,
  ): Promise<PostResult> {
    const controller = new AbortController()
    this.inFlight.add(controller)
    try {
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'bk-emulator-webhooks',
        [WEBHOOK_ID_HEADER]: record.id,
        [WEBHOOK_SIGNATURE_HEADER]: signature,
      }
      return await postBody(url, headers, Buffer.from(record.body, 'utf8'), {timeoutMs, signal: controller.signal})
    } finally {
      this.inFlight.delete(controller)
    }
  }
}
