import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {InputError} from '../../shared/errors.js'
import {counted} from '../../shared/counts.js'
import {billReadingFlags, businessFlag} from '../../cli/flags.js'

export interface EmulatorFixturesResult {
  file: string | null
  businessId: string
  bills: number
  invalid: number
  vendors: string[]
  ledgers: string[]
  tagFields: Record<string, string[]>
}

export default class EmulatorFixtures extends BaseCommand<typeof EmulatorFixtures> {
  static override summary = 'Write a fixtures file with every vendor, ledger and tag a bills CSV refers to.'
  static override description = `Reads the bills file as \`bk bills import\` does (the same --map, --lookup and format flags) and writes a fixtures file for \`bk emulator start --fixtures\`: the business with each vendor, ledger and tag field and value its valid bills name. A CI job can so test its real file against the emulator: start the emulator with these fixtures, import, and check what it holds. Vendor and ledger names are the lookup file's values where a lookup gave the id, else the id. Bills that do not read are left out and counted (\`bk bills import --dry-run\` lists them).`

  static override examples = [
    '<%= config.bin %> <%= command.id %> --from-csv bills.csv --business biz_mycompany --out fixtures.yaml',
    '<%= config.bin %> <%= command.id %> --from-csv export.csv --map xero --lookup vendor_id=vendors.csv --out fixtures.yaml',
  ]

  static override flags = {
    'from-csv': Flags.string({summary: 'The bills CSV to read (as bk bills import reads it).', required: true}),
    out: Flags.string({char: 'o', summary: 'Write the fixtures here (YAML; .json for JSON) instead of stdout.'}),
    business: businessFlag(),
    ...billReadingFlags(),
  }

  async run(): Promise<EmulatorFixturesResult> {
    const {flags} = this
    const file = flags['from-csv']
    if (file === '-') throw new InputError('--from-csv needs a file: stdin cannot be read twice by the import after it')
    const {readingOptions} = await import('../../bills/reading.js')
    const {map, lookups} = await readingOptions({
      map: flags.map,
      lookup: flags.lookup,
      dateFormat: flags['date-format'],
      year: flags.year,
      numberFormat: flags['number-format'],
      delimiter: flags.delimiter,
      encoding: flags.encoding,
    })
    const given = await this.businessIdIfGiven()
    const {dryRun} = await import('../../bills/import.js')
    // Every valid bill, as the import would send it: what the emulator must know is what they name.
    const result = await dryRun({
      file,
      map,
      lookups,
      businessId: given,
      maxErrors: 20,
      show: Number.POSITIVE_INFINITY,
    })
    const bills = result.shown ?? []
    const named = new Set(bills.map((b) => b.business_id).filter((b): b is string => b !== undefined))
    if (named.size > 1)
      throw new InputError(
        `${file} names ${counted(named.size, 'business', 'businesses')} (${[...named].join(', ')}); fixtures are made for one at a time`,
      )
    const businessId = given ?? [...named][0]
    if (!businessId)
      throw new InputError(`No business for the fixtures: ${file} has no business_id column`, {
        hint: 'Pass --business biz_… (the id your import will use), or set BK_BUSINESS_ID.',
      })
    const vendors = new Set<string>()
    const ledgers = new Set<string>()
    const tags = new Map<string, Set<string>>()
    for (const bill of bills) {
      if (bill.vendor_id) vendors.add(bill.vendor_id)
      for (const line of bill.lines) ledgers.add(line.ledger_id)
      for (const [field, spec] of Object.entries(bill.tags ?? {})) {
        let values = tags.get(field)
        if (!values) tags.set(field, (values = new Set()))
        for (const value of typeof spec === 'string' ? [spec] : spec.map((a) => a.value)) values.add(value)
      }
    }
    const nameOf = (field: string) => {
      const lookup = lookups.get(field)
      const names = new Map<string, string>()
      for (const [from, to] of lookup?.values ?? []) if (!names.has(to)) names.set(to, from)
      return (id: string) => names.get(id) ?? id
    }
    const vendorName = nameOf('vendor_id')
    const ledgerName = nameOf('line_ledger_id')
    const fixtures = {
      businesses: [
        {
          id: businessId,
          vendors: [...vendors].sort().map((id) => ({id, name: vendorName(id)})),
          ledgers: [...ledgers].sort().map((id) => ({id, name: ledgerName(id)})),
          ...(tags.size
            ? {tag_fields: Object.fromEntries([...tags].map(([field, values]) => [field, [...values].sort()]))}
            : {}),
        },
      ],
    }
    const json = flags.out?.toLowerCase().endsWith('.json')
    const {stringify} = await import('yaml')
    const text = json
      ? JSON.stringify(fixtures, null, 2) + '\n'
      : `# Fixtures for bk emulator start --fixtures, from ${file}: every vendor, ledger and tag its bills name.\n` +
        stringify(fixtures)
    if (flags.out) {
      const {writeFile} = await import('node:fs/promises')
      await writeFile(flags.out, text)
    } else if (!this.jsonEnabled()) process.stdout.write(text)
    const invalid = result.invalid
    this.note(
      `${flags.out ?? 'stdout'}: ${businessId} with ${counted(vendors.size, 'vendor')}, ${counted(ledgers.size, 'ledger')} and ${counted(tags.size, 'tag field')}, from ${counted(bills.length, 'bill')}${invalid ? `; ${counted(invalid, 'bill')} that ${invalid === 1 ? 'does' : 'do'} not read ${invalid === 1 ? 'was' : 'were'} left out (bk bills import --dry-run lists them)` : ''}.`,
    )
    return {
      file: flags.out ?? null,
      businessId,
      bills: bills.length,
      invalid,
      vendors: [...vendors].sort(),
      ledgers: [...ledgers].sort(),
      tagFields: Object.fromEntries([...tags].map(([f, v]) => [f, [...v].sort()])),
    }
  }
}
