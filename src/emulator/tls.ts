/**
 * The emulator's https: a certificate authority and a server certificate made at start, in a
 * private temporary folder, so that bk's https path (and BK_CA_FILE) can be exercised end to
 * end. Keys come from node:crypto; node:crypto cannot write X.509 certificates, so the `openssl`
 * command signs them (docs/network.md, "Decisions"). Everything is removed when the emulator stops.
 */
import {execFile} from 'node:child_process'
import {generateKeyPairSync} from 'node:crypto'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {isIP} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

/** The certificates could not be made; `bk emulator start` prints it with its hint. */
export class TlsSetupError extends Error {
  readonly code = 'tls_setup'
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message)
    this.name = 'TlsSetupError'
  }
}

export interface EmulatorCertificates {
  /** The PEM file of the authority that signed the server's certificate (for BK_CA_FILE). */
  caFile: string
  key: string
  cert: string
  /** Removes the folder, keys and all. */
  remove(): Promise<void>
}

/** Always in the certificate, besides the names asked for. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1']
const DAYS = '30'

export async function makeCertificates(hosts: readonly string[] = []): Promise<EmulatorCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'bk-emulator-tls-'))
  const file = (name: string) => join(dir, name)
  try {
    const names = [...new Set([...LOOPBACK_NAMES, ...hosts.map((h) => h.replace(/^\[|\]$/g, ''))])].filter(
      (h) => h && h !== '0.0.0.0' && h !== '::',
    )
    const altNames = names.map((h) => (isIP(h) ? `IP:${h}` : `DNS:${h}`)).join(',')
    await writeFile(
      file('openssl.cnf'),
      [
        '[req]',
        'distinguished_name = dn',
        'prompt = no',
        '[dn]',
        'CN = bk emulator',
        '[ca]',
        'basicConstraints = critical,CA:TRUE,pathlen:0',
        'keyUsage = critical,keyCertSign,cRLSign',
        'subjectKeyIdentifier = hash',
        '[server]',
        'basicConstraints = critical,CA:FALSE',
        'keyUsage = critical,digitalSignature',
        'extendedKeyUsage = serverAuth',
        `subjectAltName = ${altNames}`,
        'authorityKeyIdentifier = keyid',
        '',
      ].join('\n'),
    )
    await writeFile(file('ca-key.pem'), ecKey(), {mode: 0o600})
    await writeFile(file('server-key.pem'), ecKey(), {mode: 0o600})
    const config = ['-config', file('openssl.cnf')]
    const stamp = new Date().toISOString().slice(0, 19)
    await openssl(
      ['req', '-new', '-x509', '-sha256', '-days', DAYS, ...config, '-extensions', 'ca'].concat([
        '-key',
        file('ca-key.pem'),
        '-subj',
        `/CN=bk emulator CA ${stamp}`,
        '-out',
        file('ca.pem'),
      ]),
    )
    await openssl(
      ['req', '-new', '-sha256', ...config, '-key', file('server-key.pem')].concat([
        '-subj',
        `/CN=${names[0]}`,
        '-out',
        file('server.csr'),
      ]),
    )
    const serial = `0x${Date.now().toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`
    await openssl(
      ['x509', '-req', '-sha256', '-days', DAYS, '-in', file('server.csr')].concat(
        ['-CA', file('ca.pem'), '-CAkey', file('ca-key.pem'), '-set_serial', serial],
        ['-extfile', file('openssl.cnf'), '-extensions', 'server', '-out', file('server.pem')],
      ),
    )
    const [key, cert] = await Promise.all([
      readFile(file('server-key.pem'), 'utf8'),
      readFile(file('server.pem'), 'utf8'),
    ])
    return {caFile: file('ca.pem'), key, cert, remove: () => rm(dir, {recursive: true, force: true})}
  } catch (error) {
    await rm(dir, {recursive: true, force: true})
    throw error
  }
}

function ecKey(): string {
  const {privateKey} = generateKeyPairSync('ec', {namedCurve: 'prime256v1'})
  return privateKey.export({type: 'pkcs8', format: 'pem'}) as string
}

function openssl(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('openssl', args, {timeout: 30_000}, (error, _stdout, stderr) => {
      if (!error) return resolve()
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT'
      reject(
        new TlsSetupError(
          missing
            ? 'The emulator needs the openssl command to make its https certificate, and it is not on the PATH'
            : `openssl failed making the emulator's certificate: ${String(stderr).trim().split('\n')[0] ?? error.message}`,
          missing
            ? 'Install openssl (apt-get install openssl, brew install openssl), or start the emulator without --tls.'
            : 'Start the emulator without --tls, or report this with the openssl version (`openssl version`).',
        ),
      )
    })
  })
}
