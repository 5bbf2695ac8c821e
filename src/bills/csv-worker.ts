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
  /** The error's code (csv-parse's, or the file system's). */
  code?: string | undefined
  /** csv-parse's: the position in its record of the field it stopped in. */
  index?: number | undefined
}

export type WorkerMessage =
  {records: string[][]; bytes: number} | {end: true; bytes: number} | {failure: WorkerFailure; bytes: number}

/** Chunks parsed and not yet taken: enough to keep both threads busy, few enough to keep RSS flat. */
const AHEAD = 3

async function main(port: NonNullable<typeof parentPort>, data: CsvWorkerData): Promise<void> {
  let bytes = 0
  const source = createReadStream(data.file, {highWaterMark: data.chunkBytes})
  // A read error goes over as it is: its code tells it from csv-parse's (isCsvError).
  const parser = csvParser(
    source,
    data.shape,
    (n) => (bytes += n),
    (error) => error,
  )
  let credit = AHEAD
  let wake: (() => void) | undefined
  port.on('message', () => {
    credit++
    wake?.()
    wake = undefined
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
    const e = error as Error & {code?: string; index?: number}
    post({failure: {message: e.message, code: e.code, index: e.index}, bytes})
  }
}

if (parentPort) void main(parentPort, workerData as CsvWorkerData)
