import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {businessFlag, yesFlag} from '../../cli/flags.js'
import {ID_PREFIX} from '../../shared/spec.js'

export interface DocumentsUnlinkResult {
  documentId: string
  /** The ids sent, in one request. */
  entityIds: string[]
  /** What the service answered (the spec does not show a success body). */
  response: unknown
}

export default class DocumentsUnlink extends BaseCommand<typeof DocumentsUnlink> {
  static override summary = 'Unlink a document from external accounts, transactions and journal entries.'
  static override description =
    'Only eac_, txn_ and je_ ids are accepted; any other id is refused before anything is sent. All ids go in one request. Asks for confirmation on a terminal; pass --yes otherwise.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> doc_demo_receipt --from txn_demo_invoice_payments',
    '<%= config.bin %> <%= command.id %> doc_demo_receipt --from eac_demo_checking,je_demo_accrual --yes',
  ]

  static override args = {
    id: Args.string({description: 'Document id (doc_…).', required: true}),
  }

  static override flags = {
    business: businessFlag(),
    from: Flags.string({
      summary: 'Ids to unlink from, comma-separated (eac_…, txn_…, je_…).',
      required: true,
      multiple: true,
      delimiter: ',',
      helpValue: 'ID',
    }),
    yes: yesFlag(),
  }

  async run(): Promise<DocumentsUnlinkResult> {
    const {args, flags} = this
    const {checkPrefix, unlinkTargets} = await import('../../records/entity-ids.js')
    checkPrefix('document id', args.id, ID_PREFIX.document)
    const ids = unlinkTargets(flags.from)
    const businessId = await this.businessId()
    await this.announceWrite(`unlink document ${args.id} from ${ids.join(', ')}`)
    await this.confirm(`Unlink ${args.id} from ${ids.join(', ')}?`, flags.yes)
    const {api} = await this.session()
    const {explainApiError} = await import('../../records/service-error.js')
    const response = await api.documents.unlink(businessId, args.id, ids).catch((error: unknown) => {
      throw explainApiError(error, `unlink document ${args.id}`)
    })
    if (!this.jsonEnabled()) {
      const data = (response as {data?: {not_linked?: unknown}} | undefined)?.data
      const notLinked = Array.isArray(data?.not_linked) ? (data.not_linked as string[]) : []
      const unlinked = ids.filter((id) => !notLinked.includes(id))
      if (unlinked.length === 0)
        process.stdout.write(`${args.id} was not linked to ${notLinked.join(', ')}: nothing changed.\n`)
      else {
        process.stdout.write(`Unlinked ${args.id} from ${unlinked.join(', ')}.\n`)
        if (notLinked.length) this.note(`Not linked before: ${notLinked.join(', ')}.`)
      }
    }
    return {documentId: args.id, entityIds: ids, response}
  }
}
