/**
 * A loopback HTTP proxy in front of the emulator that keeps each request's method, path and
 * body exactly as bk sent them, then forwards it: tests see the bytes on the wire, and the
 * emulator still answers (and stores what it created).
 */
import {forward, loopbackServer} from './loopback-proxy.js'

export interface RecordedRequest {
  method: string
  path: string
  body: string
}

export interface RecordingProxy {
  baseUrl: string
  requests: RecordedRequest[]
  /** Resolves once a request matching `holds` has arrived (at once if one has). */
  whenRequest(holds: (r: RecordedRequest) => boolean): Promise<RecordedRequest>
  /** Lets held requests through (see `hold`). */
  release(): void
  close(): Promise<void>
}

/**
 * `hold`: requests it matches wait in the proxy until `release()`: a run is then certainly in
 * flight for as long as a test needs, with no clock involved.
 */
export async function recordingProxy(
  target: string,
  hold: (r: RecordedRequest) => boolean = () => false,
): Promise<RecordingProxy> {
  const upstream = new URL(target)
  const requests: RecordedRequest[] = []
  const waiters: Array<{holds: (r: RecordedRequest) => boolean; resolve: (r: RecordedRequest) => void}> = []
  let release!: () => void
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  const server = await loopbackServer((req, body, res) => {
    const recorded = {method: req.method ?? '', path: req.url ?? '', body: body.toString('utf8')}
    requests.push(recorded)
    for (const w of waiters.splice(0)) {
      if (w.holds(recorded)) w.resolve(recorded)
      else waiters.push(w)
    }
    if (!hold(recorded)) return forward(upstream, req, body, res)
    void released.then(() => forward(upstream, req, body, res))
  })
  return {
    baseUrl: server.baseUrl,
    requests,
    whenRequest: (holds) =>
      new Promise((resolve) => {
        const seen = requests.find(holds)
        if (seen) resolve(seen)
        else waiters.push({holds, resolve})
      }),
    release,
    close: () => {
      release()
      return server.close()
    },
  }
}
