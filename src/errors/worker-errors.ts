/**
 * What a worker throws: an agent or model it does not have, a script run out, a provider tool the
 * model lacks, an MCP server it cannot reach, a chunk a tool may not write. Sandbox-safe: no Node APIs.
 */

/** An agent id that no agent registered on the worker has. */
export class UnknownAgentError extends Error {
  override readonly name = 'UnknownAgentError';
  constructor(
    readonly agentId: string,
    known: string[],
  ) {
    super(
      `Unknown agent "${agentId}": the worker has ` +
        `${known.length ? known.map((k) => `"${k}"`).join(', ') : 'no agents'}. ` +
        'Register it with createWorker({ agents }).',
    );
  }
}

/** A model name that the worker's model registry cannot resolve. */
export class UnknownModelError extends Error {
  override readonly name = 'UnknownModelError';
  constructor(
    readonly model: string,
    reason: string,
  ) {
    super(`Unknown model "${model}": ${reason}`);
  }
}

/** The scripted model was asked for more steps than its script has. */
export class ScriptExhaustedError extends Error {
  override readonly name = 'ScriptExhaustedError';
  constructor(
    readonly stepsInScript: number,
    readonly requestedStep: number,
  ) {
    super(
      `The scripted model's script has ${stepsInScript} step(s), but model call ${requestedStep} was requested. ` +
        'Add a step to the script (the last step usually gives the final text).',
    );
  }
}

/**
 * An agent offers `webSearchTool`, and the run's model has no native web search. Thrown by the model
 * activity before it sends anything; the run fails with it (`RunFailedError.failureType`).
 */
export class WebSearchUnavailableError extends Error {
  override readonly name = 'WebSearchUnavailableError';
  constructor(
    readonly toolName: string,
    readonly model: string | undefined,
    /** The AI SDK provider id of the run's model, e.g. `openai.chat`. */
    readonly provider: string,
  ) {
    const which = model
      ? `model "${model}" (AI SDK provider "${provider}")`
      : `model instance of provider "${provider}"`;
    super(
      `Tool "${toolName}" is webSearchTool, the model provider's own web search, but the run's ${which} ` +
        'has no native web search here. Use a model that has one: "openai-responses/<model>" ' +
        '(OpenAI\'s Responses API; "openai/<model>" is Chat Completions, which has none), "anthropic/<model>" ' +
        'or "google/<model>", or leave the tool out of the run (activeTools).',
    );
  }
}

/**
 * An agent's MCP server could not be reached, or broke off: it names the server, the agent and the
 * transport's reason. Thrown on the worker (listing the server's tools, or calling one); Temporal
 * retries the activity, and the run fails with it (listing) or the model gets it as a tool error (a call).
 */
export class McpServerUnavailableError extends Error {
  override readonly name = 'McpServerUnavailableError';
  constructor(
    readonly agentId: string,
    readonly server: string,
    readonly where: string,
    reason: string,
    /** It did not answer in time: trying again at once would wait as long. */
    readonly timedOut = false,
    /** It broke off during a call: the call may have reached it (and run), unlike one that never connected. */
    readonly reached = false,
  ) {
    super(
      `MCP server "${server}" of agent "${agentId}" (${where}) is unavailable: ${reason}` +
        `${reached ? ' (during the call, which may have reached it)' : ''}. ` +
        'Check that it runs and that mcpServers.' +
        `${server} in defineAgent points at it.`,
    );
  }
}

/**
 * A chunk a tool wrote with `context.writer.write` was refused: `reason` says which rule it broke
 * (`invalid`: not a `data-<name>` chunk of JSON data, or a reserved name; `too-large`: its data is over
 * the limit; `too-many`: this execution has written all it may; `unavailable`: the call was scheduled by
 * a version of the runner that gave tools no writer). Thrown to the tool, at the call of `write`; the run
 * goes on, and a tool that does not catch it fails as with any error it throws.
 */
export class StreamWriteError extends Error {
  override readonly name = 'StreamWriteError';
  constructor(
    readonly reason: 'invalid' | 'too-large' | 'too-many' | 'unavailable',
    readonly toolName: string,
    problem: string,
  ) {
    super(`context.writer.write of tool "${toolName}" refused a chunk: ${problem}`);
  }
}

/** A namespace without the search attributes runs write: a worker refuses to start on it. */
export class SearchAttributesMissingError extends Error {
  override readonly name = 'SearchAttributesMissingError';
  constructor(
    readonly namespace: string,
    /** Each missing (or mistyped) attribute, with the type runs need. */
    readonly missing: ReadonlyArray<{ name: string; type: string }>,
    /** Why they were not created, when the caller asked to create them. */
    notCreated?: string,
  ) {
    const listed = missing.map(({ name, type }) => `${name} (${type})`).join(', ');
    const create = missing.map(({ name, type }) => `--name ${name} --type ${type}`).join(' ');
    super(
      `namespace "${namespace}" lacks the search attributes agent runs need: ${listed}` +
        (notCreated ? `; they were not created: ${notCreated}` : '') +
        `. Create them with: temporal operator search-attribute create --namespace ${namespace} ${create}` +
        ' (on Temporal Cloud: tcld namespace search-attributes add, or the Cloud UI)',
    );
  }
}
