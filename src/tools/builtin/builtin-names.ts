/**
 * Built-in tools keep their own id as their name: as on Mastra's Tools page, the model, the stream and
 * `toolName` see `ask_user` whether an agent lists the tool as `{ askUserTool }` or `{ ask_user: ... }`.
 */
const builtins = new WeakSet<object>();

/** Marks a tool as built in: agents offer it under its id, whatever its key. */
export function builtinTool<T extends object>(tool: T): T {
  builtins.add(tool);
  return tool;
}

/** The name an agent offers a tool under: a built-in's id, else the key it is listed by. */
export function toolNameOf(key: string, tool: { id: string }): string {
  return builtins.has(tool) ? tool.id : key;
}
