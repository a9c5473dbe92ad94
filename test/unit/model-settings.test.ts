import { describe, expect, it } from 'vitest';
import { defineAgent } from '../../src/index.js';
import { mergedModelSettings } from '../../src/approvals/model-settings.js';
import { effectiveRunOptions } from '../../src/approvals/policy.js';
import type { AgentSpec } from '../../src/schemas/agent-spec.js';
import { ModelSettingsSchema, RunOptionsSchema } from '../../src/schemas/run-options.js';

const thinking = { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } };
const spec = {
  id: 'writer',
  name: 'Writer',
  instructions: '',
  tools: [],
  defaultOptions: { modelSettings: { temperature: 0.2, maxOutputTokens: 1000, providerOptions: thinking } },
} as unknown as AgentSpec;

describe("a run's model settings, bounded by its agent's", () => {
  it("are merged with the agent's key by key, provider options option by option", () => {
    const checked = effectiveRunOptions(
      { ...spec, overridable: ['providerOptions'] },
      { modelSettings: { maxOutputTokens: 500, providerOptions: { anthropic: { sendReasoning: false } } } },
    );
    expect(checked).toEqual({
      allowed: true,
      options: expect.objectContaining({
        modelSettings: {
          temperature: 0.2,
          maxOutputTokens: 500,
          providerOptions: { anthropic: { thinking: thinking.anthropic.thinking, sendReasoning: false } },
        },
      }),
    });
  });

  it("may not raise the agent's maxOutputTokens", () => {
    expect(effectiveRunOptions(spec, { modelSettings: { maxOutputTokens: 100_000 } })).toEqual({
      allowed: false,
      problems: ['modelSettings.maxOutputTokens: 100000 is more than agent "writer" allows (1000)'],
    });
  });

  it('may not set provider options the agent owns, unless the agent lets runs set them', () => {
    const bigger = { modelSettings: { providerOptions: { anthropic: { thinking: { budgetTokens: 60_000 } } } } };
    expect(effectiveRunOptions(spec, bigger)).toEqual({
      allowed: false,
      problems: [
        'modelSettings.providerOptions: agent "writer" owns its provider options; a run may not set them ' +
          '(the agent allows: none)',
      ],
    });
    // The agent's own, sent back as they are (a client that echoes what it read), is no change.
    expect(effectiveRunOptions(spec, { modelSettings: { providerOptions: thinking } })).toMatchObject({
      allowed: true,
    });
    expect(effectiveRunOptions({ ...spec, overridable: ['providerOptions'] }, bigger)).toMatchObject({
      allowed: true,
    });
  });

  it('may never set provider options that give the provider tools or reach beyond the run', () => {
    const open = { ...spec, overridable: ['providerOptions'] } as AgentSpec;
    const mcp = { anthropic: { mcpServers: [{ type: 'url', url: 'https://evil.example', name: 'x' }] } };
    expect(effectiveRunOptions(open, { modelSettings: { providerOptions: mcp } })).toEqual({
      allowed: false,
      problems: [
        'modelSettings.providerOptions.anthropic.mcpServers: a run may not set it, whatever its agent allows ' +
          '(it gives the provider tools no approval stops, or reaches state beyond the run); set it on the agent',
      ],
    });
    const other = { openai: { previousResponseId: 'resp_of_someone_else' } };
    expect(effectiveRunOptions(open, { modelSettings: { providerOptions: other } })).toMatchObject({
      allowed: false,
      problems: [expect.stringMatching(/^modelSettings.providerOptions.openai.previousResponseId: a run may not/)],
    });
    // The agent's own, echoed back, are no change.
    const owning = { ...open, defaultOptions: { modelSettings: { providerOptions: mcp } } } as unknown as AgentSpec;
    expect(effectiveRunOptions(owning, { modelSettings: { providerOptions: mcp } })).toMatchObject({ allowed: true });
  });

  it('are merged, not refused, in a run continued as new: its first history took them', () => {
    const continued = effectiveRunOptions(spec, { modelSettings: { maxOutputTokens: 100_000 } }, { continued: true });
    expect(continued).toMatchObject({ allowed: true, options: { modelSettings: { maxOutputTokens: 100_000 } } });
  });

  it('are not checked or merged in a run from before the bounds (the patch), which replayed them as sent', () => {
    const old = effectiveRunOptions(
      spec,
      { modelSettings: { maxOutputTokens: 100_000 } },
      { modelSettingsBounds: () => false },
    );
    expect(old).toEqual({
      allowed: true,
      options: expect.objectContaining({ modelSettings: { maxOutputTokens: 100_000 } }),
    });
  });

  it('keep a provider named "__proto__" as a key like any other', () => {
    const merged = mergedModelSettings(
      { providerOptions: JSON.parse('{"__proto__": {"a": 1}}') },
      { providerOptions: JSON.parse('{"__proto__": {"b": 2}}') },
    );
    expect(Object.getPrototypeOf(merged!.providerOptions)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(merged!.providerOptions, '__proto__')?.value).toEqual({ a: 1, b: 2 });
  });
});

describe('provider options as data', () => {
  it('are JSON by provider, at most 16 KiB, checked before they are read', () => {
    expect(ModelSettingsSchema.safeParse({ providerOptions: { openai: { reasoningEffort: 'low' } } }).success).toBe(
      true,
    );
    const huge = { openai: { user: 'x'.repeat(17 * 1024) } };
    expect(ModelSettingsSchema.safeParse({ providerOptions: huge }).success).toBe(false);
    expect(ModelSettingsSchema.safeParse({ providerOptions: { openai: 'low' } }).success).toBe(false);
    expect(ModelSettingsSchema.safeParse({ providerOptions: { openai: { f: () => 1 } } }).success).toBe(false);
    expect(RunOptionsSchema.safeParse({ modelSettings: { providerOption: {} } }).success).toBe(false);
    for (const raw of ['{"__proto__": {"a": 1}}', '{"openai": {"__proto__": {"a": 1}}}']) {
      const parsed = ModelSettingsSchema.safeParse({ providerOptions: JSON.parse(raw) });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe('a provider or option may not be named "__proto__"');
    }
  });

  it('on an agent, and runs may be let set them', () => {
    const agent = defineAgent({
      id: 'thinker',
      name: 'Thinker',
      model: 'anthropic/claude-sonnet-4-5',
      defaultOptions: { modelSettings: { providerOptions: thinking } },
      overridable: ['providerOptions'],
    });
    expect(agent.overridable).toEqual(['providerOptions']);
    expect(() =>
      defineAgent({ id: 'x', name: 'x', model: 'scripted', overridable: ['temperature' as 'model'] }),
    ).toThrow('defineAgent("x"): overridable takes "model", "instructions", "providerOptions", not "temperature"');
  });
});
