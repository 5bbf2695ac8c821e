/**
 * --due-from / --due-to of `bk invoices list`, checked before any request. A date alone means the
 * whole day in UTC: --due-from 2026-03-01 starts at 00:00:00Z, --due-to 2026-03-31 ends at
 * 23:59:59.999Z, so both bounds stay inclusive as the spec says.
 */
import {InputError} from '../shared/errors.js'
import {ISO_8601_EXPECTED, parseIsoDatetime} from '../shared/datetime.js'

export interface DueRange {
  dueAtStart?: string | undefined
  dueAtEnd?: string | undefined
}

export function dueRange(from: string | undefined, to: string | undefined): DueRange {
  const start = from === undefined ? undefined : instant('--due-from', from, false)
  const end = to === undefined ? undefined : instant('--due-to', to, true)
  if (start !== undefined && end !== undefined && start > end) {
    throw new InputError(`--due-from ${from} is after --due-to ${to}`, {
      hint: 'Give --due-from a date on or before --due-to.',
    })
  }
  return {
    dueAtStart: start === undefined ? undefined : new Date(start).toISOString(),
    dueAtEnd: end === undefined ? undefined : new Date(end).toISOString(),
  }
}

function instant(flag: string, text: string, endOfDay: boolean): number {
  const parsed = parseIsoDatetime(text)
  if (!parsed.ok)
    throw new InputError(`${flag} "${text}" is not ${ISO_8601_EXPECTED}`, {
      details: {flag, value: text},
      hint: `Give the day as YYYY-MM-DD: ${flag} 2026-03-01.`,
    })
  const {epochMs, time} = parsed.value
  return time === undefined && endOfDay ? epochMs + 86_400_000 - 1 : epochMs
}
