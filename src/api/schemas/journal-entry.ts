import {z} from './zod.js'

import {datetime, decimalString, id, opt} from './common.js'
import {ID_PREFIX} from '../../shared/spec.js'

export const debitCredit = z.enum(['debit', 'credit'])

export const journalEntryLineInput = z.object({
  ledger_id: z.string().check(z.minLength(1)),
  description: opt(z.string()),
  debit_credit: debitCredit,
  amount: decimalString,
  tag_value_ids: opt(z.array(id(ID_PREFIX.tagValue))),
})

export const journalEntryInput = z.object({
  description: opt(z.string()),
  datetime,
  lines: z.array(journalEntryLineInput).check(z.minLength(2)),
})
export type JournalEntryInput = z.infer<typeof journalEntryInput>

export const lineEntry = z.looseObject({
  id: id(ID_PREFIX.lineEntry),
  journal_entry_id: opt(z.string()),
  transaction_id: opt(z.string()),
  ledger_id: opt(z.string()),
  description: opt(z.string()),
  debit_credit: opt(debitCredit),
  amount: opt(decimalString),
  tag_value_ids: opt(z.array(z.string())),
})

export const journalEntry = z.looseObject({
  id: id(ID_PREFIX.journalEntry),
  business_id: opt(z.string()),
  description: opt(z.string()),
  clean_description: opt(z.string()),
  datetime: opt(datetime),
  is_reconciled: opt(z.boolean()),
  review_status: opt(z.string()),
  basis: opt(z.string()),
  transaction_id: opt(z.string()),
  categorization_method: opt(z.string()),
  invoice_id: opt(z.string()),
  line_entries: opt(z.array(lineEntry)),
})
export type JournalEntry = z.infer<typeof journalEntry>
