/**
 * A loopback proxy in front of the emulator that holds every request that `matches` until the
 * test opens it, then forwards them all (and every later one): a test can act while bk has
 * requests in flight and nothing of them is done, with no clock. Other requests pass through.
 */
import type {IncomingMessage} from 'node:http'

import {forward, loopbackServer, type LoopbackServer} from './loopback-proxy.js'

export interface ValveProxy extends LoopbackServer {
  /** Resolves once a first request is held. */
  holding: Promise<void>
  /** Forwards the requests held so far, and from now on every request as it comes. */
  open(): void
}

export async function valveProxy(target: string, matches: (req: IncomingMessage) => boolean): Promise<ValveProxy> {
  const upstream = new URL(target)
  let held: Array<() => void> | undefined = []
  let holds!: () => void
  const holding = new Promise<void>((resolve) => (holds = resolve))
  const server = await loopbackServer((req, body, res) => {
    const pass = () => forward(upstream, req, body, res)
    if (!held || !matches(req)) return pass()
    held.push(pass)
    holds()
  })
  return {
    ...server,
    holding,
    open() {
      const waiting = held ?? []
      held = undefined
      for (const pass of waiting) pass()
    },
  }
}
