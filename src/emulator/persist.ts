/**
 * `--state FILE`: the emulator's data kept across restarts, so a CI job can start it once per
 * stage. Everything the state holds is saved (records, clients and tokens, notifications, the
 * id generator, so ids stay unique), with the webhook URL in force and the signing key, so a
 * listener running across the restart keeps verifying.
 *
 * The file is written whole or not at all (src/shared/state-file.ts): after every request that can
 * change the state and before its answer leaves, and after webhook deliveries. Writes are
 * coalesced: a change that arrives while one is written goes into the next. A damaged file is
 * refused at start, never replaced by the seed.
 */
import {CoalescedSaves, readStateFile, StateFileError, writeStateFile} from '../shared/state-file.js'
import {BusinessCollection, type EmulatorState} from './state.js'
import type {DocumentRecord, Grant} from './types.js'

const FORMAT = 'bk-emulator-state'

/** What the state file holds besides the state itself. */
export interface SavedExtras {
  /** The webhook URL in force (a listener's registration, or --webhook-url). */
  webhookUrl: string | null
  /** PEM of the signing key. */
  signingKey: string | null
}

/** Fields of EmulatorState that are not data (the event sink and the clock are wired at start). */
const NOT_SAVED = new Set(['events', 'now', 'seed', 'random', 'counter'])

type Saved = Record<string, unknown> & {extras: SavedExtras}

/** The state as JSON-able values, every field of it (a field this does not know fails loudly). */
export function snapshot(state: EmulatorState, extras: SavedExtras): Saved {
  const out: Saved = {extras, generator: state.generator}
  for (const [key, value] of Object.entries(state)) {
    if (NOT_SAVED.has(key)) continue
    if (value instanceof BusinessCollection) {
      const byBusiness: Record<string, unknown[]> = {}
      for (const [businessId, items] of value.entries())
        byBusiness[businessId] = key === 'documents' ? items.map((d) => documentOut(d as DocumentRecord)) : [...items]
      out[key] = byBusiness
    } else if (key === 'tagFields') {
      out[key] = [...state.tagFields].map(([b, fields]) => [b, [...fields].map(([f, values]) => [f, [...values]])])
    } else if (key === 'tokens') {
      out[key] = [...state.tokens].map(([token, grant]) => [token, grantOut(grant)])
    } else if (key === 'seeded') {
      out[key] = {bills: [...state.seeded.bills], journalEntries: [...state.seeded.journalEntries]}
    } else if (value instanceof Map) {
      out[key] = [...value]
    } else if (Array.isArray(value)) {
      out[key] = value
    } else {
      throw new Error(`The emulator's state has a field "${key}" that persist.ts does not save`)
    }
  }
  return out
}

/** Fills an empty state from a snapshot; returns the extras. */
export function restore(state: EmulatorState, saved: Saved): SavedExtras {
  state.generator = saved.generator as EmulatorState['generator']
  for (const [key, value] of Object.entries(saved)) {
    if (key === 'extras' || key === 'generator') continue
    const target = (state as unknown as Record<string, unknown>)[key]
    if (target instanceof BusinessCollection) {
      for (const [businessId, items] of Object.entries(value as Record<string, unknown[]>)) {
        for (const item of items)
          target.add(businessId, key === 'documents' ? documentIn(item as DocumentOut) : (item as {id: string}))
      }
    } else if (key === 'tagFields') {
      for (const [b, fields] of value as Array<[string, Array<[string, Array<[string, string]>]>]>)
        state.tagFields.set(b, new Map(fields.map(([f, values]) => [f, new Map(values)])))
    } else if (key === 'tokens') {
      for (const [token, grant] of value as Array<[string, GrantOut]>) state.tokens.set(token, grantIn(grant))
    } else if (key === 'seeded') {
      const seeded = value as {bills: string[]; journalEntries: string[]}
      for (const id of seeded.bills) state.seeded.bills.add(id)
      for (const id of seeded.journalEntries) state.seeded.journalEntries.add(id)
    } else if (target instanceof Map) {
      for (const [k, v] of value as Array<[unknown, unknown]>) target.set(k, v)
    } else if (Array.isArray(target)) {
      target.push(...(value as unknown[]))
    }
  }
  return saved.extras
}

type DocumentOut = Omit<DocumentRecord, 'associations'> & {associations: string[]}
const documentOut = (d: DocumentRecord): DocumentOut => ({...d, associations: [...d.associations]})
const documentIn = (d: DocumentOut): DocumentRecord => ({...d, associations: new Set(d.associations)})

type GrantOut = Omit<Grant, 'scopes'> & {scopes: string[] | null}
const grantOut = (g: Grant): GrantOut => ({...g, scopes: g.scopes ? [...g.scopes] : null})
const grantIn = (g: GrantOut): Grant => ({...g, scopes: g.scopes ? new Set(g.scopes) : undefined})

function handMade(file: string, why: string): StateFileError {
  return new StateFileError(
    `${file} is not a usable emulator state file: ${why}`,
    file,
    'Nothing was changed. Use a file written by `bk emulator start --state`, or move it away to start afresh.',
  )
}

export class StateStore {
  private failure: Error | undefined
  private readonly saves = new CoalescedSaves(() => this.write())

  constructor(
    readonly file: string,
    private readonly state: EmulatorState,
    private readonly extras: () => Promise<SavedExtras>,
  ) {}

  /** The saved state, or undefined when the file does not exist; a damaged file throws StateFileError. */
  static async load(file: string): Promise<Saved | undefined> {
    const text = await readStateFile(file, FORMAT, 'emulator state file')
    if (text === undefined) return undefined
    let saved: unknown
    try {
      saved = JSON.parse(text)
    } catch (error) {
      throw handMade(file, `its body is not JSON (${(error as Error).message})`)
    }
    if (!saved || typeof saved !== 'object' || Array.isArray(saved)) throw handMade(file, 'its body is not an object')
    const extras = (saved as Partial<Saved>).extras
    if (!extras || typeof extras !== 'object') throw handMade(file, 'it has no "extras"')
    const generator = (saved as Partial<Saved>).generator as {counter?: unknown; random?: unknown} | undefined
    if (!Number.isSafeInteger(generator?.counter) || typeof generator?.random !== 'number')
      throw handMade(file, 'its "generator" is not {counter, random}')
    return saved as Saved
  }

  /**
   * Fills `state` from what load() returned. A file written by hand with a correct header but
   * records of the wrong shape is refused as a StateFileError (the state is then not used).
   */
  static restore(file: string, state: EmulatorState, saved: Saved): SavedExtras {
    try {
      return restore(state, saved)
    } catch (error) {
      throw handMade(file, `a value has the wrong shape (${(error as Error).message})`)
    }
  }

  /** Saves the state as it is now (or just after the write under way); resolves once it is on disk. */
  save(): Promise<void> {
    return this.saves.save()
  }

  /** The last write's failure, if the last write failed (a full disk): the server answers 500 then. */
  get lastFailure(): Error | undefined {
    return this.failure
  }

  private async write(): Promise<void> {
    const text = JSON.stringify(snapshot(this.state, await this.extras()))
    try {
      await writeStateFile(this.file, FORMAT, text)
      this.failure = undefined
    } catch (error) {
      this.failure = error as Error
      throw error
    }
  }
}
