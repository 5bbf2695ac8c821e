/**
 * Deterministic seed data. `empty` has one business and the reference data bills need;
 * `demo` adds more businesses and the records the read commands show. Fixed, readable ids for
 * the entities the README demo and examples/ name.
 */
import type {ResolvedEmulatorOptions} from './options.js'
import {seedRecords} from './seed-records.js'
import type {EmulatorState} from './state.js'
import {ID_PREFIX} from '../shared/spec.js'

export const DEMO_IDS = {
  business: 'biz_demo_acme',
  otherBusiness: 'biz_demo_globex',
  vendors: {office: 'ven_demo_office', cloud: 'ven_demo_cloud', travel: 'ven_demo_travel'},
  ledgers: {
    expenses: 'ldg_demo_expenses',
    software: 'ldg_demo_software',
    travel: 'ldg_demo_travel',
    cash: 'ldg_demo_cash',
    revenue: 'ldg_demo_revenue',
  },
  tagFields: {department: ['engineering', 'sales', 'operations'], project: ['apollo', 'gemini']},
} as const

export function seedState(state: EmulatorState, options: ResolvedEmulatorOptions): string[] {
  const created = '2026-01-05T09:00:00Z'
  const businesses =
    options.seed === 'none'
      ? []
      : options.seed === 'demo'
        ? [
            {id: DEMO_IDS.business, name: 'Acme Bakery'},
            {id: DEMO_IDS.otherBusiness, name: 'Globex Consulting'},
            {id: 'biz_demo_initech', name: 'Initech Supplies', active: false},
          ]
        : [{id: DEMO_IDS.business, name: 'Acme Bakery'}]
  for (const b of businesses) {
    state.businesses.set(b.id, {
      id: b.id,
      external_id: `ext-${b.name.toLowerCase().replace(/\W+/g, '-')}`,
      name: b.name,
      active: 'active' in b ? b.active : true,
      created_at: created,
    })
    for (const [key, id] of Object.entries(DEMO_IDS.vendors))
      state.vendors.add(b.id, {
        id: b.id === DEMO_IDS.business ? id : `${id}_${b.id.slice(9)}`,
        business_id: b.id,
        name: key,
      })
    for (const [key, id] of Object.entries(DEMO_IDS.ledgers))
      state.ledgers.add(b.id, {
        id: b.id === DEMO_IDS.business ? id : `${id}_${b.id.slice(9)}`,
        business_id: b.id,
        name: key,
      })
    const fields = new Map<string, Map<string, string>>()
    for (const [field, values] of Object.entries(DEMO_IDS.tagFields)) {
      fields.set(field, new Map(values.map((v) => [v, state.newId(ID_PREFIX.tagValue)])))
    }
    state.tagFields.set(b.id, fields)
  }
  businesses.forEach((b, i) => seedRecords(state, b.id, i, options))
  markSeeded(state)
  return businesses.map((b) => b.id)
}

/** Records the bills and journal entries held now as the seed's (the rest are "created"). */
export function markSeeded(state: EmulatorState): void {
  for (const key of ['bills', 'journalEntries'] as const) {
    for (const [, items] of state[key].entries()) for (const item of items) state.seeded[key].add(item.id)
  }
}
