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
  // server.listen looks a name up first: a host that is no address and no name it resolves.
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') {
    return new InputError(`Cannot listen on ${host}:${port}: no address of that name`, {
      hint: 'Check --host: an IP address of this machine, or a name it resolves (127.0.0.1 by default).',
      cause: error,
    })
  }
  return error
}
