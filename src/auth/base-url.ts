import {isLoopback} from '../net/loopback.js'
import {InputError} from '../shared/errors.js'
import type {Environment} from './profiles.js'

/** Where `bk emulator start` listens unless told otherwise. */
export const LOCAL_BASE_URL = 'http://127.0.0.1:4010'

/** https only, except loopback addresses (the emulator). */
export function validateBaseUrl(value: string, origin = 'base URL'): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new InputError(`Invalid ${origin} "${value}": expected an absolute URL such as https://api.example.com`, {
      hint: `${fixOf(origin)}; \`bk doctor\` shows where each setting comes from.`,
    })
  }
  if (url.username || url.password) {
    // Credentials in a URL end up in profiles, traces and messages; bk authenticates otherwise.
    url.username = ''
    url.password = ''
    throw new InputError(`Refusing ${origin} "${url.toString()}" with a user name or password in it (not shown)`, {
      hint: "Give the URL without user:pass@; bk authenticates with the profile's client id and secret.",
    })
  }
  if (url.protocol === 'https:') return url.toString().replace(/\/$/, '')
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return url.toString().replace(/\/$/, '')
  throw new InputError(
    `Refusing ${origin} "${value}": only https is allowed, except for loopback addresses (the emulator)`,
    {
      hint: `${fixOf(origin)}, or http://127.0.0.1:PORT for the local emulator; \`bk doctor\` shows where each setting comes from.`,
    },
  )
}

/** What to change: the variable that set the URL, else the URL given. */
function fixOf(origin: string): string {
  if (origin === 'base URL') return 'Give an https:// URL'
  return origin.startsWith('--') ? `Give ${origin} an https:// URL` : `Set ${origin} to an https:// URL`
}

export function defaultBaseUrl(env: Environment): string | undefined {
  return env === 'local' ? LOCAL_BASE_URL : undefined
}
