/**
 * Renders a run's events as live terminal lines for `parley run "<question>"`: routing, plan, step
 * and tool progress, approvals, verification, the streamed answer, and usage and cost at the end.
 * Progress goes to `progress` (stderr in the CLI), the answer to `answer` (stdout).
 */
import type { GraphEvent, UsageTotals } from '../graph/run/events.ts';

export interface TerminalOutput {
  progress(line: string): void;
  answer(text: string): void;
}

const clip = (text: string, max = 100) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export function formatUsage(u: UsageTotals): string {
  const cost = u.costUsd === null ? 'cost unknown' : `$${u.costUsd.toFixed(4)}`;
  return `${u.inputTokens} in / ${u.outputTokens} out tokens · ${cost} · ${u.modelCalls} model calls · ${u.toolCalls} tool calls`;
}

/** Returns a function to call with each event, in order. */
export function createTerminalRenderer(out: TerminalOutput): (event: GraphEvent) => void {
  let answering = false;
  return (e) => {
    switch (e.type) {
      case 'route.decided':
        out.progress(`route: ${e.stage} — ${e.reason}`);
        break;
      case 'plan.ready':
        out.progress(`plan${e.plan.steps.length ? '' : ' (empty)'} (round ${e.round}):`);
        for (const s of e.plan.steps) {
          const deps = s.dependsOn.length ? ` after ${s.dependsOn.join(', ')}` : '';
          out.progress(`  ${s.id} [${s.specialist}, ${s.phase}${deps}] ${clip(s.objective, 80)}`);
        }
        break;
      case 'step.spawned':
        out.progress(`  ✚ ${e.parentStepId} spawned ${e.stepId} [${e.specialist}, ${e.role}] ${clip(e.objective, 80)}`);
        break;
      case 'message.sent':
        out.progress(`  ✉ ${e.from} → ${e.to === '*' ? 'all' : e.to}: ${clip(e.preview, 80)}`);
        break;
      case 'context.written':
        out.progress(`  ✎ ${e.stepId} wrote "${e.key}": ${clip(e.preview, 80)}`);
        break;
      case 'step.started':
        out.progress(`▶ ${e.stepId} [${e.specialist}]${e.attempt > 1 ? ` attempt ${e.attempt}` : ''}`);
        break;
      case 'step.delta':
        out.progress(`  ${e.stepId}: ${clip(e.text)}`);
        break;
      case 'tool.started':
        out.progress(`  ⚙ ${e.tool} ${clip(JSON.stringify(e.args), 80)}`);
        break;
      case 'tool.finished':
        out.progress(
          `  ${e.status === 'ok' ? '✓' : '✗'} ${e.tool} ${e.status} (${e.durationMs} ms)${e.error ? `: ${clip(e.error)}` : ''}`,
        );
        break;
      case 'approval.requested':
        if (e.request.kind === 'tool') {
          for (const c of e.request.toolCalls) {
            out.progress(
              `  ? approval needed for ${c.tool} (${c.reason}): request ${e.request.id}, tool call ${c.toolCallId}`,
            );
          }
        } else {
          out.progress(
            `  ? input requested by ${e.request.source}: ${clip(e.request.message)} (request ${e.request.id})`,
          );
        }
        break;
      case 'approval.resolved':
        out.progress(`  approval ${e.outcome.requestId}: ${e.outcome.resolvedBy} by ${e.outcome.actor}`);
        break;
      case 'step.finished': {
        const took = e.lineage ? ` (${(e.lineage.durationMs / 1000).toFixed(1)} s)` : '';
        const mark = e.status === 'succeeded' ? '✓' : e.status === 'skipped' ? '–' : '✗';
        out.progress(`${mark} ${e.stepId} ${e.status}${took}${e.error ? `: ${clip(e.error)}` : ''}`);
        break;
      }
      case 'verify.result':
        out.progress(`verify round ${e.round}: score ${e.score.toFixed(2)} → ${e.next}`);
        break;
      case 'council.stage':
        out.progress(`council: ${e.stage} — ${e.detail}`);
        break;
      case 'answer.delta':
        answering = true;
        out.answer(e.text);
        break;
      case 'run.finished':
        if (answering) out.answer('\n');
        // The sources the answer cites, as Parley sends them (data, not part of the answer).
        if (e.sources?.length)
          out.progress(`sources: ${e.sources.map((s) => `[${s.stepId}] ${s.specialist}`).join(', ')}`);
        out.progress(
          `— ${e.status}${e.error ? `: ${e.error}` : ''} · ${(e.durationMs / 1000).toFixed(1)} s · ${formatUsage(e.usage)}` +
            (e.retryAfterMs !== undefined ? ` · retry after ${Math.ceil(e.retryAfterMs / 1000)} s` : ''),
        );
        break;
      default:
        break;
    }
  };
}
