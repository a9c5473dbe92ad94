// Where this project's imports of the package resolve (the test asserts: its own node_modules).
const entries = ['', '/worker', '/client', '/server', '/codec', '/testing', '/workflow', '/tracing'];
console.log(
  JSON.stringify(Object.fromEntries(entries.map((e) => [e || '.', import.meta.resolve(`durable-agents${e}`)]))),
);
