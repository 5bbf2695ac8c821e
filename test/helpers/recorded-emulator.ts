/**
 * One emulator per test file, and a recording proxy in front of it for each test: a test reads
 * the bills an import posted from the wire, and the emulator still stores what it created.
 */
import {afterAll, afterEach, beforeAll, beforeEach} from 'vitest'

import {envFor, start, type RunningEmulator} from './emulator.js'
import {recordingProxy, type RecordingProxy} from './recording-proxy.js'

export function recordedEmulator(businessId: string) {
  let emulator: RunningEmulator
  let proxy: RecordingProxy
  beforeAll(async () => {
    emulator = await start()
  })
  afterAll(() => emulator.close())
  beforeEach(async () => {
    proxy = await recordingProxy(emulator.baseUrl)
  })
  afterEach(() => proxy.close())
  return {
    emulator: () => emulator,
    proxy: () => proxy,
    /** bk's environment for the business, through the proxy. */
    env: () => ({...envFor(emulator, businessId), BK_BASE_URL: proxy.baseUrl}),
    billPosts: () => proxy.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/bills')),
  }
}
