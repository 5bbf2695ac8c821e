/**
 * How a bills file is read, from the flags that say so: the map (a file or a preset) with the
 * flags that beat it, and the lookups. One place for `bills import` and `emulator fixtures
 * --from-csv`, so that both read a file exactly alike.
 */
import {loadLookups, type Lookups} from './lookups.js'
import {checkNeeds, isPlain, loadBillMap, plainMap, withOverrides, type BillMap, type MapOverrides} from './map-file.js'

export interface ReadingFlags extends MapOverrides {
  map?: string | undefined
  lookup?: string[] | undefined
}

/** The map and lookups; no map when the file is in bk's own format with nothing to translate. */
export async function readingOptions(flags: ReadingFlags): Promise<{map: BillMap | undefined; lookups: Lookups}> {
  const base = flags.map ? await loadBillMap(flags.map) : plainMap()
  const map = withOverrides(base, flags)
  checkNeeds(map, (flag) => flagGiven(flags, flag))
  const lookups = await loadLookups(flags.lookup ?? [], map.caseInsensitiveLookups, map.lookupKeys)
  const plain = !flags.map && isPlain(map) && lookups.size === 0 && !flags.amounts
  return {map: plain ? undefined : map, lookups}
}

/** Whether the user gave the flag a map's `needs:` names (`lookup FIELD`: a --lookup for FIELD). */
function flagGiven(flags: ReadingFlags, flag: string): boolean {
  if (flag.startsWith('lookup ')) {
    const field = flag.slice(7).trim()
    return (flags.lookup ?? []).some((l) => l.slice(0, l.indexOf('=')).trim() === field)
  }
  const value = {
    'date-format': flags.dateFormat,
    'number-format': flags.numberFormat,
    amounts: flags.amounts,
    currency: flags.currency,
    'due-days': flags.dueDays,
    delimiter: flags.delimiter,
    encoding: flags.encoding,
    year: flags.year,
    credits: flags.credits,
  }[flag]
  return value !== undefined && value !== ''
}
