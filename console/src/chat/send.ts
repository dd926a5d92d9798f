/**
 * One question through AG-UI (POST /ag-ui) with @ag-ui/client's HttpAgent: the console is an AG-UI
 * client of Parley itself. Loaded on the first send, so the AG-UI client is not in the first paint.
 * The run goes on if the page closes (continueOnDisconnect): a reload finds it and follows its events.
 */
import { HttpAgent } from '@ag-ui/client';
import { authHeaders } from '../api/client.ts';
import type { RunMode } from '../api/types.ts';
import { newId } from './ids.ts';

export interface SendHandlers {
  onStarted(runId: string): void;
  onAnswer(textSoFar: string): void;
  onApprovalRequired(): void;
}

export interface SendResult {
  runId: string;
  error?: string;
}

export async function sendQuestion(
  threadId: string,
  question: string,
  mode: RunMode,
  handlers: SendHandlers,
): Promise<SendResult> {
  const agent = new HttpAgent({ url: '/ag-ui', headers: authHeaders(), threadId });
  agent.addMessage({ id: newId(), role: 'user', content: question });
  const runId = newId();
  let answer = '';
  let error: string | undefined;
  try {
    await agent.runAgent(
      { runId, forwardedProps: { parley: { mode, continueOnDisconnect: true } } },
      {
        onRunStartedEvent: () => handlers.onStarted(runId),
        onTextMessageContentEvent: ({ event }) => {
          answer += event.delta;
          handlers.onAnswer(answer);
        },
        onCustomEvent: ({ event }) => {
          if (event.name === 'approval_required') handlers.onApprovalRequired();
        },
        onRunErrorEvent: ({ event }) => {
          error = event.message;
        },
      },
    );
  } catch (err) {
    error ??= err instanceof Error ? err.message : String(err);
  }
  return { runId, ...(error ? { error } : {}) };
}
