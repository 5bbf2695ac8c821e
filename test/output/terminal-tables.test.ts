/**
 * List tables on a real pseudo-terminal (util-linux `script`, its size set with stty) at 80 and
 * 160 columns: no line wider than the terminal, no borders, amounts right-aligned on their
 * decimal point, dates alone at midnight UTC, long text cut with `…` and low-priority columns
 * dropped on the narrow one; NO_COLOR; and the pager (a recording one, and the real less).
 */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import {tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'
import {plain, runBkTty} from '../helpers/tty.js'

vi.setConfig({testTimeout: 240_000})

let emulator: RunningEmulator
let env: Record<string, string | undefined>
beforeAll(async () => {
  emulator = await start()
  // No pager unless a test asks for one: a real less would wait for a key.
  env = {...envFor(emulator), PAGER: undefined, BK_PAGER: undefined}
})
afterAll(() => emulator.close())

const BORDERS = /[│┃┆─━┌┐└┘├┤┬┴┼]/

/** The screen's non-empty lines (stdout alone when stderr was sent elsewhere). */
const screenLines = (text: string) =>
  plain(text)
    .split('\n')
    .filter((l) => l.trim() !== '')

/**
 * Every cell of each amount column ends where its right-aligned header ends, with a point and
 * two decimals there (the fixture's amounts name no currency: two decimals), or is empty.
 */
function expectAmountsAligned(lines: string[], headers: string[]): number {
  const [header, ...rows] = lines as [string, ...string[]]
  let checked = 0
  for (const name of headers) {
    const at = header.search(new RegExp(`(?<=^| )${name.replace(/ /g, ' ')}(?= |$)`))
    if (at === -1) continue
    const end = at + name.length
    for (const row of rows) {
      const cell = row.slice(at, end)
      if (cell.trim() === '' && (row.length <= end || row[end] === ' ')) continue
      expect(row.slice(0, end), `${name} in: ${row}`).toMatch(/ \d+\.\d\d$/)
      expect(row[end] ?? ' ', `${name} ends at its header in: ${row}`).toBe(' ')
      checked++
    }
  }
  return checked
}

const CASES: Array<{name: string; args: string[]; amounts: string[]}> = [
  {name: 'invoices list', args: ['invoices', 'list', '--limit', '30'], amounts: ['TOTAL', 'PAID']},
  {
    name: 'invoices list --lines',
    args: ['invoices', 'list', '--limit', '30', '--lines'],
    amounts: ['TOTAL', 'AMOUNT', 'UNIT PRICE', 'TAX'],
  },
  {name: 'refunds list', args: ['refunds', 'list', '--limit', '30'], amounts: ['AMOUNT', 'PAID']},
]

describe('tables on a terminal', () => {
  for (const columns of [80, 160]) {
    for (const c of CASES) {
      it(`${c.name} at ${columns} columns: fits, borderless, amounts aligned`, async () => {
        const res = await runBkTty([...c.args, '--no-pager'], {env, columns, stderrTo: '/dev/null'})
        expect(res.code, res.stdout).toBe(0)
        const lines = screenLines(res.stdout)
        expect(lines.length).toBeGreaterThan(30)
        for (const line of lines) {
          expect(line.length, line).toBeLessThanOrEqual(columns)
          expect(line).not.toMatch(BORDERS)
        }
        expect(lines[0]).toMatch(/^ID {2,}/)
        // Thirty rows, each with at least one amount shown.
        expect(expectAmountsAligned(lines, c.amounts)).toBeGreaterThanOrEqual(30)
      })
    }
  }

  it('at 80 columns drops the customer and cuts long text; at 160 shows both whole', async () => {
    const narrow = screenLines(
      (await runBkTty(['invoices', 'list', '--limit', '10', '--no-pager'], {env, columns: 80, stderrTo: '/dev/null'}))
        .stdout,
    )
    const wide = screenLines(
      (await runBkTty(['invoices', 'list', '--limit', '10', '--no-pager'], {env, columns: 160, stderrTo: '/dev/null'}))
        .stdout,
    )
    expect(narrow[0]).not.toContain('CUSTOMER')
    expect(wide[0]).toContain('CUSTOMER')
    // The seeded number '-1 credit adjustment' is cut to fit, with an ellipsis; whole when there is room.
    expect(narrow.join('\n')).toMatch(/ -1 credit [a-z]*… /)
    expect(wide.join('\n')).toContain('-1 credit adjustment')
    // Amounts to the cent, dates alone at midnight UTC, a time only when there is one.
    const first = emulator.state.invoices.all(emulator.businessIds[0]!)[0]!
    expect(first.due_at).toMatch(/T00:00:00Z$/)
    expect(wide[1]).toMatch(new RegExp(`^${first.id} .* ${first.due_at.slice(0, 10)}$`))
    expect(wide.join('\n')).toMatch(/ \d{4}-\d\d-\d\d 17:00Z$/m)
    expect(wide.join('\n')).not.toMatch(/T00:00:00Z/)
    expect(wide.join('\n')).toMatch(/ 0\.00 /)
  })

  it('NO_COLOR=1 gives no escape codes; without it the header is bold', async () => {
    const colored = await runBkTty(['invoices', 'list', '--limit', '5', '--no-pager'], {env, columns: 80})
    expect(colored.stdout).toContain('\u001B[1m')
    for (const args of [
      ['invoices', 'list', '--limit', '5'],
      ['refunds', 'list', '--limit', '5', '--summary'],
      ['invoices', 'list', '--limit', '2', '--json'],
    ]) {
      const res = await runBkTty([...args, '--no-pager'], {env: {...env, NO_COLOR: '1'}, columns: 80})
      expect(res.code, res.stdout).toBe(0)
      expect(res.stdout).not.toContain('\u001B')
    }
  })
})

describe('the pager', () => {
  it('takes a listing longer than the screen (PAGER), and only then; --no-pager writes it directly', async () => {
    const dir = tempDir()
    const paged = join(dir, 'paged.txt')
    const pagerEnv = {...env, PAGER: `cat > '${paged}'`}
    const ids = emulator.state.invoices
      .all(emulator.businessIds[0]!)
      .slice(0, 40)
      .map((i) => i.id)

    const long = await runBkTty(['invoices', 'list', '--limit', '40'], {env: pagerEnv, columns: 100, rows: 20})
    expect(long.code).toBe(0)
    const text = readFileSync(paged, 'utf8')
    for (const id of ids) expect(text).toContain(id)
    expect(plain(long.stdout)).not.toContain(ids[39])

    const direct = await runBkTty(['invoices', 'list', '--limit', '40', '--no-pager'], {
      env: {...pagerEnv, PAGER: `cat > '${join(dir, 'not-paged.txt')}'`},
      columns: 100,
      rows: 20,
    })
    expect(plain(direct.stdout)).toContain(ids[39])
    expect(existsSync(join(dir, 'not-paged.txt'))).toBe(false)

    const short = await runBkTty(['invoices', 'list', '--limit', '3'], {
      env: {...pagerEnv, PAGER: `cat > '${join(dir, 'short.txt')}'`},
      columns: 100,
      rows: 20,
    })
    expect(plain(short.stdout)).toContain(ids[2])
    expect(existsSync(join(dir, 'short.txt'))).toBe(false)
  })

  it('a pager that fails does not swallow the listing: it is printed directly, and the failure said', async () => {
    const ids = emulator.state.invoices
      .all(emulator.businessIds[0]!)
      .slice(0, 40)
      .map((i) => i.id)
    const result = await runBkTty(['invoices', 'list', '--limit', '40'], {
      env: {...env, PAGER: 'exit 3'},
      columns: 100,
      rows: 20,
    })
    expect(result.code).toBe(0)
    expect(plain(result.stdout)).toContain('bk: the pager (exit 3) failed (exit 3); the listing follows without it.')
    for (const id of ids) expect(plain(result.stdout)).toContain(id)
  })

  it('is less -FRX when PAGER is unset: one screen, until q', async () => {
    const ids = emulator.state.invoices
      .all(emulator.businessIds[0]!)
      .slice(0, 40)
      .map((i) => i.id)
    const res = await runBkTty(['invoices', 'list', '--limit', '40'], {
      env,
      columns: 100,
      rows: 20,
      answers: [{when: new RegExp(ids[10] as string), send: 'q'}],
    })
    expect(res.code).toBe(0)
    const screen = plain(res.stdout)
    expect(screen).toContain(ids[0])
    // less showed one screen and was quit: the last rows never reached the terminal.
    expect(screen).not.toContain(ids[39])
  })
})
