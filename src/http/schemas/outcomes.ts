import { z } from '@hono/zod-openapi';
import { checkOutcome, type OutcomeRecord } from '../../domain/outcome-input.ts';
import { BOUNCE_TYPES, MAX_OUTCOMES_PER_REQUEST, SEND_OUTCOMES } from '../../domain/outcomes.ts';
import { ApiError } from '../../errors.ts';
import { CATCH_ALL_MAX_SCORE } from '../../domain/catch-all.ts';

const OutcomeInput = z
  .object({
    email: z.string().max(320).openapi({ example: 'jane.doe@example.com', description: 'Trimmed and lower-cased, as verification results hold it' }),
    outcome: z.enum(SEND_OUTCOMES),
    bounceType: z.enum(BOUNCE_TYPES).optional().openapi({ description: 'For a bounce only; soft bounces do not count in the calibration' }),
    at: z.iso.datetime({ offset: true }).optional().openapi({ description: 'When it happened; now when not given. An older report never replaces a newer one.' }),
  })
  .strict();

export const OutcomesInputSchema = z
  .object({ outcomes: z.array(OutcomeInput).min(1).max(MAX_OUTCOMES_PER_REQUEST) })
  .strict()
  .openapi('SendOutcomesInput');

/**
 * Each outcome checked by the same rule as a CSV row (src/domain/outcome-input.ts), in stored form; any bad
 * one makes the request a 400 naming each bad index and what is wrong with it.
 */
export function checkedOutcomes(body: z.infer<typeof OutcomesInputSchema>): OutcomeRecord[] {
  const now = new Date();
  const records: OutcomeRecord[] = [];
  const details: Array<{ path: string; message: string }> = [];
  body.outcomes.forEach((fields, index) => {
    const checked = checkOutcome(fields, now);
    if ('reason' in checked) details.push({ path: `json.outcomes.${index}`, message: checked.reason });
    else records.push(checked.record);
  });
  if (details.length > 0) throw new ApiError('validation_error', 'Invalid request json', details);
  return records;
}

export const OutcomesAcceptedSchema = z.object({ accepted: z.number().int() }).openapi('SendOutcomesAccepted');

export const OutcomeImportResultSchema = z
  .object({
    accepted: z.number().int(),
    rejected: z
      .array(z.object({ row: z.number().int().openapi({ description: '1-based data row (the header row not counted)' }), reason: z.string() }))
      .openapi({ description: 'Rows not stored, each with why in plain words' }),
  })
  .openapi('SendOutcomesImportResult');

export const CalibrationSchema = z
  .object({
    bands: z
      .array(
        z.object({
          score: z.number().int().min(0).max(CATCH_ALL_MAX_SCORE),
          results: z.number().int().openapi({ description: "The organization's latest Catch-All results per address with this score" }),
          withOutcome: z.number().int().openapi({ description: 'Those with a delivered or hard-bounce outcome reported at or after the result' }),
          bounced: z.number().int().openapi({ description: 'The hard bounces among those' }),
          bounceRate: z.number().nullable().openapi({ description: 'bounced / withOutcome as a fraction; null when withOutcome is 0' }),
        }),
      )
      .openapi({ description: 'Always 11 bands, score 0 to 10' }),
  })
  .openapi('CatchAllCalibration');
