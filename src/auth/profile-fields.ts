/** The fields of a profile for --fields of `profiles list` and `profiles show` (profiles hold no secret). */
import type {FieldInfo} from '../output/field-paths.js'
import type {Profile} from './profiles.js'

export const PROFILE_FIELDS: FieldInfo[] = [
  {path: 'name', kind: 'id'},
  {path: 'active', kind: 'text'},
  {path: 'env', kind: 'id'},
  {path: 'base_url', kind: 'text'},
  {path: 'client_id', kind: 'id'},
  {path: 'business', kind: 'id'},
  {path: 'scope', kind: 'text'},
  {path: 'storage', kind: 'id'},
]

/** A profile as `profiles list` and `profiles show` print it: the keys of their --json and --fields. */
export interface ProfileRecord {
  name: string
  active: boolean
  env: Profile['env']
  base_url: string
  client_id: string
  business?: string | undefined
  scope?: string | undefined
  storage: Profile['storage']
}

export function profileRecord(name: string, active: boolean, profile: Profile): ProfileRecord {
  const {env, baseUrl, clientId, business, scope, storage} = profile
  return {name, active, env, base_url: baseUrl, client_id: clientId, business, scope, storage}
}
