import type { Workflow } from '@temporalio/common';

/**
 * A workflow as the code that starts it knows it: the type name the worker registers it under (its export name in
 * workflows/index.ts) and, for the compiler, its signature. Each kind declares its own beside its messages, so a
 * start is type-checked without importing workflows/; test/unit/workflow-types.test.ts holds every declaration to
 * the workflow exported under its name.
 */
export interface WorkflowType<W extends Workflow = Workflow, N extends string = string> {
  readonly name: N;
  /** Never set: it carries the signature to the start's `args`. */
  readonly signature?: W;
}

/** The signature a declaration stands for. */
export type WorkflowOf<T> = T extends WorkflowType<infer W> ? W : never;

/** `workflowType<(input: In) => Promise<Out>>()('nameWorkflow')`: the signature given, the name kept as a literal type. */
export const workflowType =
  <W extends Workflow>() =>
  <N extends string>(name: N): WorkflowType<W, N> => ({ name });
