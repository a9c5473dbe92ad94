/** How an `AgentClient` is made and how it acts. */
import type { ExternalStorage, PayloadCodec } from '@temporalio/common';
import type { ConnectionSettings } from '../connection/config.js';
import type { Tracing } from '../tracing/tracing.js';
import type { PrincipalInput } from './identity.js';
import type { SigningKey } from './decisions/signing.js';

/** How a client acts, whichever way it was made. */
export interface ClientBehaviour {
  /** Where warnings go (default `console.warn`). */
  warn?: (message: string) => void;
  /**
   * Who this client starts runs and decides in the name of (an operator's name, a service's), unless a
   * call says otherwise. The trail records it with the Temporal client identity it came through.
   */
  principal?: PrincipalInput;
  /**
   * The approver's key to sign decisions with, for workers that take signed decisions only
   * (default: `DECISION_SIGNING_KEY` and `DECISION_SIGNING_KEY_ID` with `connect()`).
   */
  signingKey?: SigningKey;
}

/** The options of `AgentClient.connect`. */
export type AgentClientOptions = ConnectionSettings &
  ClientBehaviour & {
    /**
     * The payload codec, the worker's (see `createPayloadCodec`); else the one configured in the
     * environment (`DURABLE_AGENTS_CODEC_KEYS`, see `loadPayloadCodec`).
     */
    codec?: PayloadCodec;
    /**
     * The workers' payload store (Temporal's external storage, see `createExternalStorage`): a run's
     * result, history, stream or memo may hold references to it, which only a client with the same store
     * reads; what this client sends over the threshold goes there too. Else the one
     * `DURABLE_AGENTS_PAYLOAD_STORE` configures (see `loadExternalStorage`); `false`: none.
     */
    externalStorage?: ExternalStorage | false;
    /**
     * OpenTelemetry tracing (see `createTracing`): each run this client starts is a trace, which the
     * workflow, its activities and model calls continue; decisions this client sends are spans too.
     * Default: on when the environment names an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`, see
     * docs/guides/cluster.md), then flushed by `close()`; `false` turns it off whatever the environment says.
     */
    tracing?: Tracing | false;
  };
