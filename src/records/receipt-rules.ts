/** `bk rules receipts set`: the update body from the flags, checked locally, and its summary. */
import type {ReceiptRequestConfig, ReceiptRequestConfigUpdate} from '../api/schemas/index.js'
import {InputError} from '../shared/errors.js'
import {moneyOf, numberText, parseMoney} from '../shared/money.js'

export function receiptRulesUpdate(
  enabled: boolean | undefined,
  threshold: string | undefined,
): ReceiptRequestConfigUpdate {
  if (enabled === undefined && threshold === undefined) {
    throw new InputError('Nothing to change: give --enabled, --no-enabled or --threshold AMOUNT', {
      hint: 'For example: bk rules receipts set --enabled --threshold 25.00',
    })
  }
  const update: ReceiptRequestConfigUpdate = {}
  if (enabled !== undefined) update.is_enabled = enabled
  if (threshold !== undefined) {
    const parsed = parseMoney(threshold, {min: 'non-negative'})
    if (!parsed.ok)
      throw new InputError(`--threshold "${threshold}": ${parsed.reason}`, {
        hint: 'Give a decimal amount of 0 or more, such as 25.00.',
        details: {flag: '--threshold', value: threshold},
      })
    // Sent as a decimal string (the spec allows one), so the amount travels exactly as typed.
    update.threshold_amount = parsed.value.abs().toFixed()
  }
  return update
}

export function describeReceiptConfig(businessId: string, config: ReceiptRequestConfig): string {
  // As the service wrote it, never in exponent notation (1e-7 is 0.0000001).
  const threshold = numberText(config.threshold_amount)
  return config.is_enabled
    ? `Receipt requests for ${businessId}: enabled, ${moneyOf(config.threshold_amount).isZero() ? 'for every spend (threshold 0)' : `for spend of ${threshold} or more`}.\n`
    : `Receipt requests for ${businessId}: disabled (threshold ${threshold} kept).\n`
}
