import { z } from 'zod'
import { plainText } from './text.ts'

/** Where browsers send the host page's CSP violation reports (`report-uri`, `report-to`). */
export const CSP_REPORT_PATH = '/api/csp-reports'
/** The `report-to` group name, defined by the `Reporting-Endpoints` header. */
export const CSP_REPORT_GROUP = 'csp-endpoint'
/** Reports one `application/reports+json` body may carry (browsers batch a few). */
export const CSP_REPORTS_PER_BODY = 20

// Fields browsers fill in: URLs, directive names, a policy, a sample of the blocked code.
const reportText = z.string().max(4096).check(plainText())
const reportNumber = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)

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
export const legacyCspReportSchema = z
  .object({
    'csp-report': z.object({
      'document-uri': reportText.optional(),
      'blocked-uri': reportText.optional(),
      'violated-directive': reportText.optional(),
      'effective-directive': reportText.optional(),
      'original-policy': reportText.optional(),
      disposition: reportText.optional(),
      'source-file': reportText.optional(),
      'line-number': reportNumber.optional(),
      'column-number': reportNumber.optional(),
      'script-sample': reportText.optional(),
    }),
  })
  .transform(({ 'csp-report': report }): CspViolation[] => [
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
  ])

const cspViolationBodySchema = z.object({
  documentURL: reportText.optional(),
  blockedURL: reportText.optional(),
  effectiveDirective: reportText.optional(),
  originalPolicy: reportText.optional(),
  disposition: reportText.optional(),
  sourceFile: reportText.optional(),
  lineNumber: reportNumber.nullable().optional(),
  columnNumber: reportNumber.nullable().optional(),
  sample: reportText.optional(),
})

/**
 * `application/reports+json`: the Reporting API's batch (`report-to`). Reports of other types are
 * left out; only `csp-violation` bodies are read.
 */
export const reportingApiBatchSchema = z
  .array(
    z.object({
      type: reportText,
      url: reportText.optional(),
      body: z.unknown(),
    }),
  )
  .min(1)
  .max(CSP_REPORTS_PER_BODY)
  .transform((reports, context): CspViolation[] =>
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
  )
