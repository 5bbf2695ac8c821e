/**
 * Fixtures: the user's own data in the emulator (`bk emulator start --fixtures FILE`, and
 * `POST /_emulator/fixtures` at run time). A fixture set is a list of businesses, each with its
 * vendors, customers, ledgers, external accounts, tag fields and values, invoices, refunds,
 * transactions, documents and tasks. Ids are the user's own (checked for their kind's prefix) or
 * generated when left out.
 *
 * The whole set is checked before anything is added, so a set is applied whole or not at all:
 * shapes, prefixes, ids already taken (by the state or earlier in the set), and references (an
 * invoice's customer and ledgers, a refund's invoice, a transaction's account, a document's
 * links) to the state or to the set itself. Every problem is reported with its path in the set
 * (`businesses[0].vendors[2].id`), which `bk emulator start` turns into file:line:column.
 *
 * The CLI checks a fixtures file against its own schema first (src/fixtures/); this module is
 * the emulator's reading, which also guards the run-time route.
 */
import {parseIsoDatetime} from '../shared/datetime.js'
import {Decimal} from '../shared/money.js'
import {ID_PREFIX, ID_SUFFIX, REFUND_STATUSES, UNLINKABLE_PREFIXES} from '../shared/spec.js'
import {TASK_TYPES} from './events.js'
import {INVOICE_STATUSES} from './seed-records.js'
import type {EmulatorState} from './state.js'
import type {Invoice, InvoiceLine, Refund, Transaction} from './types.js'

export type FixturePath = Array<string | number>

export interface FixtureProblem {
  path: FixturePath
  message: string
}

/** A fixture set that cannot be applied; nothing of it was. */
export class FixtureError extends Error {
  constructor(
    readonly problems: FixtureProblem[],
    /** Which set (its file), when several were applied. */
    readonly source?: string,
  ) {
    super(problems.map((p) => `${source ? source + ': ' : ''}${formatPath(p.path)}: ${p.message}`).join('\n'))
    this.name = 'FixtureError'
  }
}

export function formatPath(path: FixturePath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') || '(top)'
}

/** What applying a set added: per kind, the ids (given or generated), in order. */
export type FixtureSummary = Record<string, string[]>

const MAX_PROBLEMS = 50
const BUSINESS_KEYS = [
  'id',
  'name',
  'external_id',
  'active',
  'vendors',
  'customers',
  'ledgers',
  'external_accounts',
  'tag_fields',
  'invoices',
  'refunds',
  'transactions',
  'documents',
  'tasks',
] as const
const NAMED_KINDS = {
  vendors: ID_PREFIX.vendor,
  customers: ID_PREFIX.customer,
  ledgers: ID_PREFIX.ledger,
  external_accounts: ID_PREFIX.externalAccount,
} as const
const STATE_COLLECTION = {
  vendors: 'vendors',
  customers: 'customers',
  ledgers: 'ledgers',
  external_accounts: 'externalAccounts',
} as const

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Checks a fixture set against the state and applies it whole; throws FixtureError listing every problem. */
export function applyFixtures(state: EmulatorState, set: unknown): FixtureSummary {
  const c = new Checker(state)
  const ops = c.set(set)
  if (c.problems.length) throw new FixtureError(c.problems)
  const summary: FixtureSummary = {}
  for (const op of ops) {
    const [kind, id] = op()
    ;(summary[kind] ??= []).push(id)
  }
  return summary
}

type Op = () => [kind: string, id: string]

/** One pass over the set: problems collected, and the operations that apply it when there are none. */
class Checker {
  readonly problems: FixtureProblem[] = []
  /** Ids the set gives, by id, with the business they go to. */
  private readonly planned = new Map<string, string>()

  constructor(private readonly state: EmulatorState) {}

  private problem(path: FixturePath, message: string): void {
    if (this.problems.length < MAX_PROBLEMS) this.problems.push({path, message})
  }

  set(value: unknown): Op[] {
    if (!isObj(value)) {
      this.problem([], 'a fixture set is an object with a "businesses" list')
      return []
    }
    this.unknownKeys(value, ['businesses'], [])
    const list = this.list(value, 'businesses', [], true)
    const ops: Op[] = []
    list.forEach((b, i) => ops.push(...this.business(b, ['businesses', i])))
    return ops
  }

  private unknownKeys(o: Obj, known: readonly string[], path: FixturePath): void {
    for (const key of Object.keys(o))
      if (!known.includes(key)) this.problem([...path, key], `unknown field; the fields here are ${known.join(', ')}`)
  }

  private list(o: Obj, key: string, path: FixturePath, required = false): unknown[] {
    const v = o[key]
    if (v === undefined || v === null) {
      if (required) this.problem([...path, key], 'is required (a list)')
      return []
    }
    if (!Array.isArray(v)) {
      this.problem([...path, key], 'must be a list')
      return []
    }
    return v
  }

  private str(o: Obj, key: string, path: FixturePath, required: boolean): string | undefined {
    const v = o[key]
    if (v === undefined || v === null) {
      if (required) this.problem([...path, key], 'is required')
      return undefined
    }
    if (typeof v !== 'string' || v.trim() === '') {
      this.problem([...path, key], `must be a non-empty string, got ${JSON.stringify(v)}`)
      return undefined
    }
    return v
  }

  private num(o: Obj, key: string, path: FixturePath, required: boolean): number | undefined {
    const v = o[key]
    if (v === undefined || v === null) {
      if (required) this.problem([...path, key], 'is required (a number)')
      return undefined
    }
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      this.problem([...path, key], `must be a number, got ${JSON.stringify(v)}`)
      return undefined
    }
    return v
  }

  private bool(o: Obj, key: string, path: FixturePath): boolean | undefined {
    const v = o[key]
    if (v === undefined || v === null) return undefined
    if (typeof v !== 'boolean') {
      this.problem([...path, key], `must be true or false, got ${JSON.stringify(v)}`)
      return undefined
    }
    return v
  }

  private oneOf<T extends string>(
    o: Obj,
    key: string,
    path: FixturePath,
    allowed: readonly T[],
    fallback: T,
  ): T | undefined {
    const v = this.str(o, key, path, false)
    if (v === undefined) return o[key] === undefined || o[key] === null ? fallback : undefined
    if (!(allowed as readonly string[]).includes(v)) {
      this.problem([...path, key], `must be one of ${allowed.join(', ')}, got "${v}"`)
      return undefined
    }
    return v as T
  }

  private datetime(o: Obj, key: string, path: FixturePath, required: boolean): string | undefined {
    const v = o[key]
    if (v instanceof Date) return v.toISOString().replace('.000Z', 'Z')
    const text = this.str(o, key, path, required)
    if (text === undefined) return undefined
    if (!parseIsoDatetime(text).ok) {
      this.problem([...path, key], `must be an ISO 8601 datetime such as 2026-03-01T00:00:00Z, got "${text}"`)
      return undefined
    }
    return text
  }

  /** The record's own id: its kind's prefix, not taken; undefined when left out (generated). */
  private ownId(o: Obj, path: FixturePath, prefix: string, businessId: string): string | undefined | null {
    const id = this.str(o, 'id', path, false)
    if (id === undefined) return o.id === undefined || o.id === null ? undefined : null
    if (!id.startsWith(prefix) || !ID_SUFFIX.test(id.slice(prefix.length))) {
      this.problem(
        [...path, 'id'],
        `"${id}" is not an id of this kind: expected ${prefix} followed by letters, digits, _ or -`,
      )
      return null
    }
    if (this.exists(id) || this.planned.has(id)) {
      this.problem(
        [...path, 'id'],
        `${id} already exists${this.planned.has(id) ? ' (given twice in the fixtures)' : ''}`,
      )
      return null
    }
    this.planned.set(id, businessId)
    return id
  }

  /** Whether the state holds this id, as a record of any kind. */
  private exists(id: string): boolean {
    const s = this.state
    if (s.businesses.has(id)) return true
    for (const byBusiness of [
      s.vendors,
      s.customers,
      s.ledgers,
      s.externalAccounts,
      s.invoices,
      s.refunds,
      s.transactions,
      s.documents,
      s.tasks,
      s.bills,
      s.journalEntries,
    ] as const) {
      for (const [, items] of byBusiness.entries()) if (items.some((item) => item.id === id)) return true
    }
    for (const fields of s.tagFields.values())
      for (const values of fields.values()) for (const v of values.values()) if (v === id) return true
    return false
  }

  /** A reference to a record of `collection` in the business: in the state, or given by the set. */
  private ref(
    o: Obj,
    key: string,
    path: FixturePath,
    prefix: string,
    businessId: string,
    collection: 'vendors' | 'customers' | 'ledgers' | 'externalAccounts' | 'invoices',
    required: boolean,
  ): string | undefined {
    const id = this.str(o, key, path, required)
    if (id === undefined) return undefined
    if (!id.startsWith(prefix)) {
      this.problem([...path, key], `"${id}" is not an id of this kind: expected ${prefix}…`)
      return undefined
    }
    const known = this.state[collection].get(businessId, id) !== undefined || this.planned.get(id) === businessId
    if (!known)
      this.problem([...path, key], `${id} does not exist in business ${businessId} (nor earlier in the fixtures)`)
    return id
  }

  private business(value: unknown, path: FixturePath): Op[] {
    if (!isObj(value)) {
      this.problem(path, 'a business is an object (id, name, vendors, ledgers, …)')
      return []
    }
    this.unknownKeys(value, BUSINESS_KEYS, path)
    const ops: Op[] = []
    const givenId = this.str(value, 'id', path, false)
    const existing = givenId !== undefined ? this.state.businesses.get(givenId) : undefined
    let businessId: string
    if (existing) {
      // A business the emulator holds already (a seeded one): the set adds records to it.
      businessId = existing.id
      for (const key of ['name', 'external_id'] as const) {
        const v = value[key]
        if (v !== undefined && v !== existing[key])
          this.problem(
            [...path, key],
            `${existing.id} exists with ${key} "${existing[key]}"; leave it out or give that`,
          )
      }
    } else {
      const id = this.ownId(value, path, ID_PREFIX.business, '')
      if (id === null) return []
      const name = this.str(value, 'name', path, false)
      const externalId = this.str(value, 'external_id', path, false)
      const active = this.bool(value, 'active', path) ?? true
      const taken = [...this.state.businesses.values()].find(
        (b) => externalId !== undefined && b.external_id === externalId,
      )
      if (taken) this.problem([...path, 'external_id'], `${externalId} is already the external id of ${taken.id}`)
      businessId = id ?? `(business ${String(path[1])})`
      const placeholder = businessId
      if (id) this.planned.set(id, id)
      const state = this.state
      const record = {id: '', name: '', external_id: '', active, created_at: ''}
      ops.push(() => {
        record.id = id ?? state.newId(ID_PREFIX.business)
        record.name = name ?? `Business ${state.businesses.size + 1}`
        record.external_id = externalId ?? `ext-${record.id.slice(4)}`
        record.created_at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')
        state.businesses.set(record.id, record)
        state.tagFields.set(record.id, new Map())
        return ['businesses', record.id]
      })
      // Records of a business whose id is generated are added to it once it exists.
      if (!id) return [...ops, ...this.records(value, path, placeholder, () => record.id)]
    }
    return [...ops, ...this.records(value, path, businessId, () => businessId)]
  }

  /** The records of one business; `businessId()` gives its id at apply time. */
  private records(value: Obj, path: FixturePath, businessId: string, bizAtApply: () => string): Op[] {
    const ops: Op[] = []
    const state = this.state
    for (const kind of Object.keys(NAMED_KINDS) as Array<keyof typeof NAMED_KINDS>) {
      this.list(value, kind, path).forEach((item, i) => {
        const p = [...path, kind, i]
        if (!isObj(item)) return this.problem(p, 'must be an object {id?, name}')
        this.unknownKeys(item, ['id', 'name'], p)
        const id = this.ownId(item, p, NAMED_KINDS[kind], businessId)
        const name = this.str(item, 'name', p, true)
        if (id === null || name === undefined) return
        ops.push(() => {
          const b = bizAtApply()
          const record = {id: id ?? state.newId(NAMED_KINDS[kind]), business_id: b, name}
          state[STATE_COLLECTION[kind]].add(b, record)
          return [kind, record.id]
        })
      })
    }
    ops.push(...this.tagFields(value, path, bizAtApply))
    ops.push(...this.invoices(value, path, businessId, bizAtApply))
    ops.push(...this.refunds(value, path, businessId, bizAtApply))
    ops.push(...this.transactions(value, path, businessId, bizAtApply))
    ops.push(...this.documents(value, path, businessId, bizAtApply))
    ops.push(...this.tasks(value, path, businessId, bizAtApply))
    return ops
  }

  private tagFields(value: Obj, path: FixturePath, bizAtApply: () => string): Op[] {
    const fields = value.tag_fields
    if (fields === undefined || fields === null) return []
    const p = [...path, 'tag_fields']
    if (!isObj(fields)) {
      this.problem(p, 'must be an object of tag field name to its values, e.g. {department: [sales, ops]}')
      return []
    }
    const ops: Op[] = []
    const state = this.state
    for (const [field, values] of Object.entries(fields)) {
      const fp = [...p, field]
      if (field.trim() === '') this.problem(fp, 'a tag field needs a name')
      if (!Array.isArray(values)) {
        this.problem(fp, 'must be a list of values (a name, or {value, id})')
        continue
      }
      const seen = new Set<string>()
      const planned: Array<{value: string; id: string | undefined}> = []
      values.forEach((v, i) => {
        const vp = [...fp, i]
        let name: string | undefined
        let id: string | undefined | null
        if (typeof v === 'string' || typeof v === 'number') {
          name = String(v)
        } else if (isObj(v)) {
          this.unknownKeys(v, ['value', 'id'], vp)
          name = this.str(v, 'value', vp, true)
          id = this.ownId(v, vp, ID_PREFIX.tagValue, '')
        } else {
          return this.problem(vp, 'must be a value name, or {value, id}')
        }
        if (name === undefined || id === null) return
        if (name.trim() === '') return this.problem(vp, 'a tag value needs a name')
        if (seen.has(name)) return this.problem(vp, `"${name}" is listed twice`)
        seen.add(name)
        planned.push({value: name, id})
      })
      ops.push(() => {
        const b = bizAtApply()
        let byField = state.tagFields.get(b)
        if (!byField) state.tagFields.set(b, (byField = new Map()))
        let known = byField.get(field)
        if (!known) byField.set(field, (known = new Map()))
        for (const v of planned) if (!known.has(v.value)) known.set(v.value, v.id ?? state.newId(ID_PREFIX.tagValue))
        return ['tag_fields', field]
      })
    }
    return ops
  }

  private invoices(value: Obj, path: FixturePath, businessId: string, bizAtApply: () => string): Op[] {
    const ops: Op[] = []
    const state = this.state
    this.list(value, 'invoices', path).forEach((item, i) => {
      const p = [...path, 'invoices', i]
      if (!isObj(item)) return this.problem(p, 'must be an object {id?, number, customer_id, due_at, lines, …}')
      this.unknownKeys(
        item,
        ['id', 'number', 'customer_id', 'description', 'status', 'due_at', 'sent_at', 'total_paid', 'lines'],
        p,
      )
      const id = this.ownId(item, p, ID_PREFIX.invoice, businessId)
      const number = this.str(item, 'number', p, true)
      const customerId = this.ref(item, 'customer_id', p, ID_PREFIX.customer, businessId, 'customers', true)
      const description = this.str(item, 'description', p, false)
      const status = this.oneOf(item, 'status', p, INVOICE_STATUSES, 'open')
      const dueAt = this.datetime(item, 'due_at', p, true)
      const sentAt = this.datetime(item, 'sent_at', p, false)
      const totalPaid = this.num(item, 'total_paid', p, false) ?? 0
      const lines: Array<{id: string | undefined; description: string | undefined; ledger: string; amount: number}> = []
      const rawLines = this.list(item, 'lines', p, true)
      if (Array.isArray(item.lines) && rawLines.length === 0) this.problem([...p, 'lines'], 'needs at least one line')
      rawLines.forEach((line, j) => {
        const lp = [...p, 'lines', j]
        if (!isObj(line)) return this.problem(lp, 'must be an object {ledger_id, amount, description?}')
        this.unknownKeys(line, ['id', 'description', 'ledger_id', 'amount'], lp)
        const lineId = this.ownId(line, lp, ID_PREFIX.invoiceLine, businessId)
        const ledger = this.ref(line, 'ledger_id', lp, ID_PREFIX.ledger, businessId, 'ledgers', true)
        const amount = this.num(line, 'amount', lp, true)
        if (lineId === null || ledger === undefined || amount === undefined) return
        lines.push({id: lineId, description: this.str(line, 'description', lp, false), ledger, amount})
      })
      if (
        id === null ||
        !number ||
        !customerId ||
        !status ||
        !dueAt ||
        lines.length !== rawLines.length ||
        !lines.length
      )
        return
      ops.push(() => {
        const b = bizAtApply()
        const invoiceId = id ?? state.newId(ID_PREFIX.invoice)
        const invoiceLines: InvoiceLine[] = lines.map((l) => ({
          id: l.id ?? state.newId(ID_PREFIX.invoiceLine),
          invoice_id: invoiceId,
          description: l.description ?? '',
          ledger_id: l.ledger,
          metadata_: {},
          amount: l.amount,
        }))
        const total = Number(lines.reduce((sum, l) => sum.plus(l.amount), new Decimal(0)).toFixed())
        const invoice: Invoice = {
          id: invoiceId,
          business_id: b,
          customer_id: customerId,
          number,
          description: description ?? '',
          total_amount: total,
          total_paid: totalPaid,
          credit_amount: 0,
          source: 'manual',
          status,
          due_at: dueAt,
          sent_at: sentAt ?? null,
          voided_at: null,
          metadata_: {},
          lines: invoiceLines,
          payments: [],
        }
        state.invoices.add(b, invoice)
        return ['invoices', invoiceId]
      })
    })
    return ops
  }

  private refunds(value: Obj, path: FixturePath, businessId: string, bizAtApply: () => string): Op[] {
    const ops: Op[] = []
    const state = this.state
    this.list(value, 'refunds', path).forEach((item, i) => {
      const p = [...path, 'refunds', i]
      if (!isObj(item)) return this.problem(p, 'must be an object {id?, amount, refunded_at, status?, …}')
      this.unknownKeys(
        item,
        ['id', 'external_id', 'amount', 'status', 'refunded_at', 'memo', 'processor', 'method', 'invoice_id'],
        p,
      )
      const id = this.ownId(item, p, ID_PREFIX.refund, businessId)
      const amount = this.num(item, 'amount', p, true)
      const status = this.oneOf(item, 'status', p, REFUND_STATUSES, 'pending')
      const refundedAt = this.datetime(item, 'refunded_at', p, true)
      const invoiceId = this.ref(item, 'invoice_id', p, ID_PREFIX.invoice, businessId, 'invoices', false)
      const text = (key: string) => this.str(item, key, p, false)
      const [externalId, memo, processor, method] = ['external_id', 'memo', 'processor', 'method'].map(text)
      if (id === null || amount === undefined || !status || !refundedAt) return
      ops.push(() => {
        const b = bizAtApply()
        const refundId = id ?? state.newId(ID_PREFIX.refund)
        const refund: Refund = {
          id: refundId,
          business_id: b,
          external_id: externalId ?? `re_${refundId.slice(4)}`,
          amount,
          amount_paid: status === 'completed' ? amount : 0,
          memo: memo ?? '',
          processor: processor ?? 'manual',
          method: method ?? 'bank_transfer',
          is_return: false,
          refund_credit: false,
          refunded_at: refundedAt,
          status,
          payments: [],
          refund_invoices: invoiceId
            ? [
                {
                  id: state.newId(ID_PREFIX.refundInvoice),
                  external_id: `ri_${refundId.slice(4)}`,
                  amount,
                  memo: memo ?? '',
                  invoice_id: invoiceId,
                  invoice_line_id: null,
                },
              ]
            : [],
        }
        state.refunds.add(b, refund)
        return ['refunds', refundId]
      })
    })
    return ops
  }

  private transactions(value: Obj, path: FixturePath, businessId: string, bizAtApply: () => string): Op[] {
    const ops: Op[] = []
    const state = this.state
    this.list(value, 'transactions', path).forEach((item, i) => {
      const p = [...path, 'transactions', i]
      if (!isObj(item))
        return this.problem(p, 'must be an object {id?, external_account_id, amount, datetime, description, …}')
      this.unknownKeys(
        item,
        [
          'id',
          'external_id',
          'external_account_id',
          'amount',
          'datetime',
          'description',
          'posted',
          'type',
          'status',
          'reviewed',
          'line_items',
        ],
        p,
      )
      const id = this.ownId(item, p, ID_PREFIX.transaction, businessId)
      const account = this.ref(
        item,
        'external_account_id',
        p,
        ID_PREFIX.externalAccount,
        businessId,
        'externalAccounts',
        true,
      )
      const amount = this.num(item, 'amount', p, true)
      const datetime = this.datetime(item, 'datetime', p, true)
      const description = this.str(item, 'description', p, true)
      const externalId = this.str(item, 'external_id', p, false)
      const type = this.str(item, 'type', p, false) ?? 'business'
      const status = this.str(item, 'status', p, false) ?? 'confirmed'
      const posted = this.bool(item, 'posted', p) ?? true
      const reviewed = this.bool(item, 'reviewed', p) ?? false
      const items: Array<{ledger: string; amount: number; description: string; category: string}> = []
      const rawItems = this.list(item, 'line_items', p)
      rawItems.forEach((li, j) => {
        const lp = [...p, 'line_items', j]
        if (!isObj(li)) return this.problem(lp, 'must be an object {ledger_id, amount, description?, category?}')
        this.unknownKeys(li, ['ledger_id', 'amount', 'description', 'category'], lp)
        const ledger = this.ref(li, 'ledger_id', lp, ID_PREFIX.ledger, businessId, 'ledgers', true)
        const liAmount = this.num(li, 'amount', lp, true)
        if (ledger === undefined || liAmount === undefined) return
        items.push({
          ledger,
          amount: liAmount,
          description: this.str(li, 'description', lp, false) ?? '',
          category: this.str(li, 'category', lp, false) ?? '',
        })
      })
      if (id === null || !account || amount === undefined || !datetime || !description) return
      if (items.length !== rawItems.length) return
      ops.push(() => {
        const b = bizAtApply()
        const transactionId = id ?? state.newId(ID_PREFIX.transaction)
        const transaction: Transaction = {
          id: transactionId,
          external_id: externalId ?? `ext-${transactionId.slice(4)}`,
          external_account_id: account,
          amount,
          datetime,
          description,
          posted,
          type,
          reviewed,
          status,
          metadata_: {},
          category: [],
          line_items: items.map((li) => ({
            id: state.newId(ID_PREFIX.lineEntry),
            ledger_id: li.ledger,
            category: li.category,
            description: li.description,
            amount: li.amount,
          })),
          invoice_payments: null,
          refund_payments: null,
          bill_payments: null,
          tags: {},
        }
        state.transactions.add(b, transaction)
        return ['transactions', transactionId]
      })
    })
    return ops
  }

  private documents(value: Obj, path: FixturePath, businessId: string, bizAtApply: () => string): Op[] {
    const ops: Op[] = []
    const state = this.state
    this.list(value, 'documents', path).forEach((item, i) => {
      const p = [...path, 'documents', i]
      if (!isObj(item)) return this.problem(p, 'must be an object {id?, name, linked_to?}')
      this.unknownKeys(item, ['id', 'name', 'linked_to'], p)
      const id = this.ownId(item, p, ID_PREFIX.document, businessId)
      const name = this.str(item, 'name', p, true)
      const links: string[] = []
      this.list(item, 'linked_to', p).forEach((link, j) => {
        const lp = [...p, 'linked_to', j]
        if (typeof link !== 'string' || !UNLINKABLE_PREFIXES.some((prefix) => link.startsWith(prefix)))
          return this.problem(lp, `must be an external account (eac_…), transaction (txn_…) or journal entry (je_…) id`)
        const known =
          this.planned.get(link) === businessId ||
          state.externalAccounts.get(businessId, link) !== undefined ||
          state.transactions.get(businessId, link) !== undefined ||
          state.journalEntries.get(businessId, link) !== undefined
        if (!known)
          return this.problem(lp, `${link} does not exist in business ${businessId} (nor earlier in the fixtures)`)
        links.push(link)
      })
      if (id === null || !name) return
      ops.push(() => {
        const b = bizAtApply()
        const documentId = id ?? state.newId(ID_PREFIX.document)
        state.documents.add(b, {id: documentId, business_id: b, name, associations: new Set(links)})
        return ['documents', documentId]
      })
    })
    return ops
  }

  private tasks(value: Obj, path: FixturePath, businessId: string, bizAtApply: () => string): Op[] {
    const ops: Op[] = []
    const state = this.state
    this.list(value, 'tasks', path).forEach((item, i) => {
      const p = [...path, 'tasks', i]
      if (!isObj(item)) return this.problem(p, 'must be an object {id?, type, status?}')
      this.unknownKeys(item, ['id', 'type', 'status'], p)
      const id = this.ownId(item, p, ID_PREFIX.task, businessId)
      const type = this.oneOf(item, 'type', p, TASK_TYPES, 'other')
      if (item.type === undefined || item.type === null) this.problem([...p, 'type'], 'is required')
      const status = this.oneOf(item, 'status', p, ['open', 'completed'] as const, 'open')
      if (id === null || !type || !status || item.type === undefined) return
      ops.push(() => {
        const b = bizAtApply()
        const taskId = id ?? state.newId(ID_PREFIX.task)
        state.tasks.add(b, {id: taskId, business_id: b, type, status})
        return ['tasks', taskId]
      })
    })
    return ops
  }
}
