/**
 * The workflow-command text GitHub's runner reads: escaping as @actions/core does it, paths
 * relative to the workspace, the per-step cap and its closing notice, and the CI progress pace.
 */
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {Annotator, ANNOTATIONS_PER_STEP} from '../../src/ci/annotations.js'
import {annotationPath, ciEnvironment} from '../../src/ci/environment.js'
import {ProgressThrottle} from '../../src/ci/progress.js'
import {escapeData, escapeProperty, workflowCommand} from '../../src/ci/workflow-commands.js'

describe('workflow commands', () => {
  it('escapes data and properties as the runner unescapes them', () => {
    expect(escapeData('100% done\r\nnext: a,b')).toBe('100%25 done%0D%0Anext: a,b')
    expect(escapeProperty('100% done\r\nnext: a,b')).toBe('100%25 done%0D%0Anext%3A a%2Cb')
    // % first: an escape already in the text is not taken for one.
    expect(escapeData('%0A')).toBe('%250A')
    expect(
      workflowCommand(
        'error',
        [
          ['file', 'a,b:c.csv'],
          ['line', 3],
          ['col', undefined],
          ['title', 'bk x'],
        ],
        'm:1,2',
      ),
    ).toBe('::error file=a%2Cb%3Ac.csv,line=3,title=bk x::m:1,2\n')
    expect(workflowCommand('add-mask', [], 'tok%en')).toBe('::add-mask::tok%25en\n')
  })

  it('names a file relative to the workspace only when it is inside it', () => {
    const ws = join('/', 'home', 'runner', 'work', 'repo')
    expect(annotationPath(join(ws, 'data', 'bills.csv'), ws)).toBe('data/bills.csv')
    expect(annotationPath('/tmp/bills.csv', ws)).toBe('/tmp/bills.csv')
    expect(annotationPath('bills.csv', undefined)).toBe('bills.csv')
    expect(annotationPath('-', ws)).toBeUndefined()
  })

  it('reads the environment GitHub and other CIs set', () => {
    expect(ciEnvironment({GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: '/w', GITHUB_STEP_SUMMARY: '/s'})).toEqual({
      github: true,
      workspace: '/w',
      stepSummary: '/s',
      ci: true,
    })
    expect(ciEnvironment({CI: 'true', GITHUB_STEP_SUMMARY: '/s'})).toEqual({
      github: false,
      workspace: undefined,
      stepSummary: undefined,
      ci: true,
    })
    expect(ciEnvironment({CI: 'false'}).ci).toBe(false)
  })

  it('stops at GitHub’s cap per kind and closes with a notice naming the file', () => {
    const lines: string[] = []
    const a = new Annotator('bk t', {github: true, workspace: undefined, stepSummary: undefined, ci: true}, (l) =>
      lines.push(l),
    )
    for (let i = 1; i <= ANNOTATIONS_PER_STEP + 3; i++)
      a.add({level: 'error', file: 'f.csv', line: i, message: `e${i}`})
    a.add({level: 'warning', message: 'w'})
    a.finish('f.rejects.csv')
    expect(lines.filter((l) => l.startsWith('::error'))).toHaveLength(ANNOTATIONS_PER_STEP)
    expect(lines.at(-2)).toBe('::warning title=bk t::w\n')
    expect(lines.at(-1)).toBe(
      '::notice title=bk t::3 more errors not annotated (GitHub shows 10 of each per step); every one is in f.rejects.csv\n',
    )
  })
})

describe('progress in a CI log', () => {
  it('writes a line when both 10% more and a minute have passed, whichever comes later', () => {
    const t = new ProgressThrottle(0)
    expect(t.due({fraction: 0.5, now: 59_999})).toBe(false) // half read, not a minute yet
    expect(t.due({fraction: 0.5, now: 60_000})).toBe(true)
    expect(t.due({fraction: 0.55, now: 300_000})).toBe(false) // five minutes, but only 5% more
    expect(t.due({fraction: 0.6, now: 300_000})).toBe(true)
    expect(t.due({fraction: 0.9, now: 330_000})).toBe(false) // 30% more, half a minute
    // Size unknown (stdin): every minute.
    const u = new ProgressThrottle(0)
    expect(u.due({fraction: undefined, now: 60_000})).toBe(true)
    expect(u.due({fraction: undefined, now: 90_000})).toBe(false)
    expect(u.due({fraction: undefined, now: 120_000})).toBe(true)
  })
})
