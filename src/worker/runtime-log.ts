/** A worker's warnings, through Temporal's runtime logger: the worker's own log. */
import { Runtime } from '@temporalio/worker';

/** Logs a warning of the worker. */
export function warnWorker(message: string): void {
  Runtime.instance().logger.warn(message);
}
