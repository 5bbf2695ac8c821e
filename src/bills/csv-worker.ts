/**
 * The reading worker of a dry run (built as dist/csv-worker.cjs): reads and parses the file on a
 * thread of its own and hands the records to the main thread a chunk at a time, so that parsing
 * the next chunk overlaps checking the last. It runs ahead by at most `AHEAD` chunks: the main
 * thread acknowledges each chunk it takes, and memory stays flat when checking is the slower
 * side (a map's translation). Messages are `WorkerMessage`s; reader.ts is the other end.
 */
import {createReadStream} from 'node:fs'
import {parentPort, workerData} from 'node:worker_threads'

import {csvParser, recordBatches, type CsvShape} from './csv-records.js'

export interface CsvWorkerData {
  file: string
  chunkBytes: number
  shape: CsvShape
}

/** What a read error or a parse error was, to be thrown again on the main thread. */
export interface WorkerFailure {
  message: string
  /** csv-parse's error code and line count, which the scan's messages use. */
  code?: string | undefined
  lines?: number | undefined
  /** The file could not be read (not a CSV error). */
  unreadable?: boolean | undefined
}

export type WorkerMessage =
  {records: string[][]; bytes: number} | {end: true; bytes: number} | {failure: WorkerFailure; bytes: number}

/** Chunks parsed and not yet taken: enough to keep both threads busy, few enough to keep RSS flat. */
const AHEAD = 3

async function main(port: NonNullable<typeof parentPort>, data: CsvWorkerData): Promise<void> {
  let bytes = 0
  let unreadable = false
  const source = createReadStream(data.file, {highWaterMark: data.chunkBytes})
  const parser = csvParser(
    source,
    data.shape,
    (n) => (bytes += n),
    (error) => {
      unreadable = true
      return error
    },
  )
  let credit = AHEAD
  let wake: (() => void) | undefined
  port.on('message', () => {
    credit++
    wake?.()
  })
  const post = (message: WorkerMessage) => port.postMessage(message)
  try {
    for await (const records of recordBatches(parser)) {
      post({records, bytes})
      credit--
      while (credit === 0) await new Promise<void>((resolve) => (wake = resolve))
    }
    post({end: true, bytes})
  } catch (error) {
    const e = error as Error & {code?: string; lines?: number}
    post({failure: {message: e.message, code: e.code, lines: e.lines, unreadable}, bytes})
  }
}

if (parentPort) void main(parentPort, workerData as CsvWorkerData)
