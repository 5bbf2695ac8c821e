/**
 * `bk emulator start` as a child process (the way a user's CI runs it): started with `--json`
 * on port 0 unless told otherwise, resolved once it prints its first line, stopped with SIGINT.
 */
import type {ChildProcessWithoutNullStreams} from 'node:child_process'
import {createInterface} from 'node:readline'

import {spawnBk, tempDir, type RunOptions} from './bk.js'

export interface EmulatorProcess {
  child: ChildProcessWithoutNullStreams
  info: {baseUrl: string; clientId: string; clientSecret: string; businessIds: string[]; restored?: boolean}
  stderr(): string
  /** Environment-only credentials for bk against it. */
  env(business?: string): Record<string, string>
  /** SIGINT, then the exit code. */
  stop(): Promise<number | null>
}

/** Where and how bk runs: a bk executable instead of node with bin/run.js, more variables, a folder. */
export type EmulatorProcessOptions = Pick<RunOptions, 'executable' | 'env' | 'cwd'>

export function startEmulatorProcess(
  args: string[],
  configDir = tempDir(),
  options: EmulatorProcessOptions = {},
): Promise<EmulatorProcess> {
  const port = args.includes('--port') ? [] : ['--port', '0']
  const child = spawnBk(['emulator', 'start', ...port, '--json', ...args], {...options, configDir})
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  const killer = setTimeout(() => child.kill('SIGKILL'), 100_000)
  void exit.then(() => clearTimeout(killer))
  return new Promise((resolve, reject) => {
    const lines = createInterface({input: child.stdout})
    lines.once('line', (line) => {
      const started = JSON.parse(line) as {
        base_url: string
        client_id: string
        client_secret: string
        business_ids: string[]
        restored?: boolean
      }
      const info: EmulatorProcess['info'] = {
        baseUrl: started.base_url,
        clientId: started.client_id,
        clientSecret: started.client_secret,
        businessIds: started.business_ids,
        ...(started.restored === undefined ? {} : {restored: started.restored}),
      }
      resolve({
        child,
        info,
        stderr: () => stderr,
        env: (business = info.businessIds[0]) => ({
          BK_BASE_URL: info.baseUrl,
          BK_CLIENT_ID: info.clientId,
          BK_CLIENT_SECRET: info.clientSecret,
          ...(business ? {BK_BUSINESS_ID: business} : {}),
        }),
        stop: () => {
          child.kill('SIGINT')
          return exit
        },
      })
    })
    void exit.then((code) => reject(new Error(`bk emulator start exited (${code}) before printing:\n${stderr}`)))
  })
}
