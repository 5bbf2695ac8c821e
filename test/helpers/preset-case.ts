/**
 * The shared setup of the preset and map tests: write an export into a folder of its own (copied
 * from examples/exports/<preset>/, or written from text), run `bk bills import` there with the
 * preset (or a map) and the example's lookups against the emulator, behind a recording proxy, and
 * hand back what a test checks: the result, the bodies the emulator received, the rejects file.
 */
import {copyFileSync, existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {ROOT, runBk, tempDir, type BkResult} from './bk.js'
import {recordedEmulator} from './recorded-emulator.js'

export const CREDIT_REASON =
  'is a credit note: bk cannot create vendor credits through the API; enter it in the service'

/** A file of the example folder of `preset` (examples/exports/<preset>/). */
export const example = (preset: string, file: string) => join(ROOT, 'examples', 'exports', preset, file)
export const exampleText = (preset: string, file: string) => readFileSync(example(preset, file), 'utf8')
/** The bodies an example export means: its <stem>.expected.json. */
export const expectedBodies = <T = unknown>(preset: string, file: string) =>
  JSON.parse(exampleText(preset, `${stem(file)}.expected.json`)) as T[]

/** The --lookup flags of an example folder's vendors.csv and ledgers.csv. */
export const lookups = (preset: string) => [
  ...['--lookup', `vendor_id=${example(preset, 'vendors.csv')}`],
  ...['--lookup', `line_ledger_id=${example(preset, 'ledgers.csv')}`],
]

const stem = (file: string) => file.replace(/\.[^.]+$/, '')

/** A file's rows: a BOM and the last line ending dropped. */
export const rowsOf = (path: string) =>
  readFileSync(path, 'utf8')
    .replace(/^\uFEFF/, '')
    .trimEnd()
    .split(/\r?\n/)

export interface PresetCase {
  /** The export's file name, in the folder the import runs in. */
  file: string
  /** The example folder: where `file` and `copy` come from, and the default `map` and `lookups`. */
  preset?: string
  /** The export's text; without it (and `dir`), `file` is copied from the example folder. */
  text?: string
  /** The example file copied (byte for byte) as `file`, when the names differ. */
  from?: string
  /** More files copied from the example folder beside the export (a lines file). */
  copy?: string[]
  /** Files written beside the export: name to text (a map, lookup files). */
  files?: Record<string, string>
  /** --map: default the preset of `preset`; null for none. */
  map?: string | null
  /** The example folder whose lookups are passed: default `preset`; null for none. */
  lookups?: string | null
  /** The other flags of the import. */
  flags?: string[]
  /** Run in this folder, over the files already there (another run), instead of a new one. */
  dir?: string
}

export interface PresetRun<T> extends BkResult {
  dir: string
  /** The bills posted to the emulator in this test so far, every batch's bodies in order. */
  sent: T[]
  /** The rejects file's rows, or undefined when the run wrote none. */
  rejects: string[] | undefined
}

/**
 * One emulator for the test file and a recording proxy for each test (call at the top level);
 * gives the function that runs one case, and the emulator's parts for a test's own runs.
 */
export function presetCases(business = 'biz_demo_acme') {
  const recorded = recordedEmulator(business)
  const sent = <T>() => recorded.billPosts().flatMap((r) => JSON.parse(r.body) as T[])

  async function presetCase<T = Record<string, unknown>>(c: PresetCase): Promise<PresetRun<T>> {
    const dir = c.dir ?? tempDir('bk-preset-')
    if (c.text === undefined && !c.dir) copyFileSync(example(c.preset!, c.from ?? c.file), join(dir, c.file))
    for (const f of c.copy ?? []) copyFileSync(example(c.preset!, f), join(dir, f))
    if (c.text !== undefined) writeFileSync(join(dir, c.file), c.text)
    for (const [name, text] of Object.entries(c.files ?? {})) writeFileSync(join(dir, name), text)
    const map = c.map === undefined ? c.preset : c.map
    const lookupsOf = c.lookups === undefined ? c.preset : c.lookups
    const args = [
      ...['bills', 'import', c.file, ...(map ? ['--map', map] : [])],
      ...(c.flags ?? []),
      ...(lookupsOf ? lookups(lookupsOf) : []),
    ]
    const result = await runBk(args, {env: recorded.env(), cwd: dir})
    const rejects = join(dir, `${stem(c.file)}.rejects.csv`)
    return {...result, dir, sent: sent<T>(), rejects: existsSync(rejects) ? rowsOf(rejects) : undefined}
  }

  return {presetCase, sent, ...recorded}
}
