/**
 * Who is deciding, and who may do what with an agent's runs. Sandbox-safe: the workflow checks
 * decisions against the same policy the client and the server check first.
 */
import { z } from 'zod';

/** Ids, names and roles are bounded: they travel in signals, the memo and the trail. */
const Name = z.string().min(1).max(256);

/**
 * The tenant of an all-tenants operator: a principal that sees and decides the runs of every tenant. Only
 * configuration makes one (a `SERVER_TOKENS` entry's `"tenant": "*"`, the role `jwtAuth` is told of); a
 * JWT's tenant claim `*` is refused, and runs it starts get no tenant of their own.
 */
export const ALL_TENANTS = '*';

/**
 * An authenticated principal: who starts a run or decides a tool call. The HTTP server makes it
 * from the request (bearer token, JWT); `agentctl` and the library from the identity the operator
 * configures (`--as`, `principal`).
 */
export const PrincipalSchema = z
  .object({
    id: Name,
    /** For people to read in the trail. */
    name: Name.optional(),
    roles: z.array(Name).max(64).optional(),
    groups: z.array(Name).max(64).optional(),
    /**
     * The tenant: runs of a principal with a tenant have it as their `resourceId`, and it sees only those.
     * {@link ALL_TENANTS} makes an all-tenants operator, which sees every tenant's runs.
     */
    tenant: Name.optional(),
    /**
     * How it was established, e.g. `http:bearer`, `http:jwt`, `operator` (agentctl `--as`, the library),
     * with the Temporal client identity it came through.
     */
    via: z.string().max(512).optional(),
  })
  .strict();
export type Principal = z.infer<typeof PrincipalSchema>;

/**
 * Who a rule lets in: `*` (any principal), `user:<id>`, `role:<role>`, `group:<group>`.
 * An empty list lets nobody in.
 */
export const AccessRuleSchema = z
  .array(
    z.string().regex(/^(\*|(user|role|group):.{1,256})$/, 'use "*", "user:<id>", "role:<role>" or "group:<group>"'),
  )
  .max(64);
export type AccessRule = z.infer<typeof AccessRuleSchema>;

/** One approval rule: where it matches (the tool, its arguments, who started the run, the hour) and its verdict. */
export const ApprovalRuleSchema = z
  .object({
    /** The tool, by its name on the agent, or `*` for every tool. */
    tool: z.string().min(1).max(256),
    /** Conditions on the call's arguments, all of which must hold, as batch decisions write them: `amount<=50`. */
    where: z.array(z.string().min(1).max(512)).max(20).optional(),
    /** Who started the run, as an access rule (`role:teller`, `user:ann`, `group:ops`). */
    startedBy: AccessRuleSchema.optional(),
    /** The hours (UTC) of the day it holds in: from `from` (0-23) up to, not including, `to` (1-24). */
    hours: z
      .object({ from: z.number().int().min(0).max(23), to: z.number().int().min(1).max(24) })
      .strict()
      .optional(),
    verdict: z.enum(['allow', 'deny', 'ask']),
    /** Why: the trail keeps it, and a denial's reason reaches the model. */
    reason: z.string().max(2000).optional(),
  })
  .strict();
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;

/** An agent's approval rules, with the version the trail names beside each verdict. */
export const ApprovalRulesSchema = z
  .object({
    version: z.string().min(1).max(64),
    rules: z.array(ApprovalRuleSchema).min(1).max(100),
  })
  .strict();
export type ApprovalRules = z.infer<typeof ApprovalRulesSchema>;

/**
 * The agent's model judge: asked about a call its approval rules hand to a person (or every call that
 * needs approval, without rules), before the call waits. It may deny it or hand it to a person, and may
 * approve it only where `allow` says so; a judge that fails, times out or answers anything else hands
 * the call to a person. Its verdict, model and version are in the trail.
 */
export const ApprovalJudgeSchema = z
  .object({
    version: z.string().min(1).max(64),
    /** The judge's model, by the worker's provider registry's name (`openai/gpt-4.1-mini`). */
    model: z.string().min(1).max(256),
    /** What the agent's owner tells the judge: what to allow, what to deny, when to ask a person. */
    instructions: z.string().min(1).max(8000),
    /** The tools it judges, by their names on the agent (unset: every tool whose calls need approval). */
    tools: z.array(z.string().min(1).max(256)).min(1).max(100).optional(),
    /** Whether its approval runs a call without a person. Default: no (it may only deny or ask). */
    allow: z.boolean().optional(),
    /** How long it may take, in seconds (default 30): then a person decides. */
    timeoutSeconds: z.number().int().min(1).max(300).optional(),
  })
  .strict();
export type ApprovalJudge = z.infer<typeof ApprovalJudgeSchema>;

/** Who may decide one tool's calls, and whether a run's starter may decide them. */
export const ToolAccessSchema = z
  .object({
    /** Who may approve, decline, resume or submit a result for this tool's calls. */
    decide: AccessRuleSchema.optional(),
    /**
     * Whether the principal who started the run may decide this tool's calls. Default: not for a tool
     * that requires approval (an approval is a second pair of eyes), yes otherwise.
     */
    selfApproval: z.boolean().optional(),
    /**
     * How many distinct principals the rule admits must approve a call of this tool before it runs (2 to
     * 10; default 1). Each counts once, one decline ends the call, and its deadline holds for them all.
     */
    quorum: z.number().int().min(2).max(10).optional(),
  })
  .strict();
export type ToolAccess = z.infer<typeof ToolAccessSchema>;

/**
 * An agent's access policy: who may start its runs, read them (and their streams), and decide their
 * tool calls. The agent owns it; a run cannot change it. Unset rules are `*`: any authenticated
 * principal, within its tenant.
 */
export const AccessPolicySchema = z
  .object({
    start: AccessRuleSchema.optional(),
    read: AccessRuleSchema.optional(),
    /** Who may decide any tool's calls, unless the tool's own entry says otherwise. */
    decide: AccessRuleSchema.optional(),
    /** The default for every tool; see {@link ToolAccessSchema}. */
    selfApproval: z.boolean().optional(),
    /** The default for every tool that requires approval; see {@link ToolAccessSchema}. */
    quorum: z.number().int().min(2).max(10).optional(),
    /**
     * Approval rules, asked before a call that needs approval waits for a person: the first rule that
     * matches allows it (it runs), denies it (declined, with the reason) or asks a person. No match: a
     * person decides. See {@link ApprovalRulesSchema}.
     */
    rules: ApprovalRulesSchema.optional(),
    /** A model judge, asked after the rules; see {@link ApprovalJudgeSchema}. */
    judge: ApprovalJudgeSchema.optional(),
    /**
     * Standing grants: the tools whose calls a principal who may approve them may also allow in advance
     * ("approve, and allow calls like this"), and how long such a grant may live (hours; default 24, at
     * most 2160). Unset: no grant approves anything. See docs/guides/approvals.md, "Standing grants".
     */
    grants: z
      .object({
        tools: z.array(z.string().min(1).max(256)).min(1).max(100),
        maxHours: z.number().int().min(1).max(2160).optional(),
      })
      .strict()
      .optional(),
    /** Per tool, by its name on the agent. */
    tools: z.record(z.string(), ToolAccessSchema).optional(),
  })
  .strict();
export type AccessPolicy = z.infer<typeof AccessPolicySchema>;
