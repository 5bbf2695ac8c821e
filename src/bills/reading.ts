/**
 * How a bills file is read, from the flags that say so: the map (a file or a preset) with the
 * flags that beat it, and the lookups. One place for `bills import` and `emulator fixtures
 * --from-csv`, so that both read a file exactly alike.
 */
import {loadLookups, type Lookups} from './lookups.js'
import {isPlain, loadBillMap, plainMap, withOverrides, type BillMap, type MapOverrides} from './map-file.js'

export interface ReadingFlags extends MapOverrides {
  map?: string | undefined
  lookup?: string[] | undefined
}

/** The map and lookups; no map when the file is in bk's own format with nothing to translate. */
export async function readingOptions(flags: ReadingFlags): Promise<{map: BillMap | undefined; lookups: Lookups}> {
  const base = flags.map ? await loadBillMap(flags.map) : plainMap()
  const map = withOverrides(base, flags)
  const lookups = await loadLookups(flags.lookup ?? [], map.caseInsensitiveLookups, map.lookupKeys)
  const plain = !flags.map && isPlain(map) && lookups.size === 0 && !flags.amounts
  return {map: plain ? undefined : map, lookups}
}
