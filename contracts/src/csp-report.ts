import { z } from 'zod/mini'
import { plainText } from './text.ts'

/** Where browsers send the host page's CSP violation reports (`report-uri`, `report-to`). */
export const CSP_REPORT_PATH = '/api/csp-reports'
/** The `report-to` group name, defined by the `Reporting-Endpoints` header. */
export const CSP_REPORT_GROUP = 'csp-endpoint'
/** Reports one `application/reports+json` body may carry (browsers batch a few). */
export const CSP_REPORTS_PER_BODY = 20

// Fields browsers fill in: URLs, directive names, a policy, a sample of the blocked code.
const reportText = z.string().check(z.maxLength(4096), plainText())
const reportNumber = z.int().check(z.nonnegative(), z.lte(Number.MAX_SAFE_INTEGER))

/** One violation, as the BFF logs it, whichever format the browser sent. */
export interface CspViolation {
  documentUrl: string | undefined
  blockedUrl: string | undefined
  effectiveDirective: string | undefined
  disposition: string | undefined
  sourceFile: string | undefined
  line: number | undefined
  column: number | undefined
  sample: string | undefined
}

/** `application/csp-report`: the `report-uri` format (`{ "csp-report": { … } }`), CSP level 2. */
export const legacyCspReportSchema = z.pipe(
  z.object({
    'csp-report': z.object({
      'document-uri': z.optional(reportText),
      'blocked-uri': z.optional(reportText),
      'violated-directive': z.optional(reportText),
      'effective-directive': z.optional(reportText),
      'original-policy': z.optional(reportText),
      disposition: z.optional(reportText),
      'source-file': z.optional(reportText),
      'line-number': z.optional(reportNumber),
      'column-number': z.optional(reportNumber),
      'script-sample': z.optional(reportText),
    }),
  }),
  z.transform(({ 'csp-report': report }): CspViolation[] => [
    {
      documentUrl: report['document-uri'],
      blockedUrl: report['blocked-uri'],
      effectiveDirective: report['effective-directive'] ?? report['violated-directive'],
      disposition: report.disposition,
      sourceFile: report['source-file'],
      line: report['line-number'],
      column: report['column-number'],
      sample: report['script-sample'],
    },
  ]),
)

const cspViolationBodySchema = z.object({
  documentURL: z.optional(reportText),
  blockedURL: z.optional(reportText),
  effectiveDirective: z.optional(reportText),
  originalPolicy: z.optional(reportText),
  disposition: z.optional(reportText),
  sourceFile: z.optional(reportText),
  lineNumber: z.optional(z.nullable(reportNumber)),
  columnNumber: z.optional(z.nullable(reportNumber)),
  sample: z.optional(reportText),
})

/**
 * `application/reports+json`: the Reporting API's batch (`report-to`). Reports of other types are
 * left out; only `csp-violation` bodies are read.
 */
export const reportingApiBatchSchema = z.pipe(
  z
    .array(
      z.object({
        type: reportText,
        url: z.optional(reportText),
        body: z.unknown(),
      }),
    )
    .check(z.minLength(1), z.maxLength(CSP_REPORTS_PER_BODY)),
  z.transform((reports, context): CspViolation[] =>
    reports.flatMap((report, index) => {
      if (report.type !== 'csp-violation') return []
      const parsed = cspViolationBodySchema.safeParse(report.body)
      if (!parsed.success) {
        for (const issue of parsed.error.issues)
          context.issues.push({
            code: 'custom',
            message: issue.message,
            path: [index, 'body', ...issue.path],
            input: report.body,
          })
        return []
      }
      const body = parsed.data
      return [
        {
          documentUrl: body.documentURL,
          blockedUrl: body.blockedURL,
          effectiveDirective: body.effectiveDirective,
          disposition: body.disposition,
          sourceFile: body.sourceFile,
          line: body.lineNumber ?? undefined,
          column: body.columnNumber ?? undefined,
          sample: body.sample,
        },
      ]
    }),
  ),
)
