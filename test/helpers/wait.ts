/**
 * Waiting on events, never on the clock: each helper checks its condition once, then again on
 * every event that can make it true, and fails as soon as the source ends without it. (A
 * condition that never comes is left to the test's own timeout.)
 */
import {watch, readFileSync} from 'node:fs'
import {basename, dirname} from 'node:path'
import type {Readable} from 'node:stream'

/**
 * Resolves once `holds()` is true, re-checked on each chunk `stream` emits (a child's stdout or
 * stderr that the caller accumulates with a 'data' listener added before this one).
 */
export function whenOutput(stream: Readable, holds: () => boolean, what: string): Promise<void> {
  if (holds()) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const onData = () => {
      if (!holds()) return
      done()
      resolve()
    }
    const onEnd = () => {
      done()
      if (holds()) resolve()
      else reject(new Error(`the output ended before ${what}`))
    }
    const done = () => {
      stream.off('data', onData)
      stream.off('end', onEnd)
    }
    stream.on('data', onData)
    stream.once('end', onEnd)
  })
}

/** Resolves once `holds(text)` is true of the file's text, re-checked whenever its folder changes. */
export function whenFile(
  file: string,
  holds: (text: string) => boolean,
  what: string,
  signal?: AbortSignal,
): Promise<void> {
  const check = () => {
    try {
      return holds(readFileSync(file, 'utf8'))
    } catch {
      return false // not there yet
    }
  }
  return new Promise((resolve, reject) => {
    // Watch the folder: the file may not exist yet, and it may be replaced.
    const watcher = watch(dirname(file), (_event, name) => {
      if (name !== null && name !== basename(file)) return
      if (!check()) return
      watcher.close()
      resolve()
    })
    watcher.once('error', (error) => reject(new Error(`watching ${file} for ${what}: ${error.message}`)))
    // The waiter's own end (the process it watches exited): stop watching.
    signal?.addEventListener('abort', () => {
      watcher.close()
      reject(new Error(`stopped waiting for ${what}`))
    })
    if (check()) {
      watcher.close()
      resolve()
    }
  })
}
