/**
 * stdout and stderr once whoever read them has gone (`| head`, a CI log pipeline that stops
 * early). Node reports the closed pipe as an 'error' event on the stream, which unhandled ends
 * the process at once with exit 1: an import half-sent, its batches in flight unconfirmed, its
 * lock left. Instead every later write to that stream is dropped without a word, and the command
 * goes on to its end: what it did is in its files and its exit code. A command whose work is its
 * stdout (a list, an export) stops on its own (src/output/sink.ts).
 *
 * Set up first thing in start.ts, so it holds for every command and for the answers given
 * without the bundle. Any other error on the streams ends the process as before.
 */
export function dropWritesToClosedStreams(): void {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean
    let closed = false
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error
      closed = true
    })
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (!closed) return write(chunk, ...rest)
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined
      if (done) process.nextTick(done)
      return true
    }) as typeof stream.write
  }
}
