import type {FieldInfo} from '../output/field-paths.js'

/**
 * The fields of a business for --fields: the spec shows only the id; the others are those the
 * emulator sends, and what the table has always shown when the service sends them.
 */
export const businessFields: FieldInfo[] = [
  {path: 'id', kind: 'id'},
  {path: 'name', kind: 'text'},
  {path: 'external_id', kind: 'id'},
  {path: 'active', kind: 'text'},
  {path: 'created_at', kind: 'date'},
]
