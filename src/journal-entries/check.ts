/** The balance check lives with the service's other journal-entry rules (src/journal-entry-rules.ts). */
export {checkBalance, parseAmount} from '../journal-entry-rules.js'
export type {BalanceLine, BalanceProblem, BalanceResult, Side} from '../journal-entry-rules.js'
