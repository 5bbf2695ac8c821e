/**
 * Counts as people read them, in one way everywhere (progress, summaries, results): digits
 * grouped by thousands (`27,424`), and the noun singular for one (`1 bill`, `2 bills`).
 */

/**
 * `27,424`. Whole numbers are grouped here rather than by `toLocaleString`, whose first call
 * loads ICU's number data: about 24 ms of every command that prints a count.
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US')
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',')
}

/** `1 invoice`, `27,424 invoices`, `0 businesses` (the plural given when not the noun plus s). */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(n)} ${n === 1 ? singular : plural}`
}
