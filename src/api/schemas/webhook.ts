import {z} from 'zod'

export const webhookMessage = z.looseObject({type: z.string(), content: z.record(z.string(), z.unknown())})
export type WebhookMessage = z.infer<typeof webhookMessage>

export const webhookNotification = z.looseObject({
  id: z.string().min(1),
  datetime: z.string(),
  notification: webhookMessage,
})
export type WebhookNotification = z.infer<typeof webhookNotification>
