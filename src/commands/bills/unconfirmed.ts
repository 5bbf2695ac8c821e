import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {isLoopback} from '../../net/loopback.js'
import {BaseCommand} from '../../cli/base-command.js'
import {InputError} from '../../shared/errors.js'
import {describeKey} from '../../bills/bill-key.js'
import {counted, formatCount} from '../../shared/counts.js'
import type {ServiceBill, Settlement, UnconfirmedBill} from '../../bills/settle.js'

export interface BillsUnconfirmedResult {
  journal: string
  business: string
  /** The journal's unconfirmed bills; with --settle, those it settled, as they were before it. */
  unconfirmed: UnconfirmedBill[]
  /** With --settle, what it found of each: created (they exist) or absent (never created). */
  settled?: Settlement | undefined
}

export default class BillsUnconfirmed extends BaseCommand<typeof BillsUnconfirmed> {
  static override summary = 'List the bills of an import whose outcome is unknown, and settle them.'
  static override description = `Reads the import journal of FILE (or --journal) and lists its unconfirmed bills: sent, but the answer never told whether they were created. bk never sends them again by itself.

With --settle, against the bundled emulator (a loopback base URL), bk asks the emulator which of them exist: those are recorded as created (skipped by --resume), the others as never created, so the next --resume sends them. It prints the result in one line; --verbose lists each bill after it, and --json gives every bill. The spec has no bill lookup, so against the service check each bill yourself (docs/bills.md, "Resolving unconfirmed bills").`

  static override examples = [
    '<%= config.bin %> <%= command.id %> bills.csv',
    '<%= config.bin %> <%= command.id %> bills.csv --settle && <%= config.bin %> bills import bills.csv --resume',
  ]

  static override args = {
    file: Args.string({description: 'The CSV file that was imported.', required: true}),
  }

  static override flags = {
    journal: Flags.string({summary: 'The import journal [default: <FILE>.bk-journal].', helpValue: 'FILE'}),
    settle: Flags.boolean({
      summary:
        'Ask the emulator which unconfirmed bills exist, and record the answer in the journal and the record of created bills.',
    }),
    verbose: Flags.boolean({
      summary: 'With --settle, list each bill and what was found, after the result.',
      dependsOn: ['settle'],
    }),
    record: Flags.string({
      summary: 'Folder of the records of created bills [default: $BK_STATE_DIR/created-bills, or the config folder].',
      helpValue: 'DIR',
      dependsOn: ['settle'],
    }),
  }

  async run(): Promise<BillsUnconfirmedResult> {
    const {args, flags} = this
    const {existsSync} = await import('node:fs')
    const {resumeLogPathFor} = await import('../../files/resume-log.js')
    const journal = flags.journal ?? resumeLogPathFor(args.file)
    if (!existsSync(journal))
      throw new InputError(`No import journal at ${journal}`, {
        hint: 'Name the file that was imported, or pass --journal FILE.',
      })
    const {listUnconfirmed, settleUnconfirmed} = await import('../../bills/settle.js')
    const listed = await listUnconfirmed(journal)
    const result: BillsUnconfirmedResult = {journal, business: listed.business, unconfirmed: listed.bills}
    let caughtUp = 0
    if (flags.settle) {
      // Asked only when there is something to settle (and so only then must it be the emulator).
      const held = listed.bills.length > 0 ? await this.emulatorBills(listed.baseUrl, listed.business) : undefined
      // Bills found to exist go to the record of created bills too, so that no later import sends them.
      const {openCreatedRecord, recordFolderFor} = await import('../../bills/created-record.js')
      const record = await openCreatedRecord({
        folder: recordFolderFor(flags.record, this.configDir),
        baseUrl: listed.baseUrl,
        businessId: listed.business,
        input: listed.header.input,
      })
      try {
        const {bills, settlement} = await settleUnconfirmed(journal, held, async ({found, absent, logged}) => {
          // Created bills of the journal the record lacks: bk was killed between the two writes.
          const missing = logged.filter((e) => record.lookup(e.key)?.id === undefined)
          caughtUp = missing.length
          await record.add([...found, ...missing])
          // No longer unconfirmed: any import may send them now.
          await record.addAbsent(absent)
        })
        // The bills this settlement settled (each is in `created` or `absent`), not the listing's.
        result.unconfirmed = bills
        if (listed.bills.length > 0) result.settled = settlement
      } finally {
        record.close()
      }
    }
    if (caughtUp > 0)
      this.note(
        `${counted(caughtUp, 'bill')} the journal records as created ${caughtUp === 1 ? 'was' : 'were'} missing from the record of created bills (bk stopped between the two writes): recorded now.`,
      )
    if (!this.jsonEnabled()) this.print(result)
    return result
  }

  /** The bills the emulator at `baseUrl` holds for `business` (an emulator-only route). */
  private async emulatorBills(baseUrl: string, business: string): Promise<ServiceBill[]> {
    if (!isLoopback(new URL(baseUrl).hostname)) {
      throw new InputError(
        `--settle asks the bundled emulator, and this import went to ${baseUrl}, which is not a loopback address`,
        {
          hint: 'Against the service, check each unconfirmed bill yourself: docs/bills.md, "Resolving unconfirmed bills".',
        },
      )
    }
    const {BkClient} = await import('../../api/client.js')
    const {path} = await import('../../api/path.js')
    const {z} = await import('../../api/schemas/zod.js')
    const schema = z.object({
      data: z.array(z.looseObject({id: z.string(), number: z.nullish(z.string()), vendor_id: z.nullish(z.string())})),
    })
    const client = new BkClient({baseUrl, ...this.transportOptions})
    try {
      const res = await client.request({
        method: 'GET',
        path: path`/_emulator/businesses/${business}/bills`,
        auth: false,
        schema,
      })
      return res.data.data as ServiceBill[]
    } finally {
      await client.close()
    }
  }

  private print(result: BillsUnconfirmedResult): void {
    const {settled} = result
    if (!settled) {
      for (const bill of result.unconfirmed) this.log(`${describeKey(bill.key)}  ${bill.reason}`)
      this.note(`${counted(result.unconfirmed.length, 'unconfirmed bill')} in ${result.journal}.`)
      return
    }
    // The result first: a long list of bills would push it out of sight.
    const {created, absent} = settled
    this.log(
      `Settled ${counted(created.length + absent.length, 'unconfirmed bill')}: ${formatCount(created.length)} ${created.length === 1 ? 'exists' : 'exist'} (recorded as created), ${formatCount(absent.length)} ${absent.length === 1 ? 'was' : 'were'} never created (the next --resume sends ${absent.length === 1 ? 'it' : 'them'}).`,
    )
    if (!this.flags.verbose) {
      this.note('--verbose lists each bill and what was found; --json gives them all to scripts.')
      return
    }
    // By key: two vendors' bills may share a number.
    const ids = new Map(created.map((c) => [c.key, c.id]))
    for (const bill of result.unconfirmed) {
      const id = ids.get(bill.key)
      this.log(`${describeKey(bill.key)}  ${id ? `exists: ${id}` : 'never created'}`)
    }
  }
}
