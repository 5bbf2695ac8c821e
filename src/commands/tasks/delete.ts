import * as Args from '@oclif/core/args'

import {BaseCommand} from '../../cli/base-command.js'
import {businessFlag, yesFlag} from '../../cli/flags.js'
import {ID_PREFIX} from '../../shared/spec.js'

export interface TasksDeleteResult {
  taskId: string
  deleted: true
  /** What the service answered (the spec does not show a success body); null when its answer was lost. */
  response: unknown
  /** Set when the attempt that deleted the task lost its answer and a retry found the task gone: what was lost. */
  lostAnswer?: string
}

export default class TasksDelete extends BaseCommand<typeof TasksDelete> {
  static override summary = 'Delete a bookkeeping task.'
  static override description =
    "Asks for confirmation on a terminal; pass --yes otherwise. A refusal from the service is reported with its message and data, whichever of the spec's two error bodies it uses."
  static override examples = [
    '<%= config.bin %> <%= command.id %> tsk_demo_receipt_request',
    '<%= config.bin %> <%= command.id %> tsk_demo_receipt_request --yes --json',
  ]

  static override args = {
    id: Args.string({description: 'Task id (tsk_…).', required: true}),
  }

  static override flags = {
    business: businessFlag(),
    yes: yesFlag(),
  }

  async run(): Promise<TasksDeleteResult> {
    const {args, flags} = this
    const {checkPrefix} = await import('../../records/entity-ids.js')
    checkPrefix('task id', args.id, ID_PREFIX.task)
    const businessId = await this.businessId()
    await this.announceWrite(`delete task ${args.id}`)
    await this.confirm(`Delete task ${args.id}?`, flags.yes)
    const {api} = await this.session()
    const {explainApiError} = await import('../../records/service-error.js')
    const result = await api.tasks.delete(businessId, args.id).catch((error: unknown) => {
      throw explainApiError(error, `delete task ${args.id}`)
    })
    if (result.removed === 'now') {
      if (!this.jsonEnabled()) process.stdout.write(`Deleted task ${args.id}.\n`)
      return {taskId: args.id, deleted: true, response: result.data}
    }
    if (!this.jsonEnabled())
      process.stdout.write(
        `Task ${args.id} is deleted: the first attempt's answer was lost (${result.lost}), and the retry found the task gone, so that attempt most likely deleted it.\n`,
      )
    return {taskId: args.id, deleted: true, response: null, lostAnswer: result.lost}
  }
}
