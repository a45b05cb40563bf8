// trailboss report: how long the agents waited on the person, from the history
// (docs/design.md §11.5). Reads the span's daily files, computes the Report (pure,
// lib/history/report.ts) and prints it as a table with charts, plain text or JSON.
import type { ReportArgs } from '../options/tables.js'
import { parseDuration } from '../duration.js'
import { EXIT_OK, EXIT_USAGE, TrailbossError } from '../errors.js'
import { readHistorySpan } from '../history/read.js'
import { computeReport } from '../history/report.js'
import type { Report } from '../history/types.js'
import { type Io, useColour } from '../io.js'
import { formatJson } from '../render/json-text.js'
import { formatReportText } from '../render/report-text.js'
import { renderReportHtml } from '../render/report-html.js'
import { writeReportHtml } from '../fs/report-html-file.js'
import { formatVisible } from '../text/visible-text.js'

/** The version of `report --json`'s document. */
export const REPORT_JSON_VERSION = 1

/** The time zone of the hours of the day: the process's own (TZ), as every local time shown. */
export const localTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone

/** The report of the last `sinceMs` up to `now`, read from the home's history. */
export const loadReport = (io: Pick<Io, 'env'>, opts: { sinceMs: number; now: number; by: Report['by'] }): Report => {
  const since = opts.now - opts.sinceMs
  const span = readHistorySpan(io.env, since, opts.now)
  const report = computeReport(span.entries, { since, until: opts.now, by: opts.by, timeZone: localTimeZone() })
  if (span.skipped > 0) report.skippedLines = span.skipped
  return report
}

export const runReport = async (args: ReportArgs, io: Io): Promise<number> => {
  const sinceMs = parseDuration(args.since)
  if (sinceMs <= 0) throw new TrailbossError(`--since ${args.since} is no span`, 'give a span such as 1d or 7d', EXIT_USAGE)
  const report = loadReport(io, { sinceMs, now: io.now(), by: args.by })
  if (args.html !== undefined) {
    const file = args.html
    try {
      writeReportHtml(file, renderReportHtml(report, { generatedAt: io.now() }))
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      throw new TrailbossError(
        `cannot write ${formatVisible(file)}: ${code ?? (err as Error).message}`,
        code === 'ENOENT' ? 'its folder must exist' : 'nothing was written',
      )
    }
    // The page quotes the agents' commands and questions: said every time, as the file's mode can be lost on a copy.
    io.stderr.write(`trailboss: wrote ${formatVisible(file)} (readable by you alone: it holds your agents' commands and questions)\n`)
    return EXIT_OK
  }
  if (args.json) {
    io.stdout.write(`${formatJson({ version: REPORT_JSON_VERSION, ...report }, 2)}\n`)
    return EXIT_OK
  }
  io.stdout.write(
    formatReportText(report, {
      columns: io.stdout.columns,
      charts: io.stdout.isTTY === true,
      colour: useColour(io),
      sinceText: args.since,
      skipped: report.skippedLines ?? 0,
    }),
  )
  return EXIT_OK
}
