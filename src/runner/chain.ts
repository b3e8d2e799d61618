/**
 * One chain: a session at the start tier, then, while the agent asks for it with
 * `[ESCALATE:n] reason`, a session at each higher tier. The next tier must be above the current
 * one and at most the max tier (no loops); dry run suppresses tiers >= 2. Each tier is its own
 * session row, linked to its parent, and gets the handoff of the tier before. When the chain
 * ends, its summary is started in the background (never awaited: the next run does not wait).
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import type { SessionStatus, SessionTrigger, Stores } from '../db/index.js';
import type { Logger } from '../log.js';
import type { ChainSummarizer } from './chain-summary.js';
import { emitAlert, type OnAlert } from './alerts.js';
import type { EscalationRequest } from './ingest.js';
import type { RunSession, Tier } from './session-runner.js';

export interface ChainRequest {
  trigger: Exclude<SessionTrigger, 'escalation' | 'import'>;
  startTier: Tier;
  /** An operator's prompt for the first session; the tier prompt files are used otherwise. */
  prompt: string | null;
  /** Alert text from a webhook, shown to every tier of the chain. */
  alert: string | null;
}

export interface ChainOutcome {
  sessionIds: number[];
  /** Status of the last session of the chain. */
  status: SessionStatus;
}

export function createChainRunner(deps: {
  runSession: RunSession;
  stores: Stores;
  config: Config;
  clock: Clock;
  log: Logger;
  /** Writes the chain's summary in the background; none: no summaries. */
  summarizer?: Pick<ChainSummarizer, 'summarize'>;
  /** Told of each escalation followed (notifications). */
  onAlert?: OnAlert;
}) {
  const { runSession, stores, config, clock, log } = deps;
  const maxTier = config.runner.maxTier;

  const systemEvent = (sessionId: number, level: 'info' | 'warning', message: string) =>
    stores.events.insert({
      sessionId,
      source: 'system',
      level,
      service: null,
      message,
      createdAt: clock.now(),
    });

  /** The escalation to follow, or null; refusals are recorded as events on the session. */
  function nextTier(
    sessionId: number,
    tier: Tier,
    requests: readonly EscalationRequest[],
  ): EscalationRequest | null {
    if (requests.length === 0) return null;
    const valid = requests.filter((r) => r.tier > tier && r.tier <= maxTier);
    for (const r of requests.filter((x) => !valid.includes(x))) {
      systemEvent(
        sessionId,
        'warning',
        r.tier <= tier
          ? `Escalation to tier ${r.tier} ignored: it must be above the current tier ${tier}`
          : `Escalation to tier ${r.tier} ignored: the highest tier allowed is ${maxTier}`,
      );
    }
    if (valid.length === 0) return null;
    // Several requests: follow the highest tier asked for, with the reason given for it.
    const chosen = valid.reduce((a, b) => (b.tier > a.tier ? b : a));
    if (config.runner.dryRun && chosen.tier >= 2) {
      systemEvent(
        sessionId,
        'info',
        `Escalation to tier ${chosen.tier} suppressed (dry run): ${chosen.reason}`,
      );
      return null;
    }
    return chosen;
  }

  async function runTiers(
    req: ChainRequest,
    signal?: AbortSignal,
    onSession?: (id: number) => void,
  ): Promise<ChainOutcome> {
    const sessionIds: number[] = [];
    let tier = req.startTier;
    let trigger: SessionTrigger = req.trigger;
    let prompt = req.prompt;
    let parentSessionId: number | null = null;
    let handoff = null;
    for (;;) {
      const outcome = await runSession(
        {
          trigger,
          tier,
          prompt,
          parentSessionId,
          handoff,
          alert: req.alert,
          onStarted: (id) => onSession?.(id),
        },
        signal,
      );
      sessionIds.push(outcome.sessionId);
      if (outcome.status !== 'completed' || signal?.aborted) {
        if (outcome.escalations.length > 0 && outcome.status !== 'completed') {
          systemEvent(
            outcome.sessionId,
            'warning',
            `Escalation not followed: the session ended ${outcome.status}`,
          );
        }
        return { sessionIds, status: outcome.status };
      }
      const next = nextTier(outcome.sessionId, tier, outcome.escalations);
      if (!next) return { sessionIds, status: outcome.status };
      stores.sessions.markEscalated(outcome.sessionId);
      log.info('escalating', {
        session: outcome.sessionId,
        from: tier,
        to: next.tier,
        reason: next.reason,
      });
      emitAlert(
        deps.onAlert,
        {
          kind: 'escalation',
          fromTier: tier,
          toTier: next.tier,
          reason: next.reason,
          sessionId: outcome.sessionId,
        },
        log,
      );
      handoff = {
        fromTier: tier,
        fromSessionId: outcome.sessionId,
        reason: next.reason,
        chainEvents: sessionIds
          .flatMap((id) => stores.events.list({ sessionId: id, limit: 50 }))
          .sort((a, b) => a.id - b.id),
        previousFinalText: outcome.finalText,
      };
      parentSessionId = outcome.sessionId;
      tier = next.tier as Tier;
      trigger = 'escalation';
      prompt = null;
    }
  }

  return async function runChain(
    req: ChainRequest,
    signal?: AbortSignal,
    onSession?: (id: number) => void,
  ): Promise<ChainOutcome> {
    const outcome = await runTiers(req, signal, onSession);
    deps.summarizer?.summarize(outcome.sessionIds);
    return outcome;
  };
}

export type RunChain = ReturnType<typeof createChainRunner>;
