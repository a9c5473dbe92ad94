// Where this project's imports of the package resolve (the test asserts: its own node_modules).
console.log(
  JSON.stringify({
    main: import.meta.resolve('durable-agents'),
    workflow: import.meta.resolve('durable-agents/workflow'),
    tracing: import.meta.resolve('durable-agents/tracing'),
  }),
);
