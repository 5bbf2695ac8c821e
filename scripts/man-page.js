#!/usr/bin/env node
// bk(1), the man page, from the help texts: oclif.manifest.json (each command's summary,
// description, arguments, flags and examples, as `bk COMMAND --help` shows them) and the topics
// in package.json. Hidden commands and flags stay out, as they do from help.
//
//   node scripts/man-page.js > bk.1
import {readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** Text as roff reads it: backslashes and hyphens escaped, no line starting with a control character. */
function roff(text) {
  return String(text)
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n')
}

/** oclif's example template, as help prints it: a command line after `$ `. */
function example(text, id) {
  return (typeof text === 'string' ? text : text.command)
    .replace(/<%= config\.bin %>/g, 'bk')
    .replace(/<%= command\.id %>/g, id.replace(/:/g, ' '))
    .replace(/^bk /gm, '$ bk ')
}

/** A flag's name as help shows it: `-p, --profile=<value>`. */
function flagName(name, flag) {
  const short = flag.char ? `-${flag.char}, ` : ''
  const value = flag.type === 'option' ? `=${flag.helpValue ?? '<value>'}` : ''
  return `${short}--${name}${value}`
}

/** One command's section: synopsis, summary, description, arguments, flags, examples. */
function commandSection(command) {
  const id = command.id.replace(/:/g, ' ')
  const args = Object.values(command.args ?? {}).map((a) =>
    a.required ? a.name.toUpperCase() : `[${a.name.toUpperCase()}]`,
  )
  const lines = ['.SS', `\\fBbk ${roff(id)}\\fR ${roff(args.join(' '))}`.trimEnd()]
  if (command.summary) lines.push(roff(command.summary))
  if (command.description) lines.push('.PP', roff(command.description).replace(/\n\n+/g, '\n.PP\n'))
  for (const arg of Object.values(command.args ?? {}).filter((a) => a.description))
    lines.push('.TP', `\\fI${roff(arg.name.toUpperCase())}\\fR`, roff(arg.description))
  for (const [name, flag] of Object.entries(command.flags ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    if (flag.hidden) continue
    const options = flag.options?.length ? ` (one of: ${flag.options.join(', ')})` : ''
    lines.push(
      '.TP',
      `\\fB${roff(flagName(name, flag))}\\fR`,
      roff(`${flag.summary ?? flag.description ?? ''}${options}`),
    )
  }
  if (command.examples?.length) {
    lines.push('.PP', 'Examples:', '.PP', '.nf', '.RS 4')
    for (const e of command.examples) lines.push(roff(example(e, command.id)))
    lines.push('.RE', '.fi')
  }
  return lines.join('\n')
}

/** The whole page. */
export function manPage() {
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'))
  const commands = Object.values(manifest.commands)
    .filter((c) => !c.hidden)
    .sort((a, b) => a.id.localeCompare(b.id))
  const topics = Object.entries(pjson.oclif.topics).sort(([a], [b]) => a.localeCompare(b))
  return [
    `.TH BK 1 "" "bk ${pjson.version}" "User Commands"`,
    '.SH NAME',
    `bk \\- ${roff(pjson.description)}`,
    '.SH SYNOPSIS',
    '\\fBbk\\fR \\fITOPIC\\fR \\fICOMMAND\\fR [\\fIFLAGS\\fR]',
    '.br',
    '\\fBbk\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR',
    '.SH DESCRIPTION',
    roff(pjson.description) + '.',
    'Each command below is also described by \\fBbk\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR.',
    '.SH TOPICS',
    ...topics.flatMap(([name, t]) => ['.TP', `\\fB${roff(name)}\\fR`, roff(t.description)]),
    '.SH COMMANDS',
    ...commands.map(commandSection),
    '.SH SEE ALSO',
    "The project's README.md and docs/ folder.",
    '',
  ].join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(manPage())
