import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {IN_FLIGHT_REASON, BillLogWriter, readBillLog} from '../../src/bills/resume-log.js'
import {tempDir} from '../helpers/bk.js'

const header =
  '{"t":"header","format":"bk-bills-journal","version":1,"input":"b.csv","business":"biz_demo_acme","baseUrl":"http://127.0.0.1:1","at":"2026-01-01T00:00:00Z"}'

describe('import journal', () => {
  it('replays outcomes; a batch sent without a result is unconfirmed; a not-sent batch is forgotten; a torn last line is ignored', async () => {
    const file = join(tempDir('bk-journal-'), 'b.csv.bk-journal')
    writeFileSync(
      file,
      [
        header,
        '{"t":"run","at":"x","resume":false}',
        '{"t":"sending","batch":1,"numbers":["A","B","C"]}',
        '{"t":"sending","batch":2,"numbers":["D"]}',
        '{"t":"sending","batch":3,"numbers":["E"]}',
        '{"t":"result","batch":1,"created":[["A","bil_1"]],"failed":[["B","no vendor"]],"unconfirmed":[["C","outcome unknown: x"]]}',
        '{"t":"notsent","batch":3,"reason":"503"}',
        '{"t":"result","batch":4,"created":[["F","bil_',
      ].join('\n'),
    )
    const state = await readBillLog(file)
    expect(state.batches).toBe(3)
    expect(Object.fromEntries(state.outcomes)).toEqual({
      A: {kind: 'created', id: 'bil_1'},
      B: {kind: 'failed', reason: 'no vendor'},
      C: {kind: 'unconfirmed', reason: 'outcome unknown: x'},
      D: {kind: 'unconfirmed', reason: IN_FLIGHT_REASON},
    })
  })

  it('cuts off a torn last line before appending, so the journal stays readable', async () => {
    const file = join(tempDir('bk-journal-'), 'b.csv.bk-journal')
    // A crash (or a full disk) cut the last write short: the record has no newline.
    writeFileSync(
      file,
      [header, '{"t":"run","at":"x","resume":false}', '{"t":"sending","batch":1,"numbers":["A"'].join('\n'),
    )
    const writer = await BillLogWriter.open(file)
    await writer.append({t: 'run', at: 'y', resume: true})
    await writer.append({t: 'sending', batch: 1, numbers: ['B']})
    await writer.close()
    const state = await readBillLog(file)
    // The torn record was never acted on (nothing is sent before its record is whole): only B is in flight.
    expect(Object.fromEntries(state.outcomes)).toEqual({B: {kind: 'unconfirmed', reason: IN_FLIGHT_REASON}})
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(4)
  })

  it('ignores a whole-looking last record with no newline: its write never completed', async () => {
    const file = join(tempDir('bk-journal-'), 'b.csv.bk-journal')
    writeFileSync(file, [header, '{"t":"sending","batch":1,"numbers":["A"]}'].join('\n'))
    expect((await readBillLog(file)).outcomes.size).toBe(0)
  })

  it('refuses a journal damaged in the middle, naming the line', async () => {
    const file = join(tempDir('bk-journal-'), 'b.csv.bk-journal')
    writeFileSync(file, [header, '{"t":"run"', '{"t":"sending","batch":1,"numbers":["A"]}', ''].join('\n'))
    await expect(readBillLog(file)).rejects.toThrow(/damaged at line 2/)
  })

  it('writes records durably in order, grouping concurrent appends', async () => {
    const file = join(tempDir('bk-journal-'), 'j.bk-journal')
    const writer = await BillLogWriter.open(file)
    await writer.append(JSON.parse(header))
    await Promise.all(
      Array.from({length: 20}, (_, i) => writer.append({t: 'sending', batch: i + 1, numbers: [`N-${i}`]})),
    )
    await writer.close()
    const state = await readBillLog(file)
    expect(state.batches).toBe(20)
    expect(state.outcomes.get('N-7')).toEqual({kind: 'unconfirmed', reason: IN_FLIGHT_REASON})
  })
})
