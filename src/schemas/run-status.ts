/** A run's statuses as plain data, so that agentctl's `--help` can list them without loading zod. Sandbox-safe. */
export const RUN_STATUSES = ['running', 'suspended', 'completed', 'failed', 'cancelled'] as const;
