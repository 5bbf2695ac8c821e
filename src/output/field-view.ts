/**
 * A record cut to its --fields for people (`bk transactions get --fields …` without --json): one
 * line a field, `path  value`, values shown as a table shows them (amounts to their minor unit,
 * dates shortened), the values of a path through an array joined by `, `.
 */
import {cellText, formatAmount, formatDatetime} from './display.js'
import {kindOfPath, valueAt, type FieldInfo} from './field-paths.js'
import {displayWidth, oneLine, pad} from './terminal.js'

export function formatFields(record: unknown, paths: readonly string[], catalog: readonly FieldInfo[]): string {
  const currency = (record as {currency?: unknown} | null)?.currency
  const show = (value: unknown, path: string): string => {
    if (Array.isArray(value)) return value.map((v) => show(v, path)).join(', ')
    switch (kindOfPath(path, catalog)) {
      case 'amount':
        return formatAmount(value, typeof currency === 'string' ? currency : null)
      case 'date':
        return formatDatetime(value)
      case 'text':
      case 'id':
      case 'number':
        return cellText(value)
    }
  }
  const width = Math.max(...paths.map(displayWidth))
  return (
    paths
      .map((path) => `${pad(path, width, 'start')}  ${oneLine(show(valueAt(record, path), path))}`.trimEnd())
      .join('\n') + '\n'
  )
}
