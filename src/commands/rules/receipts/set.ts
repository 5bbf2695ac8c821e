import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../../cli/base-command.js'
import {businessFlag} from '../../../cli/flags.js'
import type {ReceiptRequestConfig} from '../../../api/schemas/business.js'

export type RulesReceiptsSetResult = ReceiptRequestConfig & {business_id: string}

export default class RulesReceiptsSet extends BaseCommand<typeof RulesReceiptsSet> {
  static override summary = "Set the business's receipt-request rule (an override of the tenant's)."
  static override description =
    'Only what you pass changes. A business with no override yet starts from enabled with threshold 0 (every spend). The threshold is a decimal amount of 0 or more, checked before anything is sent. Prints the resulting rule.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --enabled --threshold 25.00',
    '<%= config.bin %> <%= command.id %> --no-enabled',
    '<%= config.bin %> <%= command.id %> --threshold 0 --json',
  ]

  static override flags = {
    business: businessFlag(),
    enabled: Flags.boolean({summary: 'Turn receipt requests on (--no-enabled turns them off).', allowNo: true}),
    threshold: Flags.string({
      summary: 'Request a receipt for spend at or above this amount (0: every spend).',
      helpValue: 'AMOUNT',
    }),
  }

  async run(): Promise<RulesReceiptsSetResult> {
    const {flags} = this
    const {describeReceiptConfig, receiptRulesUpdate} = await import('../../../records/receipt-rules.js')
    const update = receiptRulesUpdate(flags.enabled, flags.threshold)
    const businessId = await this.businessId()
    await this.announceWrite(`set receipt rules ${JSON.stringify(update)}`)
    const {api} = await this.session()
    const {explainApiError} = await import('../../../records/service-error.js')
    const {data: config, lost} = await api.businesses.updateReceiptRules(businessId, update).catch((error: unknown) => {
      throw explainApiError(error, `update the receipt rules of ${businessId}`)
    })
    if (lost.length)
      this.note(
        `The answer to ${lost.length === 1 ? 'the first attempt was' : `${lost.length} attempts were`} lost (${lost.join('; ')}); the rule sets the values given, so bk sent it again.`,
      )
    if (!this.jsonEnabled()) process.stdout.write(describeReceiptConfig(businessId, config))
    return {business_id: businessId, ...config}
  }
}
