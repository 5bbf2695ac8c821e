import {z} from './zod.js'

export const tokenResponse = z.looseObject({
  access_token: z.string().check(z.minLength(1)),
  token_type: z.string(),
  expires_in: z.number().check(z.nonnegative()),
})
export type TokenResponse = z.infer<typeof tokenResponse>
