/**
 * --junit reports, checked by a real validator: xmllint against the Jenkins JUnit schema
 * (test/fixtures/ci/junit-10.xsd, with its source), one test case per bill, entry or
 * notification, and a failing case that names the row and the reason.
 */
import {spawnSync} from 'node:child_process'
import {copyFileSync, existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {BILL_HEADER as HEADER, billRow} from '../helpers/bill-rows.js'
import {ROOT, runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

const XSD = join(ROOT, 'test', 'fixtures', 'ci', 'junit-10.xsd')
const xmllint = spawnSync('xmllint', ['--version'], {encoding: 'utf8'})
const hasXmllint = xmllint.status === 0
if (!hasXmllint) {
  if (process.env.BK_REQUIRE_XMLLINT === '1')
    throw new Error('BK_REQUIRE_XMLLINT=1 but xmllint is not installed (Debian: apt-get install libxml2-utils)')
  console.log('Skipping the JUnit schema tests: xmllint is not installed (Debian package libxml2-utils).')
}

/** xmllint's verdict on a report: exit 0 and "validates" when it matches the schema. */
function validate(file: string): {ok: boolean; text: string} {
  const r = spawnSync('xmllint', ['--noout', '--schema', XSD, file], {encoding: 'utf8'})
  return {ok: r.status === 0, text: r.stderr}
}

/** An XPath 1.0 expression evaluated by xmllint (a count or a string). */
function xpath(file: string, expression: string): string {
  const r = spawnSync('xmllint', ['--xpath', expression, file], {encoding: 'utf8'})
  return r.stdout.trim()
}

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

const row = (number: string, vendor: string, amount: string) =>
  billRow(number, {vendor, amount, description: 'Paper & <ink>'})

describe.skipIf(!hasXmllint)('--junit reports against junit-10.xsd', () => {
  it('bills import: one case per bill; a failing case names the row and the reason', async () => {
    const dir = tempDir('bk-junit-bills-')
    const csv = join(dir, 'bills.csv')
    writeFileSync(
      csv,
      [
        HEADER,
        row('J-1', DEMO_IDS.vendors.office, '10.00'),
        row('J-2', DEMO_IDS.vendors.office, 'ten'),
        row('J-3', 'ven_missing', '5.00'),
        row('J-3', 'ven_missing', '6.00'),
        row('J-4', DEMO_IDS.vendors.office, '7.00'),
      ].join('\n') + '\n',
    )
    const report = join(dir, 'report.xml')
    const r = await runBk(['bills', 'import', csv, '--junit', report], {env: envFor(emulator)})
    expect(r.code, r.stderr).toBe(6)
    const verdict = validate(report)
    expect(verdict.ok, verdict.text).toBe(true)
    expect(xpath(report, 'count(//testcase)')).toBe('4')
    expect(xpath(report, 'string(/testsuites/@failures)')).toBe('2')
    expect(xpath(report, 'count(//testcase[failure])')).toBe('2')
    const invalid = '//testcase[@name="bill J-2 (vendor ven_demo_office) (line 3)"]/failure'
    expect(xpath(report, `string(${invalid}/@message)`)).toMatch(/^column line_amount: "ten" is not a decimal amount/)
    expect(xpath(report, `string(${invalid})`)).toContain(`${csv}:3: column line_amount`)
    const refused = '//testcase[@name="bill J-3 (vendor ven_missing) (line 4)"]/failure'
    expect(xpath(report, `string(${refused}/@type)`)).toBe('refused')
    expect(xpath(report, `string(${refused})`)).toMatch(new RegExp(`${csv}:4: .*ven_missing[\\s\\S]*${csv}:5: `))
    // No leftovers beside the report.
    expect(existsSync(`${report}.cases`) || existsSync(`${report}.partial`)).toBe(false)
  })

  it('bills import: bills created earlier are skipped cases, bills read but not sent failing ones', async () => {
    const dir = tempDir('bk-junit-unsent-')
    const configDir = join(dir, 'config')
    writeFileSync(join(dir, 'first.csv'), [HEADER, row('JU-1', DEMO_IDS.vendors.office, '1.00')].join('\n') + '\n')
    const first = await runBk(['bills', 'import', join(dir, 'first.csv')], {env: envFor(emulator), configDir})
    expect(first.code, first.stderr).toBe(0)
    // JU-1 was created by the first import; JU-2 is still open when an unterminated quote stops the file.
    const csv = join(dir, 'second.csv')
    writeFileSync(
      csv,
      [
        HEADER,
        row('JU-1', DEMO_IDS.vendors.office, '1.00'),
        row('JU-2', DEMO_IDS.vendors.office, '2.00'),
        `JU-3,${DEMO_IDS.vendors.office},"never closed,2026-03-01`,
      ].join('\n') + '\n',
    )
    const report = join(dir, 'report.xml')
    const r = await runBk(['bills', 'import', csv, '--junit', report], {env: envFor(emulator), configDir})
    expect(r.code, r.stderr).toBe(2)
    const verdict = validate(report)
    expect(verdict.ok, verdict.text).toBe(true)
    expect(xpath(report, 'count(//testcase)')).toBe('2')
    const earlier = '//testcase[@name="bill JU-1 (vendor ven_demo_office) (line 2)"]/skipped'
    expect(xpath(report, `string(${earlier}/@message)`)).toMatch(/created earlier by .*first\.csv on /)
    const unsent = '//testcase[@name="bill JU-2 (vendor ven_demo_office) (line 3)"]/failure'
    expect(xpath(report, `string(${unsent}/@type)`)).toBe('unsent')
    expect(xpath(report, `string(${unsent})`)).toContain(`${csv}:3: not sent`)
  })

  it('journal-entries validate: one suite per file, one case per entry, the problem with its line and column', async () => {
    const dir = tempDir('bk-junit-je-')
    const yaml = join(dir, 'unbalanced.yaml')
    copyFileSync(join(ROOT, 'test', 'fixtures', 'journal-entries', 'unbalanced.yaml'), yaml)
    const report = join(dir, 'report.xml')
    const r = await runBk(['journal-entries', 'validate', yaml, '--junit', report])
    expect(r.code, r.stderr).toBe(2)
    const verdict = validate(report)
    expect(verdict.ok, verdict.text).toBe(true)
    expect(xpath(report, 'count(//testsuite)')).toBe('1')
    expect(xpath(report, 'count(//testcase)')).toBe('2')
    expect(xpath(report, 'string(//testcase[failure]/@name)')).toBe('entry 2 "Off by a cent"')
    expect(xpath(report, 'string(//testcase[failure]/failure)')).toBe(
      `${yaml}:9:5: entry 2 "Off by a cent": does not balance: debits 10.00, credits 9.99, difference 0.01 (debits higher)`,
    )
  })

  it('webhooks replay: one case per notification, the undelivered ones failing', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${emulator.baseUrl}/_emulator/events`, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify({type: 'TASK_REQUEST'}),
      })
      expect(res.status).toBe(202)
    }
    const all = emulator.state.notifications
    all.forEach((n, i) => (n.status = i === 0 ? 'error' : 'sent'))
    const report = join(tempDir('bk-junit-wh-'), 'report.xml')
    const r = await runBk(['webhooks', 'replay', '--junit', report], {env: envFor(emulator, null)})
    expect(r.code, r.stderr).toBe(0)
    const verdict = validate(report)
    expect(verdict.ok, verdict.text).toBe(true)
    expect(xpath(report, 'count(//testcase)')).toBe(String(all.length))
    expect(xpath(report, 'count(//testcase[failure])')).toBe('1')
    expect(xpath(report, 'string(//testcase[failure]/@name)')).toBe(`${all[0]!.id} ${all[0]!.notification.type}`)
  })
})
