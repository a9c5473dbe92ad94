import { z } from 'zod';
import { createTool, defineAgent, type Script } from '../src/index.js';

const CONDITIONS = ['sunny', 'cloudy', 'light rain', 'windy', 'clear'] as const;

/** A made-up but stable forecast, so the example runs offline and always prints the same thing. */
function forecastFor(city: string): { temperatureC: number; conditions: (typeof CONDITIONS)[number] } {
  let h = 0;
  for (const ch of city.toLowerCase()) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return { temperatureC: 5 + (h % 25), conditions: CONDITIONS[h % CONDITIONS.length]! };
}

export const weatherTool = createTool({
  id: 'get-weather',
  description: 'Current weather for a city',
  inputSchema: z.object({ city: z.string().min(1).describe('City name, e.g. "Paris"') }),
  outputSchema: z.object({ city: z.string(), temperatureC: z.number(), conditions: z.string() }),
  execute: async ({ city }, { logger }) => {
    logger.info('looking up the weather', { city });
    return { city, ...forecastFor(city) };
  },
});

export const weatherAgent = defineAgent({
  id: 'weather-agent',
  name: 'Weather agent',
  description: 'Answers questions about the weather',
  instructions: 'You answer questions about the weather. Use the weather tool, then answer in one sentence.',
  model: 'scripted',
  // The demo runs it on the scripted model, or with DEMO_MODEL on another one.
  overridable: ['model'],
  tools: { weather: weatherTool },
});

/** What the scripted model answers in the demo: a weather tool call, then the final text. */
export const weatherDemoScript: Script = [
  { toolCalls: [{ toolName: 'weather', args: { city: 'Paris' } }] },
  { text: `It is ${forecastFor('Paris').conditions} in Paris, ${forecastFor('Paris').temperatureC} °C.` },
];
