/**
 * bk's --json documents use the service's key case, snake_case, for bk's own keys as for the
 * service's (`duration_ms` beside `document_id`). TypeScript code keeps camelCase names; this is
 * the one place they are turned into the printed keys, so no command has to remember it.
 */

/** Free-form objects of the service (`metadata_`): their keys are the user's, kept as written. */
const FREE_FORM = new Set(['metadata_', 'metadata'])

/** `durationMs` → `duration_ms`; a key with no capital is returned as is. */
export function snakeCase(key: string): string {
  return /[A-Z]/.test(key) ? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : key
}

/** `durationMs` → `duration_ms`, as a type. */
export type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S

/** A result type as --json prints it (a test reads `SnakeCaseKeys<ImportSummary>`). */
export type SnakeCaseKeys<T> =
  T extends ReadonlyArray<infer Item>
    ? Array<SnakeCaseKeys<Item>>
    : T extends object
      ? {[K in keyof T as K extends string ? SnakeCase<K> : K]: SnakeCaseKeys<T[K]>}
      : T

/**
 * The value with every camelCase key of its plain objects in snake_case, deep. What needs no
 * change is returned as it is (the service's records usually), so a large list costs a walk, not a
 * copy; class instances (exact numbers, dates) are left to their toJSON.
 */
export function snakeCaseKeys<T>(value: T): SnakeCaseKeys<T> {
  return convert(value) as SnakeCaseKeys<T>
}

function convert(value: unknown): unknown {
  if (Array.isArray(value)) {
    let out: unknown[] | undefined
    for (let i = 0; i < value.length; i++) {
      const item = convert(value[i])
      if (item !== value[i]) (out ??= [...value])[i] = item
    }
    return out ?? value
  }
  if (!isPlainObject(value)) return value
  let changed = false
  const entries = Object.entries(value).map(([key, item]) => {
    const name = snakeCase(key)
    const converted = FREE_FORM.has(key) ? item : convert(item)
    if (name !== key || converted !== item) changed = true
    return [name, converted] as const
  })
  return changed ? Object.fromEntries(entries) : value
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false
  const proto = Object.getPrototypeOf(value) as unknown
  return proto === Object.prototype || proto === null
}
