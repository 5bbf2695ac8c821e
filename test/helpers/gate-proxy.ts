/**
 * A loopback proxy in front of the emulator that stops one chosen request at a chosen point, so
 * that a test can kill bk at a moment it knows, with no clock: `drop` keeps the request from the
 * emulator (the service never acts), `swallow` forwards it and keeps the emulator's answer from
 * bk (the service acted; bk cannot know). Every other request passes through.
 */
import type {IncomingMessage} from 'node:http'

import {forward, loopbackServer, type LoopbackServer} from './loopback-proxy.js'

export type GateMode = 'drop' | 'swallow'

export interface GateProxy extends LoopbackServer {
  /** Resolves once the gated request reached its point: held (drop), or answered by the emulator (swallow). */
  gated: Promise<void>
}

/** Gates the `nth` request (1-based) that `matches`, in `mode`. */
export async function gateProxy(
  target: string,
  mode: GateMode,
  matches: (req: IncomingMessage) => boolean,
  nth = 1,
): Promise<GateProxy> {
  const upstream = new URL(target)
  let seen = 0
  let reached!: () => void
  const gated = new Promise<void>((resolve) => {
    reached = resolve
  })
  const server = await loopbackServer((req, body, res) => {
    const gate = matches(req) && ++seen === nth
    if (!gate) return forward(upstream, req, body, res)
    if (mode === 'drop') return reached()
    // Read whole: the emulator has acted and answered; bk never hears it.
    forward(upstream, req, body, res, (answer) => {
      answer.resume()
      answer.on('end', reached)
    })
  })
  return {...server, gated}
}
