/** The fields of a profile for --fields of `profiles list` and `profiles show` (profiles hold no secret). */
import type {FieldInfo} from '../output/field-paths.js'

export const PROFILE_FIELDS: FieldInfo[] = [
  {path: 'name', kind: 'id'},
  {path: 'active', kind: 'text'},
  {path: 'env', kind: 'id'},
  {path: 'baseUrl', kind: 'text'},
  {path: 'clientId', kind: 'id'},
  {path: 'business', kind: 'id'},
  {path: 'scope', kind: 'text'},
  {path: 'storage', kind: 'id'},
]
