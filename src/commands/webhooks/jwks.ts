import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {BkError, ExitCode, withHint} from '../../shared/errors.js'

export interface WebhooksJwksResult {
  keys: Array<Record<string, unknown>>
}

export default class WebhooksJwks extends BaseCommand<typeof WebhooksJwks> {
  static override summary = 'Print the key set that verifies webhook signatures.'
  static override description =
    'Fetches {base_url}/.well-known/jwks.json (no token needed) and prints it as JSON; the copy is cached for an hour in the config folder (jwks-cache.json) for verify and listen. Save it to a file for offline use with --jwks.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --refresh > jwks.json',
  ]

  static override flags = {
    refresh: Flags.boolean({summary: 'Fetch it again instead of using the cached copy.'}),
  }

  async run(): Promise<WebhooksJwksResult> {
    const {keySetBaseUrl, loadKeySet} = await import('../../webhooks/jwks.js')
    const baseUrl = await keySetBaseUrl(() => this.credentials())
    const keys = await loadKeySet({baseUrl, configDir: this.configDir, refresh: this.flags.refresh}).catch(
      (error: unknown) => {
        // The key set's own hint points to --jwks, a flag of verify and listen, not of this command.
        if (error instanceof BkError && error.exitCode === ExitCode.unavailable)
          throw withHint(
            error,
            `Check that the service at ${baseUrl} answers and serves its key set: \`${this.config.bin} doctor\` checks each step.`,
          )
        throw error
      },
    )
    const result = {keys: keys.jwks.keys as Array<Record<string, unknown>>}
    if (!this.jsonEnabled()) {
      process.stdout.write(JSON.stringify(result, null, 2) + '\n')
      this.note(`From ${keys.source}`)
    }
    return result
  }
}
