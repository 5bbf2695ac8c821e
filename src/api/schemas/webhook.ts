import {z} from './zod.js'

export const webhookMessage = z.looseObject({type: z.string(), content: z.record(z.string(), z.unknown())})
export type WebhookMessage = z.infer<typeof webhookMessage>

export const webhookNotification = z.looseObject({
  id: z.string().check(z.minLength(1)),
  datetime: z.string(),
  notification: webhookMessage,
})
export type WebhookNotification = z.infer<typeof webhookNotification>
