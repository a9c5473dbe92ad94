import { generateText, jsonSchema, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { ScriptExhaustedError, type Script } from '../../src/index.js';
import { ScriptedLanguageModel } from '../../src/worker/index.js';

const script: Script = [
  { text: 'Let me check.', toolCalls: [{ toolName: 'weather', args: { city: 'Paris' } }] },
  { text: 'It is sunny.' },
];
const tools = {
  weather: tool({
    description: 'weather',
    inputSchema: jsonSchema({ type: 'object', properties: { city: { type: 'string' } } }),
  }),
};

describe('the scripted model, through the AI SDK', () => {
  it('answers the first call with step 1: text and a tool call', async () => {
    const result = await generateText({ model: new ScriptedLanguageModel(script), prompt: 'weather?', tools });
    expect(result.text).toBe('Let me check.');
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, input: c.input }))).toEqual([
      { id: 'call-0-0', name: 'weather', input: { city: 'Paris' } },
    ]);
  });

  it('picks the step from the number of assistant messages, so it holds no state', async () => {
    const model = new ScriptedLanguageModel(script);
    const result = await generateText({
      model,
      tools,
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'call-0-0', toolName: 'weather', input: { city: 'Paris' } }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'call-0-0',
              toolName: 'weather',
              output: { type: 'text', value: 'sunny' },
            },
          ],
        },
      ],
    });
    expect(result.text).toBe('It is sunny.');
    expect(result.finishReason).toBe('stop');
  });

  it('streams the same step as text deltas and a tool call', async () => {
    const result = streamText({ model: new ScriptedLanguageModel(script), prompt: 'weather?', tools });
    const types: string[] = [];
    for await (const part of result.fullStream) types.push(part.type);
    expect(types).toContain('text-delta');
    expect(types).toContain('tool-input-start');
    expect(types).toContain('tool-call');
    expect(await result.text).toBe('Let me check.');
  });

  it('sends raw argument text as is, to script malformed calls', async () => {
    const model = new ScriptedLanguageModel([{ toolCalls: [{ toolName: 'weather', rawArgs: '{"city":' }] }]);
    const result = await model.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] });
    expect(result.content).toEqual([
      { type: 'tool-call', toolCallId: 'call-0-0', toolName: 'weather', input: '{"city":' },
    ]);
  });

  it('fails with a clear error when the script runs out', async () => {
    const model = new ScriptedLanguageModel([{ text: 'only' }]);
    const err = await model
      .doGenerate({
        prompt: [
          { role: 'user', content: [{ type: 'text', text: 'x' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'only' }] },
          { role: 'user', content: [{ type: 'text', text: 'more' }] },
        ],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScriptExhaustedError);
    expect((err as Error).message).toBe(
      "The scripted model's script has 1 step(s), but model call 2 was requested. Add a step to the script (the last step usually gives the final text).",
    );
  });
});
