/**
 * `--fields a,b,c.d` of list and get commands: which fields a record has (read from its zod
 * schema, so the list never drifts from what bk checks), a user's choice checked against them,
 * and a record cut down to the chosen paths. A path goes into objects by key and through arrays
 * item by item: `lines.amount` of an invoice is the amount of each of its lines.
 */
import type {z} from 'zod/mini'

import {closestWord} from '../cli/closest.js'
import {InputError} from '../shared/errors.js'
import type {ColumnKind} from './table.js'

export interface FieldInfo {
  path: string
  kind: ColumnKind
  /** Free-form (metadata_, an untyped back-reference): any path below it is accepted. */
  open?: boolean
}

interface Def {
  type: string
  shape?: Record<string, z.core.$ZodType>
  innerType?: z.core.$ZodType
  element?: z.core.$ZodType
}

const defOf = (schema: z.core.$ZodType): Def => (schema as unknown as {_zod: {def: Def}})._zod.def

/** The schema under optional, nullable and default wrappers. */
function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let s = schema
  for (let def = defOf(s); def.innerType && def.type !== 'array'; def = defOf(s)) s = def.innerType
  return s
}

function kindOf(name: string, type: string): ColumnKind {
  if (type === 'number') return /amount|paid|price|total/.test(name) ? 'amount' : 'number'
  if (type === 'string' || type === 'enum') {
    if (name === 'id' || name.endsWith('_id')) return 'id'
    if (name.endsWith('_at') || name === 'datetime') return 'date'
  }
  return 'text'
}

/** Every path of a record's schema, in the schema's order: each field, and the fields of its objects and arrays of objects. */
export function fieldCatalog(schema: z.core.$ZodType, prefix = ''): FieldInfo[] {
  const out: FieldInfo[] = []
  const shape = defOf(unwrap(schema)).shape ?? {}
  for (const [name, field] of Object.entries(shape)) {
    const path = prefix + name
    let inner = unwrap(field)
    let def = defOf(inner)
    if (def.type === 'array' && def.element) {
      inner = unwrap(def.element)
      def = defOf(inner)
    }
    const open = def.type === 'record' || def.type === 'unknown' || def.type === 'any'
    out.push({path, kind: kindOf(name, def.type), ...(open ? {open} : {})})
    if (def.type === 'object') out.push(...fieldCatalog(inner, `${path}.`))
  }
  return out
}

/** The paths of a --fields value, checked against the catalog; `what` names the record ("an invoice"). */
export function parseFields(value: string, catalog: readonly FieldInfo[], what: string, listHint: string): string[] {
  const paths = [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ]
  if (paths.length === 0)
    throw new InputError(`--fields "${value}" names no field`, {hint: listHint, details: {flag: '--fields', value}})
  // Every unknown one at once, each with the field it was likely meant for.
  const unknown = paths.filter((path) => !/^[^.\s]+(\.[^.\s]+)*$/.test(path) || !knownPath(path, catalog))
  if (unknown.length > 0) {
    const meant = unknown.flatMap(
      (path) =>
        closestWord(
          path,
          catalog.map((f) => f.path),
        ) ?? [],
    )
    const named = unknown.map((path) => `"${path}"`).join(', ')
    throw new InputError(
      `--fields: ${named} ${unknown.length === 1 ? 'is not a field' : 'are not fields'} of ${what}`,
      {
        hint: meant.length > 0 ? `Did you mean ${meant.join(', ')}? ${listHint}` : listHint,
        details: {flag: '--fields', value: unknown.join(',')},
      },
    )
  }
  return paths
}

function knownPath(path: string, catalog: readonly FieldInfo[]): boolean {
  return catalog.some((f) => f.path === path || (f.open && path.startsWith(`${f.path}.`)))
}

/** The kind of column a path makes in a table. */
export function kindOfPath(path: string, catalog: readonly FieldInfo[]): ColumnKind {
  return catalog.find((f) => f.path === path)?.kind ?? 'text'
}

/**
 * The value at a path: through objects by key, through arrays item by item (giving an array);
 * null where a key is missing.
 */
export function valueAt(value: unknown, path: string): unknown {
  return walk(value, path.split('.'))
}

function walk(value: unknown, keys: readonly string[]): unknown {
  if (keys.length === 0) return value ?? null
  if (Array.isArray(value)) return value.map((item) => walk(item, keys))
  if (value === null || typeof value !== 'object') return null
  return walk((value as Record<string, unknown>)[keys[0] as string], keys.slice(1))
}

interface PathTree {
  /** A chosen path ends here: the whole value, whatever paths go below it. */
  whole: boolean
  children: Map<string, PathTree>
}

function treeOf(paths: readonly string[]): PathTree {
  const root: PathTree = {whole: false, children: new Map()}
  for (const path of paths) {
    let node = root
    for (const key of path.split('.')) {
      let next = node.children.get(key)
      if (!next) node.children.set(key, (next = {whole: false, children: new Map()}))
      node = next
    }
    node.whole = true
  }
  return root
}

/**
 * A function cutting records down to `paths`, keys in the order given (`id,lines.amount` gives
 * `{id, lines: [{amount}]}`); a missing field is null, so every object has every chosen key.
 */
export function projector(paths: readonly string[]): (record: unknown) => unknown {
  const tree = treeOf(paths)
  const project = (value: unknown, node: PathTree): unknown => {
    if (node.whole) return value ?? null
    if (Array.isArray(value)) return value.map((item) => project(item, node))
    if (value === null || typeof value !== 'object') return null
    const out: Record<string, unknown> = {}
    for (const [key, child] of node.children) out[key] = project((value as Record<string, unknown>)[key], child)
    return out
  }
  return (record) => project(record, tree)
}
