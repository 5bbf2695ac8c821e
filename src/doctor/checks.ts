/**
 * `bk doctor`'s checks, in the order a request meets them: versions, the config folder, which
 * credentials resolve and from where, the keychain, the proxy and CA settings, then DNS, TCP and
 * TLS to the base URL (or to the proxy and through its tunnel), the clock against the service's
 * Date header, a token and the default business, and the key set. Each says pass, warn, fail or
 * skip, what it saw, and for anything short of pass the fix. A check that fails skips the ones
 * that depend on it, so the first failure is the one to fix.
 */
import {lookup} from 'node:dns/promises'
import {stat} from 'node:fs/promises'
import {request as httpRequest} from 'node:http'
import {request as httpsRequest} from 'node:https'
import {connect as netConnect, type Socket} from 'node:net'
import {join} from 'node:path'
import {connect as tlsConnect, type ConnectionOptions, type PeerCertificate} from 'node:tls'

import type {ResolvedCredentials} from '../auth/resolve.js'
import {BkError, ExitCode} from '../shared/errors.js'
import {counted, formatCount} from '../shared/counts.js'
import type {TrustedCa} from '../net/ca.js'
import type {Route} from '../net/proxy.js'

export type Status = 'pass' | 'warn' | 'fail' | 'skip'

export interface Check {
  id: string
  status: Status
  /** What was seen, one line. */
  detail: string
  /** What to do, for warn and fail. */
  fix?: string | undefined
  /** How long it took, where that matters (keychain, network). */
  ms?: number | undefined
  /** The exit code a failure of this check means (README "Exit codes"). */
  exitCode?: ExitCode | undefined
}

export interface DoctorContext {
  version: string
  configDir: string
  profileFlag?: string | undefined
  businessFlag?: string | undefined
  userAgent: string
  env?: NodeJS.ProcessEnv
  /** Called with each secret doctor learns (the client secret, tokens), so reports never hold them. */
  secret(value: string | undefined): void
}

const TIMEOUT_MS = 10_000
const SLOW_KEYCHAIN_MS = 1_000
const CLOCK_SKEW_MS = 60_000

export async function runChecks(ctx: DoctorContext): Promise<Check[]> {
  const env = ctx.env ?? process.env
  const checks: Check[] = []
  const add = (check: Check) => (checks.push(check), check)
  const skip = (id: string, because: string) => add({id, status: 'skip', detail: `skipped: ${because}`})

  add(versions(ctx.version))
  add(await configFolder(ctx.configDir))

  let credentials: ResolvedCredentials | undefined
  const profile = await timed(async () => {
    const {describeOrigin, resolveCredentials} = await import('../auth/resolve.js')
    credentials = await resolveCredentials({
      configDir: ctx.configDir,
      profileFlag: ctx.profileFlag,
      businessFlag: ctx.businessFlag,
      env,
    })
    return describeCredentials(credentials, describeOrigin)
  })
  add(
    profile.error
      ? failure('profile', profile.error, ExitCode.auth)
      : {id: 'profile', status: 'pass', detail: profile.value ?? ''},
  )

  let secret: string | undefined
  if (!credentials) skip('keychain', 'no credentials resolve')
  else add(await keychain(credentials, (s) => ((secret = s), ctx.secret(s))))
  const volatile = await volatileKeyring()
  if (volatile) add(volatile)

  const base = credentials ? new URL(credentials.baseUrl) : undefined
  const network = await networkSettings(base, env)
  add(network.proxy)
  add(network.ca)

  if (!base || !network.route) {
    for (const id of ['dns', 'tcp', 'tls', 'clock', 'token', 'jwks'])
      skip(id, base ? 'the proxy settings are invalid' : 'no base URL')
    return checks
  }
  const route = network.route
  const hop = route.proxy ?? base
  const hopPort = Number(hop.port) || (hop.protocol === 'https:' ? 443 : 80)
  const hopName = route.proxy ? `the proxy ${hop.hostname}` : hop.hostname

  const dns = add(await dnsCheck(hop.hostname, hopName, Boolean(route.proxy), base))
  const tcp =
    dns.status === 'fail'
      ? skip('tcp', 'DNS failed')
      : add(await tcpCheck(hop.hostname, hopPort, hopName, Boolean(route.proxy), base))
  let tlsOk = tcp.status !== 'fail'
  if (tcp.status === 'fail') skip('tls', 'no TCP connection')
  else if (base.protocol !== 'https:')
    add({id: 'tls', status: 'skip', detail: `skipped: ${base.origin} is plain http (loopback only)`})
  else {
    const tls = add(await tlsCheck(base, route, network.trusted))
    tlsOk = tls.status !== 'fail'
  }
  if (!tlsOk) {
    for (const id of ['clock', 'token', 'jwks']) skip(id, 'no working connection to the service')
    return checks
  }

  const {connectionFor} = await import('../net/dispatcher.js')
  const connection = connectionFor(base, {connections: 2, connectTimeoutMs: TIMEOUT_MS})
  try {
    const jwks = await timed(() => get(connection.dispatcher, base, '/.well-known/jwks.json'))
    add(clockCheck(jwks.value?.date, jwks.error))
    if (credentials) add(await tokenCheck(credentials, secret, ctx))
    else skip('token', 'no credentials resolve')
    add(await jwksCheck(jwks.value, jwks.error, jwks.ms, base))
  } finally {
    await connection.dispatcher.close().catch(() => {})
  }
  return checks
}

function versions(version: string): Check {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
  const detail = `bk ${version}, Node ${process.version} (${process.platform}-${process.arch}), OpenSSL ${process.versions.openssl}`
  if (major < 20 || (major === 20 && minor < 18))
    return {id: 'versions', status: 'fail', detail, fix: 'Install Node 20.18 or later.', exitCode: ExitCode.unexpected}
  return {id: 'versions', status: 'pass', detail}
}

async function configFolder(dir: string): Promise<Check> {
  const modeOf = async (path: string) => {
    try {
      return (await stat(path)).mode & 0o777
    } catch {
      return undefined
    }
  }
  const dirMode = await modeOf(dir)
  if (dirMode === undefined) return {id: 'config', status: 'pass', detail: `${dir} does not exist yet (no profiles)`}
  const problems: string[] = []
  const fixes: string[] = []
  if (dirMode & 0o077) {
    problems.push(`${dir} is mode ${octal(dirMode)}`)
    fixes.push(`chmod 700 ${dir}`)
  }
  for (const name of ['config.json', 'credentials.json']) {
    const mode = await modeOf(join(dir, name))
    if (mode !== undefined && mode & 0o077) {
      problems.push(`${name} is mode ${octal(mode)}`)
      fixes.push(`chmod 600 ${join(dir, name)}`)
    }
  }
  const plain = (await modeOf(join(dir, 'credentials.json'))) !== undefined
  if (problems.length)
    return {
      id: 'config',
      status: 'warn',
      detail: `${problems.join(', ')}: others on this machine may read it`,
      fix: fixes.join(' && '),
    }
  return {
    id: 'config',
    status: 'pass',
    detail: `${dir} (mode 700)${plain ? '; credentials.json holds secrets in plain text (--insecure-storage), mode 600' : ''}`,
  }
}

function describeCredentials(c: ResolvedCredentials, describeOrigin: (origin: string) => string): string {
  const o = c.origins
  const from = (key: keyof ResolvedCredentials['origins']) => (o[key] ? ` (${describeOrigin(o[key])})` : '')
  return [
    c.profileName ? `profile ${c.profileName}${from('profile')}` : 'no profile: environment variables',
    `${c.environment} environment${from('environment')}`,
    `base URL ${c.baseUrl}${from('baseUrl')}`,
    `business ${c.businessId ?? '(none)'}${from('business')}`,
    `scope ${c.scope ?? '(all the client may use)'}${from('scope')}`,
    c.accessToken
      ? `access token${from('accessToken')}`
      : `client id ${c.clientId}${from('clientId')}, secret${from('clientSecret')}`,
  ].join('; ')
}

async function keychain(c: ResolvedCredentials, learn: (secret: string) => void): Promise<Check> {
  if (c.accessToken)
    return {id: 'keychain', status: 'skip', detail: 'not used: the access token comes from BK_ACCESS_TOKEN'}
  if (!c.store) {
    await c.clientSecret?.().then(learn)
    return {id: 'keychain', status: 'skip', detail: `not used: the client secret comes from ${c.origins.clientSecret}`}
  }
  const {keychainName, requireSecretService} = await import('../auth/credential-store.js')
  if (c.store.kind === 'file') {
    const read = await timed(async () => c.clientSecret?.())
    if (read.value) learn(read.value)
    if (read.error) return failure('keychain', read.error, ExitCode.auth)
    return {
      id: 'keychain',
      status: 'warn',
      detail: `not used: profile ${c.profileName} keeps its secret in ${c.origins.clientSecret} (plain text, --insecure-storage)`,
      fix: `Where a keychain is reachable, store it there: bk profiles add ${c.profileName} … --client-secret-stdin (without --insecure-storage).`,
    }
  }
  const reach = await timed(() => requireSecretService())
  if (reach.error) return failure('keychain', reach.error, ExitCode.auth, reach.ms)
  const read = await timed(async () => c.clientSecret?.())
  if (read.value) learn(read.value)
  if (read.error) return failure('keychain', read.error, ExitCode.auth, read.ms)
  const ms = reach.ms + read.ms
  const detail = `${keychainName()} answered; the client secret of profile ${c.profileName} read in ${ms} ms`
  if (ms > SLOW_KEYCHAIN_MS)
    return {
      id: 'keychain',
      status: 'warn',
      detail,
      fix: 'The keychain is slow to answer: every command waits for it. Check that its daemon is not overloaded or prompting.',
      ms,
    }
  return {id: 'keychain', status: 'pass', detail, ms}
}

async function volatileKeyring(): Promise<Check | undefined> {
  const {volatileSecrets, describeVolatile} = await import('../auth/kernel-keyring.js')
  const found = await volatileSecrets()
  const said = describeVolatile(found)
  if (!said) return undefined
  const profiles = [...new Set(found.map((f) => f.profile).filter(Boolean))]
  return {
    id: 'kernel-keyring',
    status: 'warn',
    detail: `${said}; bk no longer reads or writes it`,
    fix: profiles.length
      ? `Move each profile's secret where it lasts, in the login session that stored it: ${profiles.map((p) => `bk auth move-secret -p ${p}`).join('; ')} (add --insecure-storage where no Secret Service runs). Or store it again with \`bk profiles add\`, and remove the old keys with \`keyctl invalidate ${found.map((f) => f.id).join(' ')}\`.`
      : `None belongs to a profile: remove them with \`keyctl invalidate ${found.map((f) => f.id).join(' ')}\`, or leave them to vanish at logout.`,
  }
}

async function networkSettings(
  base: URL | undefined,
  env: NodeJS.ProcessEnv,
): Promise<{proxy: Check; ca: Check; route: Route | undefined; trusted: TrustedCa | undefined}> {
  const [{routeFor, redactProxy, proxyVariable}, {trustedCa}] = await Promise.all([
    import('../net/proxy.js'),
    import('../net/ca.js'),
  ])
  let route: Route | undefined
  let proxy: Check
  try {
    route = base ? routeFor(base, env) : undefined
    const httpOnly =
      base?.protocol === 'https:' && !route?.proxy && !proxyVariable('https:', env) && proxyVariable('http:', env)
    if (!base) proxy = {id: 'proxy', status: 'skip', detail: 'skipped: no base URL'}
    else if (httpOnly)
      proxy = {
        id: 'proxy',
        status: 'warn',
        detail: `direct: ${httpOnly.name} is set but applies to http:// only, and ${base.origin} is https`,
        fix: `If your network needs the proxy for https too: export HTTPS_PROXY="$${httpOnly.name}"`,
      }
    else
      proxy = {
        id: 'proxy',
        status: 'pass',
        detail: route?.proxy ? `via ${redactProxy(route.proxy)} (${route.reason})` : `direct (${route?.reason})`,
      }
  } catch (error) {
    proxy = failure('proxy', error, ExitCode.usage)
  }
  let trusted: TrustedCa | undefined
  let ca: Check
  try {
    trusted = trustedCa(env, true)
    const files = trusted.files.map((f) => {
      const certs = f.certificates
      const named = certs.length <= 3 ? `: ${certs.map((c) => `${c.subject}, until ${c.validTo}`).join('; ')}` : ''
      return `${f.variable}=${f.file} (${counted(certs.length, 'certificate')}${named})`
    })
    // A company CA that has run out is worth a warning; old roots in a system bundle are not.
    const expired = trusted.files
      .filter((f) => f.variable === 'BK_CA_FILE')
      .flatMap((f) => f.certificates)
      .filter((c) => Date.parse(c.validTo) < Date.now())
    const unread = env.NODE_EXTRA_CA_CERTS && !trusted.files.some((f) => f.variable === 'NODE_EXTRA_CA_CERTS')
    const detail = files.length
      ? `Node's authorities plus ${files.join('; ')}`
      : "Node's built-in authorities (no BK_CA_FILE)"
    ca = expired.length
      ? {
          id: 'ca',
          status: 'warn',
          detail: `${detail}; expired: ${expired.map((c) => c.subject).join('; ')}`,
          fix: 'Get a current CA bundle from whoever runs your network or service.',
        }
      : unread
        ? {
            id: 'ca',
            status: 'warn',
            detail: `${detail}; NODE_EXTRA_CA_CERTS=${env.NODE_EXTRA_CA_CERTS} cannot be read as PEM`,
            fix: 'Point NODE_EXTRA_CA_CERTS at a readable PEM file, or use BK_CA_FILE.',
          }
        : {id: 'ca', status: 'pass', detail}
  } catch (error) {
    ca = failure('ca', error, ExitCode.usage)
  }
  return {proxy, ca, route: proxy.status === 'fail' ? undefined : route, trusted}
}

async function dnsCheck(host: string, name: string, viaProxy: boolean, base: URL): Promise<Check> {
  const bare = host.replace(/^\[|\]$/g, '')
  const r = await timed(() => lookup(bare, {all: true}))
  const addresses = r.value?.map((a) => a.address).join(', ')
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code ?? ''
    return {
      id: 'dns',
      status: 'fail',
      detail: `${name} does not resolve (${code || (r.error as Error).message})`,
      fix: viaProxy
        ? 'Check the proxy host in HTTPS_PROXY/HTTP_PROXY.'
        : `Check the base URL's host, and this machine's DNS.`,
      ms: r.ms,
      exitCode: ExitCode.unavailable,
    }
  }
  const note = viaProxy ? `; ${base.hostname} itself is resolved by the proxy` : ''
  return {id: 'dns', status: 'pass', detail: `${name} is ${addresses} (${r.ms} ms)${note}`, ms: r.ms}
}

async function tcpCheck(host: string, port: number, name: string, viaProxy: boolean, base: URL): Promise<Check> {
  const bare = host.replace(/^\[|\]$/g, '')
  const r = await timed(
    () =>
      new Promise<void>((resolve, reject) => {
        const socket = netConnect({host: bare, port, timeout: TIMEOUT_MS})
        socket.once('connect', () => (socket.destroy(), resolve()))
        socket.once(
          'timeout',
          () => (socket.destroy(), reject(Object.assign(new Error('timed out'), {code: 'ETIMEDOUT'}))),
        )
        socket.once('error', reject)
      }),
  )
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code ?? (r.error as Error).message
    const local = !viaProxy && (await import('../net/loopback.js')).isLoopback(base.hostname)
    return {
      id: 'tcp',
      status: 'fail',
      detail: `cannot connect to ${name} port ${port} (${code})`,
      fix: viaProxy
        ? 'Check that the proxy in HTTPS_PROXY/HTTP_PROXY is running and reachable, or unset it if this network needs none.'
        : local
          ? `Nothing listens at ${base.host}: start the emulator (\`bk emulator start --port ${port}\`) or fix the base URL.`
          : `Check the base URL and your network (a firewall may need a proxy: set HTTPS_PROXY).`,
      ms: r.ms,
      exitCode: ExitCode.unavailable,
    }
  }
  return {id: 'tcp', status: 'pass', detail: `connected to ${name} port ${port} (${r.ms} ms)`, ms: r.ms}
}

async function tlsCheck(base: URL, route: Route, trusted: TrustedCa | undefined): Promise<Check> {
  const {networkFailure} = await import('../net/failure.js')
  const caFile = trusted?.files.find((f) => f.variable === 'BK_CA_FILE')?.file
  const port = Number(base.port) || 443
  const servername = base.hostname.replace(/^\[|\]$/g, '')
  const r = await timed(async () => {
    const socket = route.proxy ? await tunnel(route.proxy, `${servername}:${port}`, base.host) : undefined
    return new Promise<PeerCertificate>((resolve, reject) => {
      const tls = tlsConnect({
        ...(socket ? {socket} : {host: servername, port}),
        servername: /^[\d.]+$|:/.test(servername) ? undefined : servername,
        ...(trusted?.ca ? {ca: trusted.ca} : {}),
        timeout: TIMEOUT_MS,
      } as ConnectionOptions)
      tls.once('secureConnect', () => {
        const cert = tls.getPeerCertificate()
        tls.destroy()
        resolve(cert)
      })
      tls.once(
        'timeout',
        () => (tls.destroy(), reject(Object.assign(new Error('TLS handshake timed out'), {code: 'ETIMEDOUT'}))),
      )
      tls.once('error', reject)
    })
  })
  if (r.error) {
    const failed = networkFailure(r.error, base, route, caFile)
    const code = (r.error as NodeJS.ErrnoException).code ?? ''
    return {
      id: 'tls',
      status: 'fail',
      detail: failed?.message ?? `TLS with ${base.host} failed (${code || (r.error as Error).message})`,
      fix: failed?.hint ?? 'Check the base URL (is it https on that port?).',
      ms: r.ms,
      exitCode: ExitCode.unavailable,
    }
  }
  const cert = r.value as PeerCertificate
  const subject = cert.subject?.CN ?? cert.subjectaltname ?? '?'
  const issuer = cert.issuer?.CN ?? cert.issuer?.O ?? '?'
  return {
    id: 'tls',
    status: 'pass',
    detail: `${base.host} presents a trusted certificate for ${subject}, issued by ${issuer}, valid until ${cert.valid_to}${route.proxy ? ' (through the proxy tunnel)' : ''} (${r.ms} ms)`,
    ms: r.ms,
  }
}

/** A CONNECT tunnel through the proxy; a refusal is the error undici's ProxyAgent would give. */
function tunnel(proxy: URL, path: string, host: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {host}
    if (proxy.username || proxy.password)
      headers['proxy-authorization'] =
        `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`
    const send = proxy.protocol === 'https:' ? httpsRequest : httpRequest
    const req = send({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: Number(proxy.port) || (proxy.protocol === 'https:' ? 443 : 80),
      method: 'CONNECT',
      path,
      headers,
      timeout: TIMEOUT_MS,
      agent: false,
    })
    req.once('connect', (res, socket) => {
      if (res.statusCode === 200) return resolve(socket)
      socket.destroy()
      reject(new Error(`Proxy response (${res.statusCode}) !== 200 when HTTP Tunneling`))
    })
    req.once('timeout', () =>
      req.destroy(Object.assign(new Error('the proxy did not answer CONNECT'), {code: 'ETIMEDOUT'})),
    )
    req.once('error', reject)
    req.end()
  })
}

interface RawResponse {
  status: number
  date: string | undefined
  text: string
}

async function get(dispatcher: import('undici').Dispatcher, base: URL, path: string): Promise<RawResponse> {
  const res = await dispatcher.request({
    origin: base.origin,
    method: 'GET',
    path: base.pathname.replace(/\/+$/, '') + path,
    headers: {accept: 'application/json'},
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
  })
  const date = res.headers.date
  return {status: res.statusCode, date: Array.isArray(date) ? date[0] : date, text: await res.body.text()}
}

function clockCheck(date: string | undefined, error: unknown): Check {
  if (error) return {id: 'clock', status: 'skip', detail: 'skipped: the service did not answer (see jwks)'}
  const theirs = date ? Date.parse(date) : Number.NaN
  if (Number.isNaN(theirs)) return {id: 'clock', status: 'skip', detail: 'skipped: the service sent no Date header'}
  const skew = Date.now() - theirs
  const said = `this machine's clock is ${Math.abs(Math.round(skew / 1000))} s ${skew >= 0 ? 'ahead of' : 'behind'} the service's`
  // The Date header has whole seconds: a second either way is no skew.
  if (Math.abs(skew) > CLOCK_SKEW_MS)
    return {
      id: 'clock',
      status: 'warn',
      detail: said,
      fix: 'Set the clock right (enable NTP: timedatectl set-ntp true): certificates and token lifetimes are judged by it.',
    }
  return {id: 'clock', status: 'pass', detail: said}
}

async function tokenCheck(c: ResolvedCredentials, secret: string | undefined, ctx: DoctorContext): Promise<Check> {
  const [{BkClient}, {Api}] = await Promise.all([import('../api/client.js'), import('../api/api.js')])
  const options = {baseUrl: c.baseUrl, userAgent: ctx.userAgent, maxRetries: 1, secrets: [secret, c.accessToken]}
  let token = c.accessToken
  let ms = 0
  let scopeSaid = c.scope ? `scope "${c.scope}"` : 'every scope the client may use'
  if (!token) {
    if (!secret)
      return {id: 'token', status: 'skip', detail: 'skipped: the client secret could not be read (see keychain)'}
    const client = new BkClient(options)
    try {
      const r = await timed(() =>
        new Api(client).auth.token({
          clientId: c.clientId as string,
          clientSecret: secret,
          businessId: c.businessId,
          scope: c.scope,
        }),
      )
      ms = r.ms
      if (r.error) return failure('token', r.error, (r.error as BkError).exitCode ?? ExitCode.auth, r.ms)
      token = r.value?.access_token
      ctx.secret(token)
      const granted = (r.value as {scope?: unknown} | undefined)?.scope
      if (typeof granted === 'string') scopeSaid = `scope "${granted}"`
    } finally {
      await client.close()
    }
  }
  const client = new BkClient({...options, token: {get: async () => token as string}})
  try {
    const r = await timed(() => new Api(client).businesses.list({pageSize: 100}).first())
    const how = c.accessToken
      ? 'the token from BK_ACCESS_TOKEN'
      : `a token for ${scopeSaid}${c.businessId ? `, limited to ${c.businessId}` : ''} (${ms} ms)`
    if (r.error) {
      const e = r.error as BkError
      return {
        id: 'token',
        status: 'fail',
        detail: `got ${how}, but listing businesses failed: ${e.message}`,
        fix: e.hint ?? "Check the profile's --scope and --business.",
        exitCode: e.exitCode ?? ExitCode.auth,
      }
    }
    const ids = r.value?.data.map((b) => b.id) ?? []
    if (c.businessId && !ids.includes(c.businessId))
      return {
        id: 'token',
        status: 'warn',
        detail: `got ${how}, but the default business ${c.businessId} is not among the ${formatCount(ids.length)} it can see`,
        fix: 'Check the business id (`bk businesses list` shows them) and that the client may use it.',
      }
    return {
      id: 'token',
      status: 'pass',
      detail: `got ${how}; it sees ${counted(ids.length, 'business', 'businesses')}${c.businessId ? `, the default ${c.businessId} among them` : ''}`,
      ms,
    }
  } finally {
    await client.close()
  }
}

async function jwksCheck(res: RawResponse | undefined, error: unknown, ms: number, base: URL): Promise<Check> {
  const url = `${base.origin}${base.pathname.replace(/\/+$/, '')}/.well-known/jwks.json`
  if (error || !res) return failure('jwks', error, ExitCode.unavailable, ms, `Fetching ${url} failed`)
  if (res.status !== 200)
    return {
      id: 'jwks',
      status: 'fail',
      detail: `${url} answered ${res.status}`,
      fix: 'Check the base URL; `bk webhooks verify --jwks FILE` works offline meanwhile.',
      exitCode: ExitCode.unavailable,
    }
  const {keySetFromText} = await import('../webhooks/jwks.js')
  try {
    const set = keySetFromText(res.text, url)
    return {
      id: 'jwks',
      status: 'pass',
      detail: `${url}: ${counted(set.jwks.keys.length, 'key')}, the first ${set.kid ?? 'without a kid'} (${ms} ms)`,
      ms,
    }
  } catch (e) {
    return failure('jwks', e, ExitCode.unavailable, ms)
  }
}

function failure(id: string, error: unknown, exitCode: ExitCode, ms?: number, prefix?: string): Check {
  const e = error as BkError | Error | undefined
  const message = String(e?.message ?? error)
  return {
    id,
    status: 'fail',
    detail: prefix ? `${prefix}: ${message}` : message,
    fix: (e as BkError | undefined)?.hint ?? 'Run the command that failed with --debug for details.',
    ms,
    exitCode: e instanceof BkError ? e.exitCode : exitCode,
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<{value?: T; error?: unknown; ms: number}> {
  const started = performance.now()
  try {
    const value = await fn()
    return {value, ms: Math.round(performance.now() - started)}
  } catch (error) {
    return {error, ms: Math.round(performance.now() - started)}
  }
}

function octal(mode: number): string {
  return mode.toString(8).padStart(3, '0')
}
