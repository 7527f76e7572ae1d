import { describeExit, type ExitStatus } from './child-process.ts';

export class ServiceExitedError extends Error {
  readonly service: string;
  readonly status: ExitStatus;

  constructor(service: string, status: ExitStatus, output: string) {
    super(`${service} stopped while starting (${describeExit(status)})${output ? `:\n${output}` : ''}`);
    this.name = 'ServiceExitedError';
    this.service = service;
    this.status = status;
  }
}

export class StartupTimeoutError extends Error {
  constructor(what: string, timeoutMs: number) {
    super(`${what} did not become ready within ${Math.round(timeoutMs / 1000)} s`);
    this.name = 'StartupTimeoutError';
  }
}

export class TemporalServerUnavailableError extends Error {
  constructor(cause: unknown) {
    super(
      'No Temporal CLI was found (TEMPORAL_CLI_PATH, `temporal` on PATH, or the cache), Go was not available to ' +
        'build one, and downloading the dev server failed. Install the Temporal CLI ' +
        '(https://docs.temporal.io/cli), point TEMPORAL_CLI_PATH at it, or set TEMPORAL_ADDRESS to a running server.',
      { cause },
    );
    this.name = 'TemporalServerUnavailableError';
  }
}
