/**
 * The setup shared by the command tests of test/records: an emulator, a recorder that proves bad
 * local input sends nothing, and the environments for the 403 and 404 cases.
 */
import {afterAll, beforeAll, expect} from 'vitest'

import {runBk} from '../helpers/bk.js'
import {envFor, start, tokenFor, type RunningEmulator} from '../helpers/emulator.js'
import {recorderEnv, startRecorder, type Recorder} from './recorder.js'

export interface CommandFixture {
  emulator: RunningEmulator
  recorder: Recorder
  /** The first seeded business. */
  biz: string
  /** A token limited to the second business, used against the first. */
  otherBusinessEnv: Record<string, string | undefined>
  /** A business that does not exist. */
  missingBusinessEnv: Record<string, string | undefined>
  /** Credentials whose tokens carry only this scope. */
  scoped(scope: string): Record<string, string | undefined>
  /** Runs bk against the recorder and checks it exits 2 naming `mention`, having sent nothing. */
  expectLocalRefusal(args: string[], mention: string): Promise<void>
}

/** Registers beforeAll/afterAll; the fields are filled in before the first test runs. */
export function useCommandFixture(): CommandFixture {
  // The fields are set in beforeAll; the tests read them only once it has run.
  const fx = {
    scoped: (scope: string): Record<string, string | undefined> => ({...envFor(fx.emulator), BK_SCOPES: scope}),
    async expectLocalRefusal(args: string[], mention: string) {
      const before = fx.recorder.requests.length
      const result = await runBk(args, {env: recorderEnv(fx.recorder)})
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr + result.stdout).toContain(mention)
      expect(fx.recorder.requests.slice(before)).toEqual([])
    },
  } as Partial<CommandFixture> as CommandFixture
  beforeAll(async () => {
    fx.emulator = await start()
    fx.recorder = await startRecorder()
    fx.biz = fx.emulator.businessIds[0] as string
    fx.otherBusinessEnv = {
      BK_BASE_URL: fx.emulator.baseUrl,
      BK_ACCESS_TOKEN: await tokenFor(fx.emulator, {business_id: fx.emulator.businessIds[1] as string}),
      BK_BUSINESS_ID: fx.biz,
    }
    fx.missingBusinessEnv = {
      BK_BASE_URL: fx.emulator.baseUrl,
      BK_ACCESS_TOKEN: await tokenFor(fx.emulator),
      BK_BUSINESS_ID: 'biz_missing',
    }
  })
  afterAll(async () => {
    await fx.emulator?.close()
    await fx.recorder?.close()
  })
  return fx
}
