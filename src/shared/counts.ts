/**
 * Counts as people read them, in one way everywhere (progress, summaries, results): digits
 * grouped by thousands (`27,424`), and the noun singular for one (`1 bill`, `2 bills`).
 */

/** `27,424`. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US')
}

/** `1 invoice`, `27,424 invoices`, `0 businesses` (the plural given when not the noun plus s). */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(n)} ${n === 1 ? singular : plural}`
}
