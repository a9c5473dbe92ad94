// The inbox's batch form: a preview (a dry run of POST /batch-decisions), then the decision of exactly
// the calls it listed (their fingerprints), each decided on its own by the server. What the server answers
// (arguments, reasons, ids) reaches the page only as text.

/**
 * Sets the form up. `api` sends a request with the signed-in token; `el` makes an element with text
 * children; `filters` reads the page's agent and resource filters; `decidedRun` follows a decided run.
 */
export function setUpBatch({ $, api, el, errorOf, filters, decidedRun }) {
  let previewed = [];
  const request = (extra) => {
    const { agent, resource } = filters();
    const where = $('batch-where')
      .value.split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    const reason = $('batch-reason').value.trim();
    return {
      kind: $('batch-kind').value,
      toolName: $('batch-tool').value.trim(),
      ...(agent ? { agentId: agent } : {}),
      ...(resource ? { resourceId: resource } : {}),
      ...(where.length ? { where } : {}),
      ...(reason && $('batch-kind').value === 'decline' ? { reason } : {}),
      ...extra,
    };
  };
  const line = (verb, call, why) =>
    el(
      'li',
      { className: why ? 'refused' : 'taken' },
      `${verb} ${call.toolName} ${call.toolCallId} on run ${call.runId} ${JSON.stringify(call.args)}` +
        (why ? `: ${why}` : ''),
    );
  const show = (outcome, verb) => {
    $('batch-calls').replaceChildren(
      ...outcome.decided.map((c) => line(verb, c)),
      ...outcome.refused.map((c) => line('refused', c, `${c.type}: ${c.message}`)),
    );
    const more = outcome.capped ? '; more matched than one batch takes (500): narrow the conditions' : '';
    $('batch-status').textContent =
      `${outcome.decided.length} ${outcome.dryRun ? 'to decide' : 'decided'}, ${outcome.refused.length} refused${more}`;
  };
  const send = async (body) => {
    const res = await api('/batch-decisions', { method: 'POST', body: JSON.stringify(body) });
    if (!res.ok) {
      $('batch-status').textContent = await errorOf(res);
      return undefined;
    }
    return res.json();
  };

  $('batch-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    $('batch-decide').disabled = true;
    const outcome = await send(request({ dryRun: true }));
    if (!outcome) return;
    previewed = outcome.decided;
    show(outcome, `would ${$('batch-kind').value}`);
    $('batch-decide').disabled = previewed.length === 0;
  });
  $('batch-decide').addEventListener('click', async () => {
    $('batch-decide').disabled = true;
    const outcome = await send(request({ fingerprints: previewed.map((c) => c.fingerprint) }));
    previewed = [];
    if (!outcome) return;
    show(outcome, $('batch-kind').value === 'approve' ? 'approved' : 'declined');
    for (const call of outcome.decided) decidedRun(call.runId);
  });
}
