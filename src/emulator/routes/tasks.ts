import {SCOPES, requireAuth} from '../auth.js'
import {checkPathId} from '../path-id.js'
import {HttpError, ok} from '../http.js'
import type {EmulatorContext} from './context.js'
import {ID_PREFIX} from '../../shared/spec.js'

/** The spec's second error body of task deletion: `{message: string, data: string}`. */
class MessageError extends HttpError {
  override body(): unknown {
    return {message: this.message, data: this.data}
  }
}

/**
 * DELETE …/task/{task_id}: 200 `{data: {id, deleted: true}}`; 404 for an unknown task; a task
 * already completed cannot be deleted: 409 with the `{message, data}` body (data: the task id).
 */
export function register({router, state}: EmulatorContext): void {
  router.add('DELETE', '/v0/business/:business_id/task/:task_id', (ctx) => {
    requireAuth(state, ctx, SCOPES.requestDelete)
    const businessId = ctx.params.business_id as string
    const id = checkPathId('task_id', ctx.params.task_id as string, ID_PREFIX.task)
    const task = state.tasks.get(businessId, id)
    if (!task) throw new HttpError(404, `Task ${id} not found`, {task_id: id})
    if (task.status === 'completed')
      throw new MessageError(409, `Task ${id} is already completed and cannot be deleted`, id)
    state.tasks.delete(businessId, id)
    return ok({data: {id, deleted: true}})
  })
}
