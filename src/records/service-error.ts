/**
 * Restates an API error of a write with what bk was doing, keeping its exit code. Reads both
 * error bodies of the spec, `{error, data}` and task deletion's `{message, data}`, and adds the
 * body's data when it says more than the message.
 */
import {ApiError, serviceMessage} from '../api/errors.js'
import {BkError} from '../shared/errors.js'

export function explainApiError(error: unknown, doing: string): unknown {
  if (!(error instanceof ApiError)) return error
  const body = (error.body && typeof error.body === 'object' ? error.body : {}) as Record<string, unknown>
  // `body` is an object here, so a text body is not quoted: the status stands in for it.
  const said = serviceMessage(body)
  const data = body.data
  const dataText =
    data === null || data === undefined || data === '' ? '' : typeof data === 'string' ? data : JSON.stringify(data)
  const extra =
    dataText && !(said ?? '').includes(dataText)
      ? ` [${dataText.length > 300 ? dataText.slice(0, 300) + '…' : dataText}]`
      : ''
  const message = `Could not ${doing}: ${said ?? `the service answered ${error.status}`}${extra} (${error.status} from ${error.method} ${error.path})`
  return new BkError(message, {
    code: error.code,
    exitCode: error.exitCode,
    details: error.details,
    ...(error.hint ? {hint: error.hint} : {}),
    cause: error,
  })
}
