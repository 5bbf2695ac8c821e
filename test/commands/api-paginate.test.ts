/**
 * `bk api --paginate` on an endpoint that answers no list: the request was sent, so the failure is
 * the service's answer (exit 1, unexpected_response), never exit 2, which says nothing was sent.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

describe('bk api --paginate on an answer that is not a list', () => {
  it('exits 1 as an unexpected answer, naming the request, with a hint to drop --paginate', async () => {
    const text = await runBk(['api', 'GET', '/.well-known/jwks.json', '--paginate'], {env: envFor(emulator)})
    expect(text.code, text.stderr).toBe(1)
    expect(text.stderr).toBe(
      'Error: GET /.well-known/jwks.json did not answer with a paginated list (an object with data and pagination), so --paginate cannot follow it\n' +
        'Hint: Run it again without --paginate to print the answer as it is.\n',
    )
    const json = await runBk(['api', 'GET', '/.well-known/jwks.json', '--paginate', '--json'], {env: envFor(emulator)})
    expect(json.code).toBe(1)
    expect(parseJsonOutput<{code: string}>(json).code).toBe('unexpected_response')
  })
})
