/**
 * A server that cannot listen (`bk emulator start`, `bk webhooks listen`) is a usage error
 * naming the address and the flags that change it, not an unexpected failure.
 */
import {InputError} from '../shared/errors.js'

export function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  if (error.code === 'EADDRINUSE') {
    return new InputError(`Port ${port} on ${host} is already in use`, {
      hint: 'Pick another with --port, or --port 0 for a free one (the address is printed when listening starts).',
      cause: error,
    })
  }
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'EACCES') {
    return new InputError(`Cannot listen on ${host}:${port} (${error.code})`, {
      hint: 'Check --host and --port.',
      cause: error,
    })
  }
  return error
}
