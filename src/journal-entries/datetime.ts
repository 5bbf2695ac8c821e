/**
 * The datetime of a journal entry: ISO 8601 in UTC. `Z`, `+00:00` and a bare date (midnight
 * UTC) are accepted; a time with no zone or with another offset is rejected, naming the UTC time
 * to write instead, so that an entry never moves to another day or period silently. A year out of
 * the plausible range (0026, 0000) is refused by the bills' rule, being a typo as much here.
 */
import {parseIsoDatetime, toUtcText, yearProblem} from '../shared/datetime.js'

export type DatetimeResult = {ok: true; value: string} | {ok: false; reason: string}

export function parseUtcDatetime(text: string): DatetimeResult {
  const t = text.trim()
  const parsed = parseIsoDatetime(t)
  if (!parsed.ok) {
    return {
      ok: false,
      reason:
        parsed.problem === 'syntax'
          ? `"${t}" is not an ISO 8601 datetime; expected e.g. 2026-03-31T12:00:00Z`
          : `"${t}" is not a real date and time`,
    }
  }
  const v = parsed.value
  const implausible = yearProblem(Number(v.date.slice(0, 4)), 'a journal entry')
  if (implausible) return {ok: false, reason: `"${t}" ${implausible}`}
  if (v.time === undefined) return {ok: true, value: toUtcText(v)}
  if (v.offsetMinutes === undefined)
    return {ok: false, reason: `"${t}" has no time zone; add Z for UTC (${v.date}T${v.time}${v.fraction}Z)`}
  if (v.offsetMinutes === 0) return {ok: true, value: toUtcText(v)}
  return {ok: false, reason: `"${t}" is not in UTC (offset ${v.zone}); write it in UTC: ${toUtcText(v)}`}
}
