/**
 * A bill's identity in an import: the values of its key columns (vendor and number by default:
 * supplier invoice numbers are unique per supplier only), joined by U+001F, a character no export
 * writes in a cell. The journal names bills by this key.
 */
import type {BillColumn} from './columns.js'

export const KEY_SEPARATOR = '\u001f'
export const DEFAULT_KEY: readonly BillColumn[] = ['vendor_id', 'number']

/** A bill key for people: `B-1 (vendor ven_abc)` for the default key, else the values joined by " / ". */
export function describeKey(key: string, columns: readonly string[] = DEFAULT_KEY): string {
  const values = key.split(KEY_SEPARATOR)
  if (columns.length === 2 && columns[0] === 'vendor_id' && columns[1] === 'number' && values.length === 2)
    return values[0] ? `${values[1]} (vendor ${values[0]})` : values[1]!
  return values.join(' / ')
}
