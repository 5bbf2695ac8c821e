import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'

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
    const keys = await loadKeySet({baseUrl, configDir: this.configDir, refresh: this.flags.refresh})
    const result = {keys: keys.jwks.keys as Array<Record<string, unknown>>}
    if (!this.jsonEnabled()) {
      process.stdout.write(JSON.stringify(result, null, 2) + '\n')
      this.note(`From ${keys.source}`)
    }
    return result
  }
}
