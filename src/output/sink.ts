/**
 * Where output goes: stdout, or a file given with --file (`-` is stdout). Writes honour
 * backpressure so that streaming an export keeps memory flat.
 */
import {createWriteStream} from 'node:fs'
import {once} from 'node:events'
import type {Writable} from 'node:stream'

export interface Sink {
  readonly isTty: boolean
  write(text: string): Promise<void>
  end(): Promise<void>
}

export function openSink(file?: string | undefined): Sink {
  const toStdout = !file || file === '-'
  const stream: Writable = toStdout ? process.stdout : createWriteStream(file, {flags: 'w'})
  return {
    isTty: toStdout && Boolean(process.stdout.isTTY),
    async write(text: string) {
      if (!stream.write(text)) await once(stream, 'drain')
    },
    async end() {
      if (toStdout) return
      stream.end()
      await once(stream, 'finish')
    },
  }
}
