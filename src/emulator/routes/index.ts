/**
 * The route table: every area of the API registers its routes here, in one list.
 */
import type {EmulatorContext} from './context.js'
import {register as auth} from './auth.js'
import {register as businesses} from './businesses.js'
import {register as emulatorBusinesses} from './emulator-businesses.js'
import {register as emulatorEvents} from './emulator-events.js'
import {register as emulatorInspect} from './emulator-inspect.js'

const modules: Array<(ctx: EmulatorContext) => void> = [
  auth,
  businesses,
  emulatorBusinesses,
  emulatorEvents,
  emulatorInspect,
]

export function registerRoutes(ctx: EmulatorContext): void {
  for (const register of modules) register(ctx)
}
