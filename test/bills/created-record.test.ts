/**
 * The record of created bills (src/bills/created-record.ts) on real files: concurrent writers
 * from two processes, a torn last line, a damaged one, reopening, and one record per base URL
 * and business.
 */
import {spawn} from 'node:child_process'
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

import {describe, expect, it} from 'vitest'

import {
  createdRecordPath,
  openCreatedRecord,
  type CreatedRecord,
  type CreatedRecordOptions,
} from '../../src/bills/created-record.js'
import {ROOT, tempDir} from '../helpers/bk.js'
import {whenOutput} from '../helpers/wait.js'

const BASE = 'http://127.0.0.1:4010'
const BIZ = 'biz_demo_acme'
/** The tail limit these tests were written at: their records pass it at a scale that runs quickly. */
const MB = 1 << 20

/** The record of BIZ at BASE in `folder` (unless `options` name others), with the tail limit above. */
const openAt = (
  folder: string,
  options: Partial<Pick<CreatedRecordOptions, 'input' | 'baseUrl' | 'businessId'>> = {},
) => openCreatedRecord({tailLimit: MB, folder, baseUrl: BASE, businessId: BIZ, ...options})
/** A bill's key of the default columns, vendor and number. */
const k = (vendor: string, number: string) => `${vendor}\u001f${number}`

/** Opens the record, says "ready", waits for "go" on stdin, then adds its bills in many small batches. */
const WRITER = `
const {openCreatedRecord} = await import(process.argv[1])
const [folder, baseUrl, business, prefix, count, batch] = process.argv.slice(2)
const record = await openCreatedRecord({folder, baseUrl, businessId: business, input: prefix + '.csv'})
process.stdout.write('ready\\n')
await new Promise((resolve) => process.stdin.once('data', resolve))
for (let i = 0; i < Number(count); i += Number(batch)) {
  const bills = []
  for (let j = i; j < Math.min(i + Number(batch), Number(count)); j++)
    bills.push({key: 'ven_' + (j % 7) + '\\u001f' + prefix + '-' + j, id: 'bil_' + prefix + '_' + j})
  await record.add(bills)
}
record.close()
process.stdout.write('done\\n')
`

function startWriter(configDir: string, prefix: string, count: number, batch: number) {
  const module = pathToFileURL(join(ROOT, 'dist', 'unbundled', 'bills', 'created-record.js')).href
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', WRITER, module, configDir, BASE, BIZ, prefix, String(count), String(batch)],
    {stdio: ['pipe', 'pipe', 'pipe']},
  )
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  return {
    child,
    ready: () => whenOutput(child.stdout, () => stdout.includes('ready'), `writer ${prefix} ready`),
    exited,
    output: () => stdout + stderr,
  }
}

/** Lets the writers go once all are ready, and waits until each has exited 0. */
async function runTogether(writers: Array<ReturnType<typeof startWriter>>): Promise<void> {
  await Promise.all(writers.map((w) => w.ready()))
  for (const w of writers) w.child.stdin.end('go\n')
  for (const w of writers) expect(await w.exited, w.output()).toBe(0)
}

describe('record of created bills', () => {
  it('loses nothing when two processes append at once', async () => {
    const configDir = tempDir('bk-record-')
    const count = 600
    // Neither process finds the file: both race to create it, header included.
    await runTogether([startWriter(configDir, 'A', count, 3), startWriter(configDir, 'B', count, 3)])

    const record = await openAt(configDir)
    try {
      expect((await record.summary()).created).toBe(2 * count)
      for (const prefix of ['A', 'B'])
        for (let j = 0; j < count; j++)
          expect(record.lookup(k(`ven_${j % 7}`, `${prefix}-${j}`))?.id, `${prefix}-${j}`).toBe(`bil_${prefix}_${j}`)
    } finally {
      record.close()
    }
    const lines = readFileSync(createdRecordPath(configDir, BASE, BIZ), 'utf8').split('\n')
    expect(lines.pop()).toBe('')
    expect(lines).toHaveLength(1 + 2 * count)
    expect(lines.filter((l) => l.includes('"t":"header"'))).toHaveLength(1)
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow()
  })

  it('finds on reopening what an earlier run added; a bill is its vendor and number', async () => {
    const configDir = tempDir('bk-record-')
    const first = await openAt(configDir, {input: 'monday.csv'})
    expect((await first.summary()).created).toBe(0)
    await first.add([
      {key: k('ven_a', 'INV-1'), id: 'bil_1'},
      {key: k('ven_b', 'INV-1'), id: 'bil_2'},
    ])
    first.close()

    const second = await openAt(configDir, {input: 'tuesday.csv'})
    try {
      expect(second.lookup(k('ven_a', 'INV-1'))?.id).toBe('bil_1')
      expect(second.lookup(k('ven_b', 'INV-1'))?.id).toBe('bil_2')
      expect(second.lookup(k('ven_c', 'INV-1'))?.id).toBeUndefined()
      expect(second.lookup(k('ven_a', 'INV-2'))?.id).toBeUndefined()
      // Added again with the same id (a --resume): not repeated in the file.
      await second.add([
        {key: k('ven_a', 'INV-1'), id: 'bil_1'},
        {key: k('ven_a', 'INV-2'), id: 'bil_3'},
      ])
      expect(second.lookup(k('ven_a', 'INV-2'))?.id).toBe('bil_3')
    } finally {
      second.close()
    }
    const file = createdRecordPath(configDir, BASE, BIZ)
    const records = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(records[0]).toMatchObject({t: 'header', format: 'bk-created-bills', baseUrl: BASE, business: BIZ})
    expect(records.slice(1)).toEqual([
      {key: k('ven_a', 'INV-1'), id: 'bil_1', at: expect.any(String), input: 'monday.csv'},
      {key: k('ven_b', 'INV-1'), id: 'bil_2', at: expect.any(String), input: 'monday.csv'},
      {key: k('ven_a', 'INV-2'), id: 'bil_3', at: expect.any(String), input: 'tuesday.csv'},
    ])
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it('runs appends queued at once in one hold, each seeing the lines of those before it', async () => {
    const configDir = tempDir('bk-record-')
    const run = '2026-03-04T05:06:07.000Z'
    const keys = Array.from({length: 40}, (_, i) => k('ven_1', `Q-${i}`))
    const record = await openAt(configDir, {input: 'q.csv'})
    try {
      // Queued before the first runs, so they share holds of the lock and syncs: a settlement
      // (absent) or a creation of a bill only counts if it sees that bill's unconfirmed line.
      await Promise.all(
        keys.flatMap((key, i) => [
          record.addUnconfirmed([{key, run}]),
          i % 2 === 0 ? record.addAbsent([key]) : record.add([{key, id: `bil_q${i}`}]),
        ]),
      )
    } finally {
      // While the hold may still wait for another call: it ends, nothing more is written.
      record.close()
    }
    const reopened = await openAt(configDir)
    try {
      for (const [i, key] of keys.entries()) {
        if (i % 2 === 0) expect(reopened.lookup(key), key).toBeUndefined()
        else expect(reopened.lookup(key)?.id, key).toBe(`bil_q${i}`)
      }
      expect(await reopened.summary()).toMatchObject({created: 20, unconfirmed: 0, settled: 20})
    } finally {
      reopened.close()
    }
    expect(
      readFileSync(createdRecordPath(configDir, BASE, BIZ), 'utf8')
        .trimEnd()
        .split('\n'),
    ).toHaveLength(81)
  })

  it('ignores a torn last line, and the next add cuts it off', async () => {
    const configDir = tempDir('bk-record-')
    const file = createdRecordPath(configDir, BASE, BIZ)
    const before = await openAt(configDir)
    await before.add([{key: k('ven_a', 'INV-1'), id: 'bil_1'}])
    before.close()
    // A crash in the middle of a write: no newline at the end.
    appendFileSync(file, '{"vendor_id":"ven_a","number":"INV-2","id":"bil_')

    const record = await openAt(configDir)
    try {
      expect((await record.summary()).created).toBe(1)
      expect(record.lookup(k('ven_a', 'INV-2'))?.id).toBeUndefined()
      await record.add([{key: k('ven_a', 'INV-3'), id: 'bil_3'}])
    } finally {
      record.close()
    }
    const text = readFileSync(file, 'utf8')
    expect(text).not.toContain('"INV-2"')
    const reopened = await openAt(configDir)
    expect([(await reopened.summary()).created, reopened.lookup(k('ven_a', 'INV-3'))?.id]).toEqual([2, 'bil_3'])
    reopened.close()
  })

  it('closes the index it stops using when another process rewrites the record', async () => {
    const configDir = tempDir('bk-record-')
    const file = createdRecordPath(configDir, BASE, BIZ)
    // This process's descriptors open on an index of the record, replaced ones ("… (deleted)") included.
    const indexDescriptors = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${file}.index`)
        } catch {
          return false
        }
      }).length
    const record = await openAt(configDir)
    try {
      await record.add([{key: k('ven_a', 'OLD-1'), id: 'bil_old'}])
      await record.summary()
      expect(indexDescriptors()).toBe(1)
      const other = await openAt(configDir)
      // Every line is older than tomorrow: the file is written anew without them, with an index of its own.
      expect(await other.forgetBefore(new Date(Date.now() + 86_400_000))).toEqual({forgotten: 1, kept: 0})
      other.close()
      await record.add([{key: k('ven_a', 'NEW-1'), id: 'bil_new'}])
      expect([record.lookup(k('ven_a', 'OLD-1')), record.lookup(k('ven_a', 'NEW-1'))?.id]).toEqual([
        undefined,
        'bil_new',
      ])
      expect(indexDescriptors()).toBe(1)
    } finally {
      record.close()
    }
    expect(indexDescriptors()).toBe(0)
  })

  it('passes over a damaged line before the last, naming it; reads version 1 lines as the default key', async () => {
    const configDir = tempDir('bk-record-')
    const file = createdRecordPath(configDir, BASE, BIZ)
    ;(await openAt(configDir)).close()
    appendFileSync(file, '{"vendor_id":"ven_a","number":"INV-1","id":"bil_1"}\n{"vendor_id":"ven_a","num\n')
    appendFileSync(file, '{"vendor_id":"ven_a","number":"INV-3","id":"bil_3","at":"2026-11-02T03:04:05.000Z"}\n')
    const record = await openAt(configDir)
    try {
      expect(record.damaged).toEqual([3])
      expect(record.lookup(k('ven_a', 'INV-1'))?.id).toBe('bil_1')
      expect(record.lookup(k('ven_a', 'INV-3'))).toEqual({
        id: 'bil_3',
        at: '2026-11-02T03:04:05.000Z',
        input: undefined,
      })
    } finally {
      record.close()
    }
  })

  it('keeps one record per base URL and business; the URL is normalised', async () => {
    const configDir = tempDir('bk-record-')
    const record = await openAt(configDir)
    await record.add([{key: k('ven_a', 'INV-1'), id: 'bil_1'}])
    record.close()

    const same = await openAt(configDir, {baseUrl: 'HTTP://127.0.0.1:4010/'})
    expect(same.lookup(k('ven_a', 'INV-1'))?.id).toBe('bil_1')
    same.close()
    for (const other of [
      {baseUrl: 'http://127.0.0.1:4011', businessId: BIZ},
      {baseUrl: 'https://api.example.com', businessId: BIZ},
      {baseUrl: BASE, businessId: 'biz_other'},
    ]) {
      const r = await openAt(configDir, other)
      expect(r.file).not.toBe(record.file)
      expect(r.lookup(k('ven_a', 'INV-1'))?.id, JSON.stringify(other)).toBeUndefined()
      r.close()
    }
  })

  it('does not write through a symbolic link at its path', async () => {
    const configDir = tempDir('bk-record-')
    const elsewhere = join(tempDir('bk-record-target-'), 'target.txt')
    writeFileSync(elsewhere, 'untouched\n')
    ;(await openAt(configDir)).close()
    const file = createdRecordPath(configDir, 'http://127.0.0.1:9', BIZ)
    symlinkSync(elsewhere, file)
    await expect(openAt(configDir, {baseUrl: 'http://127.0.0.1:9'})).rejects.toThrow(/symbolic link/)
    expect(readFileSync(elsewhere, 'utf8')).toBe('untouched\n')
  })

  it('indexes a record past its tail limit: every bill found, its states and damaged lines kept', async () => {
    const configDir = tempDir('bk-record-')
    const file = writeBigRecord(configDir, 20_000)
    const record = await openAt(configDir)
    try {
      expect(existsSync(`${file}.index`)).toBe(true)
      expect(record.damaged).toEqual([5002])
      expectBigRecord(record, 20_000)
      expect(await record.summary()).toMatchObject({created: 20_001, unconfirmed: 1, settled: 1, damagedCount: 1})
      await record.add([{key: k('ven_new', 'N-1'), id: 'bil_n1'}])
      await record.addAbsent([k('ven_u', 'U-3')])
    } finally {
      record.close()
    }
    const reopened = await openAt(configDir)
    expect(reopened.lookup(k('ven_new', 'N-1'))?.id).toBe('bil_n1')
    expect(reopened.lookup(k('ven_u', 'U-3'))).toBeUndefined()
    expect(await reopened.summary()).toMatchObject({created: 20_002, unconfirmed: 0, settled: 2})
    reopened.close()
  })

  it('brings its index up to date from its own appends: the counts and answers of an index built from the file', async () => {
    const configDir = tempDir('bk-record-')
    const record = await openAt(configDir, {input: 'a.csv'})
    const run = '2026-03-04T05:06:07.000Z'
    const keys = Array.from({length: 12_000}, (_, i) => k(`ven_${i % 11}`, `C-${i}`))
    const inBatches = async (list: string[], add: (batch: string[]) => Promise<void>) => {
      for (let i = 0; i < list.length; i += 100) await add(list.slice(i, i + 100))
    }
    try {
      // Past the tail limit several times over: the index is brought up to date as the lines go in,
      // and later lines of a key meet its earlier ones in the index (created or settled after unconfirmed).
      await inBatches(keys, (b) => record.addUnconfirmed(b.map((key) => ({key, run}))))
      await inBatches(
        keys.filter((_, i) => i % 3 === 0),
        (b) => record.add(b.map((key) => ({key, id: `bil_${key.length}_${key.slice(-5)}`}))),
      )
      await inBatches(
        keys.filter((_, i) => i % 3 === 1),
        (b) => record.addAbsent(b),
      )
      await record.add([{key: k('ven_new', 'N-1'), id: 'bil_n1'}])
      expect(existsSync(`${record.file}.index`)).toBe(true)
      expect(await record.summary()).toMatchObject({
        created: 4_001,
        unconfirmed: 4_000,
        settled: 4_000,
        damagedCount: 0,
      })
    } finally {
      record.close()
    }
    // The same record indexed again from its file alone.
    rmSync(`${record.file}.index`)
    const rebuilt = await openAt(configDir)
    try {
      expect(await rebuilt.summary()).toMatchObject({created: 4_001, unconfirmed: 4_000, settled: 4_000})
      for (const [i, key] of keys.entries()) {
        if (i % 97 !== 0 && i > 30) continue
        const found = rebuilt.lookup(key)
        if (i % 3 === 0) expect(found?.id, key).toMatch(/^bil_/)
        else if (i % 3 === 1) expect(found, key).toBeUndefined()
        else expect(found?.unconfirmedBy, key).toBe(run)
      }
    } finally {
      rebuilt.close()
    }
  })

  it('keeps the lines added to a large record in an index of their own, merged into the large one in time', async () => {
    const configDir = tempDir('bk-record-')
    // About 11 MB: a tail of 1 MB goes to the recent level, 2 MB into a new large index.
    const file = writeBigRecord(configDir, 120_000)
    // Bills left unconfirmed by an earlier run: their new lines meet them in the large index.
    const old = '2026-02-03T00:00:00.000Z'
    const waiting = Array.from({length: 600}, (_, i) => k('ven_v', `V-${i}`))
    appendFileSync(file, waiting.map((key) => JSON.stringify({key, unconfirmed: old, at: old}) + '\n').join(''))
    const recent = `${file}.index.recent`
    const stale = join(configDir, 'stale.recent')
    const run = '2026-03-04T05:06:07.000Z'
    const keys = Array.from({length: 16_000}, (_, i) => k(`ven_${i % 11}`, `C-${i}`))
    const record = await openAt(configDir, {input: 'a.csv'})
    // The recent level's size after each batch (0: none).
    const sizes: number[] = []
    const inBatches = async (list: string[], add: (batch: string[]) => Promise<void>) => {
      for (let i = 0; i < list.length; i += 100) {
        await add(list.slice(i, i + 100))
        const size = existsSync(recent) ? statSync(recent).size : 0
        if (size > 0 && sizes.length === 1) copyFileSync(recent, stale)
        if (size !== sizes.at(-1)) sizes.push(size)
      }
    }
    try {
      expect(existsSync(recent)).toBe(false)
      await inBatches(
        waiting.filter((_, i) => i % 2 === 0),
        (b) => record.add(b.map((key) => ({key, id: `bil_${key.slice(-5)}`}))),
      )
      await inBatches(
        waiting.filter((_, i) => i % 2 === 1),
        (b) => record.addAbsent(b),
      )
      await inBatches(keys.slice(0, 9_000), (b) => record.addUnconfirmed(b.map((key) => ({key, run}))))
      // The first lines past the tail limit went to the recent level, counted with the large index's.
      expect(sizes.filter((size) => size > 0)).toHaveLength(1)
      expect(await record.summary()).toMatchObject({created: 120_301, unconfirmed: 9_001, settled: 301})
      await inBatches(keys.slice(9_000), (b) => record.addUnconfirmed(b.map((key) => ({key, run}))))
      await inBatches(
        keys.filter((_, i) => i % 2 === 0),
        (b) => record.add(b.map((key) => ({key, id: `bil_${key.slice(-7)}`}))),
      )
      // It grew (the summary brought it up to date), then went into a new large index.
      expect(sizes.slice(0, 3)).toEqual([0, sizes[1], sizes[2]])
      expect(sizes[2]).toBeGreaterThan(sizes[1]!)
      expect(sizes.slice(3)).toContain(0)
      await inBatches(
        keys.filter((_, i) => i % 2 === 1),
        (b) => record.addAbsent(b),
      )
      expect(await record.summary()).toMatchObject({created: 128_301, unconfirmed: 1, settled: 8_301})
    } finally {
      record.close()
    }
    const expectAnswers = (found: CreatedRecord) => {
      for (const [i, key] of [...waiting, ...keys].entries()) {
        if (i % 37 !== 0 && i > 30) continue
        const index = i < waiting.length ? i : i - waiting.length
        if (index % 2 === 0) expect(found.lookup(key)?.id, key).toMatch(/^bil_/)
        else expect(found.lookup(key), key).toBeUndefined()
      }
      expectBigRecord(found, 120_000)
    }
    const expectAll = async (found: CreatedRecord) => {
      expectAnswers(found)
      expect(await found.summary()).toMatchObject({created: 128_301, unconfirmed: 1, settled: 8_301})
    }
    // A recent level that does not start where the large index ends (one of before its merge) is not used.
    copyFileSync(stale, recent)
    await withIndexThenRebuilt(configDir, file, expectAll)
  })

  it('two processes adding to a large record at once, each bringing its index up to date, lose nothing', async () => {
    const configDir = tempDir('bk-record-')
    const file = writeBigRecord(configDir, 120_000)
    ;(await openAt(configDir)).close()
    // 3.4 MB of lines in all, half from each: each process merges what it read into the recent
    // level while the other writes, and past an eighth of the large index, into a new one.
    const count = 20_000
    // Numbers of their own: B-… are the large record's.
    await runTogether([startWriter(configDir, 'P', count, 100), startWriter(configDir, 'Q', count, 100)])

    const expectAll = async (record: CreatedRecord) => {
      expect(await record.summary()).toMatchObject({created: 120_001 + 2 * count, unconfirmed: 1, settled: 1})
      for (const prefix of ['P', 'Q'])
        for (let j = 0; j < count; j += j < 100 ? 1 : 53)
          expect(record.lookup(k(`ven_${j % 7}`, `${prefix}-${j}`))?.id, `${prefix}-${j}`).toBe(`bil_${prefix}_${j}`)
      expectBigRecord(record, 120_000)
    }
    await withIndexThenRebuilt(configDir, file, expectAll)
  })

  it('never trusts a torn index, nor one of another record', async () => {
    const configDir = tempDir('bk-record-')
    const file = writeBigRecord(configDir, 20_000)
    ;(await openAt(configDir)).close()
    const saved = join(configDir, 'saved.index')
    copyFileSync(`${file}.index`, saved)

    truncateSync(`${file}.index`, statSync(`${file}.index`).size - 5)
    const torn = await openAt(configDir)
    expectBigRecord(torn, 20_000)
    torn.close()

    // Another record at the same path, with the first one's index beside it.
    rmSync(file)
    const other = await openAt(configDir)
    await other.add([{key: k('ven_x', 'X-1'), id: 'bil_x1'}])
    other.close()
    copyFileSync(saved, `${file}.index`)
    const fresh = await openAt(configDir)
    expect(fresh.lookup(k('ven_x', 'X-1'))?.id).toBe('bil_x1')
    expect(fresh.lookup(k('ven_7', 'B-7'))).toBeUndefined()
    expect(fresh.damaged).toEqual([])
    fresh.close()
  })

  it('forgets the entries older than a date, and an index of the old file is not used', async () => {
    const configDir = tempDir('bk-record-')
    writeBigRecord(configDir, 20_000)
    const record = await openAt(configDir)
    await record.add([{key: k('ven_new', 'N-1'), id: 'bil_n1'}])
    // Bills B-* were recorded in 2026-01, U-* in 2026-02; N-1 now.
    expect(await record.forgetBefore(new Date('2026-02-01T00:00:00Z'))).toEqual({forgotten: 20_000, kept: 7})
    expect(record.lookup(k('ven_7', 'B-7'))).toBeUndefined()
    expect(record.lookup(k('ven_new', 'N-1'))?.id).toBe('bil_n1')
    expect(await record.summary()).toMatchObject({created: 2, unconfirmed: 1, settled: 1, damagedCount: 1})
    record.close()
  })
})

/** Opens the record in `folder`, runs `check` on it, and closes it. */
async function withRecord(folder: string, check: (record: CreatedRecord) => unknown): Promise<void> {
  const record = await openAt(folder)
  try {
    await check(record)
  } finally {
    record.close()
  }
}

/**
 * Runs `check` on the record as its index stands, then again with both levels of the index
 * deleted, so that the open builds it from the file alone.
 */
async function withIndexThenRebuilt(
  folder: string,
  file: string,
  check: (record: CreatedRecord) => unknown,
): Promise<void> {
  await withRecord(folder, check)
  rmSync(`${file}.index`)
  rmSync(`${file}.index.recent`, {force: true})
  await withRecord(folder, check)
}

/**
 * A record written directly: bills B-0… (January), a damaged line (line 5002), and bills whose
 * lines tell a story (February): U-1 unconfirmed then created, U-2 unconfirmed then settled
 * absent, U-3 unconfirmed.
 */
function writeBigRecord(folder: string, bills: number): string {
  const file = createdRecordPath(folder, BASE, BIZ)
  const lines = [
    JSON.stringify({t: 'header', format: 'bk-created-bills', version: 2, baseUrl: BASE, business: BIZ, at: 'x'}),
  ]
  const at = '2026-01-02T03:04:05.000Z'
  const later = '2026-02-02T03:04:05.000Z'
  lines.push(JSON.stringify({key: k('ven_u', 'U-1'), unconfirmed: later, at: later}))
  for (let i = 0; i < bills; i++) {
    if (lines.length === 5001) lines.push('{"key":"ven_damaged')
    lines.push(JSON.stringify({key: k(`ven_${i % 13}`, `B-${i}`), id: `bil_${i}`, at, input: 'old.csv'}))
  }
  lines.push(JSON.stringify({key: k('ven_u', 'U-1'), id: 'bil_u1', at: later}))
  lines.push(JSON.stringify({key: k('ven_u', 'U-2'), unconfirmed: later, at: later}))
  lines.push(JSON.stringify({key: k('ven_u', 'U-2'), absent: true, at: later}))
  lines.push(JSON.stringify({key: k('ven_u', 'U-3'), unconfirmed: later, at: later}))
  writeFileSync(file, lines.join('\n') + '\n', {mode: 0o600})
  return file
}

function expectBigRecord(record: CreatedRecord, bills: number): void {
  for (let i = 0; i < bills; i += i < 50 || i > bills - 50 ? 1 : 97)
    expect(record.lookup(k(`ven_${i % 13}`, `B-${i}`))?.id, `B-${i}`).toBe(`bil_${i}`)
  expect(record.lookup(k('ven_0', 'B-1'))).toBeUndefined()
  expect(record.lookup(k('ven_u', 'U-1'))?.id).toBe('bil_u1')
  expect(record.lookup(k('ven_u', 'U-2'))).toBeUndefined()
  expect(record.lookup(k('ven_u', 'U-3'))?.unconfirmedBy).toBe('2026-02-02T03:04:05.000Z')
}
