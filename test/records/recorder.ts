/**
 * A server that only counts the requests it gets (and answers 500 to each). Pointing bk at it
 * proves that bad local input sends nothing, not even a token request.
 */
import {reply, scriptedServer} from '../helpers/scripted-server.js'

export interface Recorder {
  baseUrl: string
  /** `METHOD /path?query` of every request received. */
  readonly requests: string[]
  close(): Promise<void>
}

export async function startRecorder(): Promise<Recorder> {
  const server = await scriptedServer([reply(500, {error: 'recorder', data: null})])
  return {
    baseUrl: server.url,
    get requests() {
      return server.requests.map((r) => `${r.method} ${r.url}`)
    },
    close: () => server.close(),
  }
}

/** Credentials that point bk at the recorder instead of the emulator. */
export function recorderEnv(recorder: Recorder): Record<string, string> {
  return {
    BK_BASE_URL: recorder.baseUrl,
    BK_CLIENT_ID: 'local-client',
    BK_CLIENT_SECRET: 'local-secret',
    BK_BUSINESS_ID: 'biz_demo_acme',
  }
}
