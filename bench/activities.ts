/** The activities of the engine floor and the peer: a stand-in model call and a no-op tool. */
export async function benchModel(step: number): Promise<{ step: number; text: string }> {
  return { step, text: `step ${step}` };
}

export async function benchTool(i: number): Promise<string> {
  return `ok ${i}`;
}
