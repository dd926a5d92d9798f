/** Time to first event: from starting a run to its first event reaching the consumer. */
import type { Contender } from '../contender.ts';
import { startModelServer } from '../model-server.ts';
import { summarize, type Summary } from '../stats.ts';

export interface FirstEventParams {
  latencyMs: number;
  fanOut: number;
  warmup: number;
  trials: number;
}

export interface FirstEventResult {
  latencyMs: number;
  fanOut: number;
  firstEventMs: Summary;
}

export async function measureFirstEvent(
  contender: Contender,
  params: FirstEventParams,
): Promise<FirstEventResult | undefined> {
  const model = await startModelServer(params.latencyMs);
  const instance = await contender.create({ modelUrl: model.baseUrl });
  try {
    if (!instance.firstEvent) return undefined;
    for (let i = 0; i < params.warmup; i++) await instance.firstEvent(`fe-warm-${i}`, params.fanOut);
    const times: number[] = [];
    for (let t = 0; t < params.trials; t++)
      times.push((await instance.firstEvent(`fe-${t}`, params.fanOut)).firstEventMs);
    return { latencyMs: params.latencyMs, fanOut: params.fanOut, firstEventMs: summarize(times) };
  } finally {
    await instance.close();
    await model.close();
  }
}
