import * as Flags from '@oclif/core/flags'
import {join} from 'node:path'

import {BaseCommand} from '../cli/base-command.js'
import {ExitCode} from '../shared/errors.js'
import {counted} from '../shared/counts.js'
import {businessFlag} from '../cli/flags.js'
import type {DoctorReport} from '../doctor/report.js'

export default class Doctor extends BaseCommand<typeof Doctor> {
  static override summary = 'Check why bk fails on this machine, and say how to fix it.'
  static override description =
    "Checks, in order: bk and Node versions; the config folder and its file modes; which profile and credentials resolve and where each value comes from; the keychain (reachable, how fast); the proxy and CA settings; DNS, TCP and TLS to the base URL (or to the proxy and through its tunnel); the clock against the service's Date header; a token and the default business; the webhook key set. Each line is pass, WARN, FAIL or skip, with the fix. Exits with the code of the first failure (0 when none). --bundle DIR writes a support bundle (the report, versions, environment, and with --command the --debug trace of one bk command), with no secret and no token in it."
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> -p production --json',
    '<%= config.bin %> <%= command.id %> --bundle ./bk-support --command "invoices list --limit 1"',
  ]
  static override flags = {
    business: businessFlag(),
    bundle: Flags.string({summary: 'Write a redacted support bundle to this folder.', helpValue: 'DIR'}),
    command: Flags.string({
      summary: 'With --bundle: a bk command to run once with --debug, its trace kept (e.g. "businesses list").',
      dependsOn: ['bundle'],
      helpValue: 'ARGS',
    }),
  }

  async run(): Promise<DoctorReport> {
    const [
      {runChecks},
      {checkTraceCommand, reported, reportText, splitCommand, writeBundle},
      {registerSecret},
      {privateFolder},
    ] = await Promise.all([
      import('../doctor/checks.js'),
      import('../doctor/report.js'),
      import('../api/redact.js'),
      import('../files/private-file.js'),
    ])
    // A bundle that cannot be written, or a command it must not trace, is refused before any check runs.
    const command = this.flags.command ? splitCommand(this.flags.command) : undefined
    if (command) checkTraceCommand(command)
    if (this.flags.bundle) await privateFolder('--bundle', this.flags.bundle)
    const checks = await runChecks({
      version: this.config.version,
      configDir: this.configDir,
      profileFlag: this.flags.profile,
      businessFlag: this.flags.business,
      userAgent: this.config.userAgent,
      secret: (value) => registerSecret(value),
    })
    const report: DoctorReport = {
      ok: !checks.some((c) => c.status === 'fail'),
      bk: this.config.version,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      checks: checks.map(reported),
    }
    if (!this.jsonEnabled()) process.stdout.write(reportText(report))
    if (this.flags.bundle) {
      const files = await writeBundle({
        dir: this.flags.bundle,
        report,
        command,
        bin: join(this.config.root, 'bin', 'run.js'),
      })
      this.note(
        `Support bundle: ${counted(files.length, 'file')} in ${this.flags.bundle} (no secret or token in them; read before sending).`,
      )
    }
    const failed = checks.find((c) => c.status === 'fail')
    if (failed) process.exitCode = failed.exitCode ?? ExitCode.unexpected
    return report
  }
}
