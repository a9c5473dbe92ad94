// The approval inbox's script: one ES module, no framework, no build step. Everything a run carries
// (arguments, payloads, reasons, ids) is attacker-controlled: it reaches the page only as text nodes
// (textContent, createTextNode, option values), never as HTML.
import { setUpBatch } from './batch.js';

const TOKEN_KEY = 'durable-agents.inbox.token';
const POLL_MS = 1500;
// The runs being retried are found by describing every running run: read them less often.
const RETRYING_POLL_MS = 15_000;
const CONVERSATION_MESSAGES = 10;
// The list is read a page of waiting runs at a time (the newest first); "Show more" reads one more page.
const PAGE_RUNS = 100;
const ROUTES = { approve: 'approve', decline: 'decline', resume: 'resume', result: 'tool-result', resolve: 'resolve' };

const $ = (id) => document.getElementById(id);
const link = new URLSearchParams(location.search);
const linked = { run: link.get('run'), call: link.get('call'), shown: false, missing: false };

/** Entries on the page by run, call and fingerprint: an entry is built once, so a form being filled stays. */
const entries = new Map();
/** Runs decided from this page, shown with their status and trail until they close. */
const decided = new Map();
let timer;

/** An element with text children (strings become text nodes) and properties such as className. */
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props);
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

/**
 * A form control, known by its field through data-field and never by `name` (nor `id`): a form exposes
 * its named controls as its own properties, over its methods, so a resume field called `submit`,
 * `elements` or `addEventListener` would replace them. Values are read from the controls kept when the
 * form was built, never looked up on the form.
 */
function control(tag, props, field, ...children) {
  const node = el(tag, props, ...children);
  node.dataset.field = field;
  return node;
}

const json = (value) => JSON.stringify(value, null, 2) ?? 'undefined';

function duration(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

async function api(path, init = {}) {
  const headers = { authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) ?? ''}` };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(path, { ...init, headers, cache: 'no-store' });
}

async function errorOf(res) {
  try {
    const body = await res.json();
    return `${body.error.type}: ${body.error.message}`;
  } catch {
    return `the server answered ${res.status}`;
  }
}

// --- signing in ---------------------------------------------------------------------------------

function showSignIn(message = '') {
  generation += 1;
  clearTimeout(timer);
  pages = 1;
  calls = [];
  more = false;
  sessionStorage.removeItem(TOKEN_KEY);
  for (const entry of entries.values()) entry.node.remove();
  entries.clear();
  $('inbox').hidden = true;
  $('who').hidden = true;
  $('sign-out').hidden = true;
  $('sign-in').hidden = false;
  $('sign-in-error').textContent = message;
}

function showInbox() {
  $('sign-in').hidden = true;
  $('inbox').hidden = false;
  $('sign-out').hidden = false;
  restartPolling();
}

$('sign-in').addEventListener('submit', (event) => {
  event.preventDefault();
  const token = $('token').value.trim();
  $('token').value = '';
  if (!token) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  showInbox();
});
$('sign-out').addEventListener('click', () => showSignIn());
$('show-more').addEventListener('click', () => {
  pages += 1;
  restartPolling();
});
// The filters narrow what the server lists, from its first page.
for (const id of ['filter-agent', 'filter-thread', 'filter-resource']) {
  $(id).addEventListener('change', () => {
    pages = 1;
    render();
    restartPolling();
  });
}

// --- polling ------------------------------------------------------------------------------------

let calls = [];
/** How many pages of waiting runs the list shows, and whether more runs wait after them. */
let pages = 1;
let more = false;
let retryingReadAt = 0;

/** Which round of polling is current: a read begun in an earlier round (before a sign-in, "Show more" or a
 * filter) is dropped. */
let generation = 0;

function restartPolling() {
  generation += 1;
  clearTimeout(timer);
  void poll(generation);
}

async function poll(round) {
  try {
    await refresh(round);
  } catch (err) {
    if (round === generation) $('status').textContent = `cannot reach the server (${err.message}); trying again`;
  }
  if (round === generation && sessionStorage.getItem(TOKEN_KEY)) timer = setTimeout(() => poll(round), POLL_MS);
}

/** The first `pages` pages of waiting runs' calls, each page read with the token of the one before. */
async function readPages() {
  const found = [];
  let body;
  let token;
  for (let page = 0; page < pages; page++) {
    const query = new URLSearchParams({ ...serverFilters(), pageSize: String(PAGE_RUNS) });
    if (token) query.set('pageToken', token);
    const res = await api(`/inbox/calls?${query}`);
    if (res.status === 401) return { signIn: true };
    if (!res.ok) return { error: await errorOf(res) };
    body = await res.json();
    found.push(...body.calls);
    token = body.nextPageToken;
    if (!token) break;
  }
  return { body, calls: found, more: Boolean(token) };
}

/** The filters chosen, as the server's query parameters. */
function serverFilters() {
  const chosen = {
    agentId: $('filter-agent').value,
    threadId: $('filter-thread').value,
    resourceId: $('filter-resource').value,
  };
  return Object.fromEntries(Object.entries(chosen).filter(([, value]) => value));
}

async function refresh(round) {
  const read = await readPages();
  if (round !== generation) return;
  if (read.signIn) return showSignIn('The server refused this token (401). Sign in again.');
  if (read.error) {
    $('status').textContent = read.error;
    return;
  }
  const body = read.body;
  const p = body.principal;
  $('who').hidden = false;
  const tenant = p?.tenant === '*' ? ', all tenants' : p?.tenant ? `, tenant ${p.tenant}` : '';
  $('who').textContent = p
    ? `Signed in as ${p.name ? `${p.name} (${p.id})` : p.id}${tenant}`
    : 'Signed in (the server has no authentication: loopback only)';
  calls = read.calls;
  more = read.more;
  render();
  // Apart from the calls: a slow sweep must not hold the list of calls back.
  if (Date.now() - retryingReadAt >= RETRYING_POLL_MS) refreshRetrying().catch(() => {});
  await Promise.all([...decided.keys()].map(refreshDecided));
  $('status').textContent = `updated ${new Date().toLocaleTimeString()}`;
}

// --- the list -----------------------------------------------------------------------------------

const keyOf = (c) => JSON.stringify([c.runId, c.call.toolCallId, c.call.fingerprint]);

function fillFilter(select, values) {
  const chosen = select.value;
  const wanted = ['', ...[...new Set(values.filter((v) => v))].sort()];
  const current = [...select.options].map((o) => o.value);
  if (JSON.stringify(current) !== JSON.stringify(wanted)) {
    select.replaceChildren(...wanted.map((v) => el('option', { value: v }, v === '' ? 'all' : v)));
  }
  select.value = wanted.includes(chosen) ? chosen : '';
}

function render() {
  fillFilter(
    $('filter-agent'),
    calls.map((c) => c.agentId),
  );
  fillFilter(
    $('filter-thread'),
    calls.map((c) => c.threadId),
  );
  fillFilter(
    $('filter-resource'),
    calls.map((c) => c.resourceId),
  );
  const [agent, thread, resource] = ['filter-agent', 'filter-thread', 'filter-resource'].map((id) => $(id).value);
  const shown = calls.filter(
    (c) =>
      (!agent || c.agentId === agent) && (!thread || c.threadId === thread) && (!resource || c.resourceId === resource),
  );
  const keys = new Set(shown.map(keyOf));
  for (const [key, entry] of entries) {
    if (!keys.has(key)) {
      entry.node.remove();
      entries.delete(key);
    }
  }
  const list = $('calls');
  shown.forEach((call, index) => {
    const key = keyOf(call);
    let entry = entries.get(key);
    if (!entry) {
      entry = buildEntry(call);
      entries.set(key, entry);
    }
    entry.update(call);
    // Moved only when out of place: moving a node takes the focus from a field being filled in.
    if (list.children[index] !== entry.node) list.insertBefore(entry.node, list.children[index] ?? null);
  });
  $('empty').hidden = shown.length > 0 || more;
  $('more').hidden = !more;
  $('more-note').textContent =
    shown.length > 0
      ? `These are the calls of the newest ${pages * PAGE_RUNS} waiting runs; more runs wait.`
      : `None of the newest ${pages * PAGE_RUNS} waiting runs has a call for you here; more runs wait.`;
  showLinked();
}

/** The runs whose model step is being retried because its provider fails: they wait on no one, yet. */
async function refreshRetrying() {
  retryingReadAt = Date.now();
  const res = await api('/inbox/retrying');
  if (!res.ok) return;
  const { runs, skipped, capped } = await res.json();
  const partial = [
    skipped > 0 ? `${skipped} running run${skipped === 1 ? '' : 's'} could not be read (see the server's log)` : '',
    capped
      ? 'only the first 200 running runs were looked at: ' +
        'agentctl runs list --model-retrying --limit 10000 looks further'
      : '',
  ].filter(Boolean);
  $('retrying-section').hidden = runs.length === 0 && partial.length === 0;
  $('retrying-partial').hidden = partial.length === 0;
  $('retrying-partial').textContent = partial.join('; ');
  $('retrying').replaceChildren(
    ...runs.map((run) =>
      el(
        'li',
        { className: 'retrying' },
        el('strong', {}, `${run.agentId ?? '?'} · ${run.runId}`),
        ` attempt ${run.attempt}`,
        run.nextAttemptAt ? `, next at ${new Date(run.nextAttemptAt).toLocaleTimeString()}` : '',
        run.windowEndsAt ? `, retried until ${new Date(run.windowEndsAt).toLocaleString()}` : '',
        el('div', { className: 'note' }, run.lastFailure),
      ),
    ),
  );
}

/** The webhook's link (`?run=…&call=…`): that entry, marked and scrolled to; or why it is not there. */
function showLinked() {
  if (!linked.run) return;
  const entry = [...entries.values()].find(
    (e) => e.call.runId === linked.run && (!linked.call || e.call.call.toolCallId === linked.call),
  );
  for (const e of entries.values()) e.node.classList.toggle('linked', e === entry);
  const note = $('link-note');
  if (entry) {
    note.hidden = true;
    if (!linked.shown) entry.node.scrollIntoView({ block: 'center' });
    linked.shown = true;
    return;
  }
  note.hidden = false;
  const where = more
    ? `is not among the calls of the newest ${pages * PAGE_RUNS} waiting runs ("Show more" reads the next), ` +
      'or waits no more, or is not yours to see'
    : 'waits no more, or is not yours to see';
  const shows = 'What the run shows of it is under "Decided here".';
  note.textContent = `Call ${linked.call ?? '(any)'} of run ${linked.run} ${where}. ${shows}`;
  if (!linked.missing) {
    linked.missing = true;
    track(linked.run);
  }
}

/** A call's preview, which its fingerprint covers; where it changed after an approval, the one approved before too. */
function previewParts(preview) {
  if (!preview) return [];
  const now = [
    el('h4', {}, 'Preview (an approval holds for this one only)'),
    el('pre', { className: 'preview' }, json(preview.value)),
  ];
  if (!preview.previous) return now;
  const before = el('pre', { className: 'preview previous' }, json(preview.previous.value));
  return [el('h4', {}, 'Preview approved before (it has changed since)'), before, ...now];
}

function buildEntry(data) {
  const { runId, call } = data;
  const node = el('li', { className: 'entry' });
  node.dataset.run = runId;
  node.dataset.call = call.toolCallId;
  const waited = el('p', { className: 'meta waited' });
  const approvals = el('p', { className: 'meta quorum' });
  const trail = el('ol', { className: 'trail' });
  const trailSummary = el('summary', {}, 'Decision trail');
  const error = el('p', { className: 'error', role: 'alert' });
  const refusal = el('p', { className: 'note refusal' });
  const actions = el('div', { className: 'actions' });
  const where = call.path.length
    ? `waits in ${call.path.map((h) => `${h.agentId} (run ${h.runId}, via ${h.viaToolCallId})`).join(' → ')}`
    : 'waits in this run';
  const parts = [
    el('h3', {}, call.toolName, el('span', { className: 'kind' }, call.kind)),
    el(
      'p',
      { className: 'meta' },
      `agent ${data.agentId ?? '?'} · run ${runId} · call ${call.toolCallId}`,
      data.threadId ? ` · thread ${data.threadId}` : '',
      data.resourceId ? ` · resource ${data.resourceId}` : '',
      data.startedBy ? ` · started by ${data.startedBy}` : '',
    ),
    el('p', { className: 'meta path' }, where),
    waited,
    approvals,
    el('p', { className: 'meta' }, 'fingerprint ', el('span', { className: 'fingerprint' }, call.fingerprint)),
    el('h4', {}, call.transformed ? 'Arguments (as the agent displays them)' : 'Arguments'),
    el('pre', { className: 'args' }, json(call.args)),
    call.judged
      ? el(
          'p',
          { className: 'note judged' },
          `The approval judge ${call.judged.version} asks a person: ${call.judged.reason}`,
        )
      : null,
    ...previewParts(call.preview),
    call.suspendPayload !== undefined ? el('h4', {}, 'Asks') : null,
    call.suspendPayload !== undefined ? el('pre', { className: 'payload' }, json(call.suspendPayload)) : null,
    call.uncertainty ? el('p', { className: 'note' }, `Uncertain: ${call.uncertainty}`) : null,
    refusal,
    actions,
    error,
    el('details', { className: 'trail-details' }, trailSummary, trail),
    conversation(data),
  ];
  node.append(...parts.filter((part) => part !== null));
  const entry = { node, call: data, sent: false };
  fillActions(entry, actions, error);
  entry.update = (fresh) => {
    entry.call = fresh;
    const now = Date.now();
    const asked = new Date(fresh.call.askedAt);
    let text = `waiting for ${duration(now - asked.getTime())} (since ${asked.toLocaleString()})`;
    const expires = fresh.call.expiresAt ? new Date(fresh.call.expiresAt) : undefined;
    if (expires) {
      const left = expires.getTime() - now;
      text += left > 0 ? ` · expires in ${duration(left)}` : ' · expired, closing';
    }
    const escalation = fresh.call.escalation;
    if (escalation && !escalation.escalated) {
      text += ` · escalates to ${escalation.decide.join(', ')} at ${new Date(escalation.at).toLocaleString()}`;
    }
    waited.textContent = text;
    const quorum = fresh.call.quorum;
    const who = quorum?.approvals.map((a) => a.principal).join(', ');
    approvals.hidden = !quorum;
    approvals.textContent = quorum
      ? `needs ${quorum.required} approvers: ${quorum.approvals.length} of ${quorum.required}` +
        (who ? ` (${who})` : '')
      : '';
    waited.classList.toggle('overdue', expires !== undefined && expires.getTime() - now < 5 * 60_000);
    refusal.textContent = fresh.mayDecide
      ? (fresh.approvalRefusal ?? '') && `You cannot approve this call: ${fresh.approvalRefusal}`
      : `You cannot decide this call: ${fresh.refusal}`;
    for (const button of actions.querySelectorAll('button.approve')) button.hidden = fresh.mayApprove === false;
    // A call that needs several approvers waits on after one: what is left to do shows again.
    if (entry.sent && fresh.mayApprove === false) {
      entry.sent = false;
      node.classList.remove('sent');
    }
    actions.hidden = !fresh.mayDecide || entry.sent;
    trailSummary.textContent = `Decision trail (${fresh.trail.length})`;
    trail.replaceChildren(...trailItems(fresh.trail));
  };
  return entry;
}

function trailItems(records) {
  if (records.length === 0) return [el('li', {}, 'no decisions yet')];
  return records.map((r) =>
    el(
      'li',
      { className: r.accepted ? 'accepted' : 'refused' },
      `${new Date(r.at).toLocaleString()} · ${r.kind}${r.accepted ? '' : ' (refused)'}`,
      r.toolCallId ? ` · ${r.toolName ?? ''} ${r.toolCallId}` : '',
      r.principal ? ` · by ${r.principal.id}` : '',
      r.by ? ` · note: ${r.by}` : '',
      r.reason ? ` · reason: ${r.reason}` : '',
      r.refusal ? ` · ${r.refusal.type}: ${r.refusal.message}` : '',
    ),
  );
}

// --- deciding -----------------------------------------------------------------------------------

async function decide(entry, kind, extra, error) {
  const { runId, call } = entry.call;
  const buttons = [...entry.node.querySelectorAll('button')];
  buttons.forEach((b) => (b.disabled = true));
  error.textContent = '';
  try {
    const res = await api(`/runs/${encodeURIComponent(runId)}/${ROUTES[kind]}`, {
      method: 'POST',
      body: JSON.stringify({ toolCallId: call.toolCallId, fingerprint: call.fingerprint, ...extra }),
    });
    if (!res.ok) {
      error.textContent = await errorOf(res);
      return;
    }
    entry.sent = true;
    entry.node.querySelector('.actions').hidden = true;
    entry.node.classList.add('sent');
    error.textContent = '';
    track(runId);
    void follow(runId, res);
  } catch (err) {
    error.textContent = `not sent: ${err.message}`;
  } finally {
    buttons.forEach((b) => (b.disabled = false));
  }
}

/** A standing grant from this call (conditions, scope, hours), then the call's own approval. */
function grantForm(entry, error) {
  const { runId, call } = entry.call;
  const max = call.grantable.maxHours;
  const where = control(
    'input',
    { type: 'text', placeholder: 'amount<=50, to$=@example.com', required: true },
    'where',
  );
  const scope = control(
    'select',
    {},
    'scope',
    el('option', { value: 'thread' }, 'this thread'),
    el('option', { value: 'run' }, 'this run'),
    el('option', { value: 'resource' }, 'every run of this resource'),
  );
  const hours = control('input', { type: 'number', min: 1, max, value: String(Math.min(8, max)) }, 'hours');
  const form = el(
    'form',
    { className: 'grant-form' },
    el('label', {}, 'calls of ', call.toolName, ' where (comma-separated) ', where),
    el('label', {}, ' in ', scope),
    el('label', {}, ' for hours ', hours),
    el('button', { type: 'submit' }, 'Approve and allow'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    const conditions = where.value
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean);
    const body = { toolCallId: call.toolCallId, fingerprint: call.fingerprint, scope: scope.value, where: conditions };
    const res = await api(`/runs/${encodeURIComponent(runId)}/grants`, {
      method: 'POST',
      body: JSON.stringify({ ...body, hours: Number(hours.value) }),
    });
    if (!res.ok) {
      error.textContent = await errorOf(res);
      return;
    }
    await decide(entry, 'approve', {}, error);
  });
  return el('details', { className: 'grant' }, el('summary', {}, 'Approve, and allow calls like this'), form);
}

function fillActions(entry, actions, error) {
  const { call } = entry.call;
  if (call.kind === 'approval') {
    const approve = el('button', { type: 'button', className: 'approve' }, 'Approve');
    approve.addEventListener('click', () => decide(entry, 'approve', {}, error));
    const reason = control('input', { type: 'text', placeholder: 'why (the model reads it)' }, 'reason');
    const decline = el('form', { className: 'decline-form' }, reason, el('button', { type: 'submit' }, 'Decline'));
    decline.addEventListener('submit', (event) => {
      event.preventDefault();
      void decide(entry, 'decline', reason.value ? { reason: reason.value } : {}, error);
    });
    actions.append(approve, decline);
    // Where the run says grants may cover the tool: approve, and allow calls like this one.
    if (call.grantable && call.path.length === 0) actions.append(grantForm(entry, error));
  } else if (call.kind === 'suspend') {
    actions.append(resumeForm(entry, call.resumeSchema));
  } else if (call.kind === 'client') {
    const result = control('textarea', { rows: 3, cols: 50, placeholder: 'the result, as JSON' }, 'result');
    const formError = el('p', { className: 'error', role: 'alert' });
    const form = el('form', {}, result, el('button', { type: 'submit' }, 'Send result'), formError);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const parsed = parseJson(result.value, formError);
      if (parsed.ok) void decide(entry, 'result', { result: parsed.value }, formError);
    });
    actions.append(form);
  } else if (call.kind === 'uncertain') {
    const retry = el('button', { type: 'button' }, 'Run it again');
    retry.addEventListener('click', () => decide(entry, 'resolve', { resolution: 'retry' }, error));
    const reason = control('input', { type: 'text', placeholder: 'why' }, 'reason');
    const fail = el('form', {}, reason, el('button', { type: 'submit' }, 'Fail it'));
    fail.addEventListener('submit', (event) => {
      event.preventDefault();
      void decide(entry, 'resolve', { resolution: 'fail', ...(reason.value ? { reason: reason.value } : {}) }, error);
    });
    actions.append(retry, fail);
  }
}

function parseJson(text, error) {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    error.textContent = `not JSON: ${err.message}`;
    return { ok: false };
  }
}

const enumOf = (schema) => (Array.isArray(schema?.enum) && schema.enum.length > 0 ? schema.enum : undefined);

/**
 * A form from the call's resumeSchema: text, number, checkbox, a select for an enum, checkboxes for a
 * list of enum values; anything else is a JSON field. The server checks what is sent (409
 * InvalidResumeData with the reason, shown in the form): the form does not second-guess it.
 */
function resumeForm(entry, schema) {
  const formError = el('p', { className: 'error', role: 'alert' });
  const form = el('form', { className: 'resume-form' });
  const fields = [];
  const properties = schema?.type === 'object' && schema.properties ? Object.entries(schema.properties) : undefined;
  if (properties) {
    const required = new Set(schema.required ?? []);
    for (const [name, property] of properties) fields.push(field(name, property, required.has(name)));
  } else {
    fields.push(jsonField(undefined, 'Resume data (JSON)', schema));
  }
  form.append(...fields.map((f) => f.node), el('button', { type: 'submit' }, 'Resume'), formError);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    formError.textContent = '';
    const values = fields.map((f) => [f.name, f.value(formError)]);
    if (values.some(([, v]) => v === INVALID)) return;
    const data = properties
      ? Object.fromEntries(values.filter(([, v]) => v !== undefined))
      : values[0][1] === undefined
        ? null
        : values[0][1];
    void decide(entry, 'resume', { resumeData: data }, formError);
  });
  return form;
}

const INVALID = Symbol('invalid');

function labelled(name, property, required, control) {
  const text = `${property?.title ?? name}${required ? ' *' : ''}`;
  const hint = property?.description ? el('span', { className: 'hint' }, ` ${property.description}`) : null;
  return el('label', {}, text, ' ', control, hint);
}

function field(name, property, required) {
  const options = enumOf(property);
  if (options) {
    const select = control(
      'select',
      {},
      name,
      el('option', { value: '' }, '— choose —'),
      ...options.map((o, i) => el('option', { value: String(i) }, String(o))),
    );
    return {
      name,
      node: labelled(name, property, required, select),
      value: () => (select.value === '' ? undefined : options[Number(select.value)]),
    };
  }
  const itemOptions = property?.type === 'array' ? enumOf(property.items) : undefined;
  if (itemOptions) {
    const boxes = itemOptions.map((o) => control('input', { type: 'checkbox', value: String(o) }, name));
    const node = el(
      'fieldset',
      {},
      el('legend', {}, `${property.title ?? name}${required ? ' *' : ''}`),
      ...itemOptions.map((o, i) => el('label', {}, boxes[i], ` ${String(o)}`)),
    );
    return {
      name,
      node,
      value: () => {
        const chosen = itemOptions.filter((_, i) => boxes[i].checked);
        return chosen.length > 0 ? chosen : undefined;
      },
    };
  }
  const type = property?.type;
  if (type === 'string') {
    const input = control('input', { type: 'text' }, name);
    return { name, node: labelled(name, property, required, input), value: () => input.value || undefined };
  }
  if (type === 'number' || type === 'integer') {
    const input = control('input', { type: 'text', inputMode: 'decimal' }, name);
    return {
      name,
      node: labelled(name, property, required, input),
      value: (error) => {
        const text = input.value.trim();
        if (text === '') return undefined;
        const number = Number(text);
        if (Number.isFinite(number)) return number;
        error.textContent = `${name}: ${JSON.stringify(text)} is not a number`;
        return INVALID;
      },
    };
  }
  if (type === 'boolean') {
    const input = control('input', { type: 'checkbox' }, name);
    return { name, node: labelled(name, property, required, input), value: () => input.checked };
  }
  return jsonField(name, `${property?.title ?? name}${required ? ' *' : ''} (JSON)`, property);
}

function jsonField(name, label, schema) {
  const area = control('textarea', { rows: 3, cols: 50 }, name ?? 'resumeData');
  const node = el('label', {}, label, ' ', area, el('pre', { className: 'schema' }, json(schema ?? {})));
  return {
    name,
    node,
    value: (error) => {
      if (area.value.trim() === '') return undefined;
      const parsed = parseJson(area.value, error);
      return parsed.ok ? parsed.value : INVALID;
    },
  };
}

// --- what a run said, and runs decided here -----------------------------------------------------

function conversation(data) {
  const list = el('ol', { className: 'conversation' });
  const details = el('details', { className: 'conversation-details' }, el('summary', {}, 'Conversation'), list);
  details.addEventListener('toggle', () => {
    if (details.open) void loadConversation(data, list);
  });
  return details;
}

async function loadConversation(data, list) {
  list.replaceChildren(el('li', {}, 'loading…'));
  try {
    list.replaceChildren(...(data.threadId ? await threadLines(data) : await streamLines(data.runId)));
  } catch (err) {
    list.replaceChildren(el('li', { className: 'error' }, err.message));
  }
}

function partText(part) {
  if (typeof part === 'string') return part;
  if (part?.type === 'text') return part.text;
  if (part?.type === 'tool-call') return `calls ${part.toolName}(${JSON.stringify(part.input ?? part.args)})`;
  if (part?.type === 'tool-result') return `${part.toolName} returned ${JSON.stringify(part.output ?? part.result)}`;
  return `[${part?.type ?? 'part'}]`;
}

async function threadLines(data) {
  const query = data.resourceId ? `?resourceId=${encodeURIComponent(data.resourceId)}` : '';
  const res = await api(`/threads/${encodeURIComponent(data.threadId)}/messages${query}`);
  if (!res.ok) throw new Error(await errorOf(res));
  const thread = await res.json();
  const messages = thread.messages.slice(-CONVERSATION_MESSAGES);
  if (messages.length === 0) return [el('li', {}, 'no messages yet')];
  return messages.map((m) => {
    const content = Array.isArray(m.content) ? m.content.map(partText).join(' ') : partText(m.content);
    return el('li', {}, el('strong', {}, `${m.role}: `), content);
  });
}

/** What the run's stream shows up to where it waits: the model's text and its tool calls. */
async function streamLines(runId) {
  const abort = new AbortController();
  const timeout = setTimeout(() => abort.abort(), 5000);
  try {
    const res = await api(`/runs/${encodeURIComponent(runId)}/stream?offset=0`, { signal: abort.signal });
    if (!res.ok) throw new Error(await errorOf(res));
    const text = await res.text();
    const lines = [];
    let current = '';
    for (const line of text.split('\n')) {
      if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
      const chunk = JSON.parse(line.slice(6));
      if (chunk.type === 'text-delta') current += chunk.delta;
      if (chunk.type === 'text-end' && current) {
        lines.push(el('li', {}, el('strong', {}, 'assistant: '), current));
        current = '';
      }
      if (chunk.type === 'tool-input-available') {
        lines.push(el('li', {}, el('strong', {}, 'tool call: '), `${chunk.toolName}(${JSON.stringify(chunk.input)})`));
      }
      if (chunk.type === 'tool-output-available') {
        lines.push(el('li', {}, el('strong', {}, 'tool result: '), JSON.stringify(chunk.output)));
      }
    }
    if (current) lines.push(el('li', {}, el('strong', {}, 'assistant: '), current));
    return lines.length > 0 ? lines.slice(-CONVERSATION_MESSAGES) : [el('li', {}, 'nothing said yet')];
  } finally {
    clearTimeout(timeout);
  }
}

/**
 * The decision's answer streams the run on from here, to its next pause or its end: its last chunk says
 * which, at once (the run's own status says so only once its stream's grace period is over).
 */
async function follow(runId, res) {
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  let outcome;
  try {
    while (outcome === undefined) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += value;
      const lines = buffered.split('\n');
      buffered = lines.pop();
      for (const line of lines) {
        if (!line.startsWith('data: {')) continue;
        const chunk = JSON.parse(line.slice(6));
        if (chunk.type === 'error') outcome = `failed: ${chunk.errorText}`;
        if (chunk.type === 'finish') {
          const reason = chunk.messageMetadata?.finishReason ?? chunk.finishReason;
          outcome = reason === 'suspended' ? 'went on, and waits again' : `finished (${reason})`;
        }
      }
    }
  } catch {
    // The run's status, read every poll, still tells.
  } finally {
    void reader.cancel().catch(() => {});
  }
  const entry = decided.get(runId);
  if (entry && outcome) {
    entry.outcome = outcome;
    void refreshDecided(runId, true);
  }
}

function track(runId) {
  if (decided.has(runId)) return;
  const status = el('p', { className: 'meta run-status' }, 'waiting for the run…');
  const trail = el('ol', { className: 'trail' });
  const receipts = el('button', { type: 'button', className: 'receipts' }, 'Download receipts');
  receipts.addEventListener('click', () => void downloadReceipts(runId, status));
  const node = el('li', { className: 'entry decided' }, el('h3', {}, `run ${runId}`), status, trail, receipts);
  node.dataset.run = runId;
  decided.set(runId, { node, status, trail, closed: false });
  $('decided').prepend(node);
  $('decided-section').hidden = false;
  void refreshDecided(runId);
}

/** The run's receipts (docs/guides/receipts.md) saved as a file; fetched, since a link carries no bearer token. */
async function downloadReceipts(runId, status) {
  const res = await api(`/runs/${encodeURIComponent(runId)}/receipts`);
  if (!res.ok) {
    status.textContent = await errorOf(res);
    return;
  }
  const url = URL.createObjectURL(await res.blob());
  el('a', { href: url, download: `${runId}.receipts.jsonl` }).click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

async function refreshDecided(runId, again = false) {
  const entry = decided.get(runId);
  if (!entry || (entry.closed && !again)) return;
  const res = await api(`/runs/${encodeURIComponent(runId)}`);
  if (!res.ok) {
    entry.status.textContent = await errorOf(res);
    entry.closed = res.status === 404 || res.status === 403;
    return;
  }
  const run = await res.json();
  const waiting = run.pendingToolCalls.map((c) => `${c.toolName} ${c.toolCallId}`).join(', ');
  const status = !run.closed && entry.outcome ? `the run ${entry.outcome}` : `status ${run.status}`;
  entry.status.textContent = `agent ${run.agentId ?? '?'} · ${status}` + (waiting ? ` · waits on ${waiting}` : '');
  entry.trail.replaceChildren(...trailItems(run.trail));
  entry.closed = run.closed;
}

setUpBatch({
  $,
  api,
  el,
  errorOf,
  filters: () => ({ agent: $('filter-agent').value, resource: $('filter-resource').value }),
  decidedRun: track,
});

if (sessionStorage.getItem(TOKEN_KEY)) showInbox();
else showSignIn();
