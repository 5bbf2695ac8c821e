/**
 * Where credentials come from, in order: an explicit --profile (or BK_PROFILE), then the
 * environment (BK_ACCESS_TOKEN, or BK_CLIENT_ID/BK_CLIENT_SECRET with BK_BASE_URL or BK_ENV),
 * then the active profile. Each value records its origin for `bk auth status`. BK_BASE_URL or BK_ENV
 * set beside a profile that says otherwise is refused, never ignored: see `profileAgreesWithEnv`.
 * The business is --business, else BK_BUSINESS_ID, else the profile's; the scopes BK_SCOPES, else
 * the profile's.
 */
import {ConfigError, InputError} from '../shared/errors.js'
import {codePoint} from '../shared/code-point.js'
import {headerProblem} from '../api/header-value.js'
import {isLoopback} from '../net/loopback.js'
import {defaultBaseUrl, validateBaseUrl} from './base-url.js'
import {KeychainStore, openStore, secretKeys, type CredentialStore} from './credential-store.js'
import {
  ENVIRONMENTS,
  ProfileStore,
  noActiveProfileHint,
  profileAddCommand,
  unknownProfile,
  type Environment,
} from './profiles.js'

/** Where a value came from: a variable, a flag, `profile NAME`, a default (as `describeOrigin` prints it). */
export type Origin = string

/** The origin of the profile when none was named: config.json's active one. */
const ACTIVE_PROFILE = 'active profile'

/**
 * An origin as printed beside its value: `from BK_BASE_URL`, `from profile sandbox`; a default
 * or the active profile as what it is (`the default for local`, `the active profile`).
 */
export function describeOrigin(origin: Origin): string {
  return origin === ACTIVE_PROFILE || origin.startsWith('default') ? `the ${origin}` : `from ${origin}`
}

export interface ResolvedCredentials {
  source: 'profile' | 'environment'
  profileName?: string | undefined
  environment: Environment
  baseUrl: string
  businessId?: string | undefined
  scope?: string | undefined
  clientId?: string | undefined
  accessToken?: string | undefined
  /** Reads the client secret when it is first needed (a keychain call). */
  clientSecret?: (() => Promise<string>) | undefined
  /** The store that caches this profile's tokens (none for env-only use). */
  store?: CredentialStore | undefined
  origins: Partial<
    Record<
      'profile' | 'environment' | 'baseUrl' | 'business' | 'scope' | 'clientId' | 'clientSecret' | 'accessToken',
      Origin
    >
  >
}

export interface ResolveOptions {
  configDir: string
  /** --profile, when given on the command line. */
  profileFlag?: string | undefined
  /** --business, when given on the command line. */
  businessFlag?: string | undefined
  env?: NodeJS.ProcessEnv
}

export async function resolveCredentials(options: ResolveOptions): Promise<ResolvedCredentials> {
  const env = options.env ?? process.env
  const profiles = new ProfileStore(options.configDir)
  const explicit = options.profileFlag
    ? {name: options.profileFlag, origin: '--profile'}
    : env.BK_PROFILE
      ? {name: env.BK_PROFILE, origin: 'BK_PROFILE'}
      : undefined

  checkEnvironmentName(env.BK_ENV)
  const envCredentials = Boolean(env.BK_ACCESS_TOKEN || env.BK_CLIENT_ID || env.BK_CLIENT_SECRET)
  let resolved: ResolvedCredentials | undefined
  if (explicit) {
    resolved = await fromProfile(profiles, explicit.name, explicit.origin, options.configDir)
  } else if (envCredentials) {
    resolved = fromEnvironment(env)
  } else {
    const config = await profiles.load()
    if (config.active) resolved = await fromProfile(profiles, config.active, ACTIVE_PROFILE, options.configDir)
    else if (Object.keys(config.profiles).length) throw noActiveProfile(Object.keys(config.profiles))
  }
  // With credentials in the environment too, a profile named on purpose beats them all, address
  // included; BK_BASE_URL or BK_ENV alone are the user's word about where this run goes.
  if (resolved?.source === 'profile' && !envCredentials) profileAgreesWithEnv(resolved, env, explicit?.origin)
  if (!resolved) {
    throw new ConfigError(
      'No credentials: no profile is set up and no BK_CLIENT_ID/BK_CLIENT_SECRET or BK_ACCESS_TOKEN is in the environment',
      {
        code: 'no_credentials',
        hint: 'Run `bk auth login`, or `bk profiles add NAME --env sandbox --client-id ID --base-url URL`, or set BK_CLIENT_ID, BK_CLIENT_SECRET and BK_BASE_URL.',
      },
    )
  }
  // The business flag beats BK_BUSINESS_ID, which beats the profile's default.
  if (options.businessFlag) {
    resolved.businessId = options.businessFlag
    resolved.origins.business = '--business'
  } else if (env.BK_BUSINESS_ID && resolved.source === 'profile') {
    resolved.businessId = env.BK_BUSINESS_ID
    resolved.origins.business = 'BK_BUSINESS_ID'
  }
  // BK_SCOPES limits a profile's tokens as it does the environment's (tokens are cached by scope).
  if (env.BK_SCOPES && resolved.source === 'profile') {
    resolved.scope = env.BK_SCOPES
    resolved.origins.scope = 'BK_SCOPES'
  }
  return resolved
}

/** Profiles there are, none of them active (the active one was removed): bk does not pick one. */
function noActiveProfile(names: string[]): ConfigError {
  return new ConfigError(
    'No credentials: no profile is active and no BK_CLIENT_ID/BK_CLIENT_SECRET or BK_ACCESS_TOKEN is in the environment',
    {code: 'no_active_profile', hint: noActiveProfileHint(names), details: {profiles: names}},
  )
}

async function fromProfile(
  profiles: ProfileStore,
  name: string,
  origin: Origin,
  configDir: string,
): Promise<ResolvedCredentials> {
  const config = await profiles.load()
  const profile = config.profiles[name]
  if (!profile && origin !== ACTIVE_PROFILE) throw unknownProfile(name, Object.keys(config.profiles), origin)
  if (!profile) {
    // config.json names an active profile it does not hold: edited by hand, not by bk.
    throw new ConfigError(`The active profile "${name}" is not in ${profiles.file}`, {
      code: 'unknown_profile',
      hint: noActiveProfileHint(Object.keys(config.profiles)),
    })
  }
  const store = openStore(profile.storage, configDir)
  const where = profile.storage === 'keychain' ? 'OS keychain' : `file ${configDir}/credentials.json`
  return {
    source: 'profile',
    profileName: name,
    environment: profile.env,
    baseUrl: profile.baseUrl,
    businessId: profile.business,
    scope: profile.scope,
    clientId: profile.clientId,
    store,
    clientSecret: async () => {
      const secret = await store.get(secretKeys.clientSecret(name))
      // A keychain that cannot be reached reads as empty: say which it is.
      if (!secret && store instanceof KeychainStore) await store.probe()
      if (!secret) {
        throw new ConfigError(`The client secret of profile "${name}" is missing from the ${where}`, {
          code: 'missing_secret',
          hint: `Run \`${profileAddCommand(name, profile)}\` again to store it (add --client-secret-stdin to pipe it in where there is no terminal).`,
        })
      }
      return secret
    },
    origins: {
      profile: origin,
      environment: `profile ${name}`,
      baseUrl: `profile ${name}`,
      clientId: `profile ${name}`,
      clientSecret: where,
      ...(profile.business ? {business: `profile ${name}`} : {}),
      ...(profile.scope ? {scope: `profile ${name}`} : {}),
    },
  }
}

/** A BK_ENV that names no environment is a typo to point out (exit 2), as a bad BK_BASE_URL is. */
function checkEnvironmentName(value: string | undefined): void {
  if (!value || (ENVIRONMENTS as readonly string[]).includes(value)) return
  throw new InputError(`Invalid BK_ENV "${value}": expected one of ${ENVIRONMENTS.join(', ')}`, {
    code: 'invalid_environment',
    hint: `Set BK_ENV to ${ENVIRONMENTS.join(', ')}, or unset it (bk then infers it from BK_BASE_URL).`,
    details: {variable: 'BK_ENV', value},
  })
}

/**
 * BK_BASE_URL or BK_ENV set with no credentials beside them, while a profile's credentials are
 * used: the profile's address would win silently, so a run meant for the emulator would write to
 * the profile's service. Nor may BK_BASE_URL replace the profile's address: its secret and cached
 * tokens would go to a service they were not made for. A value the profile agrees with is fine.
 */
function profileAgreesWithEnv(resolved: ResolvedCredentials, env: NodeJS.ProcessEnv, chosenBy?: Origin): void {
  const name = resolved.profileName as string
  const baseUrl = env.BK_BASE_URL ? validateBaseUrl(env.BK_BASE_URL, 'BK_BASE_URL') : undefined
  const [variable, value, profileValue] =
    baseUrl !== undefined && baseUrl !== resolved.baseUrl
      ? ['BK_BASE_URL', baseUrl, `base URL is ${resolved.baseUrl}`]
      : env.BK_ENV && env.BK_ENV !== resolved.environment
        ? ['BK_ENV', env.BK_ENV, `environment is ${resolved.environment}`]
        : []
  if (!variable) return
  const profile = `profile ${name} (${chosenBy ?? `the ${ACTIVE_PROFILE}`})`
  const envInstead = chosenBy ? `drop ${chosenBy} and set` : 'set'
  throw new InputError(
    `${variable} is ${value}, but the credentials in use are those of ${profile}, whose ${profileValue}: bk will not guess which one you meant`,
    {
      code: 'environment_and_profile_disagree',
      hint: `Unset ${variable} to use profile ${name}; to use ${variable} instead, ${envInstead} BK_CLIENT_ID and BK_CLIENT_SECRET (or BK_ACCESS_TOKEN) beside it.`,
      details: {variable, value, profile: name},
    },
  )
}

function fromEnvironment(env: NodeJS.ProcessEnv): ResolvedCredentials {
  if (!env.BK_ACCESS_TOKEN && (!env.BK_CLIENT_ID || !env.BK_CLIENT_SECRET)) {
    const missing = env.BK_CLIENT_ID ? 'BK_CLIENT_SECRET' : 'BK_CLIENT_ID'
    throw new ConfigError(`${missing} is not set; BK_CLIENT_ID and BK_CLIENT_SECRET go together`, {
      code: 'no_credentials',
      hint: `Set ${missing} as well, or BK_ACCESS_TOKEN alone; or unset both and use a profile (\`bk profiles list\`).`,
    })
  }
  // A secret goes only where the user says: an address by default would hand it to whatever
  // listens there (a CI job that forgot BK_BASE_URL).
  if (!env.BK_BASE_URL && !env.BK_ENV) {
    const [given, is] = env.BK_ACCESS_TOKEN ? ['BK_ACCESS_TOKEN', 'is'] : ['BK_CLIENT_ID and BK_CLIENT_SECRET', 'are']
    throw new ConfigError(
      `${given} ${is} set, but neither BK_BASE_URL nor BK_ENV says which service to send ${is === 'is' ? 'it' : 'them'} to; nothing was sent`,
      {
        code: 'no_base_url',
        hint: "Set BK_BASE_URL to the service's address, or BK_ENV=local for the emulator (`bk emulator start`, on http://127.0.0.1:4010).",
      },
    )
  }
  if (env.BK_ACCESS_TOKEN && env.BK_SCOPES)
    throw new InputError(
      'BK_SCOPES cannot limit the access token from BK_ACCESS_TOKEN: a ready token keeps the scopes it was issued with',
      {
        code: 'token_not_rescoped',
        hint: 'Unset BK_SCOPES to use the token as it is, or set BK_CLIENT_ID and BK_CLIENT_SECRET instead, so that bk asks for a token with those scopes.',
      },
    )
  const environment = (env.BK_ENV || inferEnvironment(env.BK_BASE_URL as string)) as Environment
  const rawUrl = env.BK_BASE_URL ?? defaultBaseUrl(environment)
  if (!rawUrl) {
    throw new ConfigError(`BK_ENV=${environment} has no known address: set BK_BASE_URL as well`, {code: 'no_base_url'})
  }
  const baseUrl = validateBaseUrl(rawUrl, env.BK_BASE_URL ? 'BK_BASE_URL' : 'base URL')
  const origins: ResolvedCredentials['origins'] = {
    environment: env.BK_ENV ? 'BK_ENV' : inferredFrom(environment),
    baseUrl: env.BK_BASE_URL ? 'BK_BASE_URL' : `default for ${environment}`,
  }
  if (env.BK_BUSINESS_ID) origins.business = 'BK_BUSINESS_ID'
  if (env.BK_SCOPES) origins.scope = 'BK_SCOPES'
  const common = {
    source: 'environment' as const,
    environment,
    baseUrl,
    businessId: env.BK_BUSINESS_ID || undefined,
    scope: env.BK_SCOPES || undefined,
  }
  if (env.BK_ACCESS_TOKEN) {
    return {
      ...common,
      accessToken: headerToken(env.BK_ACCESS_TOKEN),
      origins: {...origins, accessToken: 'BK_ACCESS_TOKEN'},
    }
  }
  const secret = env.BK_CLIENT_SECRET as string
  return {
    ...common,
    clientId: env.BK_CLIENT_ID,
    clientSecret: async () => secret,
    origins: {...origins, clientId: 'BK_CLIENT_ID', clientSecret: 'BK_CLIENT_SECRET'},
  }
}

/**
 * BK_ACCESS_TOKEN as the Authorization header carries it. Whitespace around it is a line ending
 * pasted with it (a secret saved with a newline, a file read with CRLF) and is dropped; any other
 * character a header cannot carry (printable ASCII only) is refused, named by its code point and
 * never shown with the token. Sent as it was, the request was refused by the HTTP client before a
 * byte left, which read as a broken connection and left an import's bills unconfirmed.
 */
function headerToken(value: string): string {
  const token = value.trim()
  const bad = headerProblem(token, {word: true})
  if (bad)
    throw new ConfigError(
      `BK_ACCESS_TOKEN holds ${bad.char === ' ' ? 'a space' : codePoint(bad.char)} at character ${bad.index + 1}: a token is one word of printable ASCII; nothing was sent`,
      {
        code: 'invalid_access_token',
        hint: 'Set BK_ACCESS_TOKEN to the token alone, as `bk auth token` prints it (a character pasted with it is the usual cause).',
      },
    )
  return token
}

/** The origin of an environment inferred from BK_BASE_URL, saying why it is that one. */
function inferredFrom(environment: Environment): Origin {
  return `BK_BASE_URL, ${environment === 'local' ? 'a loopback address' : 'not a loopback address'}`
}

/**
 * With no BK_ENV: a loopback address is the emulator (`local`); any other address is taken as
 * production, so that writes are announced unless the user says `BK_ENV=sandbox`.
 */
function inferEnvironment(baseUrl: string): Environment {
  try {
    return isLoopback(new URL(baseUrl).hostname) ? 'local' : 'production'
  } catch {
    return 'production'
  }
}
