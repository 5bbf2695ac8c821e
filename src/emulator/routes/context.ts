import type {FaultPlan} from '../faults.js'
import type {Router} from '../router.js'
import type {EmulatorState} from '../state.js'
import type {WebhookHub} from '../webhooks/hub.js'
import type {ResolvedEmulatorOptions} from '../options.js'

/** What every route module's `register` receives. */
export interface EmulatorContext {
  router: Router
  state: EmulatorState
  options: ResolvedEmulatorOptions
  /** The fault injection plan, for the inspection routes. */
  faults: FaultPlan
  /** Signs and delivers webhooks; `state.events` is this hub unless a test swaps in a recorder. */
  webhooks: WebhookHub
}
