import {z} from 'zod'

export const tokenResponse = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string(),
  expires_in: z.number().nonnegative(),
})
export type TokenResponse = z.infer<typeof tokenResponse>
