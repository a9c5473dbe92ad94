// The signed-in token, shared with the inbox: one sign-in in a tab serves both pages. It is kept in
// this tab only (sessionStorage) and sent as Authorization, never in a URL.
export const TOKEN_KEY = 'durable-agents.inbox.token';
