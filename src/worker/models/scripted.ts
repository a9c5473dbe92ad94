import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { ScriptExhaustedError } from '../../errors.js';
import type { Script, ScriptStep } from '../../schemas/script.js';

/**
 * An offline, deterministic AI SDK language model (spec v4) that plays a script: model call N
 * answers with step N. The step is found from the prompt itself (the number of assistant messages
 * in it), so the model holds no state: a retried or replayed call gets the same answer on any worker.
 */
export class ScriptedLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider = 'scripted';
  readonly modelId = 'scripted';
  /** It reads no file a prompt links to, so it takes every URL as it is: the AI SDK downloads nothing for it. */
  readonly supportedUrls = { '*/*': [/^https?:\/\//] };

  constructor(
    private readonly script: Script,
    /** Assistant messages of earlier runs (from the run's thread) that the prompt starts with. */
    private readonly priorSteps = 0,
  ) {}

  /** The step index a prompt asks for. */
  static stepIndex(prompt: LanguageModelV4Prompt): number {
    return prompt.filter((m) => m.role === 'assistant').length;
  }

  private step(options: LanguageModelV4CallOptions): { index: number; step: ScriptStep } {
    const index = ScriptedLanguageModel.stepIndex(options.prompt) - this.priorSteps;
    const step = this.script[index];
    if (!step) throw new ScriptExhaustedError(this.script.length, index + 1);
    return { index, step };
  }

  private content(index: number, step: ScriptStep): LanguageModelV4Content[] {
    const content: LanguageModelV4Content[] = [];
    if (step.text !== undefined) content.push({ type: 'text', text: step.text });
    (step.toolCalls ?? []).forEach((call, j) => {
      content.push({
        type: 'tool-call',
        toolCallId: call.toolCallId ?? `call-${index}-${j}`,
        toolName: call.toolName,
        input: call.rawArgs ?? JSON.stringify(call.args ?? {}),
      });
    });
    return content;
  }

  private usage(options: LanguageModelV4CallOptions, content: LanguageModelV4Content[]): LanguageModelV4Usage {
    // A rough, deterministic count (4 characters a token) so that usage adds up in results.
    const inputTokens = Math.ceil(JSON.stringify(options.prompt).length / 4);
    const outputTokens = Math.ceil(JSON.stringify(content).length / 4);
    return {
      inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
    };
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const { index, step } = this.step(options);
    const content = this.content(index, step);
    const hasCalls = content.some((c) => c.type === 'tool-call');
    return {
      content,
      finishReason: { unified: hasCalls ? 'tool-calls' : 'stop', raw: hasCalls ? 'tool_calls' : 'stop' },
      usage: this.usage(options, content),
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const { content, finishReason, usage } = await this.doGenerate(options);
    const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
    content.forEach((c, i) => {
      if (c.type === 'text') {
        const id = `text-${i}`;
        parts.push({ type: 'text-start', id });
        for (const word of c.text.match(/\S+\s*|\s+/g) ?? []) parts.push({ type: 'text-delta', id, delta: word });
        parts.push({ type: 'text-end', id });
      } else if (c.type === 'tool-call') {
        parts.push({ type: 'tool-input-start', id: c.toolCallId, toolName: c.toolName });
        parts.push({ type: 'tool-input-delta', id: c.toolCallId, delta: c.input });
        parts.push({ type: 'tool-input-end', id: c.toolCallId });
        parts.push(c);
      }
    });
    parts.push({ type: 'finish', finishReason, usage });
    return {
      stream: new ReadableStream({
        start(controller) {
          for (const p of parts) controller.enqueue(p);
          controller.close();
        },
      }),
    };
  }
}
