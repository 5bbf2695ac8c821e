/**
 * The zod the response schemas are built with: zod/mini, whose schemas carry their few methods on
 * a prototype where classic zod attaches dozens to every instance, so that building a command's
 * schemas and first parsing with them cost less at start-up. Same checks and issues as classic
 * zod; only the English messages must be asked for, since zod/mini sets no locale of its own.
 */
import {z} from 'zod/mini'

z.config(z.locales.en())

export {z}
