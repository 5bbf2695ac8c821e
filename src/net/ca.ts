/**
 * The certificate authorities bk trusts: Node's own (Mozilla's list, plus NODE_EXTRA_CA_CERTS,
 * which Node reads at start-up), and with `BK_CA_FILE` the PEM bundle it names added to them.
 * Node drops NODE_EXTRA_CA_CERTS once a list is given explicitly, so with BK_CA_FILE bk reads
 * that file too and keeps both.
 */
import {readBoundedFileSync, SIZE_LIMITS} from '../files/input-limits.js'
import {InputError} from '../shared/errors.js'

export interface CaFileInfo {
  variable: 'BK_CA_FILE' | 'NODE_EXTRA_CA_CERTS'
  file: string
  certificates: Array<{subject: string; validTo: string}>
}

export interface TrustedCa {
  /** The whole list to pass as `ca`, or undefined to keep Node's default. */
  ca: string[] | undefined
  files: CaFileInfo[]
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g

let cached: {key: string; value: TrustedCa} | undefined

/**
 * The trusted authorities for this environment; a BK_CA_FILE that cannot be used is an error
 * naming it. Without BK_CA_FILE nothing is read (Node's defaults stand), unless `inspect` asks
 * for the files to be described (`bk doctor`).
 */
export function trustedCa(env: NodeJS.ProcessEnv = process.env, inspect = false): TrustedCa {
  if (!env.BK_CA_FILE && !inspect) return {ca: undefined, files: []}
  const key = `${env.BK_CA_FILE ?? ''}\n${env.NODE_EXTRA_CA_CERTS ?? ''}`
  if (cached?.key === key) return cached.value
  const files: CaFileInfo[] = []
  const extra: string[] = []
  if (env.NODE_EXTRA_CA_CERTS) {
    // Node itself only warns about an unreadable NODE_EXTRA_CA_CERTS; so does bk (doctor says so).
    const read = readPemFile(env.NODE_EXTRA_CA_CERTS, 'NODE_EXTRA_CA_CERTS', false)
    if (read) {
      files.push(read.info)
      extra.push(...read.pems)
    }
  }
  let ca: string[] | undefined
  if (env.BK_CA_FILE) {
    const read = readPemFile(env.BK_CA_FILE, 'BK_CA_FILE', true)
    if (read) {
      files.push(read.info)
      // node:tls and node:crypto load only here: most runs name no CA file (a few ms of every start).
      ca = [...process.getBuiltinModule('node:tls').rootCertificates, ...extra, ...read.pems]
    }
  }
  const value = {ca, files}
  cached = {key, value}
  return value
}

function readPemFile(
  file: string,
  variable: CaFileInfo['variable'],
  strict: boolean,
): {pems: string[]; info: CaFileInfo} | undefined {
  const fail = (why: string): undefined => {
    if (!strict) return undefined
    throw new InputError(`${variable}=${file}: ${why}`, {
      code: 'invalid_ca_file',
      hint: `Point ${variable} at a PEM file of the certificate authorities to trust (-----BEGIN CERTIFICATE----- blocks), or unset it.`,
    })
  }
  let text: string
  try {
    // Checked before reading: a path to /dev/zero or a huge file is refused, not read.
    text = readBoundedFileSync(file, `${variable}=`, SIZE_LIMITS.caFile).toString('utf8')
  } catch (error) {
    if (!strict) return undefined
    throw new InputError((error as Error).message.replace(`${variable}= `, `${variable}=`), {
      code: 'invalid_ca_file',
      hint: `Point ${variable} at a PEM file of the certificate authorities to trust (-----BEGIN CERTIFICATE----- blocks, at most ${SIZE_LIMITS.caFile / (1024 * 1024)} MB), or unset it.`,
    })
  }
  const pems = text.match(PEM_BLOCK) ?? []
  if (pems.length === 0) return fail('holds no PEM certificate')
  const certificates: CaFileInfo['certificates'] = []
  for (const [index, pem] of pems.entries()) {
    try {
      const cert = new (process.getBuiltinModule('node:crypto').X509Certificate)(pem)
      certificates.push({subject: cert.subject.replace(/\n/g, ', '), validTo: cert.validTo})
    } catch (error) {
      return fail(`certificate ${index + 1} is not valid PEM (${(error as Error).message})`)
    }
  }
  return {pems, info: {variable, file, certificates}}
}
