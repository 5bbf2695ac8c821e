/**
 * The datetime of a journal entry: ISO 8601 in UTC. `Z`, `+00:00` and a bare date (midnight
 * UTC) are accepted; a time with no zone or with another offset is rejected, naming the UTC time
 * to write instead, so that an entry never moves to another day or period silently.
 */
export type DatetimeResult = {ok: true; value: string} | {ok: false; reason: string}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/

export function parseUtcDatetime(text: string): DatetimeResult {
  const t = text.trim()
  const m = ISO.exec(t)
  if (!m) return {ok: false, reason: `"${t}" is not an ISO 8601 datetime; expected e.g. 2026-03-31T12:00:00Z`}
  const [, y, mo, d, h, mi, s, frac, zone] = m
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const hour = Number(h ?? 0)
  const minute = Number(mi ?? 0)
  const second = Number(s ?? 0)
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second))
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    return {ok: false, reason: `"${t}" is not a real date and time`}
  }
  const ymd = `${y}-${mo}-${d}`
  if (h === undefined) return {ok: true, value: `${ymd}T00:00:00Z`}
  const time = `${h}:${mi}:${s ?? '00'}${frac ?? ''}`
  if (zone === undefined) return {ok: false, reason: `"${t}" has no time zone; add Z for UTC (${ymd}T${time}Z)`}
  if (/^[Zz]$/.test(zone) || /^[+-]00:?(00)?$/.test(zone)) return {ok: true, value: `${ymd}T${time}Z`}
  const sign = zone.startsWith('-') ? -1 : 1
  const digits = zone.slice(1).replace(':', '')
  const offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0))
  const utc = new Date(date.getTime() - offsetMinutes * 60_000).toISOString().replace(/\.\d{3}Z$/, `${frac ?? ''}Z`)
  return {ok: false, reason: `"${t}" is not in UTC (offset ${zone}); write it in UTC: ${utc}`}
}
