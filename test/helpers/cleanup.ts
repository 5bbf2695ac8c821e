/** Set up for every test file (vitest.config.ts): its temp folders go when the file is done. */
import {afterAll} from 'vitest'

import {removeTempDirs} from './bk.js'

afterAll(() => removeTempDirs())
