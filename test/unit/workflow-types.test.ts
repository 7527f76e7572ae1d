import { describe, expect, it } from 'vitest';
import type * as registered from '../../workflows/index.ts';
import { bulkEnrichmentWorkflowType, singleEnrichmentWorkflowType } from '../../src/enrichment/messages.ts';
import { findEmailWorkflowType } from '../../src/finder/messages.ts';
import { scrapeWorkflowType } from '../../src/scrape/messages.ts';
import { singleCheckWorkflowType } from '../../src/single-check/messages.ts';
import { maintenanceWorkflowType } from '../../src/temporal/maintenance.ts';
import { deliveryWorkflowType } from '../../src/temporal/webhook-messages.ts';
import type { WorkflowType } from '../../src/temporal/workflow-type.ts';
import { verificationWorkflowType } from '../../src/verification/messages.ts';

type Registered = typeof registered;

/**
 * A declaration is sound when the worker registers a workflow under its name (an export of workflows/index.ts)
 * and that workflow's signature is the declared one, both ways: a start checked against the declaration then
 * fits the code that runs. Anything else is `never`, so the list below stops compiling.
 */
type Sound<D> =
  D extends WorkflowType<infer W, infer N>
    ? N extends keyof Registered
      ? [Registered[N], W] extends [W, Registered[N]]
        ? D
        : never
      : never
    : never;
const sound = <D>(declaration: Sound<D> & D) => declaration;

const DECLARED = [
  sound(verificationWorkflowType),
  sound(scrapeWorkflowType),
  sound(singleEnrichmentWorkflowType),
  sound(bulkEnrichmentWorkflowType),
  sound(findEmailWorkflowType),
  sound(singleCheckWorkflowType),
  sound(deliveryWorkflowType),
  sound(maintenanceWorkflowType),
];

describe('workflow declarations', () => {
  it('name each workflow the worker registers once (their signatures are held to the code by the compiler)', () => {
    const names = DECLARED.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.sort()).toEqual(
      ['bulkEnrichmentWorkflow', 'findEmailWorkflow', 'maintenanceWorkflow', 'scrapeWorkflow', 'singleEnrichmentWorkflow', 'singleVerifyWorkflow', 'verificationWorkflow', 'webhookDeliveryWorkflow'],
    );
  });
});
