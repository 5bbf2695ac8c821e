/**
 * ISO 8601 dates and datetimes, parsed once for every reader of them (bill CSVs, journal-entry
 * YAML, list filters, the emulator). Each caller keeps its own policy about zones (bills convert
 * an offset to UTC, journal entries refuse one, filters take no zone as UTC); this module only
 * says what the text means, exactly, with no Date parsing of free text.
 */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/

export interface IsoDatetime {
  /** YYYY-MM-DD as written. */
  date: string
  /** HH:MM:SS as written (seconds filled in), or undefined for a date alone. */
  time: string | undefined
  /** The fraction of a second as written, with its dot ('' when none). */
  fraction: string
  /** The zone as written (Z, +01:00, -0500, +02), or undefined when none was given. */
  zone: string | undefined
  /** Minutes east of UTC; 0 for Z; undefined when no zone was given. */
  offsetMinutes: number | undefined
  /** The instant in epoch milliseconds, taking a missing zone (and a date alone) as UTC. */
  epochMs: number
}

export type IsoProblem = 'syntax' | 'date' | 'time'

export const ISO_8601_EXPECTED = 'an ISO 8601 date or datetime such as 2026-03-01 or 2026-03-01T09:30:00Z'

/**
 * Date.UTC for any year: Date.UTC reads a year 0 to 99 as 1900 to 1999, so 0026-01-31 would
 * become 1926-01-31 (and 0000 would lose its leap day).
 */
function utcMs(year: number, month0: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  if (year >= 100) return Date.UTC(year, month0, day, hour, minute, second, ms)
  const d = new Date(Date.UTC(2000, 0, 1, hour, minute, second, ms))
  d.setUTCFullYear(year, month0, day)
  return d.getTime()
}

export function parseIsoDatetime(text: string): {ok: true; value: IsoDatetime} | {ok: false; problem: IsoProblem} {
  const m = ISO.exec(text.trim())
  if (!m) return {ok: false, problem: 'syntax'}
  const [, y, mo, d, h, mi, s, frac, zone] = m as unknown as [
    string,
    string,
    string,
    string,
    string?,
    string?,
    string?,
    string?,
    string?,
  ]
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  if (month < 1 || month > 12 || day < 1 || day > new Date(utcMs(year, month, 0)).getUTCDate())
    return {ok: false, problem: 'date'}
  const hour = Number(h ?? 0)
  const minute = Number(mi ?? 0)
  const second = Number(s ?? 0)
  if (hour > 23 || minute > 59 || second > 59) return {ok: false, problem: 'time'}
  let offsetMinutes: number | undefined
  if (zone !== undefined) {
    if (/^[Zz]$/.test(zone)) {
      offsetMinutes = 0
    } else {
      const oh = Number(zone.slice(1, 3))
      const om = Number(zone.slice(3).replace(':', '') || 0)
      if (oh > 23 || om > 59) return {ok: false, problem: 'time'}
      offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (oh * 60 + om)
    }
  }
  const ms = Number(((frac ?? '').slice(1) + '000').slice(0, 3))
  return {
    ok: true,
    value: {
      date: `${y}-${mo}-${d}`,
      time: h === undefined ? undefined : `${h}:${mi}:${s ?? '00'}`,
      fraction: frac ?? '',
      zone,
      offsetMinutes,
      epochMs: utcMs(year, month - 1, day, hour, minute, second, ms) - (offsetMinutes ?? 0) * 60_000,
    },
  }
}

/**
 * The same instant written in UTC, `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, keeping the fraction as
 * written; a date alone is midnight UTC.
 */
export function toUtcText(value: IsoDatetime): string {
  if (value.time === undefined) return `${value.date}T00:00:00Z`
  if (!value.offsetMinutes) return `${value.date}T${value.time}${value.fraction}Z`
  const wholeSeconds = Math.floor(value.epochMs / 1000) * 1000
  return new Date(wholeSeconds).toISOString().replace(/\.\d{3}Z$/, `${value.fraction}Z`)
}

/**
 * Years a date of the books may have (a bill's, a journal entry's). A year outside them is a typo
 * or a two-digit year padded (0026 for 2026), refused rather than sent as written.
 */
export const PLAUSIBLE_YEARS = {from: 1900, to: 2199} as const

/** Why a year is not plausible for `record` ('a bill', 'a journal entry'), or undefined. */
export function yearProblem(year: number, record: string): string | undefined {
  if (year >= PLAUSIBLE_YEARS.from && year <= PLAUSIBLE_YEARS.to) return undefined
  return `has the year ${String(year).padStart(4, '0')}, which is not plausible for ${record} (expected ${PLAUSIBLE_YEARS.from} to ${PLAUSIBLE_YEARS.to}): check for a two-digit year or a typo`
}
