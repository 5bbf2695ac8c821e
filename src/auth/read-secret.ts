import {text} from 'node:stream/consumers'

import {InputError} from '../shared/errors.js'

/** The client secret, from stdin (--client-secret-stdin) or a masked prompt; never from argv. */
export async function readClientSecret(options: {fromStdin: boolean; canPrompt: boolean}): Promise<string> {
  if (options.fromStdin) {
    const secret = (await text(process.stdin)).replace(/\r?\n$/, '')
    if (!secret)
      throw new InputError('--client-secret-stdin was given but standard input was empty', {
        code: 'secret_required',
        hint: 'Pipe the secret in, e.g. `printf %s "$SECRET" | bk profiles add … --client-secret-stdin`.',
      })
    return secret
  }
  if (!options.canPrompt) {
    throw new InputError('No client secret: there is no terminal to ask for it', {
      code: 'secret_required',
      hint: 'Pipe it in with --client-secret-stdin, e.g. `printf %s "$SECRET" | bk profiles add … --client-secret-stdin`.',
    })
  }
  const {password} = await import('../cli/prompts.js')
  return password(
    {message: 'Client secret', mask: '*', validate: (v) => (v ? true : 'The secret cannot be empty')},
    {output: process.stderr},
  )
}
