/** What every contender exposes to the harness. Each contender lives in bench/contenders/<name>.ts. */
import type { RunOutcome } from './workload.ts';

export interface ContenderSetup {
  /** Base URL of the scripted model's OpenAI-compatible API (…/v1). */
  modelUrl: string;
}

export interface ContenderInstance {
  /** One run of the workload with `fanOut` parallel specialists; resolves when the answer is final. */
  run(runId: string, fanOut: number): Promise<RunOutcome>;
  /** Milliseconds from starting a run to its first event, where the contender has events. */
  firstEvent?(runId: string, fanOut: number): Promise<{ firstEventMs: number; outcome: RunOutcome }>;
  /** CPU ms spent so far by a server this instance started (Postgres), which process.cpuUsage does not see. */
  serverCpuMs?(): number;
  close(): Promise<void>;
}

export interface Contender {
  name: string;
  /** One line saying what is measured (printed with the results). */
  description: string;
  /** Model calls one run must make, as counted at the scripted model's log. */
  expectedModelCalls(fanOut: number): number;
  /** Sequential model stages on this contender's critical path (4 for the shared workload). */
  criticalStages: number;
  create(setup: ContenderSetup): Promise<ContenderInstance>;
}
