/**
 * POST /_emulator/fixtures: adds a fixture set at run time, the same document `bk emulator start
 * --fixtures` reads (src/emulator/fixtures.ts): businesses with their vendors, ledgers, tag
 * fields, customers, invoices, refunds, transactions, documents and tasks. Applied whole or not
 * at all. 201 `{data: {kind: [ids]}}`; 422 `{error, data: {problems: [{path, message}]}}`.
 * No token needed, never faulted.
 */
import {applyFixtures, FixtureError, formatPath} from '../fixtures.js'
import {HttpError, ok, parseJsonBody} from '../http.js'
import type {EmulatorContext} from './context.js'
import {counted} from '../../shared/counts.js'

export function register({router, state}: EmulatorContext): void {
  router.add('POST', '/_emulator/fixtures', (ctx) => {
    const body = parseJsonBody(ctx.rawBody)
    try {
      return ok({data: applyFixtures(state, body)}, 201)
    } catch (error) {
      if (!(error instanceof FixtureError)) throw error
      const problems = error.problems.map((p) => ({path: formatPath(p.path), message: p.message}))
      throw new HttpError(
        422,
        `The fixtures were not added: ${counted(problems.length, 'problem')}, the first: ${problems[0]?.path}: ${problems[0]?.message}`,
        {problems},
      )
    }
  })
}
