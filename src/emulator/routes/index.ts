/**
 * The route table: every area of the API registers its routes here, in one list.
 */
import type {EmulatorContext} from './context.js'
import {register as auth} from './auth.js'
import {register as businesses} from './businesses.js'
import {register as bills} from './bills.js'
import {register as journalEntries} from './journal-entries.js'
import {register as emulatorBusinesses} from './emulator-businesses.js'
import {register as emulatorEvents} from './emulator-events.js'
import {register as emulatorInspect} from './emulator-inspect.js'
import {register as emulatorFixtures} from './emulator-fixtures.js'
import {register as emulatorWebhook} from './emulator-webhook.js'
import {register as transactions} from './transactions.js'
import {register as invoices} from './invoices.js'
import {register as refunds} from './refunds.js'
import {register as documents} from './documents.js'
import {register as tasks} from './tasks.js'
import {register as receiptRules} from './receipt-rules.js'
import {register as webhooks} from './webhooks.js'

const modules: Array<(ctx: EmulatorContext) => void> = [
  auth,
  businesses,
  bills,
  journalEntries,
  emulatorBusinesses,
  emulatorEvents,
  emulatorInspect,
  emulatorFixtures,
  emulatorWebhook,
  transactions,
  invoices,
  refunds,
  documents,
  tasks,
  receiptRules,
  webhooks,
]

export function registerRoutes(ctx: EmulatorContext): void {
  for (const register of modules) register(ctx)
}
