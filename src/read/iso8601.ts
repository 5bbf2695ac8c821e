/**
 * ISO 8601 dates and datetimes as the list filters take them: `2026-03-01`, or
 * `2026-03-01T09:30`, `…:00`, `…:00.000`, with `Z` or `±HH:MM` (no offset means UTC).
 * Shared by `bk invoices list` (checked before any request) and the emulator's invoice list.
 */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i

export interface ParsedInstant {
  /** Milliseconds since the epoch. */
  ms: number
  /** True when only a date was given (no time of day). */
  dateOnly: boolean
}

/** The instant the text names, or undefined when it is not an ISO 8601 date or datetime. */
export function parseIso8601(text: string): ParsedInstant | undefined {
  const m = ISO.exec(text.trim())
  if (!m) return undefined
  const [, y, mo, d, h, mi, s, frac, zone] = m
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const hour = Number(h ?? 0)
  const minute = Number(mi ?? 0)
  const second = Number(s ?? 0)
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  if (day > daysInMonth) return undefined
  const ms = Number(((frac ?? '') + '000').slice(0, 3))
  let offsetMinutes = 0
  if (zone && zone.toUpperCase() !== 'Z') {
    const z = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)
    if (!z) return undefined
    const oh = Number(z[2])
    const om = Number(z[3])
    if (oh > 23 || om > 59) return undefined
    offsetMinutes = (z[1] === '-' ? -1 : 1) * (oh * 60 + om)
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMinutes * 60_000
  return {ms: utc, dateOnly: h === undefined}
}

/** A one-line description of what parseIso8601 accepts, for error messages. */
export const ISO_8601_EXPECTED = 'an ISO 8601 date or datetime such as 2026-03-01 or 2026-03-01T09:30:00Z'
