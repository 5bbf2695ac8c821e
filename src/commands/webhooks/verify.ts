import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {BkError, ExitCode, InputError} from '../../shared/errors.js'
import {jwksFlag} from '../../cli/flags.js'

export interface WebhooksVerifyResult {
  valid: true
  id: string
  /** `raw`: the body as given was signed; `python-json`: its Python json.dumps re-serialisation was. */
  verifiedAs: string
  keyId: string | null
  keySource: string
}

export default class WebhooksVerify extends BaseCommand<typeof WebhooksVerify> {
  static override summary = 'Check the signature of one webhook delivery.'
  static override description = `Verifies the svc-signature of a delivery with the first key of the service's key set (/.well-known/jwks.json, cached for an hour, or --jwks). The body is checked as given, then as Python's json.dumps would have written it.

Exit codes: 0 valid; ${ExitCode.invalidSignature} invalid (the reason is printed); 2 bad input; ${ExitCode.unavailable} the key set could not be fetched.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> --id msg_123 --signature "$SIG" --body delivery.json',
    '$ cat delivery.json | <%= config.bin %> <%= command.id %> --id msg_123 --signature "$SIG" --jwks jwks.json',
  ]

  static override flags = {
    id: Flags.string({summary: 'The svc-id header of the delivery.', required: true}),
    signature: Flags.string({summary: 'The svc-signature header (base64url, padded or not).', required: true}),
    body: Flags.string({
      summary: 'File holding the body exactly as received (- or absent: stdin).',
      helpValue: 'FILE|-',
    }),
    jwks: jwksFlag(),
  }

  async run(): Promise<WebhooksVerifyResult> {
    const {flags} = this
    const body = await this.readBody(flags.body)
    const {verifyWithKeys, webhookKeys} = await import('../../webhooks/keys.js')
    const keys = await webhookKeys({jwks: flags.jwks, credentials: () => this.credentials(), configDir: this.configDir})
    const result = await verifyWithKeys({id: flags.id, signature: flags.signature, body}, keys)
    if (!result.valid) {
      throw new BkError(`Invalid signature: ${result.reason}`, {
        code: 'invalid_signature',
        exitCode: ExitCode.invalidSignature,
        hint: "Give the body exactly as it arrived (its raw bytes, not parsed and written again) with that request's own svc-id and svc-signature headers. If it still fails, the message was changed or the service did not sign it (replays are never signed).",
        details: {id: flags.id, reason: result.code, keySource: result.keys.source},
      })
    }
    if (!this.jsonEnabled()) {
      process.stdout.write(
        `Valid signature for ${flags.id} (${result.as === 'raw' ? 'body as received' : 'Python json.dumps serialisation of the body'}; key ${result.keys.kid ?? 'without kid'} from ${result.keys.source})\n`,
      )
    }
    return {
      valid: true,
      id: flags.id,
      verifiedAs: result.as,
      keyId: result.keys.kid ?? null,
      keySource: result.keys.source,
    }
  }

  private async readBody(file: string | undefined): Promise<Buffer> {
    if (file === undefined || file === '-') {
      if (file === undefined && process.stdin.isTTY)
        throw new InputError('No body: pass --body FILE, or pipe the body on stdin')
      const chunks: Buffer[] = []
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
      return Buffer.concat(chunks)
    }
    const {readFile} = await import('node:fs/promises')
    try {
      return await readFile(file)
    } catch (error) {
      const {unreadableBecause, unreadableHint} = await import('../../files/file-errors.js')
      throw new InputError(`Cannot read --body file ${file}: ${unreadableBecause(error)}`, {
        hint: unreadableHint(file, error),
      })
    }
  }
}
